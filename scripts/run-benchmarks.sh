#!/usr/bin/env bash
# Benchmarks against the library installed in PREFIX ($1). Each prints its own number
# and the ratio to a baseline measured in the same run; nothing here is a pass/fail
# timing assertion except the listener memory check (no growth).
set -euo pipefail
prefix=${1:?usage: run-benchmarks.sh PREFIX}
here=$(cd "$(dirname "$0")/.." && pwd)
out=$here/build/bench
mkdir -p "$out"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
flags=$(pkg-config --cflags --libs AudioToolbox)
for name in bench_get_property bench_listener_latency bench_listener_memory; do
    cc -std=gnu11 -O2 -Wall -Wextra -o "$out/$name" "$here/bench/$name.c" $flags -lpthread
done
# What a session-only program pays for the library, against the same program with
# CoreFoundation alone (linked as any program of this API links it): shared objects
# mapped, peak memory, and start to exit (median of 31 runs each).
swiftruntime=$(pkg-config --variable=swiftruntimedir AudioToolbox)
cc -std=gnu11 -O2 -Wall -Wextra -o "$out/bench_footprint" "$here/bench/bench_footprint.c" $flags
# CoreFoundation's headers as a port includes them (the compat folder lets gcc read
# them); only CoreFoundation's library linked.
cc -std=gnu11 -O2 -Wall -Wextra -DCF_ONLY -o "$out/bench_footprint_cf" "$here/bench/bench_footprint.c" \
    $(pkg-config --cflags AudioToolbox) -L"$swiftruntime" -Wl,-rpath,"$swiftruntime" -lFoundation
# The session program twice: on the in-process virtual device (what the library itself
# costs), and as a user runs it, with nothing set: the machine's ALSA (here no card, so the
# virtual device after it) and the user's audiosessiond, already running.
rm -rf "$out/footprint-runtime" && mkdir -m 700 "$out/footprint-runtime"
PATH="$prefix/bin:$PATH" python3 - "$out" <<'PY'
import os, signal, statistics, subprocess, sys, time
out = sys.argv[1]
plain = {k: v for k, v in os.environ.items() if not k.startswith("AUDIOTOOLBOX_")}
plain.update(XDG_RUNTIME_DIR=out + "/footprint-runtime", AUDIOSESSIOND_IDLE_SECONDS="600")
virtual = dict(plain, AUDIOTOOLBOX_BACKEND="virtual", AUDIOTOOLBOX_ARBITER="local")
def run(command, env):
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    return time.perf_counter() - start, done.stdout.split()
# Alternated, so that whatever else the machine does falls on all alike.
programs = {"cf": ([out + "/bench_footprint_cf", "cf"], virtual),
            "session": ([out + "/bench_footprint", "session"], virtual),
            "default": ([out + "/bench_footprint", "session"], plain)}
run(*programs["default"])  # the user's daemon, started by the first program as usual
times = {name: [] for name in programs}
last = {}
for _ in range(31):
    for name, (command, env) in programs.items():
        took, last[name] = run(command, env)
        times[name].append(took)
def result(name):
    return int(last[name][1]), int(last[name][3]) / 1024, statistics.median(times[name]) * 1e3
cf, session, default = result("cf"), result("session"), result("default")
print(f"footprint: session-only program: {session[0]} objects, peak RSS {session[1]:.1f} MB, start to exit {session[2]:.1f} ms")
print(f"footprint: CoreFoundation alone: {cf[0]} objects, peak RSS {cf[1]:.1f} MB, start to exit {cf[2]:.1f} ms")
print(f"footprint: +{session[0] - cf[0]} objects (goal <= 12), +{session[1] - cf[1]:.1f} MB (goal <= 8), "
      f"time ratio {session[2] / cf[2]:.2f} (goal <= 1.3)")
print(f"footprint: as a user runs it (ALSA probed, audiosessiond running): start to exit {default[2]:.1f} ms, "
      f"time ratio {default[2] / cf[2]:.2f} (goal <= 1.5)")
try:
    with open(out + "/footprint-runtime/audiotoolbox/audiosessiond.pid") as f:
        os.kill(int(f.read().split()[0]), signal.SIGTERM)
except (OSError, ValueError):
    pass
