#!/usr/bin/env python3
"""Where a sound server runs: how many playback streams program PID has (pw-dump), and
what the default sink plays (its monitor, recorded with pw-record for SECONDS), as
"streams N left HZ Hz right HZ Hz level L" (HZ 0 where a side is silent; L the loudest
sample, of full scale). Needs the stack's environment (XDG_RUNTIME_DIR ...).
    pw-heard.py PID SECONDS WAV_OUT"""
import json, os, struct, subprocess, sys, wave

pid, seconds, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
objects = json.loads(subprocess.run(["pw-dump"], capture_output=True, text=True, timeout=20).stdout or "[]")
def props(o):
    return (o.get("info") or {}).get("props") or {}
streams = [o for o in objects if props(o).get("media.class") == "Stream/Output/Audio"
           and str(props(o).get("application.process.id")) == pid]
sinks = [o["id"] for o in objects if props(o).get("media.class") == "Audio/Sink"]
if not sinks:
    print("streams %d no sink" % len(streams))
    sys.exit(1)
try:
    os.unlink(out)
except FileNotFoundError:
    pass
subprocess.run(["timeout", str(seconds), "pw-record", "--target", str(sinks[0]), "-P", "{ stream.capture.sink = true }",
                "--format", "s16", "--rate", "48000", "--channels", "2", out],
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=20)
with wave.open(out) as w:
    count = w.getnframes() * 2
    samples = struct.unpack("<%dh" % count, w.readframes(w.getnframes())[: count * 2])
def pitch(side):
    """Rising crossings with hysteresis, first to last, over the side's loud samples."""
    peak = max((abs(x) for x in side), default=0)
    threshold = max(64, peak // 10)
    crossings, low = [], False
    for i, x in enumerate(side):
        if x < -threshold:
            low = True
        elif x > threshold and low:
            crossings.append(i)
            low = False
    return 0 if len(crossings) < 3 else (len(crossings) - 1) * 48000 / (crossings[-1] - crossings[0])
left, right = samples[0::2], samples[1::2]
print("streams %d left %.1f Hz right %.1f Hz level %.2f" % (
    len(streams), pitch(left), pitch(right), max((abs(x) for x in samples), default=0) / 32768))
