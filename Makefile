# AudioToolbox for Linux — build, install, demo, tests, benchmarks.
#
#   make demo      build, install into ./build/prefix, build and run the demo program
#   make check     the whole test suite (Swift tests, C tests, examples, ABI test)
#   make install   PREFIX=/usr/local DESTDIR= (staged installs supported)
#   make deb       Debian packages into build/deb (debian/, built with debhelper)
#   make tsan      the concurrency stress under ThreadSanitizer
#   make bench     benchmarks (ratios to baselines measured in the same run)

VERSION     := 0.1.0
# The same version as AudioSessionLinux.h's AUDIOTOOLBOX_LINUX_VERSION_NUMBER spells it.
VERSION_NUMBER := $(shell echo $(VERSION) | awk -F. '{print $$1 * 10000 + $$2 * 100 + $$3}')
HEADER_VERSION_NUMBER := $(shell sed -n 's/^\#define AUDIOTOOLBOX_LINUX_VERSION_NUMBER //p' include/AudioToolbox/AudioSessionLinux.h)
SOVERSION   := 0
PREFIX      ?= /usr/local
DESTDIR     ?=
LIBDIR      ?= $(PREFIX)/lib
INCLUDEDIR  ?= $(PREFIX)/include
COMPAT_DIR  := $(INCLUDEDIR)/AudioToolbox/compat
DOC_DIR     ?= $(PREFIX)/share/doc/audiotoolbox
# systemd's user units (socket activation of audiosessiond), for distributions that use it.
SYSTEMD_USER_DIR ?= $(PREFIX)/lib/systemd/user
SWIFT       ?= swift
CC          ?= cc

# The toolchain's usr/lib/swift: CoreFoundation headers and the Swift runtime, read at
# build and install time only.
SWIFT_LIB_DIR := $(shell dirname $$(dirname $$(readlink -f $$(command -v swiftc))))/lib/swift
SWIFT_RUNTIME_DIR := $(SWIFT_LIB_DIR)/linux
# The library carries the Swift runtime it needs (libFoundation holds CoreFoundation) in a
# private folder beside it, found through its RUNPATH: it then runs where no toolchain is
# installed, and never mixes with a toolchain the user has. CoreFoundation's headers, from
# the same toolchain, go with it.
PRIVATE_RUNTIME := audiotoolbox/swift
# An rpath to LIBDIR in the pkg-config modules' Libs; empty where LIBDIR is a system folder.
LIB_RPATH   ?= -Wl,-rpath,$${libdir}
PLUGIN_DIR  ?= $(LIBDIR)/audiotoolbox
BINDIR      ?= $(PREFIX)/bin
# The daemon's helper (audiosessiond-finisher), found by the daemon at ../libexec/audiotoolbox
# from its own folder.
LIBEXEC_DIR ?= $(PREFIX)/libexec/audiotoolbox
VCARD_BUILD ?= build/vcard
VCARD_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror

RELEASE_DIR := .build/release
LIBRARY     := $(RELEASE_DIR)/libAudioToolbox.so
# Where `make check` and `make demo` install the library, as a user would.
LOCAL_PREFIX := $(CURDIR)/build/prefix
PKG_CONFIG_LOCAL := PKG_CONFIG_PATH=$(LOCAL_PREFIX)/lib/pkgconfig pkg-config

.PHONY: vcard all build install install-runtime uninstall local-install demo check swift-test c-test tsan bench deps deb clean

all: build

deps:
	@scripts/install-deps.sh