PY
# The first call of each family that loads a library, against the same call again.
if sox -n -r 44100 -c 2 "$out/footprint.wav" synth 1 sine 440 2>/dev/null; then
    AUDIOTOOLBOX_BACKEND=virtual AUDIOTOOLBOX_ARBITER=local "$out/bench_footprint" first "$out/footprint.wav" | sed 's/^/footprint: /'
fi
export AUDIOTOOLBOX_BACKEND=virtual
"$out/bench_get_property"
"$out/bench_listener_latency"
"$out/bench_listener_memory"
cc -std=gnu11 -O2 -Wall -Wextra -o "$out/bench_system_sounds" "$here/bench/bench_system_sounds.c" $flags -lsndfile -lm
(
    # On a virtual ALSA card of its own, which notes when each stream starts playing.
    unset AUDIOTOOLBOX_BACKEND
    rm -rf "$out/vcard-sounds"
    eval "$("$prefix/bin/vcard" setup "$out/vcard-sounds")"
    AUDIOTOOLBOX_ARBITER=local AUDIOTOOLBOX_ALSA_JACK_CTLS= "$out/bench_system_sounds"
)
cc -std=gnu11 -O2 -Wall -Wextra -o "$out/bench_arbiter" "$here/bench/bench_arbiter.c" $flags -lpthread
cc -std=gnu11 -O2 -o "$out/bench_arbiter_floor" "$here/bench/bench_arbiter_floor.c" -lpthread
"$out/bench_arbiter_floor"
(
    # Its own daemon, in a runtime folder of its own; the daemon leaves 2 s after.
    export XDG_RUNTIME_DIR=$out/runtime AUDIOTOOLBOX_ARBITER=daemon AUDIOSESSIOND_IDLE_SECONDS=2
    rm -rf "$XDG_RUNTIME_DIR" && mkdir -m 700 -p "$XDG_RUNTIME_DIR"
    "$out/bench_arbiter"
    # The same with every process on one processor: what the path costs when no wake-up
    # has to reach another (idle, on a virtual machine: slow) processor.
    if command -v taskset >/dev/null; then
        rm -rf "$XDG_RUNTIME_DIR" && mkdir -m 700 -p "$XDG_RUNTIME_DIR"
        taskset -c 0 "$out/bench_arbiter" "arbiter (one processor)"
    fi
)
if command -v pipewire >/dev/null && command -v pw-play >/dev/null && pkg-config --exists libpipewire-0.3; then
    cc -std=gnu11 -O2 -Wall -Wextra -o "$out/bench_soundserver" "$here/bench/bench_soundserver.c" $flags \
        $(pkg-config --cflags --libs libpipewire-0.3) -lm
    (
        # A private PipeWire stack and daemon of its own, stopped at the end.
        stack=$out/pipewire
        rm -rf "$stack"
        trap '"$here/scripts/pw-stack.sh" stop "$stack"' EXIT
        eval "$("$here/scripts/pw-stack.sh" start "$stack")"
        python3 -c "import wave,struct,math
w=wave.open('$stack/tone.wav','wb'); w.setnchannels(2); w.setsampwidth(2); w.setframerate(48000)
w.writeframes(b''.join(struct.pack('<hh',int(6000*math.sin(i/9)),int(6000*math.sin(i/9))) for i in range(48000)))"
        AUDIOTOOLBOX_BACKEND=virtual AUDIOTOOLBOX_ARBITER=daemon AUDIOSESSIOND_IDLE_SECONDS=2 \
            "$out/bench_soundserver" "$stack/tone.wav"
    )
