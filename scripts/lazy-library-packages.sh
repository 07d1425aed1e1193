#!/bin/sh
# Prints, comma-separated, the Debian packages that hold the libraries the library opens
# on first use: the SONAMEs written in it that are not among its NEEDED entries, each
# looked up in the packages installed at build time (dpkg -S).
#   lazy-library-packages.sh [LIBRARY]   (default: .build/release/libAudioToolbox.so)
set -eu
library=${1:-.build/release/libAudioToolbox.so}
needed=$(readelf -d "$library" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
own=$(readelf -d "$library" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
packages=""
for soname in $(strings -a "$library" | grep -E '^lib[A-Za-z0-9_.+-]+\.so(\.[0-9]+)+$' | sort -u); do
    [ "$soname" = "$own" ] && continue
    echo "$needed" | grep -qxF "$soname" && continue
    package=$(dpkg -S "*/$soname" 2>/dev/null | sed -n '1s/:.*//p')
    [ -n "$package" ] || { echo "lazy-library-packages: no installed package holds $soname" >&2; exit 1; }
    packages="$packages${packages:+, }$package"
done
echo "$packages"
