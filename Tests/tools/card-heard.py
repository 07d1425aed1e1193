#!/usr/bin/env python3
"""What the virtual card played: the loud part of its recording (left channel), as
"SECONDS s at HZ Hz, peak PEAK" ("nothing heard" if silent), plus ", N gaps after M
restarts" when the sound broke off inside it. With --min-seconds and --hz, exits 1
unless at least that long a part at that pitch (within --tolerance Hz, 3 by default)
was heard, and every gap is explained by a restart the card recorded.
    card-heard.py VCARD_DIR [--min-seconds S --hz F [--tolerance T]]

A stream that runs dry (an underrun, on a loaded machine) restarts with a primer of
silence, and the card notes each start in state.playback.starts: such a gap is the
machine's, not a wrong pitch, so the pitch is measured over the sounding runs only and
the gaps are counted against the restarts. A gap with no restart behind it (silence
written by the program or the library while the stream ran) fails the check."""
import argparse, os, struct, sys

arguments = argparse.ArgumentParser()
arguments.add_argument("card")
arguments.add_argument("--min-seconds", type=float)
arguments.add_argument("--hz", type=float)
arguments.add_argument("--tolerance", type=float, default=3)
options = arguments.parse_args()
raw = open(options.card + "/state.playback.raw", "rb").read()
rate = int(open(options.card + "/state.playback.rate").read())
starts_path = options.card + "/state.playback.starts"
starts = len(open(starts_path).read().split("\n")) - 1 if os.path.exists(starts_path) else 1
left = struct.unpack("<%dh" % (len(raw) // 4 * 2), raw[: len(raw) // 4 * 4])[0::2]
# The loud part: from the first to the last sample beyond a tenth of the peak (a codec's
# quiet priming and ringing are left out).
peak = max((abs(x) for x in left), default=0)
threshold = max(64, peak // 10)
loud = [i for i, x in enumerate(left) if abs(x) > threshold]
if not loud:
    print("nothing heard")
    sys.exit(1 if options.min_seconds else 0)
part = left[loud[0] : loud[-1] + 1]
# Gaps: stretches longer than 5 ms with no sample beyond the threshold (any tone this
# checks, 100 Hz and up, passes it more often than that).
quiet_run = int(rate * 0.005)
gaps, gap_frames, previous = 0, 0, 0
for index in loud:
    index -= loud[0]
    if index - previous > quiet_run:
        gaps, gap_frames = gaps + 1, gap_frames + index - previous
    previous = index
# Rising crossings with hysteresis (below -threshold, then above it): noise around zero
# adds none, a clean sine counts the same.
crossings, low = 0, False
for x in part:
    if x < -threshold:
        low = True
    elif x > threshold and low:
        crossings, low = crossings + 1, False
seconds = len(part) / rate
hz = crossings * rate / max(1, len(part) - gap_frames)
restarts = max(0, starts - 1)
report = "%.3f s at %.1f Hz, peak %d" % (seconds, hz, max(part))
if gaps:
    report += ", %d gap%s (%.1f ms) after %d restart%s" % (
        gaps, "" if gaps == 1 else "s", gap_frames * 1000 / rate, restarts, "" if restarts == 1 else "s")
print(report)
if options.min_seconds is not None and (
        seconds < options.min_seconds or abs(hz - (options.hz or 440)) >= options.tolerance or gaps > restarts):
    sys.exit(1)
