# mk/bench.mk — the peer systems the benchmark is compared against.
#
#   make bench-peers     create bench/venv with PyTorch and DGL, for
#                        bench/dgl_baseline.py
#
# Never part of `make test` or CI: it downloads about 5 GB from PyPI (torch
# 2.2.1 brings its CUDA libraries along). It is idempotent: once
# `bench/venv/bin/python -c 'import dgl'` works it does nothing.
#
# The pins: DGL 2.1.0 is the newest DGL whose PyPI wheel goes with this
# Python (3.11) and with torch 2.2.x; numpy stays below 2 because torch 2.2
# was built against numpy 1. torchdata 0.7.1 (which DGL's graphbolt imports)
# pins torch 2.1.1, so it and DGL are installed with --no-deps and DGL's other
# requirements are named here, so that pip never swaps torch underneath.

BENCH_VENV        ?= bench/venv
BENCH_PY          := $(BENCH_VENV)/bin/python
BENCH_SYS_PYTHON  ?= /usr/bin/python3
BENCH_TORCH       ?= torch==2.2.1
BENCH_DGL         ?= dgl==2.1.0
BENCH_TORCHDATA   ?= torchdata==0.7.1
BENCH_DGL_DEPS    := "numpy<2" scipy networkx requests tqdm psutil pydantic \
                     pandas pyyaml
BENCH_PIP         := $(BENCH_PY) -m pip install --disable-pip-version-check \
                     --progress-bar off

.PHONY: bench-peers bench-peers-venv bench-peers-clean bench-plot-deps

# The sweep's plot (bench/results/sweep.png) is drawn with Debian's
# matplotlib; installed here, as root, only when missing.
bench-plot-deps:
	@dpkg -s python3-matplotlib > /dev/null 2>&1 || \
	    { apt-get update && apt-get install -y python3-matplotlib; }

bench-peers:
	@if [ -x $(BENCH_PY) ] && $(BENCH_PY) -c 'import dgl' > /dev/null 2>&1; then \
	    echo "bench-peers: $(BENCH_VENV) ready:" \
	        "$$($(BENCH_PY) -c 'import torch, dgl; print("torch", torch.__version__, "dgl", dgl.__version__)' 2>/dev/null)"; \
	else \
	    $(MAKE) --no-print-directory bench-peers-venv; \
	fi

bench-peers-venv:
	@dpkg -s python3-venv > /dev/null 2>&1 || { apt-get update && apt-get install -y python3-venv; }
	@test -x $(BENCH_PY) || $(BENCH_SYS_PYTHON) -m venv $(BENCH_VENV)
	@printf 'numpy<2\n%s\n' '$(BENCH_TORCH)' > $(BENCH_VENV)/constraints.txt
	$(BENCH_PIP) -c $(BENCH_VENV)/constraints.txt "numpy<2" '$(BENCH_TORCH)'
	$(BENCH_PIP) -c $(BENCH_VENV)/constraints.txt $(BENCH_DGL_DEPS)
	$(BENCH_PIP) --no-deps '$(BENCH_TORCHDATA)'
	@$(BENCH_PIP) --no-deps '$(BENCH_DGL)' || { \
	    echo "bench-peers: $(BENCH_DGL) not found; the versions PyPI has:"; \
	    $(BENCH_PY) -m pip index versions dgl; exit 1; }
	$(BENCH_PY) -c 'import torch, dgl; print("bench-peers: torch", torch.__version__, "dgl", dgl.__version__)'

bench-peers-clean:
	rm -rf $(BENCH_VENV)
