# gnndb — build, test, install.
#
#   make              library (build/libgnndb.a, build/libgnndb.so) and shell
#   make demo         install missing packages, build, run the demo on cora
#   make test         every test (layers, unit, shell end-to-end, Python, pip install)
#   make pytest-pyg   the PyG interop tests, in build/pyg-venv (make pyg-venv)
#   make test SANITIZE=1       the same under AddressSanitizer + UBSan
#   make test SANITIZE=thread  the same under ThreadSanitizer
#   make CUDA=0       build without the CUDA toolkit
#   make install PREFIX=/usr/local [DESTDIR=...]
#   make pip-test     pip install . into a fresh venv, offline (mk/pip.mk)

VERSION    := 0.1.0
SOVERSION  := 0
PREFIX     ?= /usr/local
DESTDIR    ?=
PYTHON     ?= /usr/bin/python3

CC         ?= cc
CUDA_HOME  ?= /usr/local/cuda
NVCC       ?= $(CUDA_HOME)/bin/nvcc
ifeq ($(origin CUDA), undefined)
CUDA := $(shell test -x $(NVCC) -a -f $(CUDA_HOME)/include/cuda_runtime.h && echo 1 || echo 0)
endif

SANITIZE   ?=
ifeq ($(SANITIZE),)
B          := build
SANFLAGS   :=
else ifeq ($(SANITIZE),thread)
B          := build-tsan
SANFLAGS   := -fsanitize=thread -O1
else
B          := build-asan
SANFLAGS   := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined -O1
endif

CFLAGS     ?= -O2 -g
CFLAGS     += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -fPIC \
              -fvisibility=hidden -pthread -D_GNU_SOURCE $(SANFLAGS)
CPPFLAGS   += -Iinclude -Icommon -Istorage -Iengine -Iexec -Icmd -Istmt -I$(B)/gen
LDLIBS     := -llmdb -luring -lsqlite3 -lz -lm -lpthread
ifeq ($(CUDA),1)
CPPFLAGS   += -DGNNDB_CUDA=1 -I$(CUDA_HOME)/include
LDLIBS     += -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt
endif

