/* grammar.y — the gnndb language, for lemon. Each action is one call to a
** builder of build.c, which fills the statement in the parse context; no
** semantic value owns memory, so an abandoned parse leaks nothing. */

%name gnnParse
%token_prefix TK_
%token_type {gtok}
%extra_argument {parse_ctx *pctx}
%start_symbol cmd

%include {
#include <assert.h>
#include <stdlib.h>
#include "build.h"

/* Which terminals the parser would accept now (see the end of the file). */
struct yyParser;
static void gnn_expected(struct yyParser *p, unsigned char *ok, int n);
int gnnParseCheck(void *parser, int major, const gtok *t, parse_ctx *ctx);
}

/* Not reached in practice: parse.c checks each token first (gnnParseCheck). */
%syntax_error {
    unsigned char ok[YYNTOKEN];
    gnn_expected(yypParser, ok, YYNTOKEN);
    build_syntax_error(pctx, yymajor, &yyminor, ok, YYNTOKEN);
}

%stack_overflow {
    build_too_complex(pctx);
}

%parse_accept {
    pctx->accepted = 1;
}

/* Terminals in the order an "expected one of ..." list names them. */
%token SEMI ILLEGAL.
%token CREATE IMPORT SHOW DESCRIBE.
%token FORMAT UNDIRECTED DROP MAP NODES REORDER DIM TYPE STORE BLOCK.
%token CHECK PRAGMA EXPLAIN ANALYZE SAMPLE.
%token SEEDS FEATURES BATCH HYPERBATCH SHUFFLE SEED EPOCHS WITH LIMIT INTO TO.
%token GRAPH GRAPHS LABELS SPLIT ON FROM RANDOM.
%token DUPLICATES SELF LOOPS IDS SIZE ALL REPLACEMENT DEVICE.
%token ID INTEGER FLOAT STRING COMMA LP RP EQ.
%token PARTITION OF.
%token PROPAGATE OVER HOPS NORMALIZE SCAN CHUNK.
%token PACK EPOCH.
%token HEADER COLUMNS KEY OGB AS.
%token EDGE EDGES WITHOUT NEGATIVE PAIRS TRIPLET STRICT EXCLUDE SPLITS.

/* The words link prediction added stay usable as names (a table called
** "edges" from before them still parses) wherever a name is expected.
** WITHOUT is not among them: after BLOCK SIZE n, where a unit name may
** follow, it must read as the start of WITHOUT EDGE IDS. */
%fallback ID EDGE EDGES NEGATIVE PAIRS TRIPLET STRICT EXCLUDE SPLITS.

/* Heterogeneous graphs: their words fall back to names as well. */
%token RELATION COUNT REVERSE IN.
%token DOT LBRACE RBRACE LBRACKET RBRACKET COLON STAR.

/* GATHER's words (and IN ORDER's) fall back to names too. */
%token GATHER ROWS ORDER.
%fallback ID ROWS ORDER.

/* IMPORT ... REPLACE; a name as well. */
%token REPLACE.
%fallback ID REPLACE.

/* Time's words are names elsewhere too. */
%token TIMES TIME NODE AT TEMPORAL UNIFORM LAST BEFORE OR WINDOW BY.
%fallback ID TIMES TIME NODE AT TEMPORAL UNIFORM LAST BEFORE OR WINDOW BY.
%fallback ID RELATION COUNT REVERSE IN.

/* Appends and versions; VERSION and VERSIONS are names elsewhere too. */
%token INSERT VERSION VERSIONS.
%fallback ID VERSION VERSIONS.

/* COMPACT g: a word that starts a statement and nowhere else, so it stays
** a name wherever a name is expected (a graph called "compact" still
** parses, COMPACT compact too). */
%token COMPACT.
%fallback ID COMPACT.

/* ---- CREATE GRAPH ---------------------------------------------------- */
cmd ::= CREATE GRAPH ID(N) FROM STRING(P) graph_opts.
                                    { build_create_graph(pctx, &N, &P); }
