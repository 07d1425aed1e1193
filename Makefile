# AudioToolbox for Linux — build, install, demo, tests, benchmarks.
#
#   make demo      build, install into ./build/prefix, build and run the demo program
#   make check     the whole test suite (Swift tests, C tests, examples, ABI test)
#   make install   PREFIX=/usr/local DESTDIR= (staged installs supported)
#   make tsan      the concurrency stress under ThreadSanitizer
#   make bench     benchmarks (ratios to baselines measured in the same run)

VERSION     := 0.1.0
SOVERSION   := 0
PREFIX      ?= /usr/local
DESTDIR     ?=
LIBDIR      ?= $(PREFIX)/lib
INCLUDEDIR  ?= $(PREFIX)/include
SWIFT       ?= swift
CC          ?= cc

# The toolchain's usr/lib/swift: CoreFoundation headers and the Swift runtime.
SWIFT_LIB_DIR := $(shell dirname $$(dirname $$(readlink -f $$(command -v swiftc))))/lib/swift
SWIFT_RUNTIME_DIR := $(SWIFT_LIB_DIR)/linux

RELEASE_DIR := .build/release
LIBRARY     := $(RELEASE_DIR)/libAudioToolbox.so
# Where `make check` and `make demo` install the library, as a user would.
LOCAL_PREFIX := $(CURDIR)/build/prefix
PKG_CONFIG_LOCAL := PKG_CONFIG_PATH=$(LOCAL_PREFIX)/lib/pkgconfig pkg-config

.PHONY: all build install uninstall local-install demo check swift-test c-test tsan bench deps clean

all: build

deps:
	@scripts/install-deps.sh

build:
	$(SWIFT) build -c release --product AudioToolbox \
	    -Xlinker -soname=libAudioToolbox.so.$(SOVERSION) -Xlinker -rpath=$(SWIFT_RUNTIME_DIR)

install: build
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)/AudioToolbox
	install -m 755 $(LIBRARY) $(DESTDIR)$(LIBDIR)/libAudioToolbox.so.$(VERSION)
	ln -sf libAudioToolbox.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libAudioToolbox.so.$(SOVERSION)
	ln -sf libAudioToolbox.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libAudioToolbox.so
	install -m 644 include/AudioToolbox/*.h $(DESTDIR)$(INCLUDEDIR)/AudioToolbox/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' -e 's|@SWIFT_LIB_DIR@|$(SWIFT_LIB_DIR)|' \
	    pkgconfig/AudioToolbox.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/AudioToolbox.pc
	install -d $(DESTDIR)$(PREFIX)/share/man/man3
	install -m 644 docs/audiosession.3 $(DESTDIR)$(PREFIX)/share/man/man3/

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libAudioToolbox.so* $(DESTDIR)$(LIBDIR)/pkgconfig/AudioToolbox.pc
	rm -rf $(DESTDIR)$(INCLUDEDIR)/AudioToolbox
	rm -f $(DESTDIR)$(PREFIX)/share/man/man3/audiosession.3

local-install:
	@$(MAKE) --no-print-directory install PREFIX=$(LOCAL_PREFIX) DESTDIR=

demo: deps local-install
	@mkdir -p build/bin
	$(CC) -o build/bin/demo examples-c/demo.c $$($(PKG_CONFIG_LOCAL) --cflags --libs AudioToolbox)
	@build/bin/demo

check: deps local-install
	@scripts/run-tests.sh "$(LOCAL_PREFIX)"

tsan: deps
	$(SWIFT) test --scratch-path .build-tsan --sanitize=thread --filter Stress

bench: deps local-install
	@scripts/run-benchmarks.sh "$(LOCAL_PREFIX)"

clean:
	rm -rf build .build