fi
cc -std=gnu11 -O2 -Wall -Wextra -o "$out/bench_alsa" "$here/bench/bench_alsa.c" $flags -lasound -lpthread
(
    unset AUDIOTOOLBOX_BACKEND
    rm -rf "$out/vcard"
    eval "$("$prefix/bin/vcard" setup "$out/vcard")"
    # The hardware path alone: other programs are bench_arbiter's subject.
    AUDIOTOOLBOX_ARBITER=local "$out/bench_alsa"
)
# The I/O unit against a bare ALSA client of the same card, period and buffer.
cc -std=gnu11 -O2 -Wall -Wextra -o "$out/bench_units" "$here/bench/bench_units.c" $flags -lasound -lpthread -lm
(
    unset AUDIOTOOLBOX_BACKEND
    rm -rf "$out/vcard-units"
    eval "$("$prefix/bin/vcard" setup "$out/vcard-units")"
    export PATH=$prefix/bin:$PATH
    AUDIOTOOLBOX_ARBITER=local AUDIOTOOLBOX_ALSA_JACK_CTLS= "$out/bench_units"
    # A MultiChannelMixer graph of four buses against the same mix by hand (issue 34).
    AUDIOTOOLBOX_ARBITER=local AUDIOTOOLBOX_ALSA_JACK_CTLS= "$out/bench_units" mixer
)
# The I/O unit on PipeWire against a bare pw_stream client, on a private stack.
if command -v pipewire >/dev/null && pkg-config --exists libpipewire-0.3; then
    cc -std=gnu11 -O2 -Wall -Wextra -o "$out/bench_units_pw" "$here/bench/bench_units_pw.c" $flags \
        $(pkg-config --cflags --libs libpipewire-0.3)
    (
        stack=$out/pipewire-units
        rm -rf "$stack"
        trap '"$here/scripts/pw-stack.sh" stop "$stack"' EXIT
        eval "$("$here/scripts/pw-stack.sh" start "$stack")"
        # Not the virtual device the other benchmarks use: it has no speaker. With no card
        # here the session falls back to it with its sound sent to the sound server.
        unset AUDIOTOOLBOX_BACKEND
        AUDIOTOOLBOX_ARBITER=local AUDIOTOOLBOX_ALSA_JACK_CTLS= "$out/bench_units_pw"
    )
fi
# Audio queues on PipeWire: enqueue -> the sink, and AAC playback's CPU, against bare
# pw_stream clients (libavcodec decoding for the second) on a private stack.
if command -v pipewire >/dev/null && pkg-config --exists libpipewire-0.3; then
    cc -std=gnu11 -O2 -Wall -Wextra -o "$out/bench_queues_pw" "$here/bench/bench_queues_pw.c" $flags \
        $(pkg-config --cflags --libs libpipewire-0.3 libavcodec libavutil)
    ffmpeg -v error -y -f lavfi -i 'aevalsrc=0.5*sin(440*2*PI*t)|0.5*sin(550*2*PI*t):s=48000:d=10' \
        -c:a aac -b:a 128k "$out/queue-aac.m4a"
    (
        stack=$out/pipewire-queues
        rm -rf "$stack"
        trap '"$here/scripts/pw-stack.sh" stop "$stack"' EXIT
        eval "$("$here/scripts/pw-stack.sh" start "$stack")"
        unset AUDIOTOOLBOX_BACKEND
        AUDIOTOOLBOX_ARBITER=local AUDIOTOOLBOX_ALSA_JACK_CTLS= "$out/bench_queues_pw" "$out/queue-aac.m4a"
    )
fi
# Audio files: ExtAudioFile decoding against FFmpeg's libraries called directly, the
# converter's 44.1 -> 48 kHz against libsamplerate alone, THD+N beside libsoxr.
cc -std=gnu11 -O2 -Wall -Wextra -o "$out/bench_audio_files" "$here/bench/bench_audio_files.c" $flags \
    $(pkg-config --cflags --libs libavformat libavcodec libavutil samplerate soxr) -lm
"$out/bench_audio_files" "$out/audio-files-media"
# The effects against the same algorithms as bare C loops, and AUSampler against
# FluidSynth driven directly (32 voices of the General MIDI piano).
cc -std=gnu11 -O2 -Wall -Wextra -o "$out/bench_effects" "$here/bench/bench_effects.c" $flags -lm
AUDIOTOOLBOX_BACKEND=virtual AUDIOTOOLBOX_ARBITER=local "$out/bench_effects"
# The time and pitch units against libsamplerate and SoundTouch driven directly.
g++ -std=c++17 -O2 -Wall -Wextra -I/usr/include/soundtouch -o "$out/bench_time_pitch" "$here/bench/bench_time_pitch.cpp" \
    $flags -lSoundTouch $(pkg-config --cflags --libs samplerate)
