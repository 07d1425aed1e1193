#!/usr/bin/env bash
# Every function and data symbol our public headers declare `extern` must be exported by
# the installed library (nm -D) under the AUDIOTOOLBOX_0 version, nothing else may be,
# and the library must carry its versioned SONAME.
set -euo pipefail
library=${1:?usage: check-exports.sh LIBRARY}
here=$(cd "$(dirname "$0")/.." && pwd)
# Global symbols only, without their version suffix (name@@AUDIOTOOLBOX_0).
exported=$(nm -D --defined-only "$library" | awk '$2 ~ /^[A-Z]$/ {print $3}' | sed 's/@.*//' | sort -u)
unversioned=$(nm -D --defined-only "$library" | awk '$2 ~ /^[TDRB]$/ && $3 !~ /@@AUDIOTOOLBOX_0$/ {print $3}')
if [ -n "$unversioned" ]; then echo "exported without the AUDIOTOOLBOX_0 version:"; echo "$unversioned"; exit 1; fi
# What Linux's CoreFoundation declares (CFBase.h) but does not define; we define it.
for_corefoundation="kCFCoreFoundationVersionNumber"
declared_or_cf() {
    { sed -n -E 's/^extern (OSStatus|void|const CFStringRef|AudioComponent|UInt32|Boolean|CFDictionaryRef) ([A-Za-z_0-9]+).*/\2/p' \
          "$here"/include/AudioToolbox/*.h "$here"/include/AudioUnit/*.h
      echo "$for_corefoundation"; } | sort -u
}
extra=$(comm -13 <(declared_or_cf) <(echo "$exported" | grep -v '^AUDIOTOOLBOX_0$'))
if [ -n "$extra" ]; then echo "exported but not declared in a public header:"; echo "$extra"; exit 1; fi
declared=$(declared_or_cf)
missing=$(comm -23 <(echo "$declared") <(echo "$exported"))
count=$(echo "$declared" | wc -l)
if [ -n "$missing" ]; then
    echo "declared but not exported:"; echo "$missing"; exit 1
fi
soname=$(readelf -d "$library" | sed -n -E 's/.*SONAME.*\[(.*)\]/\1/p')
[ "$soname" = "libAudioToolbox.so.0" ] || { echo "SONAME is '$soname'"; exit 1; }
echo "exports: exactly the $count declared symbols, versioned AUDIOTOOLBOX_0, SONAME $soname"
