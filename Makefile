# arbench: `make` builds build/arbench; `make test` runs the CPU suites (no GPU needed).
CUDA_HOME ?= $(firstword $(wildcard /usr/local/cuda /usr/local/cuda-13.0 /usr/local/cuda-12*))
# NCCL sits with the CUDA toolkit on the CPU machines and in /usr on the GPU machines.
NCCL_HOME ?= $(firstword $(foreach d,$(CUDA_HOME) /usr,$(if $(wildcard $(d)/include/nccl.h),$(d))))
NCCL_LIB  ?= $(firstword $(foreach d,$(NCCL_HOME)/lib64 $(NCCL_HOME)/lib /usr/lib/x86_64-linux-gnu,$(if $(wildcard $(d)/libnccl.so*),$(d))))
CUDA_LIB  ?= $(firstword $(wildcard $(CUDA_HOME)/lib64 $(CUDA_HOME)/lib))

CC      ?= gcc
NVCC    ?= $(CUDA_HOME)/bin/nvcc
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -MMD -MP -Isrc -Iharness
GPU_INC  = -I$(CUDA_HOME)/include $(if $(NCCL_HOME),-I$(NCCL_HOME)/include)
NVFLAGS ?= -O3 -g -lineinfo
NVFLAGS += -std=c++17 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 \
           -Xcompiler -Wall,-Wextra,-Werror -Isrc -Iharness $(GPU_INC) -MMD -MP
# SAN=1: the host C with AddressSanitizer and UBSan (the CPU suites and the fake-GPU runs);
# keep it in a build folder of its own: make B=build-san SAN=1 test
ifeq ($(SAN),1)
SANFLAGS = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
CFLAGS  += $(SANFLAGS)
endif
LDLIBS   = $(SANFLAGS) -L$(CUDA_LIB) -L$(NCCL_LIB) -Wl,-rpath,$(NCCL_LIB) -lnccl -lcudart_static \
           -lpthread -ldl -lrt -lm -lstdc++

B = build
CORE_SRC    = $(wildcard src/*.c src/lower/*.c algorithms/*.c)
HARNESS_SRC = $(filter-out harness/main.c,$(wildcard harness/*.c))
CUDA_SRC    = $(wildcard src/cuda/*.cu)
CORE_OBJ    = $(CORE_SRC:%.c=$(B)/obj/%.o)
HARNESS_OBJ = $(HARNESS_SRC:%.c=$(B)/obj/%.o)
CUDA_OBJ    = $(CUDA_SRC:%.cu=$(B)/obj/%.o)
TEST_SRC    = $(wildcard tests/test_*.c)
TEST_BIN    = $(TEST_SRC:tests/%.c=$(B)/tests/%)

.PHONY: all test test-long gputest run plots profile clean format golden-programs
all: $(B)/arbench

$(B)/libarcore.a: $(CORE_OBJ)
	ar rcs $@ $^

$(B)/arbench: $(B)/obj/harness/main.o $(HARNESS_OBJ) $(CUDA_OBJ) $(B)/libarcore.a
	$(CC) -o $@ $^ $(LDLIBS)

$(B)/obj/src/%.o $(B)/obj/algorithms/%.o: CFLAGS += -fPIC
$(B)/obj/src/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<
$(B)/obj/algorithms/%.o: algorithms/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<
# the harness is plain C that calls the CUDA runtime and NCCL
$(B)/obj/harness/%.o: harness/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(GPU_INC) -c -o $@ $<
# the git revision is baked in for builds that run where there is no checkout
GIT_REV := $(shell git rev-parse HEAD 2>/dev/null)$(shell git diff --quiet HEAD -- 2>/dev/null || echo -modified)
$(B)/obj/harness/meta.o: CFLAGS += -DAR_BUILD_REV='"$(GIT_REV)"'
$(B)/obj/harness/meta.o: $(wildcard .git/HEAD .git/index)
$(B)/obj/src/cuda/%.o: src/cuda/%.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -c -o $@ $<

# CPU test suites link the pure-C core and the argument parsers only
$(B)/tests/%: tests/%.c tests/test.h $(B)/libarcore.a $(B)/obj/harness/args.o $(B)/obj/harness/config.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests -o $@ $< $(B)/obj/harness/args.o $(B)/obj/harness/config.o $(B)/libarcore.a -lm -lpthread -ldl

test: $(B)/arbench $(TEST_BIN)
	@B=$(B) SANFLAGS="$(SANFLAGS)" bash tests/run.sh $(SUITES)

# the long simulator sweep (2..8 ranks, 4 seeds: minutes); CI runs it after make test
test-long: $(B)/arbench
	@B=$(B) TP_SIM_LONG=1 bash tests/run.sh tp_sim

# tools/linkprobe: what each way of moving data over NVLink delivers (docs/performance.md)
$(B)/linkprobe: tools/linkprobe.cu
	@mkdir -p $(dir $@)
	$(NVCC) -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -o $@ $< -cudart static

# the lowered programs of tests/golden/programs.list, written anew (explain each difference)
golden-programs: $(B)/arbench
	@bash tests/golden/lower.sh write $(B)

gputest: $(B)/arbench
	@B=$(B) bash tests/gpu/run.sh

run: $(B)/arbench
	@B=$(B) bash configs/run-main.sh

plots:
	@bash plots/plot.sh $(RUN)

# make profile ROWS="--algo ring,nccl --sizes 1G" [OUT=DIR]: those rows under Nsight Systems
profile: $(B)/arbench
	@B=$(B) OUT=$(OUT) bash tools/nsys.sh $(ROWS)

format:
	clang-format -i src/*.[ch] src/cuda/*.cu algorithms/*.c harness/*.[ch] tests/*.[ch]

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' 2>/dev/null)
