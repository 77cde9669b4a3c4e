# mk/valgrind.mk — the cmocka unit tests under valgrind's memcheck.
#
#   make valgrind                    every tests/test_*.c program
#   make valgrind VALGRIND_TESTS=test_io   some of them
#
# Each program runs under `valgrind --leak-check=full --error-exitcode=1`
# with the environment of tests/run_unit.sh; any memcheck error or leak fails
# the target, and so does a program still running after 30 minutes (killed
# 30 s after its SIGTERM: a program blocked in io_uring_wait_cqe under
# valgrind was once seen to outlive the SIGTERM alone). Where valgrind's headers exist the library is built with
# HAVE_VALGRIND, so that storage/io_uring.c can tell memcheck which bytes the
# kernel wrote (a no-op when not running under valgrind).

VALGRIND       ?= valgrind
VALGRIND_FLAGS ?= --leak-check=full --errors-for-leak-kinds=definite,indirect \
                  --error-exitcode=1 --num-callers=30 -q
VALGRIND_TESTS ?= $(patsubst $(B)/tests/%,%,$(TEST_BIN))

ifneq ($(wildcard /usr/include/valgrind/memcheck.h),)
CPPFLAGS += -DHAVE_VALGRIND
endif

.PHONY: valgrind

valgrind: all $(TEST_BIN)
	@command -v $(VALGRIND) > /dev/null || { echo "valgrind: not installed (make deps)"; exit 1; }
	@export GNNDB_DATA=$$(sh scripts/data.sh); \
	pass=0; fail=0; \
	for t in $(VALGRIND_TESTS); do \
	    export GNNDB_TMP=$$(mktemp -d /tmp/gnndb-vg.XXXXXX); \
	    log=$$GNNDB_TMP.log; \
	    if timeout -k 30 1800 $(VALGRIND) $(VALGRIND_FLAGS) $(B)/tests/$$t > $$log 2>&1; then \
	        pass=$$((pass + 1)); echo "ok   $$t (valgrind)"; \
	    else \
	        fail=$$((fail + 1)); echo "FAIL $$t (valgrind)"; \
	        grep -A30 -m3 '^==[0-9]*== [A-Z]' $$log | head -80; tail -5 $$log; \
	    fi; \
	    rm -rf $$GNNDB_TMP $$log; \
	done; \
	echo "valgrind: $$pass clean, $$fail with errors"; [ $$fail -eq 0 ]
