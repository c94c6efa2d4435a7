# arbench: `make` builds build/arbench; `make test` runs the CPU suites (no GPU needed).
# A job per CPU unless the command line says otherwise (make -j1: one at a time)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
# The CUDA toolkit: NVIDIA's packages put it in /usr/local/cuda; else the folder above the nvcc
# on PATH (a distribution's package: /usr)
CUDA_HOME ?= $(firstword $(wildcard /usr/local/cuda /usr/local/cuda-13.0 /usr/local/cuda-12*) \
                         $(patsubst %/bin/nvcc,%,$(shell command -v nvcc 2>/dev/null)))
# NCCL sits with the CUDA toolkit on the CPU machines and in /usr on the GPU machines.
NCCL_HOME ?= $(firstword $(foreach d,$(CUDA_HOME) /usr,$(if $(wildcard $(d)/include/nccl.h),$(d))))
NCCL_LIB  ?= $(firstword $(foreach d,$(NCCL_HOME)/lib64 $(NCCL_HOME)/lib /usr/lib/x86_64-linux-gnu,$(if $(wildcard $(d)/libnccl.so*),$(d))))
CUDA_LIB  ?= $(firstword $(wildcard $(CUDA_HOME)/lib64 $(CUDA_HOME)/lib))

CC      ?= gcc
NVCC    ?= $(CUDA_HOME)/bin/nvcc

