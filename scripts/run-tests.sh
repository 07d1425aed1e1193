#!/usr/bin/env bash
# The whole test suite, run against the library installed in PREFIX ($1) exactly as a
# user builds against it: only `pkg-config --cflags --libs AudioToolbox`.
#
#  1. Swift tests of the core, the virtual device and the ABI layer (swift test).
#  2. The public headers compile warning-free with gcc and clang, as C99 and C++11; with
#     both pkg-config modules (AudioToolbox, AudioToolbox-ios) in every header order.
#  3. C tests (Tests/c/test_*.c) in four configurations: {virtual device, virtual ALSA
#     card} x {in-process arbiter, audiosessiond} (Tests/c/run-matrix.sh, world.h).
#  4. Every example in examples-c, its output compared with examples-c/expected.
#  5. The ABI test through libffi (Tests/c/abi_ffi.c) against the installed .so, and
#     dlopen/dlclose of it (Tests/c/test_dlclose.c, also not linked with the library).
#  6. The concurrency stress under ThreadSanitizer (make tsan), and the export check.
#  7. The ALSA backend through the virtual ALSA card (Tests/alsa), driven by `vcard`
#     (busy devices, fork and dlclose included), the fallback to the virtual device
#     when there is no card, and AUDIOTOOLBOX_BACKEND=alsa without a card.
#  8. Porting patterns and sample-shaped programs (Tests/patterns) compiled with
#     AudioToolbox-ios by gcc, clang and g++, each run on the virtual ALSA card (gcc's
#     also on the virtual device).
#  9. Programs arbitrated together by a real audiosessiond (Tests/arbiter); the
#     protocol fuzzer and the SPEC 7 table run with the Swift tests (1).
# 10. Hostile users (Tests/hostile): another user's folder, socket or daemon, planted
#     symlinks and FIFOs, floods, silent connections, a stopped daemon, escape sequences
#     in program names, inherited descriptors. Runs as root (uids 65534 and 65533).
# Suites 1, 2 and 4-6 run on the in-process virtual device (AUDIOTOOLBOX_BACKEND=virtual),
# so they behave the same on machines with and without a sound card.
# Ends with one line "check: N passed, N failed, N skipped" counting the suites (swift
# test judged by its exit status; a skip says why the case cannot apply here).
set -uo pipefail
prefix=${1:?usage: run-tests.sh PREFIX}
here=$(cd "$(dirname "$0")/.." && pwd)
out=$here/build/tests
mkdir -p "$out"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
flags=$(pkg-config --cflags --libs AudioToolbox) || { echo "pkg-config cannot find AudioToolbox in $prefix"; exit 1; }
cflags=$(pkg-config --cflags AudioToolbox)
# CoreFoundation alone (libFoundation, in the runtime the library carries), for the tests that
# dlopen the library instead of linking it.
swiftruntimedir=$(pkg-config --variable=swiftruntimedir AudioToolbox)
cf_libs="-L$swiftruntimedir -Wl,-rpath,$swiftruntimedir -lFoundation"
library=$prefix/lib/libAudioToolbox.so.0
passed=0
failed=0
export AUDIOTOOLBOX_BACKEND=virtual
# Each program arbitrates alone, except in the arbiter suite, which starts its own
# daemons; and nothing of this run reaches the user's real runtime folder.
export AUDIOTOOLBOX_ARBITER=local
export XDG_RUNTIME_DIR=$out/runtime
rm -rf "$XDG_RUNTIME_DIR" && mkdir -m 700 -p "$XDG_RUNTIME_DIR"
skipped=0
pass() { passed=$((passed + 1)); echo "PASS $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1"; }
# A skip says why the case cannot apply here; it is counted and shown in the last line.
skip() { skipped=$((skipped + 1)); echo "SKIP $1"; }
# A suite's own PASS/FAIL/SKIP lines, counted here under LABEL; its other lines shown.
relay() {
    local label=$1 line
    while IFS= read -r line; do
        case "$line" in
            "PASS "*) pass "$label${line#PASS }" ;;
            "FAIL "*) fail "$label${line#FAIL }" ;;
            "SKIP "*) skip "$label${line#SKIP }" ;;
            *) echo "$line" ;;
        esac
    done
}
# "== NAME" opens a section; each section's time is printed when the next one opens
# (the suite's budget is kept by reading these, not by asserting them).
section_name=
section_start=$SECONDS
section() {
    [ -n "$section_name" ] && echo "   ($section_name: $((SECONDS - section_start)) s)"
    section_name=${1:-}
    section_name=${section_name%% (*}
    section_start=$SECONDS
    if [ $# -gt 0 ]; then echo "== $1"; fi
}
# The sound-server cases must run wherever the packages are (CI installs them): there a
# stack that cannot start is a failure, not a skip.
if command -v pipewire >/dev/null && command -v wireplumber >/dev/null && command -v pw-play >/dev/null; then
    export AUDIOTOOLBOX_TESTS_REQUIRE_PIPEWIRE=1
fi

section "Swift tests"
# Judged by swift test's own exit status (and a run that executed tests). One suite at a
# time: every test target runs in one process, which has one audio session, and suites
# of different targets set its category, activate it and read it back (AVAudioSession's,
# the players', the C entry points' stress); run side by side they changed it under each
# other (a category with a mode refused as the session had just been activated).
(cd "$here" && swift test --no-parallel > "$out/swift-test.log" 2>&1)
swift_status=$?
grep -E "^(✔|✘|􀟈|􁁛|Test Suite|Executed)|passed after|failed after|error:" "$out/swift-test.log" | tail -15
if [ $swift_status -eq 0 ] && grep -qE "Test run with [1-9][0-9]* tests? " "$out/swift-test.log"; then
    pass "swift test"
else
    fail "swift test (exit $swift_status; see $out/swift-test.log)"
fi

section "Public headers"
cat > "$out/headers.c" <<'SRC'
#include <AudioToolbox/AudioToolbox.h>
int main(void) { return kAudioSessionProperty_AudioCategory == 0x61636174 ? 0 : 1; }
SRC
cp "$out/headers.c" "$out/headers.cpp"
for compiler in gcc clang; do
    for std in c99 c11; do
        if $compiler -std=$std -Wall -Wextra -pedantic -Werror $cflags -c "$out/headers.c" -o "$out/h.o" 2>"$out/h.err"; then
            pass "headers: $compiler -std=$std"; else fail "headers: $compiler -std=$std"; cat "$out/h.err"; fi
    done
done
for compiler in g++ clang++; do
    for std in c++11 c++17; do
        if $compiler -std=$std -Wall -Wextra -pedantic -Werror $cflags -c "$out/headers.cpp" -o "$out/h.o" 2>"$out/h.err"; then
            pass "headers: $compiler -std=$std"; else fail "headers: $compiler -std=$std"; cat "$out/h.err"; fi
    done
done

section "Header order and platform macros (Tests/headers/header_order.c)"
# Each pkg-config module, with gcc, clang, g++ and clang++, in every header order; then
# the ways a program's own code declares noErr. One PASS line per module and compiler.
for module in AudioToolbox AudioToolbox-ios; do
    [ $module = AudioToolbox-ios ] && iphone=1 || iphone=0
    module_flags=$(pkg-config --cflags --libs $module)
    for compiler in gcc clang "g++ -x c++" "clang++ -x c++"; do
        bad=""
        for variant in "1 0" "2 0" "3 0" "4 0" "3 1" "1 2" "3 3"; do
            set -- $variant
            binary=$out/header_order
            if ! $compiler -Wall -Wextra -Werror -DHEADER_ORDER=$1 -DNOERR_STYLE=$2 -DEXPECT_IPHONE=$iphone \
                    -o "$binary" "$here/Tests/headers/header_order.c" $module_flags 2>"$out/header_order.err"; then
                bad="$bad order $1/noErr $2 (does not compile)"; head -20 "$out/header_order.err"
            elif ! "$binary"; then
                bad="$bad order $1/noErr $2 (run)"
            fi
        done
        [ -z "$bad" ] && pass "header order: $module, ${compiler%% *}" || fail "header order: $module, ${compiler%% *}:$bad"
    done
done
# The SDK the -ios module claims: version names up to it, CoreFoundation's umbrella and
# version numbers, kCFCoreFoundationVersionNumber linked (Tests/headers/ios_sdk_claim.c).
ios_flags=$(pkg-config --cflags --libs AudioToolbox-ios)
for compiler in gcc clang; do
    bad=""
    for claim in 0 60000 80000; do
        define=""; [ $claim != 0 ] && define="-D__IPHONE_OS_VERSION_MAX_ALLOWED=$claim"
        if ! $compiler -Wall -Wextra -Werror -DCLAIM=$claim $define -o "$out/ios_sdk_claim" \
                "$here/Tests/headers/ios_sdk_claim.c" $ios_flags 2>"$out/ios_sdk_claim.err"; then
            bad="$bad claim $claim (does not compile)"; head -20 "$out/ios_sdk_claim.err"
        elif ! "$out/ios_sdk_claim" | grep -q "ios-sdk-claim ok"; then
            bad="$bad claim $claim (run)"
        fi
    done
    [ -z "$bad" ] && pass "iOS SDK claim: $compiler" || fail "iOS SDK claim: $compiler:$bad"
done
# A header test (Tests/headers/NAME.c) built with gcc, clang, g++ and clang++ against one
# module (EXPECT_IPHONE set to match) and run: it must print "MARK ok".
# Usage: header_program LABEL NAME MARK MODULE
header_program() {
    local label=$1 name=$2 mark=$3 module=$4 iphone=0 bad=""
    [ "$module" = AudioToolbox-ios ] && iphone=1
    local module_flags
    module_flags=$(pkg-config --cflags --libs "$module")
    for compiler in "gcc -std=c11" "clang -std=c11" "g++ -x c++ -std=c++11" "clang++ -x c++ -std=c++11"; do
        if ! $compiler -Wall -Wextra -Werror -DEXPECT_IPHONE=$iphone -o "$out/$name" \
                "$here/Tests/headers/$name.c" $module_flags 2>"$out/$name.err"; then
            bad="$bad ${compiler%% *} (does not compile)"; head -20 "$out/$name.err"
        elif ! "$out/$name" | grep -q "$mark ok"; then
            bad="$bad ${compiler%% *} (run)"
        fi
    done
    [ -z "$bad" ] && pass "$label: $module" || fail "$label: $module:$bad"
}
for module in AudioToolbox AudioToolbox-ios; do
    # <CoreAudio/CoreAudioTypes.h> through the umbrella: layouts and values of the iPhone
    # SDK, the canonical formats each module chooses, the SDK's C++ helpers.
    header_program CoreAudioTypes core_audio_types core-audio-types "$module"
    # <AudioUnit/AudioUnit.h>, through the umbrella: the SDK's values and layouts.
    header_program "AudioUnit headers" audio_unit_values audio-unit-values "$module"
    # The file, stream, format and converter headers, through the umbrella: values, layouts, functions.
    header_program "AudioFile headers" audio_file_values audio-file-values "$module"
    header_program "AudioQueue headers" audio_queue_values audio-queue-values "$module"
    header_program "AUGraph header" augraph_values augraph-values "$module"
    # The iPhone names programs stopped on (issue 40): nil in C, libkern's byte order through
    # CoreFoundation, AUDIO_TOOLBOX_VERSION, CAShow's type, the codec properties.
    header_program "iPhone names" iphone_names iphone-names "$module"
done
# Every name docs/HEADER-COVERAGE.tsv calls "provided" is declared by the headers we ship,
# with Apple's value where the table has one: Tests/headers/coverage.py writes the program.
if python3 "$here/Tests/headers/coverage.py" "$here/docs/HEADER-COVERAGE.tsv" "$out/coverage.c" >"$out/coverage.gen" 2>&1; then
    cat "$out/coverage.gen"
    for module in AudioToolbox AudioToolbox-ios; do
        module_flags=$(pkg-config --cflags --libs "$module")
        bad="" in_c="" in_cxx=""
        for compiler in "gcc -std=c11" "clang -std=c11" "g++ -x c++ -std=c++11" "clang++ -x c++ -std=c++11"; do
            if ! $compiler -Wall -Wextra -Werror -o "$out/coverage" "$out/coverage.c" $module_flags 2>"$out/coverage.err"; then
                bad="$bad ${compiler%% *} (does not compile)"; grep -m 20 "error" "$out/coverage.err"
            elif ! "$out/coverage" >"$out/coverage.out"; then
                bad="$bad ${compiler%% *} (run)"; cat "$out/coverage.out"
            else
                case "$compiler" in *++*) in_cxx=$(sed -n 's/^header-coverage ok: //p' "$out/coverage.out") ;;
                                    *) in_c=$(sed -n 's/^header-coverage ok: //p' "$out/coverage.out") ;; esac
            fi
        done
        [ -z "$bad" ] && pass "header coverage: $module ($in_c in C; $in_cxx in C++)" || fail "header coverage: $module:$bad"
    done