AUDIOTOOLBOX_BACKEND=virtual AUDIOTOOLBOX_ARBITER=local "$out/bench_time_pitch"
cc -std=gnu11 -O2 -Wall -Wextra -o "$out/bench_sampler" "$here/bench/bench_sampler.c" $flags \
    $(pkg-config --cflags --libs fluidsynth) -lm
AUDIOTOOLBOX_BACKEND=virtual AUDIOTOOLBOX_ARBITER=local "$out/bench_sampler"
# MIDI event timing at the card: the music player's notes against their beats, as
# test_music_player measures them on the virtual ALSA card (p50, p99, worst).
"$here/Tests/c/run-matrix.sh" "$prefix" "$out/music-timing" test_music_player >/dev/null 2>&1
grep -h "MIDI event timing at the card" "$out/music-timing"/test_music_player-card-*.log | sed 's/^measured: /bench_music: /'
# AVAudioPlayer against its building blocks used directly (Audio File Services into an
# output queue, bench_player_queue.c), the same one-second file on the virtual card:
# play() (or AudioQueueStart) to the first loud frame the card plays, and the process's
# CPU time; medians of 11 alternated runs.
cc -std=gnu11 -O2 -Wall -Wextra -o "$out/bench_player_queue" "$here/bench/bench_player_queue.c" $flags
(cd "$here" && swift build -c release --disable-local-rpath -Xswiftc -no-toolchain-stdlib-rpath --product avf-bench \
    > "$out/avf-bench-build.log" 2>&1) || { echo "avf-bench does not build (log: $out/avf-bench-build.log)"; exit 1; }
avf_bench=$(cd "$here" && swift build -c release --disable-local-rpath -Xswiftc -no-toolchain-stdlib-rpath \
    --show-bin-path)/avf-bench
# AVAudioEngine rendering 60 s by hand through an EQ band and a reverb, against the same
# units as an AUGraph driven through the C API.
AUDIOTOOLBOX_BACKEND=virtual AUDIOTOOLBOX_ARBITER=local LD_LIBRARY_PATH=$prefix/lib/audiotoolbox/swift \
    "$avf_bench" engine-offline 60
