#!/usr/bin/env python3
"""How audiosessiond's cost grows with the number of sessions (issue 15).

    bench_daemon_scale.py PREFIX [N ...]      (default N: 64 500 1000)

For each N, a fresh daemon (PREFIX/bin/audiosessiond, its own runtime folder) is sent N
connections that each say hello as a session, claim a mixing category and activate, as
the library does; measured: the time until every one of them has its welcome, the time
a fresh client then waits for its welcome, the daemon's resident memory and CPU time.
Then the per-session cost at each N is printed as a ratio to the one at the smallest N
of the same run: about 1 when the cost per session does not grow with their number,
about N/N0 when every operation looks at every session.
"""
import os
import resource
import selectors
import socket
import struct
import subprocess
import sys
import tempfile
import time

VERSION = int(os.environ.get("BENCH_PROTOCOL_VERSION", "3"))  # 2 for a daemon before issue 15


def frame(payload):
    return struct.pack(">I", len(payload)) + payload


def hello(program, role=0):
    name = program.encode()
    return frame(bytes([1]) + struct.pack(">HI", VERSION, os.getpid()) + struct.pack(">H", len(name)) + name + bytes([role]))


CLAIM = frame(bytes([2]) + struct.pack(">II", 0x616D6269, 0x64666C74) + bytes([4 | 1]))  # output, mixes
ACTIVATE = frame(bytes([3]))


def proc_stats(pid):
    with open(f"/proc/{pid}/status") as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS"))
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return rss, (int(fields[11]) + int(fields[12])) / ticks


def welcomed(sock, buffer):
    """True once a whole welcome frame (kind 64) has arrived on `sock`."""
    while len(buffer) >= 4:
        length = struct.unpack(">I", bytes(buffer[:4]))[0]
        if len(buffer) < 4 + length:
            return False
        kind = buffer[4]
        del buffer[:4 + length]
        if kind == 64:
            return True
    return False


def run(prefix, count):
    runtime = tempfile.mkdtemp(prefix="atscale-")
    os.chmod(runtime, 0o700)
    env = dict(os.environ, XDG_RUNTIME_DIR=runtime, AUDIOSESSIOND_IDLE_SECONDS="30")
    env.pop("PIPEWIRE_RUNTIME_DIR", None)
    daemon = subprocess.Popen([os.path.join(prefix, "bin", "audiosessiond")], env=env,
                              stderr=subprocess.DEVNULL)
    path = os.path.join(runtime, "audiotoolbox", "audiosessiond.sock")
    deadline = time.monotonic() + 10
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.005)
    rss0, cpu0 = proc_stats(daemon.pid)
    selector = selectors.DefaultSelector()
    sockets = []
    start = time.monotonic()
    for index in range(count):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        s.sendall(hello(f"scale-{index}") + CLAIM + ACTIVATE)
        s.setblocking(False)
        sockets.append(s)
        selector.register(s, selectors.EVENT_READ, bytearray())
    waiting = count
    limit = time.monotonic() + 120
    while waiting and time.monotonic() < limit:
        for key, _ in selector.select(timeout=1):
            try:
                data = key.fileobj.recv(65536)
            except BlockingIOError:
                continue
            key.data.extend(data)
            if welcomed(key.fileobj, key.data):
                selector.unregister(key.fileobj)
                waiting -= 1
    everyone = time.monotonic() - start
    # A fresh client now: how long does it wait?
    fresh_start = time.monotonic()
    fresh = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    fresh.connect(path)
    fresh.sendall(hello("fresh"))
    buffer = bytearray()
    while not welcomed(fresh, buffer):
        buffer.extend(fresh.recv(65536))
    fresh_wait = time.monotonic() - fresh_start
    rss, cpu = proc_stats(daemon.pid)
    for s in sockets + [fresh]:
        s.close()
    daemon.terminate()
    daemon.wait()
    subprocess.run(["rm", "-rf", runtime])
    return dict(count=count, missing=waiting, seconds=everyone, fresh=fresh_wait, rss=rss, rss0=rss0, cpu=cpu - cpu0)


def main():
    prefix = sys.argv[1]
    counts = [int(n) for n in sys.argv[2:]] or [64, 500, 1000]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    results = [run(prefix, n) for n in counts]
    base = results[0]
    for r in results:
        per = r["seconds"] / r["count"]
        ratio = per / (base["seconds"] / base["count"])
        print(f"daemon scale: {r['count']:5d} sessions welcomed in {r['seconds'] * 1000:8.1f} ms "
              f"({per * 1e6:7.1f} us each, ratio to {base['count']}: {ratio:5.2f}); a fresh client then waits "
              f"{r['fresh'] * 1000:6.2f} ms; daemon RSS {r['rss0'] / 1024:.1f} -> {r['rss'] / 1024:.1f} MiB, "
              f"CPU {r['cpu']:.2f} s" + (f"; {r['missing']} NOT welcomed" if r["missing"] else ""))


if __name__ == "__main__":
    main()