cmd ::= CREATE GRAPH ID(N).         { build_create_graph(pctx, &N, NULL); }
graph_opts ::= .
graph_opts ::= graph_opts graph_opt.
graph_opt ::= FORMAT(K) ID(V).      { build_format(pctx, &K, &V, 0); }
graph_opt ::= UNDIRECTED(K).        { build_flag(pctx, &K, CL_UNDIRECTED); }
graph_opt ::= DROP(K) DUPLICATES.   { build_flag(pctx, &K, CL_DROP_DUPLICATES); }
graph_opt ::= DROP(K) SELF LOOPS.   { build_flag(pctx, &K, CL_DROP_SELF_LOOPS); }
graph_opt ::= MAP(K) IDS.           { build_flag(pctx, &K, CL_MAP_IDS); }
graph_opt ::= NODES(K) INTEGER(N).  { build_int(pctx, &K, CL_NODES, &N); }
graph_opt ::= REORDER(K) ID(V).     { build_reorder(pctx, &K, &V); }
graph_opt ::= block_size.
graph_opt ::= HEADER(K).            { build_flag(pctx, &K, CL_HEADER); }
graph_opt ::= COLUMNS(K) LP column(A) COMMA column(B) RP.
                                    { build_columns(pctx, &K, &A, &B, NULL); }
graph_opt ::= COLUMNS(K) LP column(A) COMMA column(B) COMMA column(T) RP.
                                    { build_columns(pctx, &K, &A, &B, &T); }
graph_opt ::= npz_key.
graph_opt ::= WITHOUT(K) EDGE IDS.  { build_flag(pctx, &K, CL_NO_EDGE_IDS); }
%type column {gtok}
column(A) ::= ID(X).                { A = X; }
column(A) ::= STRING(X).            { A = X; }
column(A) ::= INTEGER(X).           { A = X; }
npz_key ::= KEY(K) STRING(V).       { build_name(pctx, &K, CL_KEY, &V); }

block_size ::= BLOCK(K) SIZE INTEGER(N).
                                    { build_block_size(pctx, &K, &N, NULL); }
block_size ::= BLOCK(K) SIZE INTEGER(N) ID(U).
                                    { build_block_size(pctx, &K, &N, &U); }
block_size ::= BLOCK(K) SIZE STRING(S).
                                    { build_block_size(pctx, &K, &S, NULL); }

/* ---- IMPORT FEATURES / LABELS ----------------------------------------- */
cmd ::= IMPORT FEATURES ID(N) INTO qname(G) FROM STRING(P) feat_opts.
                                    { build_import(pctx, &N, &G, &P); }
cmd ::= IMPORT LABELS INTO qname(G) FROM STRING(P) label_opts.
                                    { build_import(pctx, NULL, &G, &P); }
feat_opts ::= .
feat_opts ::= feat_opts feat_opt.
feat_opt ::= format_type.
feat_opt ::= DIM(K) INTEGER(N).     { build_int(pctx, &K, CL_DIM, &N); }
feat_opt ::= STORE(K) ID(V).        { build_dtype(pctx, &K, CL_STORE, &V); }
feat_opt ::= block_size.
feat_opt ::= npz_key.
feat_opt ::= REPLACE(K).           { build_flag(pctx, &K, CL_REPLACE); }
label_opts ::= .
label_opts ::= label_opts format_type.
label_opts ::= label_opts npz_key.
label_opts ::= label_opts REPLACE(K).
                                    { build_flag(pctx, &K, CL_REPLACE); }
format_type ::= FORMAT(K) ID(V).    { build_format(pctx, &K, &V, 1); }
format_type ::= TYPE(K) ID(V).      { build_dtype(pctx, &K, CL_TYPE, &V); }

/* ---- IMPORT EDGE FEATURES: a row per input edge ----------------------- */
/* INTO g.r: relation r of typed graph g (qname puts r in node_type) */
cmd ::= IMPORT EDGE FEATURES ID(N) INTO qname(G) FROM STRING(P) feat_opts.
                                    { build_import_edge_features(pctx, &N, &G, &P); }