else
    cat "$out/coverage.gen"; fail "header coverage: Tests/headers/coverage.py cannot read docs/HEADER-COVERAGE.tsv"
fi
# API.md's counts and its list of names not provided are the table's (written from it).
if python3 "$here/Tests/headers/coverage_summary.py" --check "$here/docs/HEADER-COVERAGE.tsv" "$here/docs/API.md" \
        >"$out/coverage-summary.out" 2>&1; then
    pass "header coverage: docs/API.md's counts and list agree with the table"
else
    cat "$out/coverage-summary.out"; fail "header coverage: docs/API.md's counts and list agree with the table"
fi
# The plain module says so when a program asks for iPhone code from it.
printf '#include <AudioToolbox/AudioToolbox.h>\nint main(void) { return 0; }\n' > "$out/iphone_on_plain.c"
if gcc -DTARGET_OS_IPHONE=1 -c "$out/iphone_on_plain.c" -o "$out/h.o" $cflags 2>&1 | grep -q "AudioToolbox-ios"; then
    pass "plain module warns about -DTARGET_OS_IPHONE=1"
else
    fail "plain module warns about -DTARGET_OS_IPHONE=1"
fi

section "C tests in every configuration (Tests/c/run-matrix.sh)"
# Each suite on {virtual device, virtual ALSA card} x {in-process arbiter, audiosessiond},
# its world driven by what the configuration has (Tests/c/world.h). One PASS/FAIL per
# suite and configuration; a part a configuration cannot do is a counted SKIP, with why.
while IFS= read -r line; do
    case "$line" in
        "PASS "*) pass "${line#PASS }" ;;
        "FAIL "*) fail "${line#FAIL }" ;;
        "SKIP "*) skip "${line#SKIP }" ;;
        "END matrix") matrix_ended=1 ;;
        *) echo "$line" ;;
    esac