sox -n -r 44100 -c 2 -b 16 "$out/player.wav" synth 1.0 sine 440 vol 0.5
rm -rf "$out/vcard-player"
(
    eval "$("$prefix/bin/vcard" setup "$out/vcard-player")"
    export VCARD_DIR ALSA_CONFIG_PATH AUDIOTOOLBOX_ALSA_JACK_CTLS= AUDIOTOOLBOX_ARBITER=local
    unset AUDIOTOOLBOX_BACKEND
    LD_LIBRARY_PATH=$prefix/lib/audiotoolbox/swift python3 - "$prefix/bin/vcard" "$out/bench_player_queue" "$avf_bench" \
        "$out/player.wav" <<'PY'
import os, statistics, struct, subprocess, sys
vcard, queue, player, media = sys.argv[1:5]
card = os.environ["VCARD_DIR"]
def run(program):
    subprocess.run([vcard, "record-reset"], check=True)
    words = subprocess.run([program, media], capture_output=True, text=True, check=True).stdout.split()
    start, cpu = float(words[1]), float(words[3])
    ns, first = open(card + "/state.playback.starts").read().split("\n")[0].split()
    rate = int(open(card + "/state.playback.rate").read())
    raw = open(card + "/state.playback.raw", "rb").read()
    left = struct.unpack("<%dh" % (len(raw) // 2), raw[: len(raw) // 4 * 4])[0::2]
    loud = next(i for i, x in enumerate(left) if abs(x) > 1000)
    sound = float(ns) + (loud - int(first)) / rate * 1e9
    return (sound - start) / 1e6, cpu
results = {"queue": [], "player": []}
for _ in range(11):
    results["queue"].append(run(queue))
    results["player"].append(run(player))
q = [statistics.median(x[i] for x in results["queue"]) for i in (0, 1)]
p = [statistics.median(x[i] for x in results["player"]) for i in (0, 1)]
print("AVAudioPlayer play() to sound %.1f ms, queue used directly %.1f ms: ratio %.2f" % (p[0], q[0], p[0] / q[0]))
print("AVAudioPlayer CPU for the 1 s file %.1f ms, queue used directly %.1f ms: ratio %.2f" % (p[1], q[1], p[1] / q[1]))
PY
    # AVAudioEngine to the card: a 3 s file from a player node through an EQ band and a
    # reverb into the main mixer, against the same units as an AUGraph through the C API:
    # the sound asked for (the stream running) to its first loud frame at the card, and the
    # process's CPU time; medians of 7 alternated runs.
    sox -n -r 44100 -c 2 -b 16 "$out/engine.wav" synth 3.0 sine 440 vol 0.5
    LD_LIBRARY_PATH=$prefix/lib/audiotoolbox/swift python3 "$here/bench/engine_live.py" "$prefix/bin/vcard" "$avf_bench" \
        "$out/engine.wav" 7
    # Many short players (a game's effects): 20 players of a 0.1 s sound, one every 20 ms,
    # through the players' mix against a queue (and a stream) each; streams the card saw
    # opened, CPU and peak RSS, medians of 5 alternated runs.
    sox -n -r 44100 -c 1 -b 16 "$out/shot.wav" synth 0.1 sine 440 vol 0.4
    LD_LIBRARY_PATH=$prefix/lib/audiotoolbox/swift python3 - "$prefix/bin/vcard" "$avf_bench" "$out/shot.wav" <<'PY'
import os, statistics, subprocess, sys
vcard, bench, media = sys.argv[1:4]
card = os.environ["VCARD_DIR"]
def run(mode):
    subprocess.run([vcard, "record-reset"], check=True)
    words = subprocess.run([bench, "burst", media, "20", mode], capture_output=True, text=True, check=True).stdout.split()
    starts = len(open(card + "/state.playback.starts").read().split("\n")) - 1
    return starts, float(words[1]), int(words[3]) / 1024
results = {"mix": [], "queues": []}
for _ in range(5):
    for mode in results:
        results[mode].append(run(mode))
m = [statistics.median(x[i] for x in results["mix"]) for i in (0, 1, 2)]
q = [statistics.median(x[i] for x in results["queues"]) for i in (0, 1, 2)]
print("20 short players: streams opened %d through the mix, %d with a queue each: ratio %.2f" % (m[0], q[0], m[0] / q[0]))
print("20 short players: CPU %.1f ms through the mix, %.1f ms with a queue each: ratio %.2f" % (m[1], q[1], m[1] / q[1]))
print("20 short players: peak RSS %.1f MB through the mix, %.1f MB with a queue each: ratio %.2f" % (m[2], q[2], m[2] / q[2]))
PY
)
# audiosessiond with 64, 500 and 1,000 sessions: per-session cost as a ratio to 64's.
python3 "$here/bench/bench_daemon_scale.py" "$prefix" 64 500 1000

if command -v valgrind >/dev/null; then
    # valgrind 3.19 cannot read the DWARF the Swift toolchain emits: check a copy of the
    # library without debug sections, found first through LD_LIBRARY_PATH. The copy's
    # $ORIGIN rpath names no runtime beside it: the installed runtime is named after it.
    mkdir -p "$out/stripped"
    strip --strip-debug -o "$out/stripped/libAudioToolbox.so.0" "$prefix/lib/libAudioToolbox.so.0"
    LD_LIBRARY_PATH=$out/stripped:$swiftruntime valgrind --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=3 -q \
        "$out/bench_listener_memory" 20000 2>"$out/valgrind.log" \
        && echo "listener-memory under valgrind: no definite leaks (log: $out/valgrind.log)" \
        || { echo "valgrind reported problems:"; tail -30 "$out/valgrind.log"; exit 1; }
    cc -std=gnu11 -O2 -o "$out/leak_system_sounds" "$here/bench/leak_system_sounds.c" $flags -lsndfile
    AUDIOTOOLBOX_BACKEND=virtual LD_LIBRARY_PATH=$out/stripped:$swiftruntime valgrind --leak-check=full \
        --errors-for-leak-kinds=definite --error-exitcode=3 -q "$out/leak_system_sounds" 2>"$out/valgrind-sounds.log" \
        && echo "system sounds under valgrind: 300 creations (good, corrupt, missing files), no definite leaks" \
        || { echo "valgrind reported problems:"; tail -30 "$out/valgrind-sounds.log"; exit 1; }
fi