LIB_DIRS   := common storage catalog parser engine exec cmd stmt gpu
LIB_SRC    := $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c))
LIB_OBJ    := $(patsubst %.c,$(B)/obj/%.o,$(LIB_SRC)) $(B)/obj/gen/grammar.o
ifeq ($(CUDA),1)
CU_SRC     := $(wildcard gpu/*.cu)
LIB_OBJ    += $(patsubst %.cu,$(B)/obj/%.cu.o,$(CU_SRC))
endif
SHELL_SRC  := $(wildcard shell/*.c)
SHELL_OBJ  := $(patsubst %.c,$(B)/obj/%.o,$(SHELL_SRC))
TEST_SRC   := $(wildcard tests/test_*.c)
TEST_BIN   := $(patsubst tests/%.c,$(B)/tests/%,$(TEST_SRC))
TEST_HELP  := $(filter-out tests/test_%,$(wildcard tests/*.c))
GPU_TEST_SRC := $(wildcard tests/gpu/test_*.c)
GPU_TEST_BIN := $(patsubst tests/gpu/%.c,$(B)/tests/gpu/%,$(GPU_TEST_SRC))
BENCH_SRC  := $(wildcard bench/*.c)
BENCH_BIN  := $(patsubst bench/%.c,$(B)/bench/%,$(BENCH_SRC))

.PHONY: all deps demo test unit e2e layers pytest pyg-venv pytest-pyg test-gpu bench clean install uninstall

all: $(B)/libgnndb.a $(B)/libgnndb.so $(B)/gnndb

deps:
	@sh scripts/deps.sh

# Generated parser: lemon writes grammar.c and grammar.h into $(B)/gen.
$(B)/gen/grammar.c $(B)/gen/grammar.h: parser/grammar.y
	@mkdir -p $(B)/gen
	lemon -q -d$(B)/gen -T/usr/share/lemon/lempar.c parser/grammar.y

$(B)/obj/gen/grammar.o: $(B)/gen/grammar.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Iparser $(CFLAGS) -Wno-unused-variable -c $< -o $@

$(B)/obj/%.o: %.c | $(B)/gen/grammar.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

# PTX for any GPU from Turing on (JIT-compiled once), and code for A100
# and H100. No C++ runtime is needed: statics and exceptions are off, so the
# library still links with cc.
NVCC_ARCH  ?= -gencode arch=compute_75,code=compute_75 \
              -gencode arch=compute_80,code=sm_80 \
              -gencode arch=compute_90,code=sm_90
$(B)/obj/%.cu.o: %.cu
	@mkdir -p $(dir $@)
	$(NVCC) -O2 $(NVCC_ARCH) -Iinclude -Icommon -Istorage -Igpu -MMD -MP \
	    -Xcompiler -fPIC,-fvisibility=hidden,-fno-threadsafe-statics,-fno-exceptions \
	    -c $< -o $@

$(B)/libgnndb.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(B)/libgnndb.so: $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,libgnndb.so.$(SOVERSION) $(SANFLAGS) -pthread \
	    -o $(B)/libgnndb.so.$(VERSION) $^ $(LDLIBS)
	ln -sf libgnndb.so.$(VERSION) $(B)/libgnndb.so.$(SOVERSION)
	ln -sf libgnndb.so.$(VERSION) $@

$(B)/gnndb: $(SHELL_OBJ) $(B)/libgnndb.a
	$(CC) $(CFLAGS) -o $@ $(SHELL_OBJ) $(B)/libgnndb.a $(LDLIBS) -lreadline

$(B)/tests/%: tests/%.c $(TEST_HELP) $(B)/libgnndb.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests $(CFLAGS) -o $@ $< $(TEST_HELP) $(B)/libgnndb.a $(LDLIBS) -lcmocka

$(B)/tests/gpu/%: tests/gpu/%.c $(B)/libgnndb.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Igpu $(CFLAGS) -o $@ $< $(B)/libgnndb.a $(LDLIBS)

# GPU tests: they compare device batches with host batches byte for byte
# where a CUDA device is present, and skip (saying so) where none is; the
# same tests against the stand-in runtime run everywhere (mk/gpu.mk).
test-gpu: all $(GPU_TEST_BIN)
	@sh tests/gpu/run.sh $(B)

$(B)/bench/%: bench/%.c $(B)/libgnndb.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -O3 -o $@ $< $(B)/libgnndb.a $(LDLIBS)

demo: deps all
	sh scripts/demo.sh $(B)/gnndb

unit: all $(TEST_BIN)
	@sh tests/run_unit.sh $(B)

e2e: all
	@sh tests/run_e2e.sh $(B)

# That every library file calls only downward (stmt, cmd, exec, engine,
# catalog/storage/parser/gpu, common/include) and no two call each other
# in a loop: read from the includes and calls (docs/architecture.md).
layers:
	@sh scripts/layers.sh

pytest: all
	@sh tests/run_pytest.sh $(B) $(PYTHON)

# PyG for the interop tests: a venv over Debian's python3 that sees its torch
# and numpy, plus torch_geometric (pure Python). Made once; the stamp makes
# it idempotent, and a failed install is retried on the next call.
PYG_VENV    := build/pyg-venv
PYG_VERSION := 2.8.1
pyg-venv: $(PYG_VENV)/.installed

$(PYG_VENV)/.installed:
	$(PYTHON) -m venv --system-site-packages $(PYG_VENV)
	$(PYG_VENV)/bin/pip install -q --disable-pip-version-check \
	    torch-geometric==$(PYG_VERSION) || { echo "pyg-venv: pip could \
	not install torch-geometric==$(PYG_VERSION) from PyPI (offline?)" >&2; \
	    exit 1; }
	touch $@

pytest-pyg: all pyg-venv
	@sh tests/run_pytest.sh $(B) $(PYG_VENV)/bin/python \
	    python/tests/test_pyg.py python/tests/test_interop.py \
	    python/tests/test_loader.py python/tests/test_pyg_backend.py \
	    python/tests/test_pyg_training.py

# The whole suite. Unsanitized, `make test` also runs the unit programs
# under ASan+UBSan and under valgrind, and each fuzz target for 30 s, so that
# memory errors and fuzz findings fail CI. Last, as a warning that never
# fails it, the files and functions grown too long (scripts/offenders.sh).
test: deps
	@$(MAKE) --no-print-directory unit e2e pytest pytest-pyg pip-test test-gpu layers
ifeq ($(SANITIZE),)
	@$(MAKE) --no-print-directory SANITIZE=1 unit
	@$(MAKE) --no-print-directory valgrind
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=30
endif
	-@sh scripts/offenders.sh

# The benchmark suite (not part of `make test`): `make bench` runs the
# default configuration, `make bench BENCH_ARGS=--quick` a one-minute one.
bench: all $(BENCH_BIN) bench-plot-deps
	sh bench/run.sh $(B) $(BENCH_ARGS)

clean:
	rm -rf build build-asan build-tsan python/gnndb.egg-info

# Topic fragments: install (mk/install.mk), fuzzing (mk/fuzz.mk), ...
include $(wildcard mk/*.mk)

-include $(wildcard $(B)/obj/*/*.d)
