# SPDX-License-Identifier: MIT
# The fuzzers (docs/FUZZING.md). From the top of the tree:
#
#   make fuzz [FUZZ_TIME=600] [BUILD=build]   build, then run each harness FUZZ_TIME s
#   make -f tests/fuzz/fuzz.mk harnesses      build them only (what tests/fuzz/run.sh does)
#
# The tool's sources (TOOL_SRCS of the Makefile, without the CLI's main) are
# compiled by clang with -fsanitize=fuzzer-no-link,address,undefined into
# $(BUILD)/fuzz/obj, and each harness linked with -fsanitize=fuzzer. A run
# starts from the committed seeds (tests/fuzz/corpus/), grows its own corpus
# in $(BUILD)/fuzz/corpus-NAME, and writes what it finds (crash-*, oom-*,
# timeout-*, leak-*) to tests/fuzz/findings/.

# The Makefile's variables (TOOL_SRCS, PKGS, WARN, VERSION, PKG_CFLAGS ...);
# its targets are not used here.
include Makefile
.DEFAULT_GOAL := run

FUZZ_CC	  ?= clang
FUZZ_TIME ?= 300
FUZZ_OUT  := $(BUILD)/fuzz
FUZZ_SAN  := address,undefined
FUZZ_CFLAGS := -std=gnu11 $(WARN) -O1 -g -fno-omit-frame-pointer -D_GNU_SOURCE \
	-DCT_VERSION=\"$(VERSION)\" -fno-sanitize-recover=all

# every input capped: traces of the corpus are a few KiB
FUZZ_MAX_LEN ?= 65536
# A trace that makes a reader ask for GiBs is a finding (issue 18: no allocation
# above a bound made from the block's size), not an "out of memory" exit.
FUZZ_OPTS = -max_len=$(FUZZ_MAX_LEN) -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=20 \
	-print_final_stats=1

FUZZ_TOOL_SRCS := $(filter-out src/cli/main.c,$(TOOL_SRCS))
FUZZ_TOOL_OBJS := $(patsubst src/%.c,$(FUZZ_OUT)/obj/%.o,$(FUZZ_TOOL_SRCS))
FUZZ_HARNESSES := fuzz_events fuzz_reader fuzz_encode
FUZZ_BINS := $(FUZZ_HARNESSES:%=$(FUZZ_OUT)/%)
FUZZ_LIBS = $(PKG_LIBS) -lZydis -lstdc++ -lm -ldl

harnesses: $(FUZZ_BINS)

$(FUZZ_OUT)/obj/%.o: src/%.c | deps-check
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,$(FUZZ_SAN) $(PKG_CFLAGS) -MMD -MP \
		-c $< -o $@

$(FUZZ_OUT)/h/%.o: tests/fuzz/%.c | deps-check
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,$(FUZZ_SAN) $(PKG_CFLAGS) -MMD -MP \
		-c $< -o $@

$(FUZZ_OUT)/fuzz_events: $(FUZZ_OUT)/h/fuzz_events.o $(FUZZ_TOOL_OBJS)
	$(FUZZ_CC) -fsanitize=fuzzer,$(FUZZ_SAN) -o $@ $^ $(FUZZ_LIBS)

$(FUZZ_OUT)/fuzz_encode: $(FUZZ_OUT)/h/fuzz_encode.o $(FUZZ_TOOL_OBJS)
	$(FUZZ_CC) -fsanitize=fuzzer,$(FUZZ_SAN) -o $@ $^ $(FUZZ_LIBS)

$(FUZZ_OUT)/fuzz_reader: $(FUZZ_OUT)/h/fuzz_reader.o $(FUZZ_OUT)/h/mutator.o $(FUZZ_TOOL_OBJS)
	$(FUZZ_CC) -fsanitize=fuzzer,$(FUZZ_SAN) -o $@ $^ $(FUZZ_LIBS)

# Each harness FUZZ_TIME seconds, one after the other (the seeds first; the
# corpus it grows is kept for the next run). A finding stops that harness and
# fails the target after the others ran; its input is in tests/fuzz/findings/.
run: harnesses
	@mkdir -p tests/fuzz/findings
	@st=0; for h in $(FUZZ_HARNESSES); do \
		seeds=tests/fuzz/corpus/$${h#fuzz_}; mkdir -p $(FUZZ_OUT)/corpus-$$h; \
		echo "fuzz: $$h for $(FUZZ_TIME) s (log: $(FUZZ_OUT)/$$h.log)"; \
		ASAN_OPTIONS=allocator_may_return_null=0:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		$(FUZZ_OUT)/$$h $(FUZZ_OPTS) -max_total_time=$(FUZZ_TIME) \
			-artifact_prefix=tests/fuzz/findings/$$h- \
			$(FUZZ_OUT)/corpus-$$h $$seeds >$(FUZZ_OUT)/$$h.log 2>&1 || st=1; \
		grep -E '^stat::|^#[0-9]+ +DONE|^==[0-9]+==ERROR|^SUMMARY|Test unit written' \
			$(FUZZ_OUT)/$$h.log | sed 's/^/  /'; \
	done; exit $$st

.PHONY: harnesses run
-include $(FUZZ_TOOL_OBJS:.o=.d) $(FUZZ_OUT)/h/*.d