done < <("$here/Tests/c/run-matrix.sh" "$prefix" "$out/matrix" 2>&1)
[ "${matrix_ended:-0}" = 1 ] || fail "Tests/c/run-matrix.sh stopped before its end"
# The time and pitch units' real-time promise checked on SoundTouch itself, at every
# tempo and block size (test_realtime sees only the ones its sweep reaches).
if g++ -std=c++17 -O2 -I/usr/include/soundtouch -I"$here/Sources/CLibraries/CTimeStretch/include" \
        -o "$out/time_stretch_prepare" "$here/Tests/tools/time_stretch_prepare.cpp" -lSoundTouch 2>"$out/time_stretch_prepare.err"; then
    while IFS= read -r line; do
        case "$line" in
            "PASS "*) pass "${line#PASS }" ;;
            "FAIL "*) fail "${line#FAIL }" ;;
            *) echo "$line" ;;
        esac
    done < <("$out/time_stretch_prepare" 2>&1 || echo "FAIL time stretch: exited $?")
else
    fail "time stretch (Tests/tools/time_stretch_prepare.cpp does not compile)"; head -5 "$out/time_stretch_prepare.err"
fi

section "Examples"
for source in "$here"/examples-c/*.c "$here"/examples-c/*.cpp; do
    [ -e "$source" ] || continue
    file=$(basename "$source"); name=${file%.*}
    [ "$name" = demo ] && expected=$here/examples-c/expected/demo.txt || expected=$here/examples-c/expected/$name.txt
    case "$file" in
        *.cpp) compile=(c++ -std=c++11 -Wall -Wextra -Werror) ;;
        *) compile=(cc -std=c99 -Wall -Wextra -Werror) ;;
    esac
    if ! "${compile[@]}" -o "$out/$name" "$source" $flags -lm 2>"$out/$name.err"; then
        fail "example $name (does not compile)"; cat "$out/$name.err"; continue
    fi
    if "$out/$name" > "$out/$name.out" 2>&1 && diff -u "$expected" "$out/$name.out"; then
        pass "example $name"
    else
        fail "example $name (output differs from $expected)"
    fi
done

# README's first example is examples-c/tone.c, word for word, and it is heard: on a fresh
# virtual card (the production ALSA path), the card records its two seconds of 440 Hz.
readme_tone=$(awk '/^## A tone in twenty lines/ {f = 1} f && /^```c/ {g = 1; next} g && /^```/ {exit} g' "$here/README.md")
if [ -n "$readme_tone" ] && [ "$readme_tone" = "$(cat "$here/examples-c/tone.c")" ]; then
    pass "README's first example is examples-c/tone.c"
else
    fail "README's first example differs from examples-c/tone.c"
fi
rm -rf "$out/vcard-tone"
if tone_env=$("$prefix/bin/vcard" setup "$out/vcard-tone") && heard=$(
        eval "$tone_env"; export VCARD_DIR ALSA_CONFIG_PATH
        AUDIOTOOLBOX_ALSA_JACK_CTLS= AUDIOTOOLBOX_ARBITER=local AUDIOTOOLBOX_BACKEND= "$out/tone" >/dev/null 2>&1 &&
        python3 "$here/Tests/tools/card-heard.py" "$VCARD_DIR" --min-seconds 1.9 --hz 440); then
    pass "the tone example is heard on the virtual card ($heard)"
else
    fail "the tone example is heard on the virtual card (${heard:-did not run})"
fi

section "ABI through libffi"
if cc -std=gnu11 -Wall -Wextra -Werror -o "$out/abi_ffi" "$here/Tests/c/abi_ffi.c" $cflags -lffi -ldl \
        -L"$prefix/lib" -Wl,-rpath,"$prefix/lib" 2>"$out/abi_ffi.err"; then
    if "$out/abi_ffi" "$prefix/lib/libAudioToolbox.so.0"; then pass "abi_ffi"; else fail "abi_ffi"; fi
else
    fail "abi_ffi (does not compile)"; cat "$out/abi_ffi.err"
fi
if cc -std=gnu11 -Wall -Wextra -Werror -o "$out/test_dlclose" "$here/Tests/c/test_dlclose.c" $cflags $cf_libs -ldl -lpthread \
        2>"$out/test_dlclose.err"; then
    if "$out/test_dlclose" "$library"; then pass "test_dlclose"; else fail "test_dlclose"; fi
else
    fail "test_dlclose (does not compile)"; cat "$out/test_dlclose.err"
fi

section "Audio files and conversion (Tests/files)"
# Media made by sox and ffmpeg (not our code); what they decode to, written back, and
# mutated copies of them.
media_flags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs AudioToolbox)
if "$here/Tests/files/make-media.sh" "$out/media" >"$out/media.log" 2>&1; then
    for program in test_audio_files test_audio_file_stream test_audio_file_annotations test_aac_stereo_quality test_aac_caf_stream \
            test_converter_output_description fuzz_audio_files; do
        if ! cc -std=gnu11 -Wall -Wextra -Werror -o "$out/$program" "$here/Tests/files/$program.c" $media_flags -lm \
                2>"$out/$program.err"; then
            fail "$program (does not compile)"; head -20 "$out/$program.err"; continue
        fi
        rounds=""; [ "$program" = fuzz_audio_files ] && rounds=250
        if "$out/$program" "$out/media" $rounds >"$out/$program.log" 2>&1; then
            pass "$program"
        else
            fail "$program"; grep -E "FAIL|hung" "$out/$program.log" | head -20
        fi
        grep "^measured:" "$out/$program.log" | sed 's/^/    /'
    done
else
    fail "make-media.sh"; tail -5 "$out/media.log"
fi

section "Concurrency stress under ThreadSanitizer (make tsan)"
if (cd "$here" && make --no-print-directory tsan > "$out/tsan.log" 2>&1) && ! grep -q "WARNING: ThreadSanitizer" "$out/tsan.log"; then
    pass "tsan"
else
    fail "tsan (see $out/tsan.log)"; grep -m5 -A3 "WARNING: ThreadSanitizer" "$out/tsan.log"
fi

section "Exported symbols"
if "$here/scripts/check-exports.sh" "$prefix/lib/libAudioToolbox.so.0"; then pass "exports"; else fail "exports"; fi

section "The daemon carries no codec"
# audiosessiond is the user's security boundary: a dead program's sounds are decoded by
# audiosessiond-finisher, never by the daemon, so no decoder library is mapped into it.
codecs=$(ldd "$prefix/bin/audiosessiond" | grep -E 'libav|libsw|libsndfile|libsamplerate|libwebrtc|libSoundTouch|libFLAC|libvorbis|libopus|libmp3lame|libx26' | awk '{print $1}' | tr '\n' ' ')
if [ -z "$codecs" ] && [ -x "$prefix/libexec/audiotoolbox/audiosessiond-finisher" ]; then
    pass "daemon without codecs"
else
    fail "daemon without codecs: ldd audiosessiond names ${codecs:-none} (finisher installed: $([ -x "$prefix/libexec/audiotoolbox/audiosessiond-finisher" ] && echo yes || echo no))"
fi

section "Libraries loaded on first use"
# FFmpeg, the WebRTC audio processing library, libsamplerate and libpipewire are opened
# by their SONAMEs when a call first needs them: the library neither links them nor
# leaves one of their symbols undefined.
lib="$prefix/lib/libAudioToolbox.so.0"
needed=$(readelf -d "$lib" | grep NEEDED | grep -oE 'lib(av[a-z]*|webrtc[a-z_]*|samplerate|pipewire-0\.3)\.so[.0-9]*' | tr '\n' ' ')
undefined=$(nm -D --undefined-only "$lib" | awk '{print $2}' | grep -E '^(av_|avcodec_|avformat_|avio_|pw_|src_|_ZN6webrtc)' | head -5 | tr '\n' ' ')
if [ -z "$needed" ] && [ -z "$undefined" ]; then pass "lazy libraries: none linked, none of their symbols undefined"
else fail "lazy libraries: linked ${needed:-none}; undefined ${undefined:-none}"; fi
if cc -std=gnu11 -Wall -Wextra -Werror -o "$out/test_lazy_libraries" "$here/Tests/lazy/test_lazy_libraries.c" $flags \
        2>"$out/test_lazy_libraries.err" && sox -n -r 44100 -c 2 "$out/lazy.wav" synth 0.5 sine 440 2>/dev/null; then
    # lazy NAME COMMAND...: runs COMMAND on the virtual device, its output in lazy-NAME.log.
    lazy() { local name=$1; shift; (export AUDIOTOOLBOX_BACKEND=virtual AUDIOTOOLBOX_ARBITER=local; "$@") >"$out/lazy-$name.log" 2>&1; }
    if lazy session "$out/test_lazy_libraries" session; then pass "lazy libraries: a session-only program maps none"
    else fail "lazy libraries: session"; grep FAIL "$out/lazy-session.log"; fi
    if lazy files "$out/test_lazy_libraries" files "$out/lazy.wav"; then pass "lazy libraries: a file loads FFmpeg, and only it"
    else fail "lazy libraries: files"; grep FAIL "$out/lazy-files.log"; fi
    # A minimal install: the libraries hidden in a private mount namespace (root only).
    hide=""
    for soname in libavformat.so.59 libsamplerate.so.0 libwebrtc_audio_processing.so.1; do
        path=$(ldconfig -p | awk -v n="$soname" '$1 == n {print $NF; exit}')
        [ -n "$path" ] && hide="$hide mount --bind /dev/null $path &&"
    done
    if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null; then
        skip "lazy libraries: missing at run time: hiding a library needs root and unshare (a private mount namespace)"
    elif lazy missing unshare -m sh -c "$hide exec \"\$0\" \"\$@\"" "$out/test_lazy_libraries" missing "$out/lazy.wav"; then
        pass "lazy libraries: missing ones fail only the calls that need them, with their codes"
    else
        fail "lazy libraries: missing"; grep -E "FAIL|mount|rror" "$out/lazy-missing.log" | head
    fi
else
    fail "test_lazy_libraries (does not compile, or no sox)"; head -20 "$out/test_lazy_libraries.err"
fi

section "A thin ABI over one runtime"
# The ABI layer translates: @_cdecl entry points and C buffers. Registries, handle
# tables, listener lists and run-loop queues are the Runtime's; a family's property
# rules are its table's (UnitProperties, QueueProperties, ConverterProperties,
# ExtFileProperties, PropertyTable), never a switch over C constants in the ABI; the environment is read in
# one file (Settings/Configuration.swift); fork has one pthread_atfork.
abi="$here/Sources/Library/ABI/AudioToolbox"
state=$(grep -nE 'HandleTable<|ListenerRegistry<|RunLoopQueues<|Locked<|Mutex<|Atomic<|nonisolated\(unsafe\)|static var' "$abi"/*.swift | head -3)
readers=$(grep -rlE 'getenv|ProcessInfo' "$here/Sources/Library" --include='*.swift' | grep -v '/Settings/Configuration.swift$' | tr '\n' ' ')
# The environment is read at one moment for every layer: the runtime's session assembly
# is the one caller of Configuration.read(); the others go by Configuration.current.
rereaders=$(grep -rn 'Configuration\.read()' "$here/Sources" --include='*.swift' | grep -v '/Settings/Configuration.swift:' | grep -vc '/Runtime/Runtime.swift:')
[ "$rereaders" -eq 0 ] || readers="$readers Configuration.read() called outside the runtime's assembly ($rereaders)"
# Every family's properties are a table in its service: no switch over the C
# constants is left in the ABI.
switches=$(grep -nE '^\s*case k[A-Z]' "$abi"/*.swift | head -3)
# Objects are made by their family's owner in the runtime: nothing enters a handle table
# from the ABI.
making=$(grep -nE '(Handles\.[a-z]+|audioFiles|converters|extAudioFiles|fileStreams|records|taps|graphs|instances)\.(add|reserve|fill)\(' "$abi"/*.swift | head -3)
forks=$(grep -rnE '^[^/*]*pthread_atfork\(' "$here/Sources" --include='*.swift' --include='*.c' | grep -v '^\s*//' | wc -l)
# The Swift classes and system sounds build no unit, queue or mix of their own: they ask
# the families' owners (UnitHandles, QueueHandles, PlayerMixer in the runtime) and mix
# through the one engine (Mixing's VoiceMix).
builders=$(grep -rnE '(OutputUnit|MixerUnit|EffectUnit|AudioQueue|PlayerMixer|MixVoice)\(' "$here/Sources/Swift" \
    "$here/Sources/Library/Services/SystemSounds" --include='*.swift' | grep -v '^[^:]*:[0-9]*:\s*//' | head -3)
