#!/usr/bin/env python3
"""Measures a recorded file as FFmpeg reads it: prints "SECONDS HZ PEAK".

    tone-in-file.py FILE [UNTIL]

(UNTIL: seconds; only the file's first UNTIL seconds are measured for HZ and PEAK, as
when a reverb's tail follows the tone.)

SECONDS is the file's length, HZ the tone's frequency in its loud part (rising
crossings with hysteresis, so a lossy codec's noise around zero adds none), PEAK the
loudest 16-bit sample of that part (0 for a silent file).
"""
import subprocess
import struct
import sys

raw = subprocess.run(["ffmpeg", "-v", "error", "-i", sys.argv[1], "-f", "s16le", "-ac", "1", "-ar", "16000", "-"],
                     capture_output=True, check=True).stdout
samples = struct.unpack("<%dh" % (len(raw) // 2), raw[: len(raw) // 2 * 2])
seconds = len(samples) / 16000
if len(sys.argv) > 2:
    samples = samples[: int(float(sys.argv[2]) * 16000)]
# The loud part (an encoder's priming and padding are silent), past its first 100 ms.
loud = [i for i, x in enumerate(samples) if abs(x) > 1000] or [0]
part = samples[loud[0] + 1600 : loud[-1] + 1] or samples
crossings, low = 0, False
for x in part:
    if x < -1000:
        low = True
    elif x > 1000 and low:
        crossings, low = crossings + 1, False
print("%.3f %.1f %d" % (seconds, crossings * 16000 / max(len(part), 1), max([abs(x) for x in part] or [0])))
