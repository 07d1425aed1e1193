#!/bin/sh
# Prints the Swift runtime files an ELF object loads: its NEEDED entries found in the
# toolchain's runtime folder, and theirs, to the end (one path per line, sorted). What
# the library needs of the runtime, and nothing more, is what `make install` copies.
#   swift-runtime-closure.sh OBJECT RUNTIME_DIR
set -eu
object=$1 runtime=$2
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
seen=" "
queue=$(needed "$object")
while [ -n "$queue" ]; do
    next=""
    for name in $queue; do
        case "$seen" in *" $name "*) continue ;; esac
        seen="$seen$name "
        [ -f "$runtime/$name" ] || continue
        echo "$runtime/$name"
        next="$next $(needed "$runtime/$name")"
    done
    queue=$next
done | sort