[ -z "$builders" ] || making="$making; built outside their owners: $builders"
# FFmpeg's decoder is driven in one file (PacketDecoder.swift): every reader, the
# converter and system sounds decode through it.
decoders=$(grep -rlE 'MediaDecoder(Send|Receive|Open)' "$here/Sources" --include='*.swift' | sed "s|$here/||" | tr '\n' ' ')
if [ -z "$state" ] && [ -z "$readers" ] && [ -z "$switches" ] && [ -z "$making" ] && [ "$forks" -eq 1 ] \
    && [ "$decoders" = "Sources/Library/Services/AudioFiles/PacketDecoder.swift " ]; then
    pass "thin ABI: no state, no switch over the C constants (every family's properties are a table), no object made in the ABI or built by the Swift classes or system sounds, one pthread_atfork, one file driving FFmpeg's decoder"
else
    fail "thin ABI: state in the ABI: ${state:-none}; switches over C constants: ${switches:-none}; objects made in the ABI: ${making:-none}; pthread_atfork calls $forks (one wanted); environment read outside Configuration.swift: ${readers:-none}; files driving FFmpeg's decoder: ${decoders:-none} (PacketDecoder.swift alone wanted)"
fi

section "ALSA backend through the virtual ALSA card"
# alsa_suite [--link "FLAGS"] NAME [VAR=VALUE...]: compile Tests/alsa/NAME.c (linked with
# the library, or with FLAGS instead) and run it with the variables set.
alsa_suite() {
    local link="$flags -lm"
    if [ "$1" = --link ]; then link=$2; shift 2; fi
    local name=$1; shift
    if ! cc -std=gnu11 -Wall -Wextra -Werror -o "$out/$name" "$here/Tests/alsa/$name.c" $link 2>"$out/$name.err"; then
        fail "$name (does not compile)"; cat "$out/$name.err"; return
    fi
    if (unset AUDIOTOOLBOX_BACKEND; export PATH="$prefix/bin:$PATH" "$@"; "$out/$name"); then pass "$name"; else fail "$name"; fi
}
rm -rf "$out/vcard"
eval "$("$prefix/bin/vcard" setup "$out/vcard")"
# No other card's jacks: on a machine with a sound card they would mix into the routes.
alsa_suite test_alsa_vcard VCARD_DIR="$VCARD_DIR" ALSA_CONFIG_PATH="$ALSA_CONFIG_PATH" AUDIOTOOLBOX_ALSA_JACK_CTLS=
rm -rf "$out/control-names-config" && mkdir -p "$out/control-names-config"
alsa_suite test_alsa_control_names VCARD_DIR="$VCARD_DIR" ALSA_CONFIG_PATH="$ALSA_CONFIG_PATH" AUDIOTOOLBOX_ALSA_JACK_CTLS= \
    XDG_CONFIG_HOME="$out/control-names-config"
