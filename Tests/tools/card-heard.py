#!/usr/bin/env python3
"""What the virtual card played: the loud part of its recording (left channel, or the
one --channel names), as "SECONDS s at HZ Hz, peak PEAK" ("nothing heard" if silent),
plus ", N gaps (MS ms) after M restarts" when the sound broke off inside it. With
--min-seconds and --hz, exits 1 unless at least that long a part at that pitch (within
--tolerance Hz, 3 by default) was heard, and every gap is explained by a restart the card
recorded; with --runs N, unless the sound came in exactly N separate runs (sounds played
one after another, with silence between on purpose).
    card-heard.py VCARD_DIR [--channel left|right] [--runs N] [--each]
                  [--min-seconds S --hz F [--tolerance T]]
With --each, the report ends with each run's length and peak: "; runs 0.500 s 9830, ...".

A stream that runs dry (an underrun, on a loaded machine) restarts with a primer of
silence, and the card notes each start in state.playback.starts: such a gap is the
machine's, not a wrong pitch. So the pitch is measured inside each sounding run, from
its first rising crossing to its last (a run's edges add or lose none), and the gaps are
counted against the restarts. A gap with no restart behind it (silence written while the
stream ran) fails the check."""
import argparse, os, struct, sys

arguments = argparse.ArgumentParser()
arguments.add_argument("card")
arguments.add_argument("--min-seconds", type=float)
arguments.add_argument("--hz", type=float)
arguments.add_argument("--tolerance", type=float, default=3)
arguments.add_argument("--channel", choices=["left", "right"], default="left")
arguments.add_argument("--runs", type=int)
arguments.add_argument("--each", action="store_true")
options = arguments.parse_args()
raw = open(options.card + "/state.playback.raw", "rb").read()
rate = int(open(options.card + "/state.playback.rate").read())
starts_path = options.card + "/state.playback.starts"
starts = len(open(starts_path).read().split("\n")) - 1 if os.path.exists(starts_path) else 1
side = 0 if options.channel == "left" else 1
samples = struct.unpack("<%dh" % (len(raw) // 4 * 2), raw[: len(raw) // 4 * 4])[side::2]
# The loud part: from the first to the last sample beyond a tenth of the peak (a codec's
# quiet priming and ringing are left out).
peak = max((abs(x) for x in samples), default=0)
threshold = max(64, peak // 10)
loud = [i for i, x in enumerate(samples) if abs(x) > threshold]
if not loud:
    print("nothing heard")
    sys.exit(1 if options.min_seconds else 0)
# Runs: split where no sample passes the threshold for more than 5 ms (any tone this
# checks, 100 Hz and up, passes it more often than that).
quiet_run = int(rate * 0.005)
runs, first, previous = [], loud[0], loud[0]
for index in loud[1:]:
    if index - previous > quiet_run:
        runs.append((first, previous + 1))
        first = index
    previous = index
runs.append((first, previous + 1))
gaps = len(runs) - 1
gap_frames = sum(runs[i + 1][0] - runs[i][1] for i in range(gaps))
# Rising crossings with hysteresis (below -threshold, then above it): noise around zero
# adds none, a clean sine counts the same. Cycles and their frames, run by run.
cycles, cycle_frames = 0, 0
for begin, end in runs:
    crossings, low = [], False
    for i in range(begin, end):
        x = samples[i]
        if x < -threshold:
            low = True
        elif x > threshold and low:
            crossings.append(i)
            low = False
    if len(crossings) >= 2:
        cycles += len(crossings) - 1
        cycle_frames += crossings[-1] - crossings[0]
seconds = (loud[-1] + 1 - loud[0]) / rate
hz = cycles * rate / cycle_frames if cycle_frames else 0
restarts = max(0, starts - 1)
report = "%.3f s at %.1f Hz, peak %d" % (seconds, hz, peak)
if gaps:
    report += ", %d gap%s (%.1f ms) after %d restart%s" % (
        gaps, "" if gaps == 1 else "s", gap_frames * 1000 / rate, restarts, "" if restarts == 1 else "s")
if options.each:
    report += "; runs " + ", ".join("%.3f s %d" % ((end - begin) / rate, max(abs(x) for x in samples[begin:end]))
                                    for begin, end in runs)
print(report)
unexplained = len(runs) != options.runs if options.runs is not None else gaps > restarts
if options.min_seconds is not None and (
        seconds < options.min_seconds or abs(hz - (options.hz or 440)) >= options.tolerance or unexplained):
    sys.exit(1)
