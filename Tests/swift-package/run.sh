#!/usr/bin/env bash
# A Swift package written as an iOS app writes it, built from source against this tree
# (it depends on the library's package by path, as a user's package would, and never
# runs `make install`), then run with a private audiosessiond: a C program of the
# session API interrupts it and deactivates with NotifyOthersOnDeactivation, and the
# app must see AVAudioSession's interruption notifications, Began then Ended with
# ShouldResume, on its main thread, and activate again.
#
#   run.sh PREFIX OUTDIR
#
# Prints "PASS|FAIL swift-package <case>" lines; exits 0 only if none failed.
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
prefix=${1:?usage: run.sh PREFIX OUTDIR}
out=${2:?usage: run.sh PREFIX OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
failed=0
pass() { echo "PASS swift-package $1"; }
fail() { failed=1; echo "FAIL swift-package $1"; }
# Waits (up to 15 s) until FILE has a line matching REGEX, or the program PID has ended.
await_line() {
    local file=$1 regex=$2 pid=$3
    for _ in $(seq 300); do
        grep -q "$regex" "$file" 2>/dev/null && return 0
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.05
    done
    return 1
}
# The audiosessiond processes serving this test's runtime folder: "PID EXECUTABLE" lines.
our_daemons() {
    for process in /proc/[0-9]*; do
        [ "$(basename "$(readlink "$process/exe" 2>/dev/null)")" = audiosessiond ] &&
            grep -qz "XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR" "$process/environ" 2>/dev/null &&
            echo "${process#/proc/} $(readlink "$process/exe")"
    done
}

# The user's folder: their package, and ours beside it under the name they cloned it as.
rm -rf "$out/user" && mkdir -p "$out/user/app"
cp -r "$here/examples-swift/Package.swift" "$here/examples-swift/Sources" "$out/user/app/"
ln -s "$here" "$out/user/AudioToolbox"
# README's Swift example, word for word, as a fourth program of the package.
mkdir -p "$out/user/app/Sources/ReadmeApp"
awk '/^## From Swift/ {f = 1} f && /^```swift/ {g = 1; next} g && /^```/ {exit} g' "$here/README.md" \
    > "$out/user/app/Sources/ReadmeApp/main.swift"
python3 - "$out/user/app/Package.swift" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
marker = '        .executableTarget(name: "PlayerApp"'
target = '        .executableTarget(name: "ReadmeApp", dependencies: [.product(name: "AVFoundation", package: "AudioToolbox")]),\n'
open(path, "w").write(text.replace(marker, target + marker, 1))
PY
# The daemon too, as a user builds it: SwiftPM puts it beside the app, where the app
# looks for it (no make install, no AUDIOTOOLBOX_DAEMON).
if (cd "$out/user/app" && swift build --scratch-path "$out/build" > "$out/build.log" 2>&1 &&
        swift build --scratch-path "$out/build" --product audiosessiond >> "$out/build.log" 2>&1); then
    pass "build: a package depending on ours by path builds with import AVFoundation, and audiosessiond beside it"
else
    fail "build: the user's package does not build (log: $out/build.log)"
    tail -15 "$out/build.log" | sed 's/^/    /'
    exit 1
fi
bin=$(cd "$out/user/app" && swift build --scratch-path "$out/build" --show-bin-path)
app=$bin/SessionApp

PKG_CONFIG_PATH=$prefix/lib/pkgconfig
cc -o "$out/session_player" "$here/Tests/deb/session_player.c" \
    $(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs AudioToolbox-ios) -lm || {
    fail "the C session player does not build"; exit 1; }
cc -o "$out/c_interrupter" "$here/Tests/swift-package/c_interrupter.c" \
    $(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs AudioToolbox) || {
    fail "the C interrupter does not build"; exit 1; }

# One user's daemon for both programs, in a runtime folder of their own.
export XDG_RUNTIME_DIR=$out/runtime
rm -rf "$XDG_RUNTIME_DIR" && mkdir -m 700 -p "$XDG_RUNTIME_DIR"
export AUDIOTOOLBOX_BACKEND=virtual AUDIOTOOLBOX_ARBITER=daemon
unset AUDIOTOOLBOX_DAEMON
"$app" > "$out/app.out" 2> "$out/app.err" &
pid=$!
await_line "$out/app.out" '^active' "$pid"
if grep -q '^active' "$out/app.out"; then
    pass "the app activates: $(grep '^active' "$out/app.out")"
else
    fail "the app did not activate (stderr: $(head -3 "$out/app.err" | tr '\n' ' '))"
    kill "$pid" 2>/dev/null
    exit 1
fi
"$out/c_interrupter" > "$out/c.out" 2>&1
c_status=$?
wait "$pid"
app_status=$?
began=$(grep '^began' "$out/app.out")
ended=$(grep '^ended' "$out/app.out")
if [ "$c_status" -eq 0 ] && [ "$app_status" -eq 0 ] && [ "$began" = "began type=1 main=true" ] &&
        [ "$ended" = "ended type=0 options=1 main=true reactivated=true" ]; then
    pass "a C program's session interrupts the Swift app through audiosessiond, and its NotifyOthersOnDeactivation resumes it ($began; $ended)"
else
    fail "interruption by the C program: C exit $c_status, app exit $app_status, \"${began:-no Began}\", \"${ended:-no Ended}\" (stderr: $(head -3 "$out/app.err" | tr '\n' ' '))"
fi
daemon=""
while read -r daemon_pid executable; do daemon=$executable; kill "$daemon_pid"; done < <(our_daemons)
if [ "$daemon" = "$(dirname "$app")/audiosessiond" ]; then
    pass "the app found audiosessiond beside itself in SwiftPM's build folder ($daemon)"
else
    fail "the daemon that arbitrated was ${daemon:-none}, not the one beside the app"
fi

# The daemon killed under an app (kill -9): AVAudioSession posts mediaServicesWereLost
# then mediaServicesWereReset on the main thread, and the app's session, set up again in
# its Reset handler as Apple asks, is active with a new daemon.
"$app" services > "$out/services.out" 2> "$out/services.err" &
pid=$!
await_line "$out/services.out" '^active' "$pid"
killed=""
while read -r daemon_pid _; do killed=$daemon_pid; kill -9 "$daemon_pid"; done < <(our_daemons)
wait "$pid"
status=$?
lost=$(grep '^lost' "$out/services.out")
reset=$(grep '^reset' "$out/services.out")
if [ -n "$killed" ] && [ "$status" -eq 0 ] && [ "$lost" = "lost main=true" ] &&
        [ "$reset" = "reset main=true category=AVAudioSessionCategoryPlayback reactivated=true" ]; then
    pass "audiosessiond killed under the app (pid $killed): mediaServicesWereLost, then Reset, on the main thread; the app's session set up again ($reset)"
else
    fail "media services: daemon ${killed:-not found}, app exit $status, \"${lost:-no Lost}\", \"${reset:-no Reset}\" (stderr: $(head -3 "$out/services.err" | tr '\n' ' '))"
fi
while read -r daemon_pid _; do kill "$daemon_pid"; done < <(our_daemons)

# ---- AVAudioPlayer, heard at the virtual ALSA card ----------------------------------------
# A one-second 440 Hz file played once and looped once more: two seconds at the card, then
# the delegate's call on the main thread. A file that is no sound throws the file API's code.
sox -n -r 44100 -c 2 -b 16 "$out/tone.wav" synth 1.0 sine 440 vol 0.5 || { fail "sox cannot make the test file"; exit 1; }
head -c 5000 /dev/urandom > "$out/noise.bin"
rm -rf "$out/card"
card_env=$("$prefix/bin/vcard" setup "$out/card") || { fail "vcard setup"; exit 1; }
(
    eval "$card_env"
    export VCARD_DIR ALSA_CONFIG_PATH AUDIOTOOLBOX_ALSA_JACK_CTLS= AUDIOTOOLBOX_BACKEND= AUDIOTOOLBOX_ARBITER=local
    # The card's jack controls are read here, as in production (so are the ALSA control
    # names), with failures logged.
    env -u AUDIOTOOLBOX_ALSA_JACK_CTLS AUDIOTOOLBOX_LOG=error "$bin/PlayerApp" "$out/tone.wav" 1 \
        > "$out/player.out" 2> "$out/player.err"
    echo "status $?" >> "$out/player.out"
    heard=$(python3 "$here/Tests/tools/card-heard.py" "$VCARD_DIR" --min-seconds 1.95 --hz 440)
    toned=$?
    seconds=${heard%% s*}
    finished=$(grep '^finished' "$out/player.out")
    if [ "$toned" -eq 0 ] && python3 -c "import sys; sys.exit(0 if float('$seconds') < 2.3 else 1)" &&
            grep -q '^status 0' "$out/player.out" && [ "$finished" = "finished successfully=true main=true playing=false" ]; then
        echo "PASS swift-package AVAudioPlayer: a 1 s file looped once is heard at the card ($heard), then the delegate is called on the main thread"
        # Never installed, the program still reads the ALSA control names (the checkout's).
        if grep -q "ALSA control names" "$out/player.err"; then
            echo "FAIL swift-package the SwiftPM-built program reads no ALSA control names: $(grep "ALSA control names" "$out/player.err" | head -1)"
        else
            echo "PASS swift-package the SwiftPM-built program reads the ALSA control names from its source checkout"
        fi
    else
        echo "FAIL swift-package AVAudioPlayer: card: ${heard:-nothing}; app: $(tr '\n' ' ' < "$out/player.out") $(head -3 "$out/player.err" | tr '\n' ' ')"
    fi
    # README's example: song.m4a (one second of 440 Hz, AAC) heard at the card.
    ffmpeg -v error -y -i "$out/tone.wav" -c:a aac "$out/song.m4a" && "$prefix/bin/vcard" record-reset &&
        (cd "$out" && "$bin/ReadmeApp" > "$out/readme.out" 2>&1)
    status=$?
    heard=$(python3 "$here/Tests/tools/card-heard.py" "$VCARD_DIR" --min-seconds 0.9 --hz 440)
    toned=$?
    if [ "$status" -eq 0 ] && [ "$toned" -eq 0 ]; then
        echo "PASS swift-package README's Swift example plays song.m4a at the card ($heard)"
    else
        echo "FAIL swift-package README's Swift example: exit $status, card: ${heard:-nothing} $(head -3 "$out/readme.out" | tr '\n' ' ')"
    fi

    # At rate 2, a 3 s file in half the time at the same pitch: enableRate and the rate
    # set before prepareToPlay; the rate set only after play() (a speed button); an AAC
    # file. The stretcher keeps the pitch within 2% (as test_queue_time_pitch asks of the
    # queue).
    sox -n -r 44100 -c 2 -b 16 "$out/tone3.wav" synth 3.0 sine 440 vol 0.5
    ffmpeg -v error -y -i "$out/tone3.wav" -c:a aac -b:a 128k "$out/tone3.m4a"
    for variant in "tone3.wav 2.0" "tone3.wav 2.0late" "tone3.m4a 2.0"; do
        set -- $variant
        "$prefix/bin/vcard" record-reset
        "$bin/PlayerApp" "$out/$1" 0 "$2" > "$out/rate-$1-$2.out" 2>&1
        heard=$(python3 "$here/Tests/tools/card-heard.py" "$VCARD_DIR" --min-seconds 1.4 --hz 440 --tolerance 8.8)
        toned=$?
        seconds=${heard%% s*}
        if [ "$toned" -eq 0 ] && python3 -c "import sys; sys.exit(0 if float('$seconds') < 1.65 else 1)" &&
                grep -q '^finished successfully=true' "$out/rate-$1-$2.out"; then
            pass "AVAudioPlayer: $1 at rate $2 plays in half the time at the same pitch ($heard)"
        else
            fail "AVAudioPlayer: $1 at rate $2: card: ${heard:-nothing}; app: $(tr '\n' ' ' < "$out/rate-$1-$2.out")"
        fi
    done

    # Two players at once, panned apart (a game's two effects): the card hears both,
    # mixed into one stream (one start of its playback), each on its side.
    sox -n -r 44100 -c 1 -b 16 "$out/a440.wav" synth 1.5 sine 440 vol 0.4
    sox -n -r 22050 -c 1 -b 16 "$out/a660.wav" synth 1.5 sine 660 vol 0.4
    "$prefix/bin/vcard" record-reset
    "$bin/EffectsApp" pair "$out/a440.wav" "$out/a660.wav" > "$out/pair.out" 2>&1
    status=$?
    left=$(python3 "$here/Tests/tools/card-heard.py" "$VCARD_DIR" --channel left --min-seconds 1.45 --hz 440)
    left_ok=$?
    right=$(python3 "$here/Tests/tools/card-heard.py" "$VCARD_DIR" --channel right --min-seconds 1.45 --hz 660)
    right_ok=$?
    starts=$(wc -l < "$VCARD_DIR/state.playback.starts" 2>/dev/null || echo 0)
    if [ "$status" -eq 0 ] && [ "$left_ok" -eq 0 ] && [ "$right_ok" -eq 0 ] && [ "$starts" -eq 1 ] &&
            grep -q '^pair finished=2 main=true' "$out/pair.out"; then
        pass "AVAudioPlayer: two players at once, panned apart, mixed into one stream (left: $left; right: $right; $starts start)"
    else
        fail "AVAudioPlayer pair: exit $status, left: ${left:-nothing}, right: ${right:-nothing}, starts $starts; app: $(tr '\n' ' ' < "$out/pair.out")"
    fi

    # Twenty short effects (0.1 s), a new player every 150 ms, each dropped once done:
    # twenty separate sounds heard through one stream, every delegate called on the main
    # thread.
    sox -n -r 44100 -c 1 -b 16 "$out/shot.wav" synth 0.1 sine 440 vol 0.4
    "$prefix/bin/vcard" record-reset
    "$bin/EffectsApp" burst "$out/shot.wav" 20 150 > "$out/burst.out" 2>&1
    status=$?
    heard=$(python3 "$here/Tests/tools/card-heard.py" "$VCARD_DIR" --runs 20 --min-seconds 2.8 --hz 440)
    toned=$?
    starts=$(wc -l < "$VCARD_DIR/state.playback.starts" 2>/dev/null || echo 0)
    if [ "$status" -eq 0 ] && [ "$toned" -eq 0 ] && [ "$starts" -eq 1 ] &&
            grep -q '^burst finished=20 of 20 main=true' "$out/burst.out"; then
        pass "AVAudioPlayer: 20 short players, 150 ms apart, heard as 20 sounds through one stream ($heard; $starts start)"
    else
        fail "AVAudioPlayer burst: exit $status, card: ${heard:-nothing}, starts $starts; app: $(tr '\n' ' ' < "$out/burst.out")"
    fi

    # The same burst, watched (Tests/c/rt_watch.c, preloaded): once the mix's stream is
    # steady, its real-time thread allocates nothing, waits for no lock and shares none
    # with the threads making, playing and dropping players meanwhile, and never sleeps.
    if cc -std=gnu11 -Wall -Wextra -Werror -shared -fPIC -o "$out/rt_watch.so" "$here/Tests/c/rt_watch.c" -ldl -lpthread; then
        rm -f "$out/rtwatch.txt"
        LD_PRELOAD=$out/rt_watch.so RTWATCH_REPORT=$out/rtwatch.txt "$bin/EffectsApp" burst "$out/shot.wav" 20 150 \
            > "$out/burst-watched.out" 2>&1
        status=$?
        watched=$(cat "$out/rtwatch.txt" 2>/dev/null)
        if [ "$status" -eq 0 ] && [[ "$watched" =~ periods=([0-9]+)\ allocations=0\ frees=0\ lockwaits=0\ shared=0\ blocking=0\ others=([0-9]+) ]] &&
                [ "${BASH_REMATCH[1]}" -ge 60 ] && [ "${BASH_REMATCH[2]}" -gt 0 ]; then
            pass "AVAudioPlayer: the mix's real-time thread allocates, locks and waits for nothing while players come and go ($watched)"
        else
            fail "AVAudioPlayer real time: exit $status, ${watched:-no report}"
        fi
    else
        fail "rt_watch.so does not build"
    fi

    # A music player's buttons: 0.5 s played, paused 0.5 s (currentTime stays), a seek to
    # 1.5 s of the 2 s file, volume 0.5, played to the end: the card hears two runs, half
    # a second each (the seek skipped a second), the second at half the first's level.
    sox -n -r 44100 -c 1 -b 16 "$out/two.wav" synth 2 sine 440 vol 0.4
    "$prefix/bin/vcard" record-reset
    "$bin/EffectsApp" controls "$out/two.wav" > "$out/controls.out" 2>&1
    status=$?
    heard=$(python3 "$here/Tests/tools/card-heard.py" "$VCARD_DIR" --runs 2 --each --min-seconds 1.0 --hz 440)
    toned=$?
    if [ "$status" -eq 0 ] && [ "$toned" -eq 0 ] && python3 - "$heard" "$(cat "$out/controls.out")" <<'PY'
import re, sys
runs = [(float(s), int(p)) for s, p in re.findall(r"([0-9.]+) s ([0-9]+)", sys.argv[1].split("; runs ")[1])]
app = dict(word.split("=") for word in sys.argv[2].split()[1:])
(first, loud), (second, soft) = runs
ok = (0.45 <= first <= 0.6 and 0.45 <= second <= 0.55 and abs(soft / loud - 0.5) < 0.03
      and app["paused"] == "true" and 0.45 <= float(app["at"]) <= 0.6 and app["finished"] == "1")
sys.exit(0 if ok else 1)
PY
    then
        pass "AVAudioPlayer: play, pause (currentTime kept), seek, volume 0.5, play to the end: heard as such ($heard; $(cat "$out/controls.out"))"
    else
        fail "AVAudioPlayer controls: exit $status, card: ${heard:-nothing}; app: $(tr '\n' ' ' < "$out/controls.out")"
    fi

    # fork while a player plays (a server tool's pattern): five children each ask the
    # player its state and exit (under `timeout`: none may hang on a lock a parent's thread
    # held); the parent's sound plays on, unbroken, to its delegate call.
    "$prefix/bin/vcard" record-reset
    timeout 60 "$bin/EffectsApp" fork "$out/two.wav" 5 > "$out/fork.out" 2>&1
    status=$?
    heard=$(python3 "$here/Tests/tools/card-heard.py" "$VCARD_DIR" --min-seconds 1.95 --hz 440)
    toned=$?
    if [ "$status" -eq 0 ] && [ "$toned" -eq 0 ] && grep -q '^fork children=5 ok=5 finished=1' "$out/fork.out"; then
        pass "AVAudioPlayer and fork: five children answer at once and exit, the parent's sound plays on ($heard)"
    else
        fail "AVAudioPlayer and fork: exit $status, card: ${heard:-nothing}; app: $(tr '\n' ' ' < "$out/fork.out")"
    fi

    # A music player interrupted by a C program through audiosessiond: stopped before
    # Began is posted, played again after Ended (ShouldResume), and finishing.
    "$prefix/bin/vcard" record-reset
    export AUDIOTOOLBOX_ARBITER=daemon
    "$bin/PlayerApp" "$out/tone3.wav" 0 1 interruptible > "$out/interrupted.out" 2>&1 &
    pid=$!
    for _ in $(seq 200); do
        frames=$("$prefix/bin/vcard" status | awk '{print $2}')
        [ "${frames:-0}" -gt 4410 ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    "$out/c_interrupter" > "$out/c2.out" 2>&1
    wait "$pid"
    status=$?
    began=$(grep '^began' "$out/interrupted.out")
    resumed=$(grep '^resumed' "$out/interrupted.out")
    if [ "$status" -eq 0 ] && [ "$began" = "began playing=false main=true" ] && [ "$resumed" = "resumed true" ] &&
            grep -q '^finished successfully=true main=true' "$out/interrupted.out"; then
        echo "PASS swift-package AVAudioPlayer: a C program's session interrupts it (stopped when Began is posted), play() after Ended resumes it to the end"
    else
        echo "FAIL swift-package AVAudioPlayer interrupted: exit $status: $(tr '\n' ' ' < "$out/interrupted.out")"
    fi

    # AVAudioEngine as apps use it: a file read with AVAudioFile, scheduled on a player
    # node into the main mixer, the engine started: the card hears the second of tone.
    export AUDIOTOOLBOX_ARBITER=local
    "$prefix/bin/vcard" record-reset
    "$bin/EngineApp" "$out/tone.wav" > "$out/engine.out" 2>&1
    status=$?
    heard=$(python3 "$here/Tests/tools/card-heard.py" "$VCARD_DIR" --min-seconds 0.95 --hz 440)
    toned=$?
    if [ "$status" -eq 0 ] && [ "$toned" -eq 0 ] && grep -q '^loaded frames=44100 rate=44100' "$out/engine.out" &&
            grep -q '^finished running=true' "$out/engine.out"; then
        pass "AVAudioEngine: a player node through the main mixer is heard at the card ($heard); the buffer's handler runs"
    else
        fail "AVAudioEngine at the card: exit $status, card: ${heard:-nothing}; app: $(tr '\n' ' ' < "$out/engine.out")"
    fi

    # The engine's real-time thread, watched (Tests/c/rt_watch.c, preloaded) while a tap
    # on the main mixer records what plays to a file and the player's volume and pan move:
    # no allocation, lock or wait on it; the tap's file holds the sound.
    if [ -f "$out/rt_watch.so" ]; then
        "$prefix/bin/vcard" record-reset
        LD_PRELOAD=$out/rt_watch.so RTWATCH_REPORT=$out/rtwatch-engine.txt "$bin/EngineApp" "$out/tone3.wav" tap \
            "$out/engine-tap.caf" > "$out/engine-tap.out" 2>&1
        status=$?
        watched=$(cat "$out/rtwatch-engine.txt" 2>/dev/null)
        tapped=$(sed -n 's/^tapped frames=//p' "$out/engine-tap.out")
        if [ "$status" -eq 0 ] && [[ "$watched" =~ periods=([0-9]+)\ allocations=0\ frees=0\ lockwaits=0\ shared=0\ blocking=0 ]] &&
                [ "${BASH_REMATCH[1]}" -ge 60 ] && [ "${tapped:-0}" -ge 120000 ]; then
            pass "AVAudioEngine: with a tap recording the mix to a file, the real-time thread allocates, locks and waits for nothing ($watched); the tap wrote $tapped frames"
        else
            fail "AVAudioEngine real time with a tap: exit $status, ${watched:-no report}; app: $(tr '\n' ' ' < "$out/engine-tap.out")"
        fi
    else
        fail "AVAudioEngine real time: rt_watch.so was not built"
    fi

    # AVAudioSequencer into an AVAudioUnitSampler, as music apps do: a MIDI file of one
    # A4 two beats long at 120 beats a minute (a second), heard as a second of 440 Hz
    # (the sampler's own sine); then General MIDI's piano from Debian's SoundFont.
    python3 - "$out/a4.mid" <<'PY'
import struct, sys
tempo = bytes([0, 0xFF, 0x51, 3, 0x07, 0xA1, 0x20, 0, 0xFF, 0x2F, 0])
notes = bytes([0, 0x90, 69, 100, 0x87, 0x40, 0x80, 69, 0, 0, 0xFF, 0x2F, 0])   # 960 ticks: two beats
chunk = lambda kind, body: kind + struct.pack(">I", len(body)) + body
open(sys.argv[1], "wb").write(chunk(b"MThd", struct.pack(">HHH", 1, 2, 480)) + chunk(b"MTrk", tempo) + chunk(b"MTrk", notes))
PY
    "$prefix/bin/vcard" record-reset
    "$bin/EngineApp" sequence "$out/a4.mid" > "$out/engine-sequence.out" 2>&1
    status=$?
    heard=$(python3 "$here/Tests/tools/card-heard.py" "$VCARD_DIR" --min-seconds 0.95 --hz 440)
    toned=$?
    seconds=${heard%% s*}
    if [ "$status" -eq 0 ] && [ "$toned" -eq 0 ] && python3 -c "import sys; sys.exit(0 if float('$seconds') < 1.3 else 1)" &&
            grep -q '^sequence tracks=1 seconds=1.0' "$out/engine-sequence.out" && grep -q 'playing=true' "$out/engine-sequence.out"; then
        pass "AVAudioSequencer: a MIDI file played into an AVAudioUnitSampler is heard at the card ($heard)"
    else
        fail "AVAudioSequencer at the card: exit $status, card: ${heard:-nothing}; app: $(tr '\n' ' ' < "$out/engine-sequence.out")"
    fi
    if [ -r /usr/share/sounds/sf2/FluidR3_GM.sf2 ]; then
        "$prefix/bin/vcard" record-reset
        "$bin/EngineApp" sequence "$out/a4.mid" /usr/share/sounds/sf2/FluidR3_GM.sf2 > "$out/engine-piano.out" 2>&1
        status=$?
        heard=$(python3 "$here/Tests/tools/card-heard.py" "$VCARD_DIR" --min-seconds 0.5 --hz 440 --tolerance 15)
        toned=$?
        if [ "$status" -eq 0 ] && [ "$toned" -eq 0 ]; then
            pass "AVAudioSequencer: the same file on General MIDI's piano (Debian's FluidR3 SoundFont) is heard at the card ($heard)"
        else
            fail "AVAudioSequencer with a SoundFont: exit $status, card: ${heard:-nothing}; app: $(tr '\n' ' ' < "$out/engine-piano.out")"
        fi
    else
        fail "AVAudioSequencer with a SoundFont: /usr/share/sounds/sf2/FluidR3_GM.sf2 is missing (fluid-soundfont-gm)"
    fi

    # Offline rendering as Apple's sample does it: a 3 s file through an EQ band and a
    # reverb rendered by hand into a CAF file (no device): the file is the source's length
    # and a second of tail, its tone at its pitch, and the card heard nothing.
    "$prefix/bin/vcard" record-reset
    rm -f "$out/engine-offline.caf"
    "$bin/EngineApp" offline "$out/tone3.wav" "$out/engine-offline.caf" > "$out/engine-offline.out" 2>&1
    status=$?
    measured=$(python3 "$here/Tests/swift-package/tone-in-file.py" "$out/engine-offline.caf" 3 2>/dev/null)
    played=$(wc -c < "$VCARD_DIR/state.playback.raw" 2>/dev/null || echo 0)
    if [ "$status" -eq 0 ] && grep -q '^offline frames=176400 rate=44100' "$out/engine-offline.out" && [ "${played:-0}" -eq 0 ] &&
            python3 -c "import sys; s, hz, peak = map(float, sys.argv[1:4]); sys.exit(0 if abs(s - 4.0) < 0.01 and abs(hz - 440) < 3 and peak > 5000 else 1)" $measured; then
        pass "AVAudioEngine offline: a 3 s file through EQ and reverb rendered by hand into a file (seconds, Hz, peak: $measured; $(cat "$out/engine-offline.out")); the card played nothing"
    else
        fail "AVAudioEngine offline: exit $status, file: ${measured:-none}, card bytes $played; app: $(tr '\n' ' ' < "$out/engine-offline.out")"
    fi

    # An engine rendered in the program's own output, as games and VoIP stacks do: realtime
    # manual rendering, its block called from a C RemoteIO unit's render callback. The card
    # hears the file, and the real-time thread that calls the block (the unit's) allocates,
    # locks and waits for nothing.
    if [ -f "$out/rt_watch.so" ]; then
        "$prefix/bin/vcard" record-reset
        LD_PRELOAD=$out/rt_watch.so RTWATCH_REPORT=$out/rtwatch-realtime.txt "$bin/EngineApp" realtime "$out/two.wav" \
            > "$out/engine-realtime.out" 2>&1
        status=$?
        watched=$(cat "$out/rtwatch-realtime.txt" 2>/dev/null)
        heard=$(python3 "$here/Tests/tools/card-heard.py" "$VCARD_DIR" --min-seconds 1.95 --hz 440)
        toned=$?
        if [ "$status" -eq 0 ] && [ "$toned" -eq 0 ] && grep -q 'finished=true' "$out/engine-realtime.out" &&
                [[ "$watched" =~ periods=([0-9]+)\ allocations=0\ frees=0\ lockwaits=0\ shared=0\ blocking=0 ]] &&
                [ "${BASH_REMATCH[1]}" -ge 60 ]; then
            pass "AVAudioEngine realtime manual rendering in a C unit's render callback: heard at the card ($heard); its thread allocates, locks and waits for nothing ($watched)"
        else
            fail "AVAudioEngine realtime manual rendering: exit $status, card: ${heard:-nothing}, ${watched:-no report}; app: $(tr '\n' ' ' < "$out/engine-realtime.out")"
        fi
    else
        fail "AVAudioEngine realtime manual rendering: rt_watch.so was not built"
    fi

    # fork while an engine plays: five children each ask the engine its state, remove its
    # tap, stop it and exit (under `timeout`: none may hang on a lock or a thread of the
    # parent's); the parent's sound plays on, unbroken, to its handler.
    "$prefix/bin/vcard" record-reset
    timeout 60 "$bin/EngineApp" fork "$out/two.wav" 5 > "$out/engine-fork.out" 2>&1
    status=$?
    heard=$(python3 "$here/Tests/tools/card-heard.py" "$VCARD_DIR" --min-seconds 1.95 --hz 440)
    toned=$?
    if [ "$status" -eq 0 ] && [ "$toned" -eq 0 ] && grep -q '^fork children=5 ok=5 finished=true running=true' "$out/engine-fork.out"; then
        pass "AVAudioEngine and fork: five children answer, stop their copy and exit; the parent's engine plays on ($heard)"
    else
        fail "AVAudioEngine and fork: exit $status, card: ${heard:-nothing}; app: $(tr '\n' ' ' < "$out/engine-fork.out")"
    fi

    # The engine interrupted by a C program through audiosessiond: not running when Began
    # is posted; start() and play() after Ended run it again and the buffer plays out.
    "$prefix/bin/vcard" record-reset
    export AUDIOTOOLBOX_ARBITER=daemon
    "$bin/EngineApp" "$out/tone3.wav" interruptible > "$out/engine-interrupted.out" 2>&1 &
    pid=$!
    for _ in $(seq 200); do
        frames=$("$prefix/bin/vcard" status | awk '{print $2}')
        [ "${frames:-0}" -gt 4410 ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    "$out/c_interrupter" > "$out/c3.out" 2>&1
    wait "$pid"
    status=$?
    began=$(grep '^began' "$out/engine-interrupted.out")
    restarted=$(grep '^restarted' "$out/engine-interrupted.out")
    heard=$(python3 "$here/Tests/tools/card-heard.py" "$VCARD_DIR" --runs 2 --min-seconds 0.2 --hz 440)
    toned=$?
    if [ "$status" -eq 0 ] && [ "$began" = "began running=false main=true" ] && [ "$restarted" = "restarted true" ] &&
            [ "$toned" -eq 0 ] && grep -q '^finished running=true' "$out/engine-interrupted.out"; then
        pass "AVAudioEngine: a C program's session interrupts it (not running when Began is posted); start() after Ended plays on ($heard)"
    else
        fail "AVAudioEngine interrupted: exit $status, card: ${heard:-nothing}; app: $(tr '\n' ' ' < "$out/engine-interrupted.out")"
    fi

    # audiosessiond killed (kill -9) under a playing engine: the session carries on in the
    # process, and the engine plays the file to its end, unbroken.
    "$prefix/bin/vcard" record-reset
    "$bin/EngineApp" "$out/two.wav" > "$out/engine-lost.out" 2>&1 &
    pid=$!
    for _ in $(seq 200); do
        frames=$("$prefix/bin/vcard" status | awk '{print $2}')
        [ "${frames:-0}" -gt 22050 ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    killed=""
    while read -r daemon_pid _; do killed=$daemon_pid; kill -9 "$daemon_pid"; done < <(our_daemons)
    wait "$pid"
    status=$?
    heard=$(python3 "$here/Tests/tools/card-heard.py" "$VCARD_DIR" --min-seconds 1.95 --hz 440)
    toned=$?
    if [ -n "$killed" ] && [ "$status" -eq 0 ] && [ "$toned" -eq 0 ] && grep -q '^finished running=true' "$out/engine-lost.out"; then
        pass "AVAudioEngine: audiosessiond killed under it (pid $killed), it plays the file to its end, unbroken ($heard)"
    else
        fail "AVAudioEngine with audiosessiond killed: daemon ${killed:-not found}, exit $status, card: ${heard:-nothing}; app: $(tr '\n' ' ' < "$out/engine-lost.out")"
    fi

    # The other way round: a Swift app's session (PlayAndRecord) interrupts a C music
    # player (Tests/deb/session_player.c) and gives the audio back with
    # .notifyOthersOnDeactivation; the C program's listener hears ShouldResume, restarts
    # its unit, and the card hears the tone in two runs, before and after.
    "$prefix/bin/vcard" record-reset
    "$out/session_player" resume > "$out/c-player.out" 2> "$out/c-player.err" &
    pid=$!
    await_line "$out/c-player.out" '^playing' "$pid"
    "$app" interrupter > "$out/interrupter.out" 2>&1
    swift_status=$?
    wait "$pid"
    status=$?
    after=$(sed -n 's/^after renders=//p' "$out/c-player.out")
    resumed=$(sed -n 's/^resumed renders=//p' "$out/c-player.out")
    heard=$(python3 "$here/Tests/tools/card-heard.py" "$VCARD_DIR" --runs 2 --min-seconds 0.75 --hz 440)
    toned=$?
    if [ "$swift_status" -eq 0 ] && [ "$status" -eq 0 ] && grep -q '^deactivated notifying others' "$out/interrupter.out" &&
            grep -q '^begin running=0' "$out/c-player.out" && grep -q '^end resume=1' "$out/c-player.out" &&
            [ "${resumed:-0}" -gt "${after:-0}" ] && [ "$toned" -eq 0 ]; then
        echo "PASS swift-package a Swift app's session interrupts a C player and .notifyOthersOnDeactivation resumes it (renders $after, then $resumed; card: $heard)"
    else
        echo "FAIL swift-package Swift interrupting C: app exit $swift_status, C exit $status, card: ${heard:-nothing}; C: $(tr '\n' ' ' < "$out/c-player.out") $(head -2 "$out/c-player.err" | tr '\n' ' '); app: $(tr '\n' ' ' < "$out/interrupter.out")"
    fi
    export AUDIOTOOLBOX_ARBITER=local

    # AVAudioRecorder: one second of the card's 440 Hz microphone, as 16 kHz WAV, AAC and
    # Apple Lossless in M4A, Apple Lossless and IMA4 in CAF (each read back by FFmpeg),
    # then the delegate; refused in a playback category.
    "$prefix/bin/vcard" capture-signal tone 440 0.5
    # "paused": the lpcm memo paused after 0.4 s, then recorded on to its second.
    for format in lpcm aac alac alac.caf ima4 paused; do
        case $format in
            aac|alac) file=$out/memo-$format.m4a ;;
            alac.caf) file=$out/memo-alac.caf ;;
            ima4) file=$out/memo-ima4.caf ;;
            *) file=$out/memo-$format.wav ;;
        esac
        rm -f "$file"
        if [ "$format" = paused ]; then
            "$bin/RecorderApp" "$file" record 1 lpcm pause > "$out/recorder-$format.out" 2>&1
        else
            "$bin/RecorderApp" "$file" record 1 "${format%.caf}" > "$out/recorder-$format.out" 2>&1
        fi
        status=$?
        finished=$(grep '^finished' "$out/recorder-$format.out")
        measured=$(python3 "$here/Tests/swift-package/tone-in-file.py" "$file")
        set -- $measured
        if [ "$status" -eq 0 ] && [[ "$finished" == "finished successfully=true main=true recording=false peak="* ]] &&
                { [ "$format" != paused ] || grep -q '^resumed true' "$out/recorder-$format.out"; } &&
                python3 -c "import sys; s, hz, peak = map(float, sys.argv[1:4]); sys.exit(0 if 0.9 <= s <= 1.15 and abs(hz - 440) < 3 and peak > 8000 else 1)" $measured; then
            echo "PASS swift-package AVAudioRecorder ($format): one second of the card's 440 Hz recorded ($1 s, $2 Hz, peak $3; $finished)"
        else
            echo "FAIL swift-package AVAudioRecorder ($format): exit $status, ${measured:-no file}, $(tr '\n' ' ' < "$out/recorder-$format.out")"
        fi
    done
    # AVAudioEngine's microphone as recording apps use it: a tap on the input node writes
    # what it hears to a file. In PlayAndRecord the file holds the card's 440 Hz; in
    # Playback the session's rule gives the same flow in silence.
    for category in playAndRecord playback; do
        file=$out/engine-mic-$category.caf
        rm -f "$file"
        "$bin/EngineApp" mic "$file" "$category" > "$out/engine-mic-$category.out" 2>&1
        status=$?
        measured=$(python3 "$here/Tests/swift-package/tone-in-file.py" "$file" 2>/dev/null)
        if [ "$category" = playAndRecord ]; then
            wanted="0.95 <= s <= 1.5 and abs(hz - 440) < 3 and peak > 8000"
        else
            wanted="0.95 <= s <= 1.5 and peak == 0"
        fi
        if [ "$status" -eq 0 ] && grep -q '^recorded frames=' "$out/engine-mic-$category.out" &&
                python3 -c "import sys; s, hz, peak = map(float, sys.argv[1:4]); sys.exit(0 if $wanted else 1)" $measured; then
            pass "AVAudioEngine: a tap on the input node writes the microphone to a file in $category (seconds, Hz, peak: $measured; $(grep '^recorded' "$out/engine-mic-$category.out"))"
        else
            fail "AVAudioEngine microphone in $category: exit $status, ${measured:-no file}; app: $(tr '\n' ' ' < "$out/engine-mic-$category.out")"
        fi
    done

    "$bin/RecorderApp" "$out/refused.wav" playback 1 lpcm > "$out/refused.out" 2>&1
    status=$?
    if [ "$status" -eq 3 ] && grep -q '^record false' "$out/refused.out"; then
        echo "PASS swift-package AVAudioRecorder: record() is refused in the playback category"
    else
        echo "FAIL swift-package AVAudioRecorder in playback: exit $status: $(tr '\n' ' ' < "$out/refused.out")"
    fi

    "$bin/PlayerApp" "$out/noise.bin" 0 > "$out/noise.out" 2>&1
    if grep -q "^error NSOSStatusErrorDomain $((0x7479703F))" "$out/noise.out"; then
        echo "PASS swift-package AVAudioPlayer: a file that is no sound throws kAudioFileUnsupportedFileTypeError in NSOSStatusErrorDomain"
    else
        echo "FAIL swift-package AVAudioPlayer on noise: $(head -2 "$out/noise.out" | tr '\n' ' ')"
    fi
) | while IFS= read -r line; do
    echo "$line"
    case "$line" in FAIL*) echo failed > "$out/player.failed" ;; esac
