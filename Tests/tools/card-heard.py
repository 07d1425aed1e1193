#!/usr/bin/env python3
"""What the virtual card played: the loud part of its recording (left channel), as
"SECONDS s at HZ Hz, peak PEAK" ("nothing heard" if silent). With --min-seconds and
--hz, exits 1 unless at least that long a part at that pitch (within --tolerance Hz,
3 by default) was heard.
    card-heard.py VCARD_DIR [--min-seconds S --hz F [--tolerance T]]"""
import argparse, struct, sys

arguments = argparse.ArgumentParser()
arguments.add_argument("card")
arguments.add_argument("--min-seconds", type=float)
arguments.add_argument("--hz", type=float)
arguments.add_argument("--tolerance", type=float, default=3)
options = arguments.parse_args()
raw = open(options.card + "/state.playback.raw", "rb").read()
rate = int(open(options.card + "/state.playback.rate").read())
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
# Rising crossings with hysteresis (below -threshold, then above it): noise around zero
# adds none, a clean sine counts the same.
crossings, low = 0, False
for x in part:
    if x < -threshold:
        low = True
    elif x > threshold and low:
        crossings, low = crossings + 1, False
seconds, hz = len(part) / rate, crossings * rate / len(part)
print("%.3f s at %.1f Hz, peak %d" % (seconds, hz, max(part)))
if options.min_seconds is not None and (seconds < options.min_seconds or abs(hz - (options.hz or 440)) >= options.tolerance):
    sys.exit(1)
