# mlia - C implementation of `mlia check` for ExecuTorch ETRecord profiling views.
#
#   make            build build/mlia, build/libmlia.a, build/libmlia.so
#   make check      build and run every test (unit, CLI, end to end)
#   make demo       run the main job on the repository's own sample
#   make asan       build and run the whole suite under ASan+UBSan (build-asan/)
#   make DEBUG=1 BUILD=build-debug check   -O0 with the internal assertions on
#                   (MLIA_ASSERT, src/core/assert.h; also on in asan, oom-sweep, fuzz)
#   make bench      speed and memory figures on generated large captures (issue 33's
#                   side-by-side table; BENCH_FULL=1 for every series)
#   make bench-instr  the same commands' instruction counts under valgrind (repeatable under load)
#   make schema     regenerate src/formats/schema_*.h and tools/fixturelib/schema_*.py from
#                   tools/schema/*.fbs (tools/schemagen.py; commit the result)
#   make schema-check  fail with a diff when those committed files are stale (CI)
#   make oom-sweep  fail the Nth allocation for every N on three runs (ASan, build-oom/), then
#                   the Nth of the whole process (LD_PRELOAD shim) on five (oom-process-sweep)
#   make coverage   line coverage of src/ over the whole suite (gcov + lcov, build-cov/)
#   make install    PREFIX=/usr/local DESTDIR=: bin/mlia, lib/libmlia.so.<version>
#                   (+ soname links), lib/libmlia.a, include/mlia/*.h,
#                   lib/pkgconfig/mlia.pc, share/man/man1/mlia.1
#   make uninstall  removes exactly what `make install` wrote
#
# Dependencies (Debian): libzip-dev nettle-dev (SHA-256 without heap allocation,
# docs/hardening.md) zlib1g-dev libsqlite3-dev libpq-dev (the run
# history, docs/history.md; postgresql for its tests) (libbz2-dev and libssl-dev to link libmlia statically:
# libzip.pc lists -lbz2 -lssl -lcrypto)
# pkg-config python3 flatbuffers-compiler (tests) - see tools/setup.sh.

BUILD   ?= build
CC      ?= cc
SAN     ?=
DEBUG   ?=
WERROR  ?= -Werror
OPT     ?= -O2 -g

PKGS    := libzip nettle sqlite3 libpq
# what the installed mlia.pc requires to link statically: libzip and nettle by
# their .pc; SQLite and libpq (the run history) as plain -l flags, so that
# `pkg-config --cflags mlia` stays the include folder alone
PC_PKGS := libzip nettle
PC_LIBS := -lsqlite3 -lpq
CFLAGS_BASE := -std=c17 -D_GNU_SOURCE -Wall -Wextra $(WERROR) -Wshadow -Wno-unused-parameter \
               -fPIC -Iinclude -Isrc $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LIBS    := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lzip -lnettle -lsqlite3 -lpq) -lm

ifeq ($(SAN),1)
  OPT := -O1 -g -fno-omit-frame-pointer
  CFLAGS_BASE += -fsanitize=address,undefined -fno-sanitize-recover=undefined
  LDSAN := -fsanitize=address,undefined
endif
# Internal invariants (MLIA_ASSERT, src/core/assert.h): on in debug and
# sanitizer builds (and so in make asan and make oom-sweep; fuzz/run.sh sets
# it too), off in release builds.
ifeq ($(DEBUG),1)
  OPT := -O0 -g
endif
ifneq ($(SAN)$(DEBUG),)
  CFLAGS_BASE += -DMLIA_ASSERTIONS=1
endif

CFLAGS := $(CFLAGS_BASE) $(OPT) $(EXTRA_CFLAGS)
# The library's objects export only what include/mlia/mlia.h marks MLIA_API;
# tests that need internals link the static library (docs/architecture.md).
LIB_CFLAGS := -fvisibility=hidden
# Every library object sees src/core/alloc.h first: malloc & co. of src/ are
# accounted per public call, so an out-of-memory jump leaks nothing
# (docs/hardening.md, "Allocation-failure sweep").
LIB_CFLAGS += -include src/core/alloc.h