/* ---- IMPORT EDGE TIMES / NODE TIMES: an int64 per input edge or node --- */
cmd ::= IMPORT EDGE TIMES INTO ID(G) FROM STRING(P).
                                    { build_import_times(pctx, &G, &P, 0); }
cmd ::= IMPORT NODE TIMES INTO ID(G) FROM STRING(P).
                                    { build_import_times(pctx, &G, &P, 1); }

/* ---- IMPORT OGB: a graph, its features, labels and splits at once ------ */
cmd ::= IMPORT OGB STRING(P) AS ID(N) ogb_opts.
                                    { build_ogb(pctx, &P, &N); }
ogb_opts ::= .
ogb_opts ::= ogb_opts ogb_opt.
ogb_opt ::= UNDIRECTED(K).          { build_flag(pctx, &K, CL_UNDIRECTED); }
ogb_opt ::= SPLIT(K) STRING(V).     { build_name(pctx, &K, CL_SPLIT, &V); }
ogb_opt ::= block_size.

/* ---- CREATE SPLIT ----------------------------------------------------- */
cmd ::= CREATE SPLIT ID(N) ON qname(G) FROM STRING(P) split_key.
                                    { build_split(pctx, &N, &G, &P, NULL); }
split_key ::= .
split_key ::= npz_key.
cmd ::= CREATE SPLIT ID(N) ON qname(G) RANDOM fraction(F) split_seed.
                                    { build_split(pctx, &N, &G, NULL, &F); }
%type fraction {gtok}
fraction(A) ::= FLOAT(X).           { A = X; }
fraction(A) ::= INTEGER(X).         { A = X; }
split_seed ::= .
split_seed ::= SEED(K) INTEGER(N).  { build_seed(pctx, &K, &N); }

/* ---- CREATE EDGE SPLIT(S): seed edges for link prediction -------------- */
cmd ::= CREATE EDGE SPLIT ID(N) ON ID(G) FROM STRING(P) pair_opts.
                                    { build_edge_split(pctx, &N, &G, &P); }
pair_opts ::= .
pair_opts ::= pair_opts pair_opt.
pair_opt ::= FORMAT(K) ID(V).       { build_format(pctx, &K, &V, 0); }
pair_opt ::= HEADER(K).             { build_flag(pctx, &K, CL_HEADER); }
pair_opt ::= COLUMNS(K) LP column(A) COMMA column(B) RP.
                                    { build_columns(pctx, &K, &A, &B, NULL); }
pair_opt ::= npz_key.
cmd ::= CREATE EDGE SPLITS split_names ON ID(G) RANDOM split_fractions
        split_seed.                 { build_edge_splits(pctx, &G); }
split_names ::= ID(N).              { build_split_name(pctx, &N); }
split_names ::= split_names COMMA ID(N).
                                    { build_split_name(pctx, &N); }
split_fractions ::= fraction(F).    { build_split_fraction(pctx, &F); }
split_fractions ::= split_fractions COMMA fraction(F).
                                    { build_split_fraction(pctx, &F); }

/* ---- catalog statements ----------------------------------------------- */
cmd ::= SHOW GRAPHS.                { build_simple(pctx, AST_SHOW_GRAPHS, NULL, NULL); }
cmd ::= DESCRIBE qname(G).          { build_simple(pctx, AST_DESCRIBE, &G, NULL); }
cmd ::= DROP GRAPH ID(G).           { build_simple(pctx, AST_DROP_GRAPH, &G, NULL); }
cmd ::= DROP FEATURES ID(T) ON qname(G).
                                    { build_simple(pctx, AST_DROP_FEATURES, &T, &G); }
cmd ::= DROP SPLIT ID(S) ON qname(G).
                                    { build_simple(pctx, AST_DROP_SPLIT, &S, &G); }
/* ---- appends and versions ---------------------------------------------- */
cmd ::= INSERT(K) EDGES INTO ID(G) FROM STRING(P) insert_opts.
                                    { build_insert_edges(pctx, &K, &G, &P); }
