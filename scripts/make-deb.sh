#!/usr/bin/env bash
# make deb: the Debian packages (Debian 12) into build/deb, with debhelper.
# debian/rules' clean, build and binary targets run as dpkg-buildpackage -b runs them,
# but the packages land in build/deb instead of the folder above the tree, and no
# .changes is written (nothing here is uploaded). Lintian then checks every package and
# fails the target on any error.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
for tool in dh dpkg-shlibdeps lintian readelf strings; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
    echo "make deb: missing ${missing[*]}: apt-get install debhelper dpkg-dev lintian binutils" >&2
    exit 1
fi
command -v swift >/dev/null || { echo "make deb: no swift on PATH (the library is built with the Swift toolchain)" >&2; exit 1; }
dpkg-checkbuilddeps
# What dpkg-buildpackage exports: the control file says no root is needed, so the files
# are owned by root in the packages whoever builds them.
export DEB_RULES_REQUIRES_ROOT=no
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(dpkg-parsechangelog -STimestamp)}
eval "$(dpkg-buildflags --export=sh)"
debian/rules clean
rm -rf build/deb && mkdir -p build/deb
debian/rules build
debian/rules binary
ls -1 build/deb
# Lintian on every package: errors fail the build; warnings are shown.
lintian --fail-on error --no-tag-display-limit build/deb/*.deb
echo "make deb: $(ls build/deb/*.deb | wc -l) packages in build/deb, lintian reports no errors"
