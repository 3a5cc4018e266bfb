# calltrace — GNU Make build.
#   make            build build/calltrace and build/libcalltrace.so
#   make demo       install what is missing, build, trace examples/demo
#   make check      install what is missing, build, run every test
#   make bench      side-by-side benchmarks (bench/)

CC	?= gcc
ifeq ($(origin CC),default)
CC	:= gcc
endif
BUILD	?= build
PKGS	:= libdw libelf libzstd
VERSION	:= 0.1.0

WARN	:= -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-sign-compare
CFLAGS	?= -O2 -g
ALL_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) -D_GNU_SOURCE -DCT_VERSION=\"$(VERSION)\"
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

# The tool: everything but the runtime.
TOOL_DIRS := src/util src/format src/symbols src/analysis src/output src/record src/cli
TOOL_SRCS := $(foreach d,$(TOOL_DIRS),$(wildcard $(d)/*.c))
TOOL_OBJS := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(TOOL_SRCS))

# The runtime, loaded into traced programs: never instrumented, hidden symbols,
# frame pointers so the hooks can read their caller's stack pointer, unwind tables
# because C++ exceptions unwind through the runtime's __cxa_throw wrapper.
RT_SRCS := $(wildcard src/runtime/*.c)
RT_OBJS := $(patsubst src/%.c,$(BUILD)/rt/%.o,$(RT_SRCS))
RT_CFLAGS := -fPIC -fvisibility=hidden -fno-omit-frame-pointer -fno-instrument-functions \
	-ftls-model=initial-exec -fno-stack-protector -fasynchronous-unwind-tables

# The API for programs running without calltrace: functions that do nothing.
API_SRCS := $(wildcard src/api/*.c)
API_OBJS := $(patsubst src/%.c,$(BUILD)/rt/%.o,$(API_SRCS))

# The compiler wrappers: calltrace-cc, and calltrace-c++ (the same program).
WRAP_SRCS := $(wildcard src/wrapper/*.c)
WRAP_OBJS := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(WRAP_SRCS))

all: $(BUILD)/calltrace $(BUILD)/libcalltrace.so $(BUILD)/libcalltrace-api.so wrappers

$(BUILD)/libcalltrace-api.so: $(API_OBJS)
	$(CC) -shared $(LDFLAGS) -Wl,-soname,libcalltrace-api.so -o $@ $^

ifneq ($(WRAP_SRCS),)
wrappers: $(BUILD)/calltrace-cc $(BUILD)/calltrace-c++

$(BUILD)/calltrace-cc: $(WRAP_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^

$(BUILD)/calltrace-c++: $(BUILD)/calltrace-cc
	ln -sf calltrace-cc $@
else
wrappers:
endif

$(BUILD)/calltrace: $(TOOL_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lstdc++ -lm

$(BUILD)/libcalltrace.so: $(RT_OBJS)
	$(CC) -shared $(LDFLAGS) -Wl,-z,now -Wl,-soname,libcalltrace.so -o $@ $^

$(BUILD)/obj/%.o: src/%.c | deps-check
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(PKG_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/rt/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(RT_CFLAGS) -MMD -MP -c $< -o $@

# Fail early, with the fix, when a library is missing.
deps-check:
	@pkg-config --exists $(PKGS) || { echo "calltrace: missing libraries ($(PKGS)); run: scripts/install-deps.sh" >&2; exit 1; }

deps:
	@scripts/install-deps.sh

deps-test:
	@scripts/install-deps.sh --test

demo: deps
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory -C examples BUILD=$(abspath $(BUILD))

check: deps-test
	@$(MAKE) --no-print-directory all
	@tests/run.sh

bench: all
	@bench/run.sh

clean:
	rm -rf $(BUILD)

# ---- install (make install PREFIX=... DESTDIR=...) ----
# (filled in below)

.PHONY: wrappers all deps deps-test deps-check demo check bench clean
-include $(TOOL_OBJS:.o=.d) $(RT_OBJS:.o=.d) $(API_OBJS:.o=.d) $(WRAP_OBJS:.o=.d)