# What the build needs, checked before anything runs: one line naming what is missing and how
# to install it (README.md: Prerequisites). nvcc and NCCL's headers stop every target that
# builds arbench; python3 stops the test suites and gnuplot `make plots`; elsewhere a missing
# one is a warning (runs draw no pictures without gnuplot). `make prerequisites` checks all four.
GOALS      := $(or $(MAKECMDGOALS),all)
NEED_CUDA  := $(filter-out clean format plots $(if $(and $(NCCL_TESTS_LOGS),$(RUN)),compare-nccl-tests),$(GOALS))
NEED_PY    := $(filter test test-long test-asan prerequisites,$(GOALS))
NEED_GP    := $(filter plots prerequisites,$(GOALS))
NO_NVCC    := $(if $(wildcard $(NVCC)),,nvcc (the CUDA toolkit 12 or 13: apt-get install cuda-toolkit-13-0 from NVIDIA's CUDA repository, or make CUDA_HOME=DIR))
NO_NCCL    := $(if $(wildcard $(NCCL_HOME)/include/nccl.h),,NCCL's nccl.h (apt-get install libnccl-dev from NVIDIA's CUDA repository, or make NCCL_HOME=DIR))
NO_PY      := $(if $(shell command -v python3 2>/dev/null),,python3 (apt-get install python3))
NO_GP      := $(if $(shell command -v gnuplot 2>/dev/null),,gnuplot (apt-get install gnuplot-nox))
and_then    = $(if $(1),$(1)$(if $(2),; ))$(2)
MISSING    := $(call and_then,$(call and_then,$(if $(NEED_CUDA),$(call and_then,$(NO_NVCC),$(NO_NCCL))),$(if $(NEED_PY),$(NO_PY))),$(if $(NEED_GP),$(NO_GP)))
ifneq ($(MISSING),)
$(error missing: $(MISSING))
endif
ifeq ($(MAKELEVEL)$(filter clean format,$(GOALS)),0)
MISS_SOFT  := $(call and_then,$(if $(NO_GP),$(NO_GP): runs draw no pictures),$(if $(NO_PY),$(NO_PY): make test needs it))
$(if $(MISS_SOFT),$(warning not found: $(MISS_SOFT)))
endif

CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -MMD -MP -Isrc -Iharness
# make SANITIZE=1: the C code (core, harness, tests, the simulated GPU) with AddressSanitizer and
# UndefinedBehaviorSanitizer; make test-asan builds it in build-asan and runs the CPU suites
SAN_ON  = -fsanitize=address -fsanitize=undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
SAN     = $(if $(SANITIZE),$(SAN_ON))
CFLAGS  += $(SAN)
GPU_INC  = -I$(CUDA_HOME)/include $(if $(NCCL_HOME),-I$(NCCL_HOME)/include)
NVFLAGS ?= -O3 -g -lineinfo
# the GPU architectures built: Hopper, plus PTX that later GPUs compile at load time; e.g.
# make GPU_ARCH="-gencode arch=compute_80,code=sm_80" for Ampere
GPU_ARCH ?= -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90
NVFLAGS += -std=c++17 $(GPU_ARCH) \
           -Xcompiler -Wall,-Wextra,-Werror -Isrc -Iharness $(GPU_INC) -MMD -MP
LDLIBS   = -L$(CUDA_LIB) -L$(NCCL_LIB) -Wl,-rpath,$(NCCL_LIB) -lnccl -lcudart_static \
           -lpthread -ldl -lrt -lm -lstdc++ $(SAN)

# make MPI=1: an arbench that runs one process per MPI rank when mpirun or srun starts it
# (harness/procs/procs_mpi.c), and alone otherwise; MPI through mpicc on PATH or $(MPI_HOME)/bin
MPICC ?= $(if $(MPI_HOME),$(MPI_HOME)/bin/mpicc,mpicc)
PROCS_SRC = harness/procs/procs_$(if $(MPI),mpi,single).c
LINK_CC   = $(if $(MPI),$(MPICC),$(CC))

B = build
CORE_SRC    = $(wildcard src/*.c src/lower/*.c algorithms/*.c)
# harness/ is in rooms (harness/ROOM/*.c, each room's README.md says what lives there); its
# objects stay in one folder, $(B)/obj/harness/NAME.o, so a file's room is not part of its name
HARNESS_ROOMS = $(patsubst %/,%,$(sort $(dir $(wildcard harness/*/*.c))))
HARNESS_SRC = $(filter-out harness/cmd/main.c harness/procs/procs_%.c,$(wildcard harness/*/*.c)) $(PROCS_SRC)
CUDA_SRC    = $(wildcard src/cuda/*.cu)
CORE_OBJ    = $(CORE_SRC:%.c=$(B)/obj/%.o)
HARNESS_OBJ = $(addprefix $(B)/obj/harness/,$(notdir $(HARNESS_SRC:.c=.o)))
CUDA_OBJ    = $(CUDA_SRC:%.cu=$(B)/obj/%.o)
TEST_SRC    = $(wildcard tests/test_*.c)
TEST_BIN    = $(TEST_SRC:tests/%.c=$(B)/tests/%)

.PHONY: all test test-long test-asan gputest run plots profile clean format golden-programs compare-nccl-tests prerequisites
all: $(B)/arbench

prerequisites: ; @echo "prerequisites: nvcc ($(NVCC)), NCCL ($(NCCL_HOME)/include/nccl.h), python3, gnuplot: all there"

$(B)/libarcore.a: $(CORE_OBJ)
	ar rcs $@ $^

$(B)/arbench: $(B)/obj/harness/main.o $(HARNESS_OBJ) $(CUDA_OBJ) $(B)/libarcore.a
	@rm -f $(B)/obj/harness/procs_$(if $(MPI),single,mpi).[od] # a build of the other kind: the simulator links every object
	$(LINK_CC) -o $@ $^ $(LDLIBS)

$(B)/obj/src/%.o $(B)/obj/algorithms/%.o: CFLAGS += -fPIC
# NVTX3 is header-only, in the CUDA toolkit's include folder
$(B)/obj/src/nvtx.o: CFLAGS += $(GPU_INC)
$(B)/obj/src/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<
$(B)/obj/algorithms/%.o: algorithms/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<
# the harness is plain C that calls the CUDA runtime and NCCL; a rule per object (not a
# pattern per room) so that an old path below can never be taken for a source
define harness_obj
$(B)/obj/harness/$(notdir $(1:.c=.o)): $(1)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS) $$(GPU_INC) -c -o $$@ $$<
endef
$(foreach f,$(filter-out harness/procs/procs_mpi.c,$(wildcard harness/*/*.c)),$(eval $(call harness_obj,$(f))))
# a build folder made before a file moved names it at its old path in its .d files (harness/
# before its rooms, or another room): those paths are nothing to make, and the objects
# rebuild from the rooms
HARNESS_NAMES = $(notdir $(wildcard harness/*/*.c harness/*/*.h))
$(sort $(filter-out $(wildcard harness/*/*.c harness/*/*.h),$(addprefix harness/,$(HARNESS_NAMES)) \
  $(foreach r,$(HARNESS_ROOMS),$(addprefix $(r)/,$(HARNESS_NAMES))))): ;
$(B)/obj/harness/procs_mpi.o: harness/procs/procs_mpi.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -c -o $@ $<
# the git revision is baked in for builds that run where there is no checkout
GIT_REV := $(shell git rev-parse HEAD 2>/dev/null)$(shell git diff --quiet HEAD -- 2>/dev/null || echo -modified)
$(B)/obj/harness/meta.o: CFLAGS += -DAR_BUILD_REV='"$(GIT_REV)"'
$(B)/obj/harness/meta.o: $(wildcard .git/HEAD .git/index)
# and a hash of the sources it is built from (meta.txt's build_sources), right where the checkout
# is stale or absent; tools/source_hash.sh lists them and gives the hash (of a commit's too)
BUILD_SRC := $(shell bash tools/source_hash.sh --files)
SRC_HASH := $(shell bash tools/source_hash.sh)
$(B)/obj/harness/meta.o: CFLAGS += -DAR_SOURCE_HASH='"$(SRC_HASH)"'
$(B)/obj/harness/meta.o: $(BUILD_SRC)
$(B)/obj/src/cuda/%.o: src/cuda/%.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -c -o $@ $<
# --compute gemm (src/cuda/load_gemm.cu) opens cuBLASLt, which comes with the CUDA toolkit, at
# its first GEMM (linked, every start would map it): the loader's search, then this folder
$(B)/obj/src/cuda/load_gemm.o: NVFLAGS += -DAR_CUBLASLT_PATH='"$(CUDA_LIB)/libcublasLt.so"'

