#!/usr/bin/env bash
# Every function and data symbol our public headers declare `extern` must be exported by
# the installed library (nm -D), and the library must carry its versioned SONAME.
set -euo pipefail
library=${1:?usage: check-exports.sh LIBRARY}
here=$(cd "$(dirname "$0")/.." && pwd)
exported=$(nm -D --defined-only "$library" | awk '{print $3}' | sort -u)
declared=$(sed -n -E 's/^extern (OSStatus|const CFStringRef) ([A-Za-z_0-9]+).*/\2/p' "$here"/include/AudioToolbox/*.h | sort -u)
missing=$(comm -23 <(echo "$declared") <(echo "$exported"))
count=$(echo "$declared" | wc -l)
if [ -n "$missing" ]; then
    echo "declared but not exported:"; echo "$missing"; exit 1
fi
soname=$(readelf -d "$library" | sed -n -E 's/.*SONAME.*\[(.*)\]/\1/p')
[ "$soname" = "libAudioToolbox.so.0" ] || { echo "SONAME is '$soname'"; exit 1; }
echo "exports: all $count declared symbols exported, SONAME $soname"
