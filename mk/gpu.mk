# The GPU tests against the stand-in CUDA runtime (tests/gpu/cudart_mock.c):
# the library's CUDA objects linked with the mock instead of cudart_static,
# so that the transfer operator, the GPU cache and device batches are
# tested on machines without a GPU. make test-gpu builds and runs them
# (tests/gpu/run.sh) beside the tests against the real runtime, which skip
# without a device; build/mock/libgnndb.so serves the Python tests of
# device batches (python/tests/test_device.py).
ifeq ($(CUDA),1)
LDLIBS_HOST  := $(filter-out -L$(CUDA_HOME)/lib64 -lcudart_static,$(LDLIBS))
GPU_MOCK_BIN := $(patsubst tests/gpu/%.c,$(B)/tests/gpu/mock/%,$(GPU_TEST_SRC))
MOCK_OBJ     := $(B)/obj/tests/gpu/cudart_mock.o

$(MOCK_OBJ): tests/gpu/cudart_mock.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Igpu $(CFLAGS) -c $< -o $@

$(B)/tests/gpu/mock/%: tests/gpu/%.c $(MOCK_OBJ) $(B)/libgnndb.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Igpu $(CFLAGS) -DGNNDB_MOCK=1 -o $@ $< $(MOCK_OBJ) \
	    $(B)/libgnndb.a $(LDLIBS_HOST)

$(B)/mock/libgnndb.so: $(LIB_OBJ) $(MOCK_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -shared $(SANFLAGS) -pthread -o $@ $^ $(LDLIBS_HOST)

gpu-mock: all $(GPU_MOCK_BIN) $(B)/mock/libgnndb.so
test-gpu: gpu-mock
# python/tests/test_device.py runs against the mock library: one left by an
# earlier build would test yesterday's engine
pytest: $(B)/mock/libgnndb.so
.PHONY: gpu-mock
endif
