CREATE GRAPH g FROM 'e.csv.gz' HEADER COLUMNS (src, dst) KEY 'edge_index';
IMPORT OGB 'ogbn_arxiv' AS arxiv UNDIRECTED SPLIT 'time';
IMPORT LABELS INTO g FROM 'l.npz' KEY 'node_label';