done
[ -e "$out/player.failed" ] && failed=1
rm -f "$out/player.failed"

# ---- AVAudioPlayer through the private PipeWire stack -------------------------------------
# No ALSA card for the program (ALSA's default opens nothing here), a sound server running,
# the daemon arbitrating: two players panned apart are one PipeWire stream of the app's,
# and the sink plays 440 Hz on the left and 660 Hz on the right.
if command -v pipewire >/dev/null && command -v wireplumber >/dev/null && command -v pw-record >/dev/null; then
    stack=$out/pw
    "$here/scripts/pw-stack.sh" stop "$stack" >/dev/null 2>&1
    rm -rf "$stack"
    if stack_env=$("$here/scripts/pw-stack.sh" start "$stack" 2>"$out/pw-stack.err"); then
        (
            eval "$stack_env"
            export AUDIOTOOLBOX_ALSA_JACK_CTLS= AUDIOTOOLBOX_ARBITER=daemon
            unset AUDIOTOOLBOX_BACKEND VCARD_DIR ALSA_CONFIG_PATH
            sox -n -r 44100 -c 1 -b 16 "$out/long440.wav" synth 4 sine 440 vol 0.4
            sox -n -r 44100 -c 1 -b 16 "$out/long660.wav" synth 4 sine 660 vol 0.4
            "$bin/EffectsApp" pair "$out/long440.wav" "$out/long660.wav" > "$out/pw-pair.out" 2>&1 &
            pid=$!
            heard=""
            for _ in $(seq 100); do
                heard=$(python3 "$here/Tests/swift-package/pw-heard.py" "$pid" 1.0 "$out/pw-heard.wav" 2>&1)
                [[ "$heard" == "streams 1 left 4"* ]] && break
                kill -0 "$pid" 2>/dev/null || break
            done
            wait "$pid"
            status=$?
            if [ "$status" -eq 0 ] && grep -q '^pair finished=2 main=true' "$out/pw-pair.out" &&
                    python3 -c "import sys; w = sys.argv[1].split(); sys.exit(0 if w[1] == '1' and abs(float(w[3]) - 440) < 3 and abs(float(w[6]) - 660) < 3 else 1)" "$heard"; then
                echo "PASS swift-package AVAudioPlayer through PipeWire: two players panned apart are one stream of the app's, heard at the sink ($heard)"
            else
                echo "FAIL swift-package AVAudioPlayer through PipeWire: exit $status, ${heard:-nothing heard}; app: $(tr '\n' ' ' < "$out/pw-pair.out")"
            fi
            while read -r daemon_pid _; do kill "$daemon_pid"; done < <(our_daemons)
        ) | while IFS= read -r line; do
            echo "$line"
            case "$line" in FAIL*) echo failed > "$out/pw.failed" ;; esac
        done
        [ -e "$out/pw.failed" ] && failed=1
        rm -f "$out/pw.failed"
        "$here/scripts/pw-stack.sh" stop "$stack" >/dev/null 2>&1
    else
        fail "the private PipeWire stack does not start: $(tail -3 "$out/pw-stack.err" | tr '\n' ' ')"
    fi
elif [ -n "${AUDIOTOOLBOX_TESTS_REQUIRE_PIPEWIRE:-}" ]; then
    fail "PipeWire's programs are required here and missing"
else
    echo "SKIP swift-package AVAudioPlayer through PipeWire: pipewire, wireplumber or pw-record is not installed"
fi
exit $failed