insert_opts ::= .
insert_opts ::= insert_opts insert_opt.
insert_opt ::= FORMAT(K) ID(V).     { build_format(pctx, &K, &V, 0); }
insert_opt ::= HEADER(K).           { build_flag(pctx, &K, CL_HEADER); }
insert_opt ::= COLUMNS(K) LP column(A) COMMA column(B) RP.
                                    { build_columns(pctx, &K, &A, &B, NULL); }
insert_opt ::= COLUMNS(K) LP column(A) COMMA column(B) COMMA column(T) RP.
                                    { build_columns(pctx, &K, &A, &B, &T); }
insert_opt ::= npz_key.
cmd ::= INSERT(K) NODES INTO ID(G) COUNT INTEGER(N).
                                    { build_insert_nodes(pctx, &K, &G, &N); }
cmd ::= INSERT(K) ROWS INTO ID(T) ON ID(G) FROM STRING(P) row_opts.
                                    { build_insert_rows(pctx, &K, &T, &G, &P); }
cmd ::= INSERT(K) ROWS INTO LABELS ON ID(G) FROM STRING(P) row_opts.
                                    { build_insert_rows(pctx, &K, NULL, &G, &P); }
row_opts ::= .
row_opts ::= row_opts format_type.
row_opts ::= row_opts DIM(K) INTEGER(N). { build_int(pctx, &K, CL_DIM, &N); }
row_opts ::= row_opts npz_key.
cmd ::= SHOW VERSIONS ID(G).        { build_simple(pctx, AST_SHOW_VERSIONS, NULL, &G); }
cmd ::= DROP(K) VERSIONS BEFORE INTEGER(N) ON ID(G).
                                    { build_drop_versions(pctx, &K, &N, &G); }
cmd ::= COMPACT(K) ID(G).           { build_compact(pctx, &K, &G); }
sample_clause ::= AS(K) OF VERSION INTEGER(N).
                                    { build_as_of(pctx, &K, &N); }

cmd ::= DROP RELATION ID(R) ON ID(G).
                                    { build_simple(pctx, AST_DROP_RELATION, &R, &G); }
cmd ::= CHECK.                      { build_simple(pctx, AST_CHECK, NULL, NULL); }
cmd ::= CHECK ID(G).                { build_simple(pctx, AST_CHECK, NULL, &G); }

/* ---- heterogeneous graphs: node types, relations, qualified names ----- */
/* graph or graph.type: the action sets node_type, the value is the graph */
%type qname {gtok}
qname(A) ::= ID(G).                 { A = G; }
qname(A) ::= ID(G) DOT ID(T).       { A = G; build_node_type(pctx, &T); }

cmd ::= CREATE NODES ID(T) IN ID(G) COUNT(K) INTEGER(N).
                                    { build_create_nodes(pctx, &T, &G, &K, &N); }
cmd ::= CREATE RELATION ID(R) IN ID(G) FROM ID(S) TO ID(D) FROM STRING(P)
        rel_opts.                   { build_relation(pctx, &R, &G, &S, &D, &P); }
rel_opts ::= .
rel_opts ::= rel_opts rel_opt.
rel_opt ::= WITH(K) REVERSE.        { build_reverse(pctx, &K, NULL); }
rel_opt ::= WITH(K) REVERSE AS ID(V).
                                    { build_reverse(pctx, &K, &V); }
rel_opt ::= FORMAT(K) ID(V).        { build_format(pctx, &K, &V, 0); }
rel_opt ::= UNDIRECTED(K).          { build_flag(pctx, &K, CL_UNDIRECTED); }
rel_opt ::= DROP(K) DUPLICATES.     { build_flag(pctx, &K, CL_DROP_DUPLICATES); }
rel_opt ::= DROP(K) SELF LOOPS.     { build_flag(pctx, &K, CL_DROP_SELF_LOOPS); }
rel_opt ::= block_size.
rel_opt ::= HEADER(K).              { build_flag(pctx, &K, CL_HEADER); }
rel_opt ::= COLUMNS(K) LP column(A) COMMA column(B) RP.
                                    { build_columns(pctx, &K, &A, &B, NULL); }