alsa_suite test_alsa_jack_sources VCARD_DIR="$VCARD_DIR" ALSA_CONFIG_PATH="$ALSA_CONFIG_PATH" \
    AUDIOTOOLBOX_ALSA_CTL=vcardmixer AUDIOTOOLBOX_ALSA_JACK_CTLS=vcard
# docs/PORTING.md's example (session + ALSA playback, paused on Begin), as a reader
# copies it: compiled with AudioToolbox-ios and run on the virtual card.
awk '/<!-- example: pause_on_interruption.c/ {found = 1; next} found && /^```c/ {code = 1; next}
     code && /^```/ {exit} code' "$here/docs/PORTING.md" > "$out/pause_on_interruption.c"
if ! [ -s "$out/pause_on_interruption.c" ]; then
    fail "PORTING.md example (not found)"
elif ! cc -Wall -Wextra -Werror -o "$out/pause_on_interruption" "$out/pause_on_interruption.c" \
        $(pkg-config --cflags --libs AudioToolbox-ios) -lasound -lm 2>"$out/pause.err"; then
    fail "PORTING.md example (does not compile)"; cat "$out/pause.err"
elif (unset AUDIOTOOLBOX_BACKEND; AUDIOTOOLBOX_ALSA_JACK_CTLS= "$out/pause_on_interruption"); then
    pass "PORTING.md example on the virtual card"
else
    fail "PORTING.md example on the virtual card"
fi
# System sounds on a card of their own, whose playback runs in real time and records
# what it plays: the exact mix, conversion, completions, interruptions; then with a real
# audiosessiond: the silent switch and sounds finished for a program that died.
rm -rf "$out/vcard-sounds"
eval "$("$prefix/bin/vcard" setup "$out/vcard-sounds")"
alsa_suite --link "$flags -lasound -lm" test_vcard_playback VCARD_DIR="$VCARD_DIR" ALSA_CONFIG_PATH="$ALSA_CONFIG_PATH"
# What the card hears: a tone, an echo of what it played plus a near-end tone, silence.
alsa_suite --link "$flags -lasound -lm" test_vcard_capture VCARD_DIR="$VCARD_DIR" ALSA_CONFIG_PATH="$ALSA_CONFIG_PATH"
alsa_suite --link "$flags -lasound -lsndfile -lm" test_system_sounds_vcard VCARD_DIR="$VCARD_DIR" \
    ALSA_CONFIG_PATH="$ALSA_CONFIG_PATH" AUDIOTOOLBOX_ALSA_JACK_CTLS= AUDIOTOOLBOX_ARBITER=local
rm -rf "$out/runtime-sounds" && mkdir -m 700 -p "$out/runtime-sounds"
alsa_suite --link "$flags -lasound -lsndfile -lm" test_system_sounds_daemon VCARD_DIR="$VCARD_DIR" \
    ALSA_CONFIG_PATH="$ALSA_CONFIG_PATH" AUDIOTOOLBOX_ALSA_JACK_CTLS= AUDIOTOOLBOX_ARBITER=daemon \
    AUDIOSESSIOND_IDLE_SECONDS=2 XDG_RUNTIME_DIR="$out/runtime-sounds"
# Busy devices, what activation holds, fork and dlclose, on a card of its own: it opens
# PCMs itself and dlopens the library (not linked with it, so dlclose could unload it).
rm -rf "$out/vcard-abuse"
eval "$("$prefix/bin/vcard" setup "$out/vcard-abuse")"
alsa_suite --link "$cflags $cf_libs -lasound -ldl -lpthread -lm" test_alsa_abuse VCARD_DIR="$VCARD_DIR" \
    ALSA_CONFIG_PATH="$ALSA_CONFIG_PATH" AUDIOTOOLBOX_ALSA_JACK_CTLS= AUDIOTOOLBOX_TEST_LIBRARY="$library"
unset VCARD_DIR ALSA_CONFIG_PATH
alsa_suite test_alsa_fallback AUDIOTOOLBOX_ALSA_CTL=no_such_card
# AUDIOTOOLBOX_BACKEND=alsa and no card: initialisation fails, and can be retried.
alsa_suite test_alsa_forced AUDIOTOOLBOX_BACKEND=alsa AUDIOTOOLBOX_ALSA_CTL=no_such_card

section "Porting patterns and sample-shaped programs (Tests/patterns: clients, Apple's samples, real clients reproduced)"
# Built with AudioToolbox-ios by gcc, clang and g++ (-Werror); gcc's and g++'s builds run
# on the virtual ALSA card, gcc's also on the virtual device. One PASS/FAIL line per
# compiler and mode (clang's: "compile").
while IFS= read -r line; do
    case "$line" in
        "PASS "*) pass "pattern ${line#PASS }" ;;
        "FAIL "*) fail "pattern ${line#FAIL }" ;;
        *) echo "$line" ;;
    esac
done < <("$here/Tests/patterns/run-patterns.sh" "$prefix" "$out/patterns" 2>&1)

section "Programs arbitrated together by audiosessiond (Tests/arbiter)"
# Real daemons and real processes, each case in its own runtime folder: interruptions,
# resumption, kills, calls, 64 sessions, another uid refused. One PASS/FAIL per case.
relay "arbiter " < <(AUDIOTOOLBOX_ARBITER=daemon python3 "$here/Tests/arbiter/run-arbiter-tests.py" "$prefix" "$out/arbiter" 2>&1)

section "Hostile users (Tests/hostile)"
# Other users (uid 65534, a victim uid 65533), planted files, floods, stuck peers, each
# case with its own runtime folder and daemons. One PASS/FAIL per case.
relay "hostile " < <(python3 "$here/Tests/hostile/run-hostile-tests.py" "$prefix" "$out/hostile" 2>&1)

section "A user's Swift package: import AVFoundation (Tests/swift-package)"
# Built from source by SwiftPM with ours as a path dependency; interrupted by a C
# program's session through audiosessiond, resumed by its NotifyOthersOnDeactivation.
relay "" < <("$here/Tests/swift-package/run.sh" "$prefix" "$out/swift-package" 2>&1)

section "Debian packages without the toolchain (Tests/deb)"
# make deb (lintian included), the packages installed in a private namespace's scratch
# layer, the toolchain hidden; README's tone and an iPhone-style player built with the
# system's pkg-config, heard on the packaged card, interrupted by the packaged tool.
relay "" < <("$here/Tests/deb/run-package-test.sh" "$out/deb" 2>&1)

section
echo "check: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