# Library version from the public header; the soname carries the major.
VERSION := $(shell sed -n 's/^\#define MLIA_VERSION "\(.*\)"/\1/p' include/mlia/mlia.h)
MAJOR   := $(firstword $(subst ., ,$(VERSION)))
SONAME  := libmlia.so.$(MAJOR)

PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR  ?= $(PREFIX)/bin
LIBDIR  ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR  ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
INSTALL ?= install

LIB_SRC := $(sort $(wildcard src/core/*.c src/formats/*.c src/analysis/*.c src/history/*.c src/report/*.c src/report/*/*.c \
                           src/backends/*.c src/backends/*/*.c src/backends/*/*/*.c src/pipeline/*.c src/api/*.c))
CLI_SRC := $(sort $(wildcard src/cli/*.c))
LIB_OBJ := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(LIB_SRC))
CLI_OBJ := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(CLI_SRC))
TEST_SRC := $(sort $(wildcard tests/*/test_*.c tests/backends/*/test_*.c))
TEST_BIN := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRC))
BENCH_SRC := $(sort $(wildcard bench/*.c))
BENCH_BIN := $(patsubst bench/%.c,$(BUILD)/bench/%,$(BENCH_SRC))

.PHONY: oom-sweep oom-process-sweep coverage fuzz all check check-only test-unit test-py demo asan bench bench-instr clean viewer viewer-check setup \
        install uninstall schema schema-check $(BUILD)/mlia.pc

all: $(BUILD)/mlia $(BUILD)/libmlia.so $(BUILD)/libmlia.a $(BUILD)/libmlia_internal.a

# src/core/alloc.h is force-included into every object (LIB_CFLAGS): a change
# to it rebuilds them all, so that no object keeps plain malloc/free.
$(BUILD)/obj/%.o: src/%.c src/core/alloc.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LIB_CFLAGS) -MMD -MP -c $< -o $@

# Two archives of the same objects. The installed libmlia.a exports only the
# public names (mlia_* of include/mlia/mlia.h): the objects are linked into
# one relocatable object (ld -r) whose hidden symbols objcopy makes local, so
# a host's own csv_write or nx_run never clashes with ours, and nm -g lists
# only the MLIA_API functions (tests/py/test_layering.py). The command line,
# the tests, the benchmarks and the sweep use internals: they link
# libmlia_internal.a, the plain archive, never installed.
LD      ?= ld
OBJCOPY ?= objcopy
$(BUILD)/libmlia_internal.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/libmlia.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ $(BUILD)/libmlia_public.o
	$(LD) -r -o $(BUILD)/libmlia_public.o $^
	$(OBJCOPY) --localize-hidden $(BUILD)/libmlia_public.o
	ar rcs $@ $(BUILD)/libmlia_public.o

$(BUILD)/libmlia.so: $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,$(SONAME) $(LDSAN) -o $@ $^ $(LIBS) -pthread

$(BUILD)/mlia: $(CLI_OBJ) $(BUILD)/libmlia_internal.a
	$(CC) $(LDSAN) -o $@ $(CLI_OBJ) $(BUILD)/libmlia_internal.a $(LIBS)

$(BUILD)/tests/%: tests/%.c tests/test.h $(BUILD)/libmlia_internal.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests -DMLIA_SOURCE_DIR='"$(CURDIR)"' -o $@ $< $(BUILD)/libmlia_internal.a $(LIBS) $(LDSAN)

$(BUILD)/bench/%: bench/%.c $(BUILD)/libmlia_internal.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libmlia_internal.a $(LIBS) $(LDSAN)

# `make check` and `make demo` do their own set-up (tools/setup.sh installs
# missing Debian packages as root, or says what to install); MLIA_SKIP_SETUP=1
# skips it.
check:
	@[ -n "$(MLIA_SKIP_SETUP)" ] || bash tools/setup.sh --page
	@$(MAKE) --no-print-directory check-only

check-only: all $(TEST_BIN)
	@BUILD=$(BUILD) MLIA_SAN=$(SAN) CC=$(CC) bash tests/run.sh

test-unit: all $(TEST_BIN)
	@BUILD=$(BUILD) ONLY=unit bash tests/run.sh

demo:
	@[ -n "$(MLIA_SKIP_SETUP)" ] || bash tools/setup.sh
	@echo "Building (quietly; make all shows the compiler lines)..."
	@$(MAKE) --no-print-directory -s all >/dev/null
	@bash tools/demo.sh $(BUILD)

asan:
	@[ -n "$(MLIA_SKIP_SETUP)" ] || bash tools/setup.sh --page
	@$(MAKE) --no-print-directory BUILD=build-asan SAN=1 check-only

fuzz:
	@bash fuzz/run.sh

# Allocation-failure sweep (docs/hardening.md): the library built with ASan+UBSan
# and tests/oom/hook.h force-included (counting, failing allocation wrappers),
# the driver tests/oom/sweep.c. OOM_SWEEP_STRIDE / OOM_SWEEP_STRIDE_ABOVE thin
# out the largest runs (CI's budget, .ci/run).
OOM_HOOK := -include tests/oom/hook.h
oom-sweep:
	@[ -n "$(MLIA_SKIP_SETUP)" ] || bash tools/setup.sh
	@$(MAKE) --no-print-directory BUILD=build-oom SAN=1 EXTRA_CFLAGS='$(OOM_HOOK)' build-oom/oom_sweep
	@ASAN_OPTIONS=detect_leaks=1:exitcode=23 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  build-oom/oom_sweep
	@$(MAKE) --no-print-directory oom-process-sweep

# Process-wide sweep (docs/hardening.md): the plain build's `mlia` with
# tests/oom/shim.c preloaded, which fails the Nth allocation of the whole
# process (C library, libzip, zlib included), for every N of a check, a
# check with the views, a compare and two inspects (tests/oom/process_sweep.py).
# OOM_PROCESS_STRIDE thins it out, OOM_PROCESS_JOBS runs that many at once.
oom-process-sweep: $(BUILD)/mlia $(BUILD)/oom_shim.so
	@MLIA_BUILD=$(BUILD) python3 tests/oom/process_sweep.py

$(BUILD)/oom_shim.so: tests/oom/shim.c
	@mkdir -p $(dir $@)
	$(CC) -std=c17 -D_GNU_SOURCE -Wall -Wextra $(WERROR) -O2 -g -fPIC -shared -o $@ $<

# Line coverage of src/ over the whole suite (docs/hardening.md, README): an -O0
# --coverage build in build-cov/ runs `check-only`, then lcov keeps src/ and
# prints its summary (build-cov/coverage.txt; HTML in build-cov/html/).
COVERAGE_MIN ?= 85
coverage:
	@[ -n "$(MLIA_SKIP_SETUP)" ] || bash tools/setup.sh --page
	@rm -rf build-cov
	@MLIA_COVERAGE=1 $(MAKE) --no-print-directory BUILD=build-cov OPT='-O0 -g' EXTRA_CFLAGS=--coverage \
	  LDSAN=--coverage check-only || { echo "coverage: the suite failed" >&2; exit 1; }
	@lcov --quiet --capture --directory build-cov/obj --base-directory . \
	  --output-file build-cov/all.info 2>/dev/null
	@lcov --quiet --extract build-cov/all.info '$(CURDIR)/src/*' --output-file build-cov/src.info
	@lcov --summary build-cov/src.info 2>&1 | tee build-cov/coverage.txt
	@genhtml --quiet build-cov/src.info --output-directory build-cov/html >/dev/null 2>&1 || true
	@lcov --list build-cov/src.info > build-cov/files.txt 2>/dev/null || true
	@awk -v min=$(COVERAGE_MIN) '/lines\.*:/ { sub("%", "", $$2); found = 1; \
	  if ($$2 + 0 < min) { print "coverage: " $$2 " % of the lines of src/, below " min " %"; exit 1 } } \
	  END { if (!found) { print "coverage: no summary"; exit 1 } }' build-cov/coverage.txt

$(BUILD)/oom_sweep: tests/oom/sweep.c tests/oom/hook.c tests/oom/hook.h tests/oom/tree_digest.h $(BUILD)/libmlia_internal.a
	$(CC) $(filter-out $(OOM_HOOK),$(CFLAGS)) -Itests/oom -DMLIA_SOURCE_DIR='"$(CURDIR)"' -o $@ \
	  tests/oom/sweep.c tests/oom/hook.c $(BUILD)/libmlia_internal.a $(LIBS) $(LDSAN)

bench: all $(BENCH_BIN)
	@BUILD=$(BUILD) bash bench/run.sh

bench-instr: all $(BENCH_BIN)
	@BUILD=$(BUILD) BENCH_INSTR=1 bash bench/run.sh

setup:
	@bash tools/setup.sh

# One schema source (docs/schema.md): the readers' and the fixture builder's
# field slots are generated from tools/schema/*.fbs and committed.
schema:
	@python3 tools/schemagen.py

schema-check:
	@python3 tools/schemagen.py --check

clean:
	rm -rf build build-asan build-oom build-cov build-debug

# Install paths may hold spaces or shell characters (DESTDIR="/tmp/a b"): every
# path reaches the shell through $(call q,...), one single-quoted word, so it
# can neither split into two paths nor run anything. Without it, DESTDIR with a
# space made `install` write a stray b/usr/... into the current folder and
# `uninstall` delete there, outside DESTDIR.
q = '$(subst ','\'',$(1))'
D_BIN := $(DESTDIR)$(BINDIR)
D_LIB := $(DESTDIR)$(LIBDIR)
D_INC := $(DESTDIR)$(INCLUDEDIR)/mlia
D_PC  := $(DESTDIR)$(PKGCONFIGDIR)
D_MAN := $(DESTDIR)$(MANDIR)/man1
HEADERS := $(notdir $(wildcard include/mlia/*.h))

# pkg-config file of the installed library: libzip and nettle are only
# needed to link statically (Requires.private), like SQLite, libpq, -lm and -pthread.
$(BUILD)/mlia.pc:
	@mkdir -p $(dir $@)
	@printf '%s\n' $(call q,prefix=$(PREFIX)) $(call q,libdir=$(LIBDIR)) $(call q,includedir=$(INCLUDEDIR)) '' \
	  'Name: mlia' \
	  'Description: mlia check for ExecuTorch ETRecord profiling views (ETRecord, ETDump, VGF statistics)' \
	  'Version: $(VERSION)' \
	  'Requires.private: $(PC_PKGS)' \
	  'Libs: -L$${libdir} -lmlia' \
	  'Libs.private: $(PC_LIBS) -lm -pthread' \
	  'Cflags: -I$${includedir}' > $@

install: all $(BUILD)/mlia.pc
	$(INSTALL) -d $(call q,$(D_BIN)) $(call q,$(D_LIB)) $(call q,$(D_INC)) $(call q,$(D_PC)) $(call q,$(D_MAN))
	$(INSTALL) -m 755 $(BUILD)/mlia $(call q,$(D_BIN)/mlia)
	$(INSTALL) -m 755 $(BUILD)/libmlia.so $(call q,$(D_LIB)/libmlia.so.$(VERSION))
	ln -sf libmlia.so.$(VERSION) $(call q,$(D_LIB)/$(SONAME))
	ln -sf $(SONAME) $(call q,$(D_LIB)/libmlia.so)
	$(INSTALL) -m 644 $(BUILD)/libmlia.a $(call q,$(D_LIB)/libmlia.a)
	$(INSTALL) -m 644 include/mlia/*.h $(call q,$(D_INC))/
	$(INSTALL) -m 644 $(BUILD)/mlia.pc $(call q,$(D_PC)/mlia.pc)
	$(INSTALL) -m 644 docs/mlia.1 $(call q,$(D_MAN)/mlia.1)

uninstall:
	rm -f $(call q,$(D_BIN)/mlia) $(call q,$(D_LIB)/libmlia.so.$(VERSION)) \
	  $(call q,$(D_LIB)/$(SONAME)) $(call q,$(D_LIB)/libmlia.so) $(call q,$(D_LIB)/libmlia.a) \
	  $(call q,$(D_PC)/mlia.pc) $(call q,$(D_MAN)/mlia.1) \
	  $(foreach h,$(HEADERS),$(call q,$(D_INC)/$(h)))
	-rmdir $(call q,$(D_INC)) 2>/dev/null

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d)