rel_opt ::= npz_key.
rel_opt ::= WITHOUT(K) EDGE IDS.    { build_flag(pctx, &K, CL_NO_EDGE_IDS); }

/* ---- PRAGMA ----------------------------------------------------------- */
cmd ::= PRAGMA.                     { build_pragma(pctx, NULL); }
cmd ::= PRAGMA ID(N).               { build_pragma(pctx, &N); }
cmd ::= PRAGMA ID(N) EQ pragma_value.
                                    { build_pragma(pctx, &N); }
pragma_value ::= INTEGER(V).        { build_pragma_value(pctx, &V, NULL); }
pragma_value ::= INTEGER(V) ID(U).  { build_pragma_value(pctx, &V, &U); }
pragma_value ::= FLOAT(V).          { build_pragma_value(pctx, &V, NULL); }
pragma_value ::= FLOAT(V) ID(U).    { build_pragma_value(pctx, &V, &U); }
pragma_value ::= ID(V).             { build_pragma_value(pctx, &V, NULL); }
pragma_value ::= STRING(V).         { build_pragma_value(pctx, &V, NULL); }
/* ON is a keyword (CREATE SPLIT s ON g), yet PRAGMA strict = on reads best
** unquoted, as its 'off' does */
pragma_value ::= ON(V).             { build_pragma_value(pctx, &V, NULL); }

/* ---- SAMPLE ----------------------------------------------------------- */
cmd ::= sample.
cmd ::= EXPLAIN sample.             { build_explain(pctx, 1); }
cmd ::= EXPLAIN ANALYZE sample.     { build_explain(pctx, 2); }

sample ::= SAMPLE(K) fanouts FROM ID(G) sample_clauses.
                                    { build_sample(pctx, &K, &G); }
fanouts ::= hop_fanouts.
hop_fanouts ::= INTEGER(F).         { build_fanout(pctx, &F); }
hop_fanouts ::= hop_fanouts COMMA INTEGER(F).
                                    { build_fanout(pctx, &F); }

/* typed fanouts: {rel: f, ...} for one hop, {...} * k for k hops alike,
** [{...}, {...}] hop by hop */
fanouts ::= rel_map.
fanouts ::= rel_map STAR INTEGER(K). { build_hop_repeat(pctx, &K); }
fanouts ::= LBRACKET rel_maps RBRACKET.
rel_maps ::= rel_map.
rel_maps ::= rel_maps COMMA rel_map.
rel_map ::= hop_open rel_fanouts RBRACE.
rel_map ::= hop_open RBRACE(E).     { build_empty_hop(pctx, &E); }
hop_open ::= LBRACE(K).             { build_hop(pctx, &K); }
rel_fanouts ::= rel_fanout.
rel_fanouts ::= rel_fanouts COMMA rel_fanout.
rel_fanout ::= ID(R) COLON INTEGER(F).
                                    { build_rel_fanout(pctx, &R, &F); }

sample_clauses ::= .
sample_clauses ::= sample_clauses sample_clause.
sample_clause ::= SEEDS(K) ID(S).   { build_seeds(pctx, &K, AST_SEEDS_SPLIT, &S); }
sample_clause ::= SEEDS(K) ALL.     { build_seeds(pctx, &K, AST_SEEDS_ALL, NULL); }
sample_clause ::= SEEDS(K) ID(T) DOT ID(S).
                                    { build_typed_seeds(pctx, &K, &T, &S); }
sample_clause ::= SEEDS(K) ID(T) DOT ALL.
                                    { build_typed_seeds(pctx, &K, &T, NULL); }
sample_clause ::= seeds_list seed_ids RP.
seeds_list ::= SEEDS(K) LP.         { build_seeds(pctx, &K, AST_SEEDS_LIST, NULL); }
seed_ids ::= INTEGER(X).            { build_seed_id(pctx, &X); }
seed_ids ::= seed_ids COMMA INTEGER(X).
                                    { build_seed_id(pctx, &X); }
