# jvmprof — build, test, demo and benchmark.
#   make          build/libjvmprof.so, build/jvmprof.jar, build/jvmprof
#   make demo     profile the bundled sample program and show the report
#   make test     unit tests (also under ASan+UBSan), a short run of each fuzzer (the CLI's
#                 readers, the class-file rewriter), and integration tests on a real JVM
#   make fuzz     fuzz the class-file rewriter and the CLI's readers (FUZZ_SECONDS each)
#   make bench    overhead benchmarks (bench/RESULTS.md)

VERSION   := 0.1.0
JAVA_HOME ?= $(shell tools/java-home.sh)
CC        ?= gcc
BUILD     := build
.DEFAULT_GOAL := all

WARN      := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-missing-field-initializers
CFLAGS    ?= -O2 -g
CFLAGS    += -std=c11 -D_GNU_SOURCE -DJP_VERSION='"$(VERSION)"' $(WARN) -fPIC -fvisibility=hidden
JNI_INC   := -isystem $(JAVA_HOME)/include -isystem $(JAVA_HOME)/include/linux
SAN       := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

COMMON_SRC := $(wildcard src/common/*.c)
MODEL_SRC  := $(wildcard src/model/*.c)
FORMAT_SRC := $(wildcard src/format/*.c)
TRACE_SRC  := $(wildcard src/trace/*.c)
ELF_SRC    := $(wildcard src/elf/*.c)
NATIVE_SRC := $(wildcard src/native/*.c)
HEAPDUMP_SRC := $(wildcard src/heapdump/*.c)
CLASSFILE_SRC := $(wildcard src/classfile/*.c)
OPTIONS_SRC := $(wildcard src/options/*.c)
UPLOAD_SRC := $(wildcard src/upload/*.c)
AGENT_SRC  := $(wildcard src/agent/*/*.c)
CLI_SRC    := $(wildcard src/cli/*.c)
PURE_SRC   := $(COMMON_SRC) $(MODEL_SRC) $(FORMAT_SRC) $(TRACE_SRC) $(ELF_SRC) $(NATIVE_SRC) $(HEAPDUMP_SRC) $(CLASSFILE_SRC) $(OPTIONS_SRC) $(UPLOAD_SRC)
JAVA_SRC   := $(shell find java -name '*.java')
UNIT_SRC   := $(wildcard tests/unit/test_*.c)
HEADERS    := $(shell find src -name '*.h')

# resources compiled in: the flame graph page's fixed parts (src/format/flame_page/), each after
# the part it shares with the leak report's page (src/format/page_common/: the head, the icicle's code)
GEN_INC   := -I$(BUILD)/gen
PAGE_COMMON := src/format/page_common/head.html src/format/page_common/icicle.js
FLAME_PAGE := src/format/flame_page/head.html src/format/flame_page/controls.html src/format/flame_page/timeline.js \
    src/format/flame_page/script.js
$(BUILD)/gen/flame_page.h: $(FLAME_PAGE) $(PAGE_COMMON) tools/embed.sh
	@mkdir -p $(dir $@)
	tools/embed.sh $@ fh_head=src/format/page_common/head.html,src/format/flame_page/head.html \
	    fh_controls=src/format/flame_page/controls.html \
	    fh_script=src/format/page_common/icicle.js,src/format/flame_page/timeline.js,src/format/flame_page/script.js
$(BUILD)/obj/format/flame_html.o $(BUILD)/asan/format/flame_html.o $(BUILD)/fuzz/obj/format/flame_html.o: \
    $(BUILD)/gen/flame_page.h

# ... and the leak report page's (src/heapdump/leaks_page/)
LEAKS_PAGE := src/heapdump/leaks_page/head.html src/heapdump/leaks_page/script.js
$(BUILD)/gen/leaks_page.h: $(LEAKS_PAGE) $(PAGE_COMMON) tools/embed.sh
	@mkdir -p $(dir $@)
	tools/embed.sh $@ hlp_head=src/format/page_common/head.html,src/heapdump/leaks_page/head.html \
	    hlp_script=src/format/page_common/icicle.js,src/heapdump/leaks_page/script.js
$(BUILD)/obj/heapdump/heap_leaks_html.o $(BUILD)/asan/heapdump/heap_leaks_html.o \
    $(BUILD)/fuzz/obj/heapdump/heap_leaks_html.o: $(BUILD)/gen/leaks_page.h

obj = $(patsubst src/%.c,$(BUILD)/obj/%.o,$(1))
asan_obj = $(patsubst src/%.c,$(BUILD)/asan/%.o,$(1))

# the example plugins (examples/plugins/*.c), built against include/jvmprof/plugin.h
EXAMPLE_PLUGINS := $(patsubst examples/plugins/%.c,$(BUILD)/examples/lib%.so,$(wildcard examples/plugins/*.c))

# the JNI libraries the integration tests profile (tests/native/), in build/it/native/: the same
# source with frame pointers (_fp) and without (_nofp, where only .eh_frame tells how to unwind)
NATIVE_CC   := $(CC) -std=c11 -D_GNU_SOURCE $(WARN) -g -O2 -fPIC -shared $(JNI_INC)
NATIVE_LIBS := $(BUILD)/it/native/libjpnative_fp.so $(BUILD)/it/native/libjpnative_nofp.so

.PHONY: all native-libs demo test examples test-unit test-it test-full fuzz fuzz-readers fuzz-rewrite fuzz-native bench clean deps install
.SECONDARY:
all: deps $(BUILD)/libjvmprof.so $(BUILD)/libhprof.so $(BUILD)/jvmprof.jar $(BUILD)/jvmprof $(NATIVE_LIBS)

deps:
	@tools/deps.sh

$(BUILD)/obj/%.o: src/%.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(GEN_INC) $(JNI_INC) -c $< -o $@

$(BUILD)/asan/%.o: src/%.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -O1 -DJP_DEBUG $(SAN) $(GEN_INC) $(JNI_INC) -c $< -o $@

$(BUILD)/libjvmprof.so: $(call obj,$(PURE_SRC) $(AGENT_SRC)) src/agent/exports.map
	$(CC) -shared -o $@ $(filter %.o,$^) -Wl,--version-script=src/agent/exports.map -Wl,-z,defs -lpthread -lm -lz

# libhprof.so: a link to the agent, so that an old HPROF command line, -agentlib:hprof=..., loads
# jvmprof when build/ is on the library path (LD_LIBRARY_PATH)
$(BUILD)/libhprof.so: $(BUILD)/libjvmprof.so
	ln -sfn libjvmprof.so $@

# the test agent: the same objects, with collectors.c built with JP_TEST_COLLECTORS and the
# test collectors of tests/collectors/ (docs/ARCHITECTURE.md: adding a collector); with its
# jar beside it, as the agent expects
TEST_COLLECTORS := $(wildcard tests/collectors/*.c)
$(BUILD)/test/collectors.o: src/agent/core/collectors.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DJP_TEST_COLLECTORS $(JNI_INC) -c $< -o $@

$(BUILD)/test/%.o: tests/collectors/%.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Isrc $(JNI_INC) -c $< -o $@

$(BUILD)/test/libjvmprof.so: $(filter-out $(BUILD)/obj/agent/core/collectors.o,$(call obj,$(PURE_SRC) $(AGENT_SRC))) $(BUILD)/test/collectors.o $(patsubst tests/collectors/%.c,$(BUILD)/test/%.o,$(TEST_COLLECTORS)) src/agent/exports.map $(BUILD)/jvmprof.jar
	$(CC) -shared -o $@ $(filter %.o,$^) -Wl,--version-script=src/agent/exports.map -Wl,-z,defs -lpthread -lm -lz
	cp $(BUILD)/jvmprof.jar $(BUILD)/test/jvmprof.jar

# the JNI libraries the integration tests profile (NATIVE_LIBS, tests/native/jpnative.c)
native-libs: $(NATIVE_LIBS)

$(BUILD)/it/native/libjpnative_fp.so: tests/native/jpnative.c
	@mkdir -p $(dir $@)
	$(NATIVE_CC) -fno-omit-frame-pointer -o $@ $<

$(BUILD)/it/native/libjpnative_nofp.so: tests/native/jpnative.c
	@mkdir -p $(dir $@)
	$(NATIVE_CC) -fomit-frame-pointer -fasynchronous-unwind-tables -o $@ $<

$(BUILD)/jvmprof: $(call obj,$(PURE_SRC) $(CLI_SRC))
	$(CC) -o $@ $^ -lpthread -lz

$(BUILD)/jvmprof.jar: $(JAVA_SRC)
	@rm -rf $(BUILD)/classes && mkdir -p $(BUILD)/classes
	@# ProbeRuntime reads the probes' words with sun.misc.Unsafe, whose every use --release warns about
	$(JAVA_HOME)/bin/javac -source 11 -target 11 -Xlint:-options -XDignore.symbol.file -d $(BUILD)/classes \
	    java/jvmprof/ProbeRuntime.java
	$(JAVA_HOME)/bin/javac --release 11 -cp $(BUILD)/classes -d $(BUILD)/classes \
	    $(filter-out %/Tracker.java %/AllocCounts.java %/ProbeRuntime.java,$(JAVA_SRC))
	@# Tracker uses jdk.internal.misc.Unsafe (the agent exports it to Tracker's module at run time),
	@# which --release hides: compiled for Java 11 against this JDK, using nothing Java 11 lacks
	$(JAVA_HOME)/bin/javac -source 11 -target 11 -Xlint:-options --add-exports java.base/jdk.internal.misc=ALL-UNNAMED \
	    -cp $(BUILD)/classes -d $(BUILD)/classes $(filter %/Tracker.java %/AllocCounts.java,$(JAVA_SRC))
	$(JAVA_HOME)/bin/jar --create --file $@ -C $(BUILD)/classes .

# unit tests: each test_<module>.c linked with the pure modules, plain and under ASan+UBSan
$(BUILD)/unit/%: tests/unit/%.c tests/unit/harness.h $(call obj,$(PURE_SRC))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DJP_DEBUG -Isrc -o $@ $< $(call obj,$(PURE_SRC)) -lpthread -lz

$(BUILD)/unit-asan/%: tests/unit/%.c tests/unit/harness.h $(call asan_obj,$(PURE_SRC))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -O1 -DJP_DEBUG $(SAN) -Isrc -o $@ $< $(call asan_obj,$(PURE_SRC)) -lpthread -lz

UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(UNIT_SRC)) \
             $(patsubst tests/unit/%.c,$(BUILD)/unit-asan/%,$(UNIT_SRC))

$(BUILD)/unit/test_classfile $(BUILD)/unit-asan/test_classfile: tests/tools/cf_walk.h
# test_native_unwind walks the stacks of two builds of one chain of functions (tests/unit/native_chain.c):
# with frame pointers, and without (found by DWARF CFI only); both test binaries load them from build/unit/.
# The second is linked at 256 MiB (its ELF vaddrs differ from its file offsets), so that its load bias is
# not its mapping's address minus the mapping's offset, as it is for every other library
$(BUILD)/unit/libchain_fp.so: tests/unit/native_chain.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -std=c11 -D_GNU_SOURCE -fPIC -shared -fno-omit-frame-pointer -o $@ $<
$(BUILD)/unit/libchain_nofp.so: tests/unit/native_chain.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -std=c11 -D_GNU_SOURCE -fPIC -shared -fomit-frame-pointer -fasynchronous-unwind-tables \
	    -Wl,-Ttext-segment=0x10000000 -o $@ $<
$(BUILD)/unit/test_native_unwind $(BUILD)/unit-asan/test_native_unwind: $(BUILD)/unit/libchain_fp.so $(BUILD)/unit/libchain_nofp.so
# (named in UNIT_BINS too: .SECONDARY would let a deleted one stay missing behind an up-to-date test)
UNIT_BINS += $(BUILD)/unit/libchain_fp.so $(BUILD)/unit/libchain_nofp.so
$(BUILD)/unit/test_proc_root $(BUILD)/unit-asan/test_proc_root: src/cli/proc_root.c src/cli/proc_root.h

# test tools: the class-file round trip checker, linked with the pure modules
$(BUILD)/tools/deny: tests/tools/deny.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $<

$(BUILD)/tools/cf_roundtrip: tests/tools/cf_roundtrip.c tests/tools/cf_walk.h $(call obj,$(PURE_SRC))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Isrc -o $@ $< $(call obj,$(PURE_SRC)) -lpthread -lz

# t6110's: a binary report with native frames of this machine's libraries (dladdr: -ldl on older glibc)
$(BUILD)/tools/native_report: tests/tools/native_report.c $(call obj,$(PURE_SRC))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Isrc -o $@ $< $(call obj,$(PURE_SRC)) -lpthread -lz -ldl

# the jvmprof command under ASan+UBSan: its sources compile with the sanitizers' flags (-O1 warns where
# -O2 does not), and the tests of jvmprof serve run it
$(BUILD)/asan/jvmprof: $(call asan_obj,$(PURE_SRC) $(CLI_SRC))
	$(CC) $(SAN) -o $@ $^ -lpthread -lz

test: all $(UNIT_BINS) $(BUILD)/asan/jvmprof $(BUILD)/tools/cf_roundtrip $(BUILD)/tools/native_report $(BUILD)/tools/deny $(BUILD)/test/libjvmprof.so $(NATIVE_LIBS)
	@tests/run.sh

# everything, with the rewriter checked on every JDK class instead of a sample
test-full: all $(UNIT_BINS) $(BUILD)/asan/jvmprof $(BUILD)/tools/cf_roundtrip $(BUILD)/tools/native_report $(BUILD)/tools/deny $(BUILD)/test/libjvmprof.so $(NATIVE_LIBS)
	@JP_FULL=1 tests/run.sh

test-unit: all $(UNIT_BINS)
	@tests/run.sh unit

test-it: all $(BUILD)/asan/jvmprof $(BUILD)/tools/cf_roundtrip $(BUILD)/tools/native_report $(BUILD)/tools/deny $(BUILD)/test/libjvmprof.so $(NATIVE_LIBS)
	@tests/run.sh it

# fuzz with clang's libFuzzer (tools/deps.sh clang installs it), under ASan and UBSan:
# the class-file rewriter (tests/fuzz/fuzz_rewrite.c) and the readers of the jvmprof
# command (tests/fuzz/fuzz_readers.c). Each replays its regressions, then fuzzes for
# FUZZ_SECONDS from a scratch copy of its seed corpus; new crashes land in build/fuzz/.
FUZZ_SECONDS ?= 60
FUZZ_CC    := clang -std=c11 -D_GNU_SOURCE -g -O1 -DJP_DEBUG -fno-sanitize-recover=all
FUZZ_RUN   := -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
READERS_SRC := $(COMMON_SRC) $(MODEL_SRC) $(FORMAT_SRC) $(TRACE_SRC) $(HEAPDUMP_SRC)
fuzz_obj = $(patsubst src/%.c,$(BUILD)/fuzz/obj/%.o,$(1))

$(BUILD)/fuzz/.clang:
	@tools/deps.sh clang
	@mkdir -p $(dir $@) && touch $@

$(BUILD)/fuzz/fuzz_rewrite: tests/fuzz/fuzz_rewrite.c tests/tools/cf_walk.h $(CLASSFILE_SRC) $(COMMON_SRC) $(HEADERS) | $(BUILD)/fuzz/.clang
	$(FUZZ_CC) $(WARN) -fsanitize=fuzzer,address,undefined -Isrc -o $@ tests/fuzz/fuzz_rewrite.c $(CLASSFILE_SRC) $(COMMON_SRC) -lpthread

$(BUILD)/fuzz/obj/%.o: src/%.c $(HEADERS) | $(BUILD)/fuzz/.clang
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(WARN) $(GEN_INC) -fsanitize=fuzzer-no-link,address,undefined -c $< -o $@

$(BUILD)/fuzz/fuzz_readers: tests/fuzz/fuzz_readers.c $(call fuzz_obj,$(READERS_SRC)) | $(BUILD)/fuzz/.clang
	$(FUZZ_CC) $(WARN) -fsanitize=fuzzer,address,undefined -Isrc -o $@ $< $(call fuzz_obj,$(READERS_SRC)) -lpthread -lz

# the ELF and CFI readers of src/native (tests/fuzz/fuzz_native.c): its regressions replayed, then fuzzed from
# small shared objects of this machine (not part of make fuzz or make test: run by hand after changing src/native)
NATIVE_FUZZ_SRC := src/native/elf_image.c src/native/dwarf_cfi.c src/native/elf_symbols.c src/common/file_map.c
$(BUILD)/fuzz/fuzz_native: tests/fuzz/fuzz_native.c $(call fuzz_obj,$(NATIVE_FUZZ_SRC)) | $(BUILD)/fuzz/.clang
	$(FUZZ_CC) $(WARN) -fsanitize=fuzzer,address,undefined -Isrc -o $@ $< $(call fuzz_obj,$(NATIVE_FUZZ_SRC))

fuzz-native: $(BUILD)/fuzz/fuzz_native $(BUILD)/unit/libchain_fp.so $(BUILD)/unit/libchain_nofp.so
	@rm -rf $(BUILD)/fuzz/fuzz_native-corpus && mkdir -p $(BUILD)/fuzz/fuzz_native-corpus
	$(BUILD)/fuzz/fuzz_native tests/fuzz/native_regressions/*
	cp $(BUILD)/unit/libchain_fp.so $(BUILD)/unit/libchain_nofp.so $(BUILD)/fuzz/fuzz_native-corpus/
	for f in /lib/x86_64-linux-gnu/libdl.so.2 /lib/x86_64-linux-gnu/librt.so.1; do [ -f $$f ] && cp $$f $(BUILD)/fuzz/fuzz_native-corpus/ || true; done
	$(BUILD)/fuzz/fuzz_native -max_total_time=$(FUZZ_SECONDS) -max_len=200000 $(FUZZ_RUN) $(FUZZ_EXTRA) \
	    -artifact_prefix=$(BUILD)/fuzz/fuzz_native- $(BUILD)/fuzz/fuzz_native-corpus

# fuzz_run TARGET,CORPUS,REGRESSIONS,SECONDS
define fuzz_run
	@rm -rf $(BUILD)/fuzz/$(1)-corpus && mkdir -p $(BUILD)/fuzz/$(1)-corpus && cp $(2)/* $(BUILD)/fuzz/$(1)-corpus/
	@if ls $(3)/* >/dev/null 2>&1; then $(BUILD)/fuzz/$(1) $(3)/*; fi
	$(BUILD)/fuzz/$(1) -max_total_time=$(4) $(FUZZ_RUN) $(FUZZ_EXTRA) -artifact_prefix=$(BUILD)/fuzz/$(1)- $(BUILD)/fuzz/$(1)-corpus
endef

fuzz: $(BUILD)/fuzz/fuzz_rewrite $(BUILD)/fuzz/fuzz_readers
	$(call fuzz_run,fuzz_rewrite,tests/fuzz/corpus,tests/fuzz/regressions,$(FUZZ_SECONDS))
	$(call fuzz_run,fuzz_readers,tests/fuzz/readers_corpus,tests/fuzz/readers_regressions,$(FUZZ_SECONDS))

# the short runs of each fuzzer that make test does (tests/it/t0001-fuzz-readers.sh,
# tests/it/t0004-fuzz-rewrite.sh)
fuzz-readers: $(BUILD)/fuzz/fuzz_readers
	$(call fuzz_run,fuzz_readers,tests/fuzz/readers_corpus,tests/fuzz/readers_regressions,$(FUZZ_SECONDS))
fuzz-rewrite: $(BUILD)/fuzz/fuzz_rewrite
	$(call fuzz_run,fuzz_rewrite,tests/fuzz/corpus,tests/fuzz/regressions,$(FUZZ_SECONDS))

demo: all
	@tools/demo.sh

$(BUILD)/tools/rewrite_cost: bench/rewrite_cost.c $(call obj,$(CLASSFILE_SRC) $(COMMON_SRC))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Isrc -o $@ $< $(call obj,$(CLASSFILE_SRC) $(COMMON_SRC)) -lpthread

# bench/timeline.sh's: the flame graph's timeline at a full default recording
$(BUILD)/tools/timeline_size: bench/timeline_size.c $(call obj,$(PURE_SRC))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Isrc -o $@ $< $(call obj,$(PURE_SRC)) -lpthread -lz

$(BUILD)/tools/alloc_floor.so: bench/alloc_floor.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(JNI_INC) -shared -o $@ $<

bench: all $(BUILD)/tools/rewrite_cost $(BUILD)/tools/alloc_floor.so $(BUILD)/tools/timeline_size
	@bench/run.sh
	@WORKLOADS="javac h2" CONFIGS="none|heap=sites|heap=sites,lifetimes=y|heap=sites,alloc_count=site|heap=sites,alloc_count=site,lifetimes=y" STARTUP=0 bench/run.sh
	@WORKLOADS=javac CONFIGS="none|trace=exec|trace=exec,receivers=n|trace=exec:light|trace=exec,mintime=1ms|trace=mem:light+thread+class" STARTUP=0 bench/run.sh
	@WORKLOADS="javac h2" CONFIGS="none|cpu=samples,interval=10|cpu=samples,interval=10,cstack=mixed|cpu=samples,interval=10,cstack=java|cpu=samples,interval=10,record=y$${AP_LIB:+|ap:event=cpu,interval=10ms}" STARTUP=0 bench/run.sh
	@bench/paired.sh
	@bench/timer_cost.sh
	@bench/native_names.sh
	@bench/times_cost.sh
	@bench/plugin_cost.sh
	@bench/tracing_ended.sh
	@bench/probe_cost.sh
	@bench/attach_start.sh
	@bench/net_cost.sh
	@bench/pprof_convert.sh
	@bench/timeline.sh
	@bench/alloc_exact.sh
	@bench/alloc_floor.sh
	@bench/rewrite.sh
	@bench/heap_retained.sh
	@bench/heap_read.sh
	@DUMPER=hotspot bench/heap_dump.sh
	@DUMPER=jvmti bench/heap_dump.sh

PREFIX ?= /usr/local
examples: $(EXAMPLE_PLUGINS)

$(BUILD)/examples/lib%.so: examples/plugins/%.c include/jvmprof/plugin.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -fPIC -shared -Iinclude -o $@ $< -lpthread

install: all
	install -d $(DESTDIR)$(PREFIX)/lib/jvmprof $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BUILD)/libjvmprof.so $(DESTDIR)$(PREFIX)/lib/jvmprof/
	ln -sfn libjvmprof.so $(DESTDIR)$(PREFIX)/lib/jvmprof/libhprof.so
	install -m 644 $(BUILD)/jvmprof.jar $(DESTDIR)$(PREFIX)/lib/jvmprof/
	install -m 755 $(BUILD)/jvmprof $(DESTDIR)$(PREFIX)/bin/
	install -d $(DESTDIR)$(PREFIX)/include/jvmprof
	install -m 644 include/jvmprof/plugin.h $(DESTDIR)$(PREFIX)/include/jvmprof/

clean:
	rm -rf $(BUILD)
