#!/usr/bin/env python3
"""The Python side of bench/gpu.sh: batches into GPU memory through
gnndb.torch, two ways, in one process so that both see the same page cache
and the same GPU:

  stream  --db DB --sql 'SAMPLE ...;'  batches/s of the run with TO DEVICE
          'cuda:0' (tensors cloned on the device) and of the same run on
          the host with each batch's tensors moved by .to('cuda') as a
          trainer does; RESULT to_device_bps=.. host_to_bps=.. speedup=..
  cora    --data DIR  a 2-layer GraphSAGE (examples/train_sage.py) trained
          for --epochs on the GPU, its batches TO DEVICE, then host batches
          moved by .to(); the mean epoch time of each after the first;
          RESULT to_device_epoch_s=.. host_to_epoch_s=.. ratio=..

Without torch's CUDA it prints "SKIP: ..." and exits 0."""
import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "python"))
sys.path.insert(0, os.path.join(REPO, "examples"))

import torch                                    # noqa: E402
import torch.nn.functional as F                 # noqa: E402

from gnndb.torch import loader                  # noqa: E402


def consume(b):
    """What a trainer's first touch costs: one reduction over x, on the
    device, so that the batch is really there before the next."""
    return b.x.sum() if b.x is not None else b.n_id.sum()


def split_pragmas(sql):
    """--sql's statements as (the loader's pragmas dict, the one SAMPLE):
    the loader takes its pragmas apart from the statement it runs."""
    pragmas, rest = {}, []
    for st in filter(None, (t.strip() for t in sql.split(";"))):
        if st.upper().startswith("PRAGMA ") and "=" in st:
            name, value = st[len("PRAGMA "):].split("=", 1)
            pragmas[name.strip()] = value.strip().strip("'")
        else:
            rest.append(st)
    if len(rest) != 1:
        sys.exit("gpu_loader: --sql holds %d statements besides PRAGMAs; "
                 "give one SAMPLE" % len(rest))
    return pragmas, rest[0]


def stream_bps(db, sql, to_device, warm=3):
    """Batches per second of one run, after `warm` batches."""
    n, t0, acc = 0, None, torch.zeros((), device="cuda")
    pragmas, q = split_pragmas(sql)
    q += " TO DEVICE 'cuda:0';" if to_device else ";"
    for b in loader(db, q, pyg=False, pragmas=pragmas):
        if not to_device:
            b = b.to("cuda")
        acc += consume(b)
        n += 1
        if n == warm:
            torch.cuda.synchronize()
            t0 = time.time()
    torch.cuda.synchronize()
    if t0 is None or n <= warm:
        sys.exit("gpu_loader: the run has %d batches; give more" % n)
    return (n - warm) / (time.time() - t0)


def cora_epochs(data, epochs, to_device):
    """Mean seconds of the epochs after the first: train_sage.py's model
    and statement on the GPU."""
    import train_sage as ts
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory(prefix="gnndb-gpu-bench-") as tmp:
        db = os.path.join(tmp, "cora.gnndb")
        ts.build_database(db, data)
        model = ts.SAGE(1433, 64, 7).cuda()
        opt = torch.optim.Adam(model.parameters(), lr=0.01,
                               weight_decay=5e-4)
        times = []
        for epoch in range(1, epochs + 1):
            sql = ("SAMPLE 10,10 FROM cora SEEDS train FEATURES feat BATCH 64 "
                   "SHUFFLE SEED %d%s;"
                   % (epoch, " TO DEVICE 'cuda:0'" if to_device else ""))
            torch.cuda.synchronize()
            t0 = time.time()
            for b in loader(db, sql, pyg=False):
                if not to_device:
                    b = b.to("cuda")
                opt.zero_grad()
                loss = F.cross_entropy(ts.forward_batch(model, b), b.y)
                loss.backward()
                opt.step()
            torch.cuda.synchronize()
            times.append(time.time() - t0)
        return sum(times[1:]) / max(1, len(times) - 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", choices=("stream", "cora"))
    ap.add_argument("--db")
    ap.add_argument("--sql")
    ap.add_argument("--data")
    ap.add_argument("--epochs", type=int, default=10)
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("SKIP: torch sees no CUDA device")
        return 0
    if args.what == "stream":
        stream_bps(args.db, args.sql, False)     # the page cache warmed
        host = stream_bps(args.db, args.sql, False)
        dev = stream_bps(args.db, args.sql, True)
        print("RESULT to_device_bps=%.3f host_to_bps=%.3f speedup=%.3f"
              % (dev, host, dev / host))
    else:
        dev = cora_epochs(args.data, args.epochs, True)
        host = cora_epochs(args.data, args.epochs, False)
        print("RESULT to_device_epoch_s=%.4f host_to_epoch_s=%.4f ratio=%.3f"
              % (dev, host, dev / host))
    return 0


if __name__ == "__main__":
    sys.exit(main())