# -no-toolchain-stdlib-rpath and --disable-local-rpath: the library's only RUNPATH is
# its private runtime (PRIVATE_RUNTIME), never the toolchain's folder. Every product of
# one build folder is built with the same flags, or the modules they share would be
# compiled again by each.
SWIFT_BUILD_FLAGS := -c release --disable-local-rpath -Xswiftc -no-toolchain-stdlib-rpath
# The daemon and the tools link the Swift runtime statically, which compiles the modules
# they share with the library differently: they have a build folder of their own, so a
# second `make build` (make deb after make check) compiles nothing again.
STATIC_SCRATCH := .build-static
STATIC_RELEASE_DIR := $(STATIC_SCRATCH)/release
# -z nodelete: dlclose never unmaps the library. Its event thread, the run-loop source
# it adds to the program's run loop and the callbacks already queued all point into its
# code, and the Swift runtime it loads cannot be unloaded either (docs/API.md, "Unloading").
build:
	@[ "$(VERSION_NUMBER)" = "$(HEADER_VERSION_NUMBER)" ] || \
	    { echo "AudioSessionLinux.h says version $(HEADER_VERSION_NUMBER), the Makefile $(VERSION) ($(VERSION_NUMBER))"; exit 1; }
	$(SWIFT) build $(SWIFT_BUILD_FLAGS) --product AudioToolbox \
	    -Xlinker -soname=libAudioToolbox.so.$(SOVERSION) -Xlinker -rpath -Xlinker '$$ORIGIN/$(PRIVATE_RUNTIME)' \
	    -Xlinker -z -Xlinker nodelete \
	    -Xlinker --version-script=$(CURDIR)/pkgconfig/libAudioToolbox.map
	@# The daemon and the tool carry their Swift runtime: they keep working whatever
	@# happens to the toolchain, and start without loading Foundation.
	$(SWIFT) build $(SWIFT_BUILD_FLAGS) --scratch-path $(STATIC_SCRATCH) --product audiosessiond --static-swift-stdlib
	$(SWIFT) build $(SWIFT_BUILD_FLAGS) --scratch-path $(STATIC_SCRATCH) --product audiosession --static-swift-stdlib
	$(SWIFT) build $(SWIFT_BUILD_FLAGS) --scratch-path $(STATIC_SCRATCH) --product audiosessiond-finisher --static-swift-stdlib