sample_clause ::= FEATURES(K) ID(T). { build_name(pctx, &K, CL_FEATURES, &T); }
sample_clause ::= BATCH(K) INTEGER(N).
                                    { build_int(pctx, &K, CL_BATCH, &N); }
sample_clause ::= HYPERBATCH(K) INTEGER(N).
                                    { build_int(pctx, &K, CL_HYPERBATCH, &N); }
sample_clause ::= SHUFFLE(K).       { build_flag(pctx, &K, CL_SHUFFLE); }
sample_clause ::= SEED(K) INTEGER(N).
                                    { build_seed(pctx, &K, &N); }
sample_clause ::= EPOCHS(K) INTEGER(N).
                                    { build_int(pctx, &K, CL_EPOCHS, &N); }
sample_clause ::= WITH(K) REPLACEMENT.
                                    { build_flag(pctx, &K, CL_REPLACEMENT); }
sample_clause ::= LIMIT(K) INTEGER(N).
                                    { build_int(pctx, &K, CL_LIMIT, &N); }
sample_clause ::= INTO(K) STRING(D). { build_name(pctx, &K, CL_INTO, &D); }
sample_clause ::= TO(K) DEVICE STRING(D).
                                    { build_name(pctx, &K, CL_DEVICE, &D); }
sample_clause ::= TO(K) DEVICE ID(D).
                                    { build_name(pctx, &K, CL_DEVICE, &D); }

/* ---- SAMPLE ... PARTITION k OF n (data-parallel shards) --------------- */
sample_clause ::= PARTITION(K) INTEGER(R) OF INTEGER(N).
                                    { build_partition(pctx, &K, &R, &N); }

/* ---- SAMPLE ... EDGES split: link prediction ------------------------- */
sample_clause ::= EDGES(K) ID(S).   { build_name(pctx, &K, CL_EDGES, &S); }
sample_clause ::= NEGATIVE(K) INTEGER(N).
                                    { build_negative(pctx, &K, &N, AST_NEG_SOURCE); }
sample_clause ::= NEGATIVE(K) INTEGER(N) PAIRS.
                                    { build_negative(pctx, &K, &N, AST_NEG_PAIRS); }
sample_clause ::= NEGATIVE(K) INTEGER(N) TRIPLET.
                                    { build_negative(pctx, &K, &N, AST_NEG_TRIPLET); }
sample_clause ::= STRICT(K).        { build_flag(pctx, &K, CL_STRICT); }
sample_clause ::= EXCLUDE(K) SEEDS. { build_flag(pctx, &K, CL_EXCLUDE_SEEDS); }
sample_clause ::= exclude_split exclude_names.
exclude_split ::= EXCLUDE(K) SPLIT. { build_flag(pctx, &K, CL_EXCLUDE_SPLIT); }
exclude_names ::= ID(S).            { build_exclude_split(pctx, &S); }
exclude_names ::= exclude_names COMMA ID(S).
                                    { build_exclude_split(pctx, &S); }
sample_clause ::= EDGE(K) FEATURES ID(T).
                                    { build_name(pctx, &K, CL_EDGE_FEATURES, &T); }

/* ---- SAMPLE ... AT TIMES 'f' | AT NODE TIME: time-respecting hops ------ */
sample_clause ::= AT(K) TIMES STRING(F). { build_at_times(pctx, &K, &F); }
sample_clause ::= AT(K) NODE TIME.  { build_at_times(pctx, &K, NULL); }
sample_clause ::= AT(K) EDGE TIME.  { build_at_edge_time(pctx, &K); }
sample_clause ::= TEMPORAL(K) UNIFORM.
                                    { build_temporal(pctx, &K, AST_TEMPORAL_UNIFORM); }
