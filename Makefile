# calltrace — GNU Make build.
#   make            build build/calltrace and build/libcalltrace.so
#   make demo       install what is missing, build, trace examples/demo
#   make check      install what is missing, build, run every test
#   make check-quick  the same with one compiler/optimisation combo: the edit-test loop
#   make check-sanitize  the tool built with ASan+UBSan, a subset of the tests under it
#   make bench      side-by-side benchmarks (bench/)

CC	?= gcc
ifeq ($(origin CC),default)
CC	:= gcc
endif
# The target: the host's (uname -m) unless ARCH= says otherwise. make ARCH=aarch64
# on an x86-64 host cross-builds into build-aarch64/ with aarch64-linux-gnu-gcc
# and the arm64 libraries (scripts/install-deps.sh --aarch64; docs/AARCH64.md).
HOST_ARCH := $(shell uname -m)
ARCH	?= $(HOST_ARCH)
ifneq ($(ARCH),$(HOST_ARCH))
ifeq ($(origin CC),default)
CC	:= $(ARCH)-linux-gnu-gcc
else ifeq ($(CC),gcc)
CC	:= $(ARCH)-linux-gnu-gcc
endif
BUILD	?= build-$(ARCH)
export PKG_CONFIG_LIBDIR := /usr/lib/$(ARCH)-linux-gnu/pkgconfig:/usr/share/pkgconfig
endif
ARCH_DIR := src/arch/$(ARCH)
# the instruction decoder of dynamic patching: Zydis on x86-64; aarch64's own (fixed-size words)
DECODER_LIBS := $(if $(filter x86_64,$(ARCH)),-lZydis)
BUILD	?= build
PKGS	:= libdw libelf libzstd
VERSION	:= 0.1.0

WARN	:= -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-sign-compare
CFLAGS	?= -O2 -g
ALL_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) -D_GNU_SOURCE -DCT_VERSION=\"$(VERSION)\"

# make SANITIZE=address,undefined: the tool (build/calltrace: readers, recorder,
# renderers) and the compiler wrappers built with the sanitizers, into their own
# build directory. The runtime and the DWARF plugin stay plain: they live inside
# traced programs, where ASan's run-time cannot be loaded after the program's own
# libraries. gcc's run-times are linked statically: as two shared libraries,
# libasan and libubsan interpose each other's common parts and UBSan's reports
# ignore log_path (tests/run.sh collects every report from log files).
SANITIZE ?=
ifneq ($(SANITIZE),)
BUILD	:= build-san
SAN_FLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all \
	$(if $(findstring clang,$(CC)),,-static-libasan -static-libubsan)
endif
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

# The tool: everything but the runtime.
TOOL_DIRS := src/common src/util src/format src/symbols src/analysis src/output src/record src/cli \
	src/ptrace src/kernel
# the ptrace method shares the runtime's instruction relocation (and, in src/common/, its
# function selection)
TOOL_SRCS := $(foreach d,$(TOOL_DIRS),$(wildcard $(d)/*.c)) \
	$(ARCH_DIR)/relocate.c $(ARCH_DIR)/decode.c
# the ptrace tracer is written for x86-64 and aarch64 (src/arch/*/ptrace_arch.h): elsewhere
# --method=ptrace and attach say so, and the tool needs neither the selection nor the
# relocation it shares
ifeq ($(filter x86_64 aarch64,$(ARCH)),)
TOOL_SRCS := $(filter-out src/ptrace/% src/common/select.c $(ARCH_DIR)/%,$(TOOL_SRCS)) \
	src/ptrace/unsupported.c
endif
TOOL_OBJS := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(TOOL_SRCS))

