#!/usr/bin/env python3
"""AVAudioEngine against an AUGraph of the same units, both playing to the virtual card.

    engine_live.py VCARD AVF_BENCH FILE RUNS

Runs `AVF_BENCH engine-live FILE engine` and `... graph` alternately RUNS times, each on a
fresh recording of the card (VCARD_DIR), and prints the medians: the latency from the
sound asked for to its first loud frame at the card (from the card's playback start time,
its frames and rate), and the process's CPU time while it plays (the file and the reverb's
tail); then their ratios (goal: at most 1.1).
"""
import os
import statistics
import struct
import subprocess
import sys

vcard, bench, media, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
card = os.environ["VCARD_DIR"]


def run(mode):
    subprocess.run([vcard, "record-reset"], check=True)
    words = subprocess.run([bench, "engine-live", media, mode], capture_output=True, text=True,
                           check=True).stdout.split()
    start, cpu = float(words[1]), float(words[3])
    ns, first = open(card + "/state.playback.starts").read().split("\n")[0].split()
    rate = int(open(card + "/state.playback.rate").read())
    raw = open(card + "/state.playback.raw", "rb").read()
    left = struct.unpack("<%dh" % (len(raw) // 2), raw[: len(raw) // 4 * 4])[0::2]
    loud = next(i for i, x in enumerate(left) if abs(x) > 1000)
    sound = float(ns) + (loud - int(first)) / rate * 1e9
    return (sound - start) / 1e6, cpu


results = {"engine": [], "graph": []}
for _ in range(runs):
    for mode in results:
        results[mode].append(run(mode))
e = [statistics.median(x[i] for x in results["engine"]) for i in (0, 1)]
g = [statistics.median(x[i] for x in results["graph"]) for i in (0, 1)]
print("engine-live: sound asked for to the card, AVAudioEngine %.1f ms, AUGraph in C %.1f ms: ratio %.2f (goal <= 1.1)"
      % (e[0], g[0], e[0] / g[0]))
print("engine-live: CPU for a 3 s file through EQ and reverb, AVAudioEngine %.1f ms, AUGraph in C %.1f ms: ratio %.2f (goal <= 1.1)"
      % (e[1], g[1], e[1] / g[1]))