# CPU test suites link the pure-C core and the argument parsers only
TEST_HX_OBJ = $(addprefix $(B)/obj/harness/,args.o bad_value.o config.o once.o)
$(B)/tests/%: tests/%.c tests/test.h $(B)/libarcore.a $(TEST_HX_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests -o $@ $< $(TEST_HX_OBJ) $(B)/libarcore.a -lm -lpthread -ldl

test: $(B)/arbench $(TEST_BIN)
	@B=$(B) SAN_FLAGS="$(SAN)" bash tests/run.sh $(SUITES)

# the CPU suites under the sanitizers (CI runs it; the model's and simulator's long suites stay
# out: minutes each under ASan); leaks are not reported (LSan off: the process exits at once)
ASAN_SUITES = schedules classic stragglar swing optcc critical scenarios degrade harness p2p_plan \
              config model_flow profile settings golden_programs cli run_cli configs sim \
              colocated_sim settings_sim degrade_sim hooks_sim profile_sim trace_sim fuzz \
              runs_sim mpi_sim nccl_modes_sim budget_sim import import_corpus import_bad \
              signals_sim strict_cli compute compute_sim
test-asan:
	@$(MAKE) --no-print-directory B=build-asan SANITIZE=1 build-asan/arbench
	@ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  $(MAKE) --no-print-directory B=build-asan SANITIZE=1 test SUITES="$(ASAN_SUITES)"

# make test-long: these suites again with their slow checks of parts that rarely change
# (TEST_LONG=1: tests/lib.sh `long`, tests/test.h test_long()): the transport simulators' full
# sweeps, the model's speed and streaming checks at 1024 and 256 ranks and Swing's 128x128
# torus, the torus schedules of 1024 and 4096 ranks, rhd-elim at 4095, Swing's 64x64 in the
# flow pricing, the model table's layout with every algorithm at 4096 ranks, mpirun's second
# watchdog waits and the rest of its bad input, more signal trials, timing under --degrade,
# every report page drawn and rendered, more fixtures and odd folder names drawn
# (minutes; CI runs it after make test). Every suite with a `long` part is here.
LONG_SUITES = tp_sim model model_pinned torus papers_flows schedules model_cli mpi_sim runs_sim \
              timing_sim report plots plot_points
test-long: $(B)/arbench $(TEST_BIN)
	@B=$(B) TEST_LONG=1 bash tests/run.sh $(LONG_SUITES)

# tools/linkprobe: what each way of moving data over NVLink delivers (docs/performance.md)
$(B)/linkprobe: tools/linkprobe.cu
	@mkdir -p $(dir $@)
	$(NVCC) -O3 -std=c++17 $(GPU_ARCH) -o $@ $< -cudart static

# the lowered programs of tests/golden/programs.list, written anew (explain each difference)
golden-programs: $(B)/arbench
	@bash tests/golden/lower.sh write $(B)

gputest: $(B)/arbench
	@B=$(B) bash tests/gpu/run.sh

run: $(B)/arbench
	@B=$(B) bash configs/run-main.sh

# arbench beside nccl-tests (tools/compare_nccl_tests.sh, which says every variable): both run
# on the same GPUs (NCCL_TESTS=DIR: its source tree, else all_reduce_perf on PATH; GPUS=N), or
# NCCL_TESTS_LOGS=DIR and/or RUN=DIR read instead (both: no GPU and no arbench needed); OUT=DIR
# gets compare.md
compare-nccl-tests: $(if $(and $(NCCL_TESTS_LOGS),$(RUN)),,$(B)/arbench)
	@A="$(B)/arbench" ARB_ALGOS="$(ARB_ALGOS)" NCCL_TESTS="$(NCCL_TESTS)" NCCL_TESTS_LOGS="$(NCCL_TESTS_LOGS)" \
	  RUN="$(RUN)" GPUS="$(GPUS)" OUT="$(OUT)" DEADLINE="$(DEADLINE)" SIZES="$(SIZES)" ARB_ITERS="$(ARB_ITERS)" \
	  SAMPLES="$(SAMPLES)" bash tools/compare_nccl_tests.sh

# make plots RUN=DIR [OUT=DIR]: the run folder's pictures into OUT, else DIR/plots (a checked-in
# run folder's into runs/plots-NAME: plots/plot.sh)
plots:
	@bash plots/plot.sh $(RUN) $(OUT)

# make profile ROWS="--algo ring,nccl --sizes 1G" [OUT=DIR]: those rows under Nsight Systems
profile: $(B)/arbench
	@B=$(B) OUT=$(OUT) bash tools/nsys.sh $(ROWS)

format:
	clang-format -i src/*.[ch] src/cuda/*.cu algorithms/*.c harness/*/*.[ch] tests/*.[ch]

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' 2>/dev/null)
