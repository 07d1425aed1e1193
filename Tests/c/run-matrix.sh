#!/usr/bin/env bash
# The C suites (Tests/c/test_*.c) in every configuration a program meets:
#
#   {virtual device, virtual ALSA card} x {in-process arbiter, audiosessiond}
#
# Each suite drives the world through world.h, which uses what the configuration has
# (the virtual device's calls or `vcard`; the in-process arbiter's calls or
# `audiosession`). One line per suite and configuration: "PASS name [configuration]" or
# "FAIL ...", and one "SKIP part [configuration]: reason" per part a configuration cannot
# do, as the suite printed it.
#
#   run-matrix.sh PREFIX OUT [SUITE...]     (default: every suite but test_dlclose)
set -uo pipefail
prefix=$(cd "${1:?usage: run-matrix.sh PREFIX OUT [SUITE...]}" && pwd)
out=${2:?usage: run-matrix.sh PREFIX OUT [SUITE...]}; mkdir -p "$out"; out=$(cd "$out" && pwd)
shift 2
here=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
flags=$(pkg-config --cflags --libs AudioToolbox) || { echo "FAIL pkg-config cannot find AudioToolbox in $prefix"; exit 1; }
# A suite that says "Compiled as iPhone code" in its opening comment is built as a ported
# program is: with the -ios module, where TARGET_OS_IPHONE is 1 (the iPhone-only names).
iosFlags=$(pkg-config --cflags --libs AudioToolbox-ios) || { echo "FAIL pkg-config cannot find AudioToolbox-ios"; exit 1; }
export PATH=$prefix/bin:$PATH

suites=("$@")
if [ ${#suites[@]} -eq 0 ]; then
    for source in "$here"/Tests/c/test_*.c; do
        name=$(basename "$source" .c)
        [ "$name" = test_dlclose ] && continue   # dlopens the library: run-tests.sh runs it alone
        suites+=("$name")
    done
fi

# Stops the daemons a configuration's folder holds (by their pid file).
stop_daemon() {
    local pidfile=$1/audiotoolbox/audiosessiond.pid
    [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null
    return 0
}

for name in "${suites[@]}"; do
    suiteFlags=$flags
    head -20 "$here/Tests/c/$name.c" | grep -q "Compiled as iPhone code" && suiteFlags=$iosFlags
    if ! cc -std=gnu11 -Wall -Wextra -Werror -o "$out/$name" "$here/Tests/c/$name.c" $suiteFlags -lsndfile -lpthread -lm \
            2>"$out/$name.err"; then
        echo "FAIL $name (does not compile)"; cat "$out/$name.err"; continue
    fi
    for hardware in virtual card; do
        for arbiter in local daemon; do
            config="$hardware-$arbiter"
            label="$name [$( [ $hardware = virtual ] && echo "virtual device" || echo "virtual ALSA card" ), $( [ $arbiter = local ] && echo "in-process arbiter" || echo audiosessiond )]"
            # Short: the daemon's socket path must fit a Unix socket address (108 bytes).
            runtime=$(mktemp -d "${TMPDIR:-/tmp}/atmatrix.XXXXXX")
            env=(XDG_RUNTIME_DIR="$runtime" AUDIOTOOLBOX_ARBITER=$arbiter AUDIOSESSIOND_IDLE_SECONDS=2)
            if [ $hardware = virtual ]; then
                env+=(AUDIOTOOLBOX_BACKEND=virtual)
            else
                # A fresh card for each run: jacks out, its own volume.
                rm -rf "$out/vcard-$name"
                unset VCARD_DIR ALSA_CONFIG_PATH
                if ! setup=$(vcard setup "$out/vcard-$name") || ! eval "$setup" || [ -z "${VCARD_DIR:-}" ]; then
                    echo "FAIL $label (vcard setup failed)"
                    rm -rf "$runtime"
                    continue
                fi
                # No other card's jacks: on a machine with a sound card they would mix in.
                env+=(VCARD_DIR="$VCARD_DIR" ALSA_CONFIG_PATH="$ALSA_CONFIG_PATH" AUDIOTOOLBOX_ALSA_JACK_CTLS=)
            fi
            log=$out/$name-$config.log
            (unset AUDIOTOOLBOX_BACKEND VCARD_DIR ALSA_CONFIG_PATH; cd "$out" && env "${env[@]}" "./$name") >"$log" 2>&1
            status=$?
            stop_daemon "$runtime"
            rm -rf "$runtime"
            grep "^SKIP " "$log"
            if [ $status -eq 0 ]; then echo "PASS $label"; else echo "FAIL $label (see $log)"; grep -m8 "FAIL" "$log" | sed "s/^/    /"; fi
        done
    done
done
# The last line: a runner that stopped early (and so ran fewer suites) is told apart.
echo "END matrix"