sample_clause ::= TEMPORAL(K) LAST. { build_temporal(pctx, &K, AST_TEMPORAL_LAST); }
sample_clause ::= BEFORE(K).        { build_time_cmp(pctx, &K, 1); }
sample_clause ::= AT(K) OR BEFORE.  { build_time_cmp(pctx, &K, 0); }
sample_clause ::= WINDOW(K) INTEGER(W). { build_window(pctx, &K, &W); }
sample_clause ::= BY(K) NODE TIME.  { build_time_by(pctx, &K, 1); }
sample_clause ::= BY(K) EDGE TIME.  { build_time_by(pctx, &K, 0); }

/* ---- PROPAGATE and SCAN (pre-propagated features) ---------------------- */
cmd ::= PROPAGATE(K) ID(F) OVER ID(G) HOPS INTEGER(N) prop_norm INTO ID(O).
                                    { build_propagate(pctx, &K, &F, &G, &N, &O); }
prop_norm ::= .
prop_norm ::= NORMALIZE(K) ID(V).   { build_normalize(pctx, &K, &V); }

cmd ::= SCAN(K) ID(T) scan_on scan_clauses.
                                    { build_scan(pctx, &K, &T); }
scan_on ::= .
scan_on ::= ON ID(G).               { build_scan_graph(pctx, &G); }
scan_clauses ::= .
scan_clauses ::= scan_clauses scan_clause.
scan_clause ::= SEEDS(K) ID(S).     { build_seeds(pctx, &K, AST_SEEDS_SPLIT, &S); }
scan_clause ::= SEEDS(K) ALL.       { build_seeds(pctx, &K, AST_SEEDS_ALL, NULL); }
scan_clause ::= seeds_list seed_ids RP.
scan_clause ::= BATCH(K) INTEGER(N). { build_int(pctx, &K, CL_BATCH, &N); }
scan_clause ::= SHUFFLE(K).         { build_flag(pctx, &K, CL_SHUFFLE); }
scan_clause ::= CHUNK(K) INTEGER(N). { build_int(pctx, &K, CL_CHUNK, &N); }
scan_clause ::= SEED(K) INTEGER(N). { build_seed(pctx, &K, &N); }
scan_clause ::= EPOCHS(K) INTEGER(N).
                                    { build_int(pctx, &K, CL_EPOCHS, &N); }
scan_clause ::= LIMIT(K) INTEGER(N). { build_int(pctx, &K, CL_LIMIT, &N); }

/* ---- GATHER: rows of a table by index --------------------------------- */
cmd ::= GATHER(K) ID(T) gather_on gather_clauses.
                                    { build_gather(pctx, &K, &T); }
cmd ::= GATHER(K) LABELS gather_on gather_clauses.
                                    { build_gather(pctx, &K, NULL); }
gather_on ::= .
gather_on ::= ON ID(G).             { build_gather_on(pctx, &G, NULL); }
gather_on ::= ON ID(G) DOT ID(X).   { build_gather_on(pctx, &G, &X); }
gather_clauses ::= .
gather_clauses ::= gather_clauses gather_clause.
gather_clause ::= rows_list seed_ids RP.
rows_list ::= ROWS(K) LP.           { build_rows(pctx, &K, NULL); }
gather_clause ::= ROWS(K) STRING(F). { build_rows(pctx, &K, &F); }
gather_clause ::= BATCH(K) INTEGER(N). { build_int(pctx, &K, CL_BATCH, &N); }
gather_clause ::= TO(K) DEVICE STRING(D).
                                    { build_name(pctx, &K, CL_DEVICE, &D); }
gather_clause ::= TO(K) DEVICE ID(D).
                                    { build_name(pctx, &K, CL_DEVICE, &D); }
sample_clause ::= IN(K) ORDER.      { build_in_order(pctx, &K); }
sample_clause ::= typed_seeds_list seed_ids RP.
typed_seeds_list ::= SEEDS(K) ID(T) LP.
                                    { build_typed_seed_list(pctx, &K, &T); }