# The virtual ALSA card: two ALSA plugins and the `vcard` driver command.
vcard:
	@mkdir -p $(VCARD_BUILD)
	$(CC) $(VCARD_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -fPIC -DPIC -shared -o $(VCARD_BUILD)/libasound_module_ctl_vcard.so vcard/ctl_vcard.c -lasound
	$(CC) $(VCARD_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -fPIC -DPIC -shared -o $(VCARD_BUILD)/libasound_module_pcm_vcard.so vcard/pcm_vcard.c -lasound -lm
	$(CC) $(VCARD_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -DVCARD_PLUGIN_DIR='"$(PLUGIN_DIR)"' -o $(VCARD_BUILD)/vcard vcard/vcard.c -lm

install: build vcard install-runtime
	install -d $(DESTDIR)$(PLUGIN_DIR) $(DESTDIR)$(BINDIR)
	install -m 755 $(VCARD_BUILD)/libasound_module_ctl_vcard.so $(VCARD_BUILD)/libasound_module_pcm_vcard.so \
	    $(DESTDIR)$(PLUGIN_DIR)/
	install -m 755 $(VCARD_BUILD)/vcard $(DESTDIR)$(BINDIR)/
	install -m 755 $(STATIC_RELEASE_DIR)/audiosessiond $(STATIC_RELEASE_DIR)/audiosession $(DESTDIR)$(BINDIR)/
	install -d $(DESTDIR)$(LIBEXEC_DIR)
	install -m 755 $(STATIC_RELEASE_DIR)/audiosessiond-finisher $(DESTDIR)$(LIBEXEC_DIR)/
	install -d $(DESTDIR)$(SYSTEMD_USER_DIR)
	sed -e 's|@BINDIR@|$(BINDIR)|' systemd/audiosessiond.service.in > $(DESTDIR)$(SYSTEMD_USER_DIR)/audiosessiond.service
	install -m 644 systemd/audiosessiond.socket $(DESTDIR)$(SYSTEMD_USER_DIR)/
	install -m 644 docs/vcard.1 $(DESTDIR)$(PREFIX)/share/man/man1/ 2>/dev/null || \
	    { install -d $(DESTDIR)$(PREFIX)/share/man/man1 && install -m 644 docs/vcard.1 $(DESTDIR)$(PREFIX)/share/man/man1/; }
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)/AudioToolbox
	install -m 755 $(LIBRARY) $(DESTDIR)$(LIBDIR)/libAudioToolbox.so.$(VERSION)
	ln -sf libAudioToolbox.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libAudioToolbox.so.$(SOVERSION)
	ln -sf libAudioToolbox.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libAudioToolbox.so
	install -m 644 include/AudioToolbox/*.h $(DESTDIR)$(INCLUDEDIR)/AudioToolbox/
	@# Core Audio's shared types, where the iPhone SDK has them: <CoreAudio/CoreAudioTypes.h>.
	install -d $(DESTDIR)$(INCLUDEDIR)/CoreAudio $(DESTDIR)$(INCLUDEDIR)/AudioUnit
	install -m 644 include/CoreAudio/*.h $(DESTDIR)$(INCLUDEDIR)/CoreAudio/
	install -m 644 include/AudioUnit/*.h $(DESTDIR)$(INCLUDEDIR)/AudioUnit/
	@# libkern's byte-order helpers, which CoreFoundation brings on the phone: <libkern/OSByteOrder.h>.
	install -d $(DESTDIR)$(INCLUDEDIR)/libkern
	install -m 644 include/libkern/*.h $(DESTDIR)$(INCLUDEDIR)/libkern/
	@# The porting headers: TargetConditionals.h, Availability.h and CoreFoundation
	@# wrappers for each module (docs/PORTING.md, "Compiling as iPhone code").
	install -d $(DESTDIR)$(COMPAT_DIR)/linux/CoreFoundation $(DESTDIR)$(COMPAT_DIR)/ios/CoreFoundation
	install -m 644 include/AudioToolbox/compat/*.h $(DESTDIR)$(COMPAT_DIR)/
	install -m 644 include/AudioToolbox/compat/linux/*.h $(DESTDIR)$(COMPAT_DIR)/linux/
	install -m 644 include/AudioToolbox/compat/linux/CoreFoundation/*.h $(DESTDIR)$(COMPAT_DIR)/linux/CoreFoundation/
	install -m 644 include/AudioToolbox/compat/ios/*.h $(DESTDIR)$(COMPAT_DIR)/ios/
	scripts/gen-cf-wrappers.sh $(SWIFT_LIB_DIR)/CoreFoundation $(DESTDIR)$(COMPAT_DIR)/ios/CoreFoundation
	install -m 644 include/AudioToolbox/compat/ios/CoreFoundation/*.h $(DESTDIR)$(COMPAT_DIR)/ios/CoreFoundation/
	for module in AudioToolbox AudioToolbox-ios; do \
	    sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	        -e 's|@VERSION@|$(VERSION)|' -e 's|@PRIVATE_RUNTIME@|$(PRIVATE_RUNTIME)|' -e 's|@LIB_RPATH@|$(LIB_RPATH)|' \
	        pkgconfig/$$module.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/$$module.pc || exit 1; \
	done
	install -d $(DESTDIR)$(PREFIX)/share/man/man3
	install -m 644 docs/audiosession.3 docs/audioservices.3 docs/audioqueue.3 docs/augraph.3 $(DESTDIR)$(PREFIX)/share/man/man3/
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man8
	install -m 644 docs/audiosession.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 docs/audiosessiond.8 $(DESTDIR)$(PREFIX)/share/man/man8/
	install -d $(DESTDIR)$(DOC_DIR)
	install -m 644 README.md docs/PORTING.md docs/API.md $(DESTDIR)$(DOC_DIR)/
	install -d $(DESTDIR)$(PREFIX)/share/audiotoolbox
	install -m 644 data/alsa-controls.conf $(DESTDIR)$(PREFIX)/share/audiotoolbox/

# The Swift runtime files the library loads (its NEEDED closure inside the toolchain's
# runtime folder, scripts/swift-runtime-closure.sh), and CoreFoundation's headers.
install-runtime: build
	install -d $(DESTDIR)$(LIBDIR)/$(PRIVATE_RUNTIME)/include/CoreFoundation
	install -m 644 $$(scripts/swift-runtime-closure.sh $(LIBRARY) $(SWIFT_RUNTIME_DIR)) $(DESTDIR)$(LIBDIR)/$(PRIVATE_RUNTIME)/
	install -m 644 $(SWIFT_LIB_DIR)/CoreFoundation/*.h $(SWIFT_LIB_DIR)/CoreFoundation/module.modulemap \
	    $(DESTDIR)$(LIBDIR)/$(PRIVATE_RUNTIME)/include/CoreFoundation/

# Debian packages (Debian 12), into build/deb: debian/rules' own sequence, run as
# dpkg-buildpackage runs it, then lintian over the result.
deb:
	@scripts/make-deb.sh

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libAudioToolbox.so* $(DESTDIR)$(LIBDIR)/pkgconfig/AudioToolbox.pc \
	    $(DESTDIR)$(LIBDIR)/pkgconfig/AudioToolbox-ios.pc
	rm -rf $(DESTDIR)$(INCLUDEDIR)/AudioToolbox $(DESTDIR)$(INCLUDEDIR)/CoreAudio $(DESTDIR)$(INCLUDEDIR)/AudioUnit $(DESTDIR)$(DOC_DIR) $(DESTDIR)$(PREFIX)/share/audiotoolbox
	rm -f $(DESTDIR)$(INCLUDEDIR)/libkern/OSByteOrder.h
	-rmdir $(DESTDIR)$(INCLUDEDIR)/libkern 2>/dev/null
	rm -f $(DESTDIR)$(PREFIX)/share/man/man3/audiosession.3 $(DESTDIR)$(PREFIX)/share/man/man3/audioservices.3 $(DESTDIR)$(PREFIX)/share/man/man3/audioqueue.3 $(DESTDIR)$(PREFIX)/share/man/man3/augraph.3 $(DESTDIR)$(PREFIX)/share/man/man1/vcard.1
	rm -rf $(DESTDIR)$(PLUGIN_DIR) $(DESTDIR)$(BINDIR)/vcard $(DESTDIR)$(BINDIR)/audiosessiond $(DESTDIR)$(BINDIR)/audiosession \
	    $(DESTDIR)$(LIBEXEC_DIR)
	rm -f $(DESTDIR)$(SYSTEMD_USER_DIR)/audiosessiond.service $(DESTDIR)$(SYSTEMD_USER_DIR)/audiosessiond.socket
	rm -f $(DESTDIR)$(PREFIX)/share/man/man1/audiosession.1 $(DESTDIR)$(PREFIX)/share/man/man8/audiosessiond.8

local-install:
	@$(MAKE) --no-print-directory install PREFIX=$(LOCAL_PREFIX) DESTDIR=

demo: deps local-install
	@mkdir -p build/bin
	$(CC) -o build/bin/demo examples-c/demo.c $$($(PKG_CONFIG_LOCAL) --cflags --libs AudioToolbox)
	@AUDIOTOOLBOX_BACKEND=virtual build/bin/demo

check: deps local-install
	@scripts/run-tests.sh "$(LOCAL_PREFIX)"

tsan: deps
	AUDIOTOOLBOX_BACKEND=virtual $(SWIFT) test --scratch-path .build-tsan --sanitize=thread --filter Stress

bench: deps local-install
	@scripts/run-benchmarks.sh "$(LOCAL_PREFIX)"

clean:
	rm -rf build .build $(STATIC_SCRATCH)
