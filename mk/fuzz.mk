# mk/fuzz.mk — libFuzzer targets (tests/fuzz/fuzz_*.c), built with clang
# straight from the library sources they exercise (not the gcc-built archive).
#
#   make fuzz                    build every target and run each FUZZ_SECONDS
#   make fuzz FUZZ_SECONDS=300   longer runs
#   make fuzz FUZZ_TARGETS=npy   only some targets
#   make fuzz-build              build only
#
# Seeds live in tests/fuzz/corpus/<target>/ (read-only); what the fuzzer adds
# goes to $(B)/fuzz/corpus/<target>/. A crash, leak, timeout or failed check
# fails the run and leaves the input in tests/fuzz/artifacts/ (gitignored);
# replay one with `build/fuzz/fuzz_<target> tests/fuzz/artifacts/<file>`.

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 30
FUZZ_TARGETS ?= parser npy edgelist block gz npz header ogb ogb_hetero idlist \
                timecol pack_record segmap
FUZZ_B       := $(B)/fuzz
FUZZ_FLAGS   := -g -O1 -std=gnu11 -D_GNU_SOURCE -pthread \
                -fsanitize=fuzzer,address,undefined \
                -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
                -Iinclude -Icommon -Istorage -Iparser -Iexec -I$(B)/gen
FUZZ_ART     := tests/fuzz/artifacts

FUZZ_SRC_npy      := storage/npy.c common/err.c
FUZZ_SRC_edgelist := storage/edgelist.c storage/gz.c storage/array.c \
                     storage/npz.c storage/npy.c storage/extsort.c common/err.c
FUZZ_SRC_block    := storage/block.c storage/graphpack.c common/err.c
FUZZ_SRC_gz       := storage/gz.c common/err.c
FUZZ_SRC_timecol  := storage/timecol.c storage/npy.c common/err.c
FUZZ_SRC_pack_record := exec/pack_record.c common/batch_fields.c common/err.c
FUZZ_SRC_segmap   := storage/segmap.c storage/block.c storage/graphpack.c \
                     common/sync_dir.c common/err.c
FUZZ_SRC_npz      := storage/npz.c storage/array.c storage/npy.c storage/gz.c \
                     storage/extsort.c common/err.c
FUZZ_SRC_idlist   := storage/idlist.c storage/array.c storage/npz.c \
                     storage/npy.c storage/gz.c storage/extsort.c common/err.c
FUZZ_SRC_header   := storage/edgelist.c storage/gz.c storage/array.c \
                     storage/npz.c storage/npy.c storage/extsort.c common/err.c
FUZZ_SRC_ogb      := storage/import_ogb.c storage/import_graph.c \
                     storage/import_features.c storage/csv_lines.c \
                     storage/edgelist.c \
                     storage/gz.c storage/array.c storage/npz.c storage/npy.c \
                     storage/extsort.c storage/block.c storage/blockfile.c \
                     storage/segmap.c storage/pagecache.c common/sync_dir.c \
                     storage/graphpack.c storage/graph_build.c \
                     storage/import_edges.c common/err.c common/sort.c
FUZZ_SRC_ogb_hetero := $(FUZZ_SRC_ogb) storage/import_ogb_hetero.c
FUZZ_SRC_parser   := $(wildcard parser/*.c) $(B)/gen/grammar.c common/err.c

FUZZ_BIN := $(patsubst %,$(FUZZ_B)/fuzz_%,$(FUZZ_TARGETS))

.PHONY: fuzz fuzz-build

fuzz-build: $(FUZZ_BIN)

define FUZZ_RULE
$(FUZZ_B)/fuzz_$(1): tests/fuzz/fuzz_$(1).c $(FUZZ_SRC_$(1)) $(B)/gen/grammar.h
	@mkdir -p $(FUZZ_B)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Wno-unused-variable -o $$@ $$< $(FUZZ_SRC_$(1)) -lz
endef
$(foreach t,parser npy edgelist block gz npz header ogb ogb_hetero idlist timecol pack_record segmap,$(eval $(call FUZZ_RULE,$(t))))

# Each target in turn (2 cores are shared; one fuzzer at a time). The
# "stat::" lines of -print_final_stats give the executions run.
fuzz: $(FUZZ_BIN)
	@mkdir -p $(FUZZ_ART)
	@fail=0; for t in $(FUZZ_TARGETS); do \
	    mkdir -p $(FUZZ_B)/corpus/$$t; \
	    dict=; [ -f tests/fuzz/$$t.dict ] && dict=-dict=tests/fuzz/$$t.dict; \
	    log=$(FUZZ_B)/fuzz_$$t.log; \
	    if $(FUZZ_B)/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
	        -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 $$dict \
	        -artifact_prefix=$(FUZZ_ART)/$$t- \
	        $(FUZZ_B)/corpus/$$t tests/fuzz/corpus/$$t > $$log 2>&1; then \
	        st=ok; else st=FAIL; fail=1; fi; \
	    execs=$$(sed -n 's/^stat::number_of_executed_units: *//p' $$log); \
	    cov=$$(grep -o 'cov: [0-9]*' $$log | tail -1); \
	    echo "$$st   fuzz_$$t: $${execs:-?} executions in $(FUZZ_SECONDS) s, $$cov"; \
	    [ $$st = ok ] || tail -40 $$log; \
	done; [ $$fail = 0 ]
