#!/usr/bin/env bash
# Pattern tests: iPhone-era C clients (a SIP client's audio-session module, an old
# VoIP driver, a game's sound driver; and the audio units ported programs use: a SIP
# client's VoiceProcessingIO sound device, an emulator's RemoteIO ring buffer, a DSP
# host's 8.24 play-through; an OpenAL game; a streaming radio player on an audio
# queue; Apple's samples: the aqplay/SpeakHere player, aqofflinerender, SpeakHere's
# recorder, a looping player's stop/reset/dispose, an afconvert-like conversion; id's
# DOOM's music through an AUGraph node input callback; MixerHost's two loops through a
# mixer graph; and reproductions of shipped clients: baresip's audiounit driver,
# mediastreamer2's and pjproject's 16 kHz capture, openal-soft's capture), each a client module plus a drive_*.c harness, built with
# gcc, clang and g++ against `pkg-config AudioToolbox-ios` from PREFIX, with -Werror.
# gcc's and g++'s builds run on the virtual ALSA card (`vcard`), the default path of a
# real machine; gcc's also on the in-process virtual device. A compiler changes how the
# client's own code is built, not what the library does: the C++ build runs because C++
# lays out the headers' enums and structs itself; clang's C build is the same C and the
# same ABI as gcc's, so it is compiled and not run again (a quarter of the suite's time).
#
#   run-patterns.sh PREFIX OUTDIR
#
# Prints "PASS|FAIL <pattern> <compiler> <mode>" per run and ends with
# "patterns: N passed, N failed"; exits 0 only if none failed. Needs an installed
# PREFIX (`make local-install`), nothing built in the tree.
set -uo pipefail
prefix=${1:?usage: run-patterns.sh PREFIX OUTDIR}
out=${2:?usage: run-patterns.sh PREFIX OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
prefix=$(cd "$prefix" && pwd)
out=$(cd "$out" && pwd)
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "PASS $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1"; }

if ! flags=$(pkg-config --cflags --libs AudioToolbox-ios); then
    fail "pkg-config AudioToolbox-ios in $prefix"
    echo "patterns: $passed passed, $failed failed"
    exit 1
fi
clang=/opt/swift/usr/bin/clang
[ -x "$clang" ] || clang=clang
patterns=${PATTERNS:-"sip_audio_session voip_driver game_audio voice_unit emulator_audio dsp_host openal_game radio_player speakhere_recorder afconvert_like aq_player aq_offline aq_reset baresip_audiounit voip_capture_16k openal_capture doom_music mixer_host"}

# run_case EXE MODE: the ALSA run gets a freshly set-up card (jacks and volume back to
# their defaults) and no other card's jacks; the virtual run never touches ALSA.
run_case() {
    local exe=$1 mode=$2
    if [ "$mode" = virtual ]; then
        AUDIOTOOLBOX_BACKEND=virtual "$exe" virtual
    else
        (
            unset AUDIOTOOLBOX_BACKEND
            # A runtime folder of its own: its audiosessiond knows no call or session
            # another run left behind (a short path: the socket's must fit 108 bytes).
            runtime=$(mktemp -d "${TMPDIR:-/tmp}/atpat.XXXXXX")
            trap '[ -f "$runtime/audiotoolbox/audiosessiond.pid" ] && kill "$(cat "$runtime/audiotoolbox/audiosessiond.pid")" 2>/dev/null; rm -rf "$runtime"' EXIT
            export XDG_RUNTIME_DIR=$runtime AUDIOSESSIOND_IDLE_SECONDS=2
            rm -rf "$out/vcard-patterns"
            eval "$("$prefix/bin/vcard" setup "$out/vcard-patterns")" || exit 1
            export VCARD_DIR ALSA_CONFIG_PATH PATH="$prefix/bin:$PATH" AUDIOTOOLBOX_ALSA_JACK_CTLS= \
                AUDIOTOOLBOX_ALSA_PCM=default AUDIOTOOLBOX_ALSA_CTL=default
            # A failure shows the end of the daemon's log: the folder goes with the case.
            "$exe" alsa || {
                rc=$?
                tail -20 "$runtime/audiotoolbox/audiosessiond.log" 2>/dev/null | sed 's/^/daemon: /'
                exit $rc
            }
        )
    fi
}

for pattern in $patterns; do
    for compiler in gcc clang g++; do
        case $compiler in
            gcc) compile=(gcc) ;;
            clang) compile=("$clang") ;;
            g++) compile=(g++ -x c++) ;;  # the .c files compiled as C++
        esac
        # gcc's build runs on the virtual device and the card, g++'s (the same code as
        # C++: its enums and structs as C++ lays them out) on the card; clang's must
        # compile with -Werror, and its run would repeat gcc's (the same C, the same ABI).
        modes=alsa
        [ "$compiler" = gcc ] && modes="virtual alsa"
        [ "$compiler" = clang ] && modes=""
        exe=$out/$pattern-$compiler
        # The OpenAL game links OpenAL Soft as such a game does on Linux.
        extra=""
        [ "$pattern" = openal_game ] && extra=$(pkg-config --cflags --libs openal)
        # shellcheck disable=SC2086  # pkg-config flags split on purpose
        if ! "${compile[@]}" -Wall -Wextra -Werror -o "$exe" "$here/$pattern.c" "$here/drive_$pattern.c" $flags $extra -lm -lpthread \
                2>"$exe.err"; then
            for mode in ${modes:-compile}; do fail "$pattern $compiler $mode (does not compile)"; done
            cat "$exe.err"
            continue
        fi
        [ -z "$modes" ] && pass "$pattern $compiler compile"
        for mode in $modes; do
            if run_case "$exe" "$mode" >"$exe-$mode.log" 2>&1; then
                pass "$pattern $compiler $mode"
            else
                fail "$pattern $compiler $mode (log: $exe-$mode.log)"
                grep -E "^FAIL|passed, .* failed|^daemon: " "$exe-$mode.log" | sed 's/^/    /'
            fi
        done
    done
done
rm -rf "$out/vcard-patterns"

echo "patterns: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