/* ---- packs: SAMPLE ... INTO PACK, SCAN PACK, DROP PACK ----------------- */
sample_clause ::= INTO(K) PACK ID(N). { build_name(pctx, &K, CL_PACK, &N); }
cmd ::= SCAN(K) PACK ID(N) scan_pack_clauses.
                                    { build_scan_pack(pctx, &K, &N); }
scan_pack_clauses ::= .
scan_pack_clauses ::= scan_pack_clauses scan_pack_clause.
scan_pack_clause ::= EPOCH(K) INTEGER(E).
                                    { build_int(pctx, &K, CL_EPOCH, &E); }
scan_pack_clause ::= INTO(K) STRING(D).
                                    { build_name(pctx, &K, CL_INTO, &D); }
scan_pack_clause ::= TO(K) DEVICE STRING(D).
                                    { build_name(pctx, &K, CL_DEVICE, &D); }
scan_pack_clause ::= TO(K) DEVICE ID(D).
                                    { build_name(pctx, &K, CL_DEVICE, &D); }
cmd ::= DROP PACK ID(N).            { build_simple(pctx, AST_DROP_PACK, &N, NULL); }

%code {
/* Would the parser, in its present state, shift token `tok` (or accept, for
** the end of input)? Lemon's tables choose a default reduction for tokens
** they do not list, so the check replays reductions on a copy of the state
** stack until the token is shifted or refused. */
static int gnn_accepts(yyParser *p, int tok)
{
    enum { MAXD = 512 };
    YYACTIONTYPE stk[MAXD];
    int top = (int)(p->yytos - p->yystack);
    if (top < 0 || top >= MAXD - 8) return 0;
    for (int i = 0; i <= top; i++) stk[i] = p->yystack[i].stateno;
    YYACTIONTYPE act = stk[top];
    for (int guard = 0; guard < 1000; guard++) {
        act = yy_find_shift_action((YYCODETYPE)tok, act);
        if (act >= YY_MIN_REDUCE) {
            unsigned rule = act - YY_MIN_REDUCE;
            int nrhs = yyRuleInfoNRhs[rule];          /* zero or negative */
            if (top + nrhs < 0 || top + nrhs + 1 >= MAXD) return 0;
            act = yy_find_reduce_action(stk[top + nrhs],
                                        (YYCODETYPE)yyRuleInfoLhs[rule]);
            top += nrhs + 1;
            stk[top] = act;
        } else if (act <= YY_MAX_SHIFTREDUCE || act == YY_ACCEPT_ACTION) {
            return 1;
        } else {
            return 0;
        }
    }
    return 0;
}

static void gnn_expected(yyParser *p, unsigned char *ok, int n)
{
    for (int t = 0; t < n; t++) ok[t] = (unsigned char)gnn_accepts(p, t);
    /* where a name is expected, the words that fall back to names are
    ** names too: "name" says it without listing them */
#ifdef YYFALLBACK
    if (ok[TK_ID])
        for (int t = 0; t < n && t < (int)(sizeof yyFallback /
                                           sizeof yyFallback[0]); t++)
            if (yyFallback[t] == TK_ID) ok[t] = 0;
#endif
}

/* Whether keyword token `major` falls back to a name (%fallback above):
** such a word still names a graph or a table. */
int gnnParseFallsBack(int major)
{
#ifdef YYFALLBACK
    if (major > 0 && major < (int)(sizeof yyFallback / sizeof yyFallback[0]))
        return yyFallback[major] == TK_ID;
#endif
    (void)major;
    return 0;
}

/* Called by parse.c before each token: by the time lemon itself finds a
** syntax error it has made the default reductions, and fewer tokens would
** be named as expected than the statement allowed before the bad one. */
int gnnParseCheck(void *parser, int major, const gtok *t, parse_ctx *ctx)
{
    yyParser *p = parser;
    unsigned char ok[YYNTOKEN];
    if (major < 0 || major >= YYNTOKEN) return 0;
    if (gnn_accepts(p, major)) return 1;
    gnn_expected(p, ok, YYNTOKEN);
    build_syntax_error(ctx, major, t, ok, YYNTOKEN);
    return 0;
}
}