# The runtime, loaded into traced programs: never instrumented, hidden symbols,
# frame pointers so the hooks can read their caller's stack pointer, unwind tables
# because C++ exceptions unwind through the runtime's __cxa_throw wrapper.
RT_SRCS := $(wildcard src/runtime/*.c src/runtime/*/*.c) $(wildcard src/common/*.c) \
	$(wildcard $(ARCH_DIR)/*.c)
RT_ASM  := $(wildcard $(ARCH_DIR)/*.S)
RT_OBJS := $(patsubst src/%.c,$(BUILD)/rt/%.o,$(RT_SRCS)) $(patsubst src/%.S,$(BUILD)/rt/%.o,$(RT_ASM))
RT_CFLAGS := -fPIC -fvisibility=hidden -fno-omit-frame-pointer -fno-instrument-functions \
	-ftls-model=initial-exec -fno-stack-protector -fasynchronous-unwind-tables
# the stubs' common case (fentry.S) saves no vector register: it must not touch one
$(BUILD)/rt/runtime/hotpath/fasthook.o: RT_CFLAGS += -mgeneral-regs-only

# The API for programs running without calltrace: functions that do nothing.
API_SRCS := $(wildcard src/api/*.c)
API_OBJS := $(patsubst src/%.c,$(BUILD)/rt/%.o,$(API_SRCS))

# The compiler wrappers: calltrace-cc, and calltrace-c++ (the same program).
WRAP_SRCS := $(wildcard src/wrapper/*.c)
WRAP_OBJS := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(WRAP_SRCS))

# The DWARF reader the runtime loads for record -a (only then): libdw's users
# inside a traced process, built position-independent.
PLUGIN_SRCS := $(wildcard src/plugin/*.c) $(wildcard src/symbols/protos*.c) src/common/proto.c
PLUGIN_OBJS := $(patsubst src/%.c,$(BUILD)/plugin/%.o,$(PLUGIN_SRCS))

all: $(BUILD)/calltrace $(BUILD)/libcalltrace.so $(BUILD)/libcalltrace-attach.so \
	$(BUILD)/libcalltrace-api.so \
	$(BUILD)/libcalltrace-dwarf.so wrappers

$(BUILD)/libcalltrace-dwarf.so: $(PLUGIN_OBJS)
	$(CC) -shared $(LDFLAGS) -Wl,-soname,libcalltrace-dwarf.so -o $@ $^ $(PKG_LIBS)

$(BUILD)/plugin/%.o: src/%.c | deps-check
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(PKG_CFLAGS) -fPIC -fvisibility=hidden -fno-instrument-functions \
		-MMD -MP -c $< -o $@

$(BUILD)/libcalltrace-api.so: $(API_OBJS)
	$(CC) -shared $(LDFLAGS) -Wl,-soname,libcalltrace-api.so -o $@ $^

ifneq ($(WRAP_SRCS),)
wrappers: $(BUILD)/calltrace-cc $(BUILD)/calltrace-c++

$(BUILD)/calltrace-cc: $(WRAP_OBJS)
	$(CC) $(LDFLAGS) $(SAN_FLAGS) -o $@ $^

$(BUILD)/calltrace-c++: $(BUILD)/calltrace-cc
	ln -sf calltrace-cc $@
else
wrappers:
endif

# flame's page is edited as HTML and compiled in as one C string: flame_page.c is
# generated from it and committed, so a build needs no python; after an edit of the
# HTML, make writes it again (tests/flame checks the committed one is current).
PYTHON ?= python3
src/output/flame_page.c: src/output/flame_page.html tests/flame/gen_page.py
	@if command -v $(PYTHON) >/dev/null; then echo "$(PYTHON) tests/flame/gen_page.py"; \
		$(PYTHON) tests/flame/gen_page.py; \
	else echo "calltrace: $(PYTHON) is missing: $@ kept as it is, older than the HTML" >&2; fi

# The tool takes only the demangler of libstdc++ (__cxa_demangle): linked in, it spares each
# run loading and relocating the whole library (about half a millisecond a recording).
STDCXX := -Wl,-Bstatic -lstdc++ -Wl,-Bdynamic

$(BUILD)/calltrace: $(TOOL_OBJS)
	$(CC) $(LDFLAGS) $(SAN_FLAGS) -o $@ $^ $(PKG_LIBS) $(DECODER_LIBS) $(STDCXX) -lm -ldl

$(BUILD)/libcalltrace.so: $(RT_OBJS)
	$(CC) -shared $(LDFLAGS) -Wl,-z,now -Wl,-soname,libcalltrace.so -o $@ $^ $(DECODER_LIBS) -ldl

# the name calltrace attach loads it by: its constructors then wait to be told
$(BUILD)/libcalltrace-attach.so: $(BUILD)/libcalltrace.so
	ln -sf libcalltrace.so $@

$(BUILD)/obj/%.o: src/%.c | deps-check
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) $(PKG_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/rt/%.o: src/%.c | deps-check
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(RT_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/rt/%.o: src/%.S
	@mkdir -p $(dir $@)
	$(CC) -fPIC -MMD -MP -c $< -o $@

# Fail early, with the fix, when a library is missing.
deps-check:
	@pkg-config --exists $(PKGS) || { echo "calltrace: missing libraries ($(PKGS)); run: scripts/install-deps.sh" >&2; exit 1; }
	@test -z '$(DECODER_LIBS)' || test -f /usr/include/Zydis/Zydis.h || { echo "calltrace: missing Zydis (libzydis-dev); run: scripts/install-deps.sh" >&2; exit 1; }

deps:
	@scripts/install-deps.sh

deps-test:
	@scripts/install-deps.sh --test

demo: deps
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory -C examples BUILD=$(abspath $(BUILD))

# make check also builds the tool with ASan+UBSan (into $(BUILD)-san, a few seconds):
# the hostile-program and hostile-trace tests run the recorder and the readers under it.
# The builds use every core unless make was given -j.
CHECK_J = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 2))
check-build: deps-test
	@$(MAKE) --no-print-directory $(CHECK_J) all
	@$(if $(SAN_FLAGS),,$(MAKE) --no-print-directory $(CHECK_J) SANITIZE=$(SAN_CHECK_DEFAULT) BUILD=$(BUILD)-san all)
CHECK_RUN = BUILD=$(BUILD) CT_SAN_FLAGS='$(SAN_FLAGS)' \
	$(if $(SAN_FLAGS),,CT_SAN=$(abspath $(BUILD))-san/calltrace) tests/run.sh
ifeq ($(ARCH),$(HOST_ARCH))
check: check-build
	@$(CHECK_RUN)
else
check: check-cross
endif

# make check ARCH=aarch64 on another host: the test programs built for the target
# and traced by the cross build under qemu-user, then read by the host's own tool
# (built into HOST_BUILD); CROSS_CHECK=REGEX picks programs (tests/cross/check.sh)
HOST_BUILD ?= build
check-cross:
	@scripts/install-deps.sh --$(ARCH)
	@$(MAKE) --no-print-directory $(CHECK_J) ARCH=$(ARCH) BUILD=$(BUILD) all
	@env -u PKG_CONFIG_LIBDIR $(MAKE) --no-print-directory $(CHECK_J) ARCH=$(HOST_ARCH) \
		BUILD=$(HOST_BUILD) all
	@CROSS_ARCH=$(ARCH) BUILD=$(BUILD) HOST_BUILD=$(HOST_BUILD) tests/cross/check.sh '$(CROSS_CHECK)'

# make check-quick: the edit-test loop: every sub-suite, the test programs with one
# combo (gcc-O2) instead of 13, less work where a sub-suite has a knob (the api
# suite's combos, 10 s of fuzzing instead of 50, the options suite with gcc only).
# A program whose sources did not change is not built again (tests/lib/job.sh).
check-quick: check-build
	@COMBOS=gcc-O2 FUZZ_BUDGET=10 OPTIONS_CCS=gcc $(CHECK_RUN)

# make check-sanitize: the tool built with ASan+UBSan (into build-san/, or BUILD=...)
# and a subset run under it, a few minutes: the bad-input (reader) tests, the unit,
# symbol cache, fault, export, flame and argument tests, and the programs with threads, fork,
# exceptions, longjmp and crashes at two combos (not the threads stress suite).
# make check SANITIZE=address,undefined runs everything under it (slower). Any
# sanitizer report fails the run.
SAN_CHECK_TESTS := ^(bad|unit|faults|export|flame|args|symcache)$$|threads8|thread_churn|fork|exceptions|longjmp|crash
SAN_CHECK_DEFAULT := address,undefined
check-sanitize:
	@$(MAKE) --no-print-directory SANITIZE=$(or $(SANITIZE),$(SAN_CHECK_DEFAULT)) check-sanitize-run

check-sanitize-run: deps-test
	@test -n '$(SAN_FLAGS)' || { echo "calltrace: use make check-sanitize" >&2; exit 1; }
	@$(MAKE) --no-print-directory all
	@BUILD=$(BUILD) CT_SAN_FLAGS='$(SAN_FLAGS)' COMBOS='gcc-O2 clang-O0' \
		tests/run.sh '$(SAN_CHECK_TESTS)'

# bench/encode_bench.c: the recorder's encoder alone on chunks rebuilt from a trace, 1 and N workers
$(BUILD)/encode_bench: bench/encode_bench.c $(filter-out $(BUILD)/obj/cli/main.o,$(TOOL_OBJS))
	$(CC) $(ALL_CFLAGS) $(PKG_CFLAGS) -MMD -MP -MF $@.d -o $@ $^ $(PKG_LIBS) $(DECODER_LIBS) $(STDCXX) -lm -ldl

bench: all
	@bench/run.sh

# make fuzz [FUZZ_TIME=600]: the libFuzzer harnesses, each run FUZZ_TIME seconds
# (tests/fuzz/fuzz.mk, docs/FUZZING.md)
fuzz:
	@$(MAKE) --no-print-directory -f tests/fuzz/fuzz.mk BUILD=$(BUILD) run

clean:
	rm -rf $(BUILD)

# ---- install (make install PREFIX=... DESTDIR=...) ----
# make install [PREFIX=/usr/local] [DESTDIR=stage] [BINDIR= LIBDIR= INCLUDEDIR= MANDIR=
# PKGCONFIGDIR=]; make uninstall with the same variables removes what it installed.
# The installed calltrace finds its runtime in BINDIR/../lib (or ../lib64): with
# another LIBDIR, set CALLTRACE_RUNTIME. DESTDIR is not written into calltrace.pc.
PREFIX		?= /usr/local
BINDIR		?= $(PREFIX)/bin
LIBDIR		?= $(PREFIX)/lib
INCLUDEDIR	?= $(PREFIX)/include
MANDIR		?= $(PREFIX)/share/man
PKGCONFIGDIR	?= $(LIBDIR)/pkgconfig
INSTALL		?= install

MAN1	:= calltrace.1 $(patsubst %,calltrace-%.1,record live attach replay report info dump flame \
	   export snapshot)
MAN3	:= calltrace.3
# One page per API function, each a link (.so) to calltrace.3, made in $(BUILD)/man3.
MAN3_LINKS := $(patsubst %,%.3,calltrace_active calltrace_enable calltrace_disable \
	   calltrace_enable_all calltrace_disable_all calltrace_mark calltrace_backtrace \
	   calltrace_snapshot)
ifneq ($(WRAP_SRCS),)
INST_WRAPPERS := calltrace-cc
MAN1	+= calltrace-cc.1 calltrace-c++.1
endif

# calltrace.pc: paths under PREFIX written as ${prefix}/..., so that
# pkg-config --define-prefix can relocate it.
pc_rel = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))
PC_SED	= -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(call pc_rel,$(LIBDIR))|g' \
	  -e 's|@INCLUDEDIR@|$(call pc_rel,$(INCLUDEDIR))|g' -e 's|@VERSION@|$(VERSION)|g'

INST_DIRS = $(BINDIR) $(LIBDIR) $(INCLUDEDIR) $(PKGCONFIGDIR) $(MANDIR)/man1 $(MANDIR)/man3
INST_FILES = $(BINDIR)/calltrace $(INST_WRAPPERS:%=$(BINDIR)/%) \
	$(if $(INST_WRAPPERS),$(BINDIR)/calltrace-c++) \
	$(LIBDIR)/libcalltrace.so $(LIBDIR)/libcalltrace-attach.so $(LIBDIR)/libcalltrace-api.so \
	$(LIBDIR)/libcalltrace-dwarf.so \
	$(INCLUDEDIR)/calltrace.h \
	$(PKGCONFIGDIR)/calltrace.pc $(MAN1:%=$(MANDIR)/man1/%) \
	$(MAN3:%=$(MANDIR)/man3/%) $(MAN3_LINKS:%=$(MANDIR)/man3/%)

# Fail before doing anything, with the reason, when a directory cannot be written:
# to install, each directory (or, for one that does not exist yet, the first of its
# parents that does) must be a writable directory; to uninstall, the directory of
# each installed file that is there.
define ct_check_install
@for d in $(foreach d,$(1),'$(DESTDIR)$(d)'); do \
	e=$$d; while [ ! -e "$$e" ] && [ "$$e" != / ]; do e=$$(dirname "$$e"); done; \
	if [ ! -d "$$e" ] || [ ! -w "$$e" ]; then \
		echo "calltrace: cannot install into $$d: $$e is not a writable directory" \
		     "(run as root, or set PREFIX=... or DESTDIR=...)" >&2; exit 1; \
	fi; \
done
endef
define ct_check_uninstall
@for f in $(foreach f,$(1),'$(DESTDIR)$(f)'); do \
	[ -e "$$f" ] || [ -L "$$f" ] || continue; \
	if [ ! -w "$$(dirname "$$f")" ]; then \
		echo "calltrace: cannot remove $$f: $$(dirname "$$f") is not writable" \
		     "(run as root, or set PREFIX=... and DESTDIR=... as for make install)" >&2; \
		exit 1; \
	fi; \
done
endef

$(BUILD)/man3/%.3:
	@mkdir -p $(dir $@)
	echo '.so man3/calltrace.3' >$@

install: all $(MAN3_LINKS:%=$(BUILD)/man3/%)
	$(call ct_check_install,$(INST_DIRS))
	sed $(PC_SED) calltrace.pc.in >$(BUILD)/calltrace.pc
	$(INSTALL) -d $(foreach d,$(INST_DIRS),'$(DESTDIR)$(d)')
	$(INSTALL) -m 755 $(BUILD)/calltrace $(INST_WRAPPERS:%=$(BUILD)/%) '$(DESTDIR)$(BINDIR)'
ifneq ($(INST_WRAPPERS),)
	ln -sf calltrace-cc '$(DESTDIR)$(BINDIR)/calltrace-c++'
endif
	$(INSTALL) -m 755 $(BUILD)/libcalltrace.so $(BUILD)/libcalltrace-api.so \
		$(BUILD)/libcalltrace-dwarf.so '$(DESTDIR)$(LIBDIR)'
	ln -sf libcalltrace.so '$(DESTDIR)$(LIBDIR)/libcalltrace-attach.so'
	$(INSTALL) -m 644 include/calltrace.h '$(DESTDIR)$(INCLUDEDIR)'
	$(INSTALL) -m 644 $(BUILD)/calltrace.pc '$(DESTDIR)$(PKGCONFIGDIR)'
	$(INSTALL) -m 644 $(MAN1:%=man/%) '$(DESTDIR)$(MANDIR)/man1'
	$(INSTALL) -m 644 $(MAN3:%=man/%) $(MAN3_LINKS:%=$(BUILD)/man3/%) '$(DESTDIR)$(MANDIR)/man3'

uninstall:
	$(call ct_check_uninstall,$(INST_FILES))
	rm -f $(foreach f,$(INST_FILES),'$(DESTDIR)$(f)')

.PHONY: wrappers all deps deps-test deps-check demo check check-cross check-build check-quick check-sanitize check-sanitize-run bench \
	fuzz clean install uninstall
-include $(BUILD)/encode_bench.d $(TOOL_OBJS:.o=.d) $(RT_OBJS:.o=.d) $(API_OBJS:.o=.d) $(WRAP_OBJS:.o=.d) $(PLUGIN_OBJS:.o=.d)
