#!/usr/bin/env python3
"""Hostile-user tests: other users, planted files, floods and stuck peers against the
library, `audiosessiond` and `audiosession`.

    run-hostile-tests.py PREFIX OUTDIR [CASE...]

Builds Tests/arbiter/session_prog.c and the helpers of Tests/hostile (sound_create.c,
exec_after_init.c, fd_list.c) against `pkg-config AudioToolbox` of the installed PREFIX
(its prefix variable pointed at PREFIX, so that they load PREFIX's library and start
PREFIX's daemon), then runs each case (all of them, or those named; a name may be a
prefix) with its own fresh runtime folder. Prints "PASS <case>", "FAIL <case>: <why>"
or "SKIP <case>: <why>", then "hostile: N passed, N failed"; exits 1 if any failed.
Transcripts go to OUTDIR/logs.

Runs as root: "another user" is uid 65534 (nobody), and a victim that must not be root
(the /tmp/audiotoolbox-UID folder, used without XDG_RUNTIME_DIR) is uid 65533, run with
setpriv. /tmp/audiotoolbox-65533 is removed before and after each case that uses it;
/tmp/audiotoolbox-0 and the caller's own runtime folder are never touched.

How the cases decide: by what programs print and exit with, what a fake daemon saw
(Tests/hostile/fake_daemon.py), what /proc says about the daemon (descriptors, CPU
seconds consumed, VmHWM, cwd, umask, limits), file contents and modes. No sleep is an
assertion: 30 s (HANG) only turns a hang into a failure, and a few fixed windows
(OBSERVE, CPU_WINDOW) are spans in which something must NOT happen (bytes reaching a
fake, a bad volume appearing, CPU being burnt), not measures of speed. A daemon whose
resident memory passes 1 GB under a flood (2 GB finishing sounds) is killed and the
case fails, so that a daemon without bounds cannot swamp the machine.

Raw protocol clients (Sources/Shared/ArbiterProtocol: 4-byte big-endian length, kind byte,
fields) speak the daemon's version: a hello of version 2 is answered with a welcome,
or with a failure that names the version the daemon speaks, which is then used.
"""
import ctypes
import errno
import fcntl
import json
import math
import os
import re
import select
import shlex
import shutil
import signal
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
import wave

HANG = 30.0          # turns a hang into a failure; never a measure of speed
OBSERVE = 3.0        # a span in which something must not happen
CPU_WINDOW = 3.0     # CPU seconds the daemon burns in this span must stay under 1
STOP_SECONDS = 10.0  # how long the daemon stays stopped while a program initialises
NOBODY = 65534       # the other user
VICTIM = 65533       # a victim that is not root
VICTIM_FOLDER = f"/tmp/audiotoolbox-{VICTIM}"
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FAKE_DAEMON = os.path.join(HERE, "fake_daemon.py")
BAD_LINE = re.compile(r"^(WRONG-THREAD|init-failed|listen-failed|thread-failed|INTERRUPTION|LISTEN \S+ badsize)")
FALLBACK = re.compile(r"cannot be reached|arbitrated alone|refused the session")
MB = 1024 * 1024

prefix = outdir = None
session_prog = sound_create = exec_after_init = fd_list = None
tool_path = daemon_path = None
case_serial = 0


class CaseFailure(Exception):
    pass


class CaseSkip(Exception):
    pass


def tail(lines, count=15):
    shown = [line if len(line) < 300 else line[:300] + "..." for line in lines[-count:]]
    return "\n".join("      | " + line for line in shown) if shown else "      | (nothing)"


def clip(text, count=400):
    text = text.strip()
    return repr(text if len(text) <= count else text[:count] + "...")


# ---------------------------------------------------------------------------------------
# The wire format (Sources/Shared/ArbiterProtocol): a 4-byte big-endian length, then the payload:
# a kind byte and its fields; strings are a 2-byte length and UTF-8.

SESSION, TOOL = 0, 1
WELCOME, FAILURE = 64, 72
# The protocol version of PREFIX's daemon: 2 in today's code; a daemon that speaks
# another one says which in its failure answer ("protocol version 2 is not 3"). Learnt
# once from the first daemon a raw client meets (learn_protocol).
protocol = None


def frame(payload):
    return struct.pack(">I", len(payload)) + payload


def string16(value):
    if isinstance(value, str):
        value = value.encode()
    return struct.pack(">H", len(value)) + value


def hello(program, role, pid=None, version=None):
    version = version or protocol or 2
    return frame(b"\x01" + struct.pack(">HI", version, os.getpid() if pid is None else pid) + string16(program)
                 + bytes([role]))


def learn_protocol(path):
    """The daemon at `path` answers a hello of version 2 with a welcome, or with a
    failure naming its version."""
    global protocol
    if protocol is not None:
        return
    s = connect_raw(path)
    try:
        s.sendall(hello("hostile-version", TOOL, version=2))
        answer = read_frame(s, time.monotonic() + HANG)
    except (socket.timeout, OSError) as error:
        raise CaseFailure(f"the daemon did not answer a hello: {error}")
    finally:
        s.close()
    if answer and answer[0] == WELCOME:
        protocol = 2
        return
    found = re.search(rb"is not (\d+)", answer[1]) if answer and answer[0] == FAILURE else None
    if not found:
        raise CaseFailure(f"the daemon answered a hello of version 2 with {answer!r}")
    protocol = int(found.group(1))


STATUS_REQUEST = frame(b"\x06")


def finish_if_dies(token, path, device):
    return frame(b"\x09" + struct.pack(">I", token) + string16(path) + string16(device))


def connect_raw(path, timeout=HANG):
    """A connected stream socket (blocking connect, bounded by `timeout`)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.setblocking(False)
    deadline = time.monotonic() + timeout
    while True:
        code = s.connect_ex(path)
        if code == 0:
            break
        # EAGAIN: the listener's backlog is full for now (a busy daemon).
        if code != errno.EAGAIN or time.monotonic() >= deadline:
            s.close()
            raise OSError(code, f"connect {path}: {os.strerror(code)}")
        time.sleep(0.002)
    s.settimeout(timeout)
    return s


def read_frame(s, deadline):
    """(kind, payload) of the next frame on a blocking socket, or None at its end."""
    def exactly(count):
        data = b""
        while len(data) < count:
            s.settimeout(max(0.01, deadline - time.monotonic()))
            chunk = s.recv(count - len(data))
            if not chunk:
                return None
            data += chunk
        return data
    header = exactly(4)
    if header is None:
        return None
    length = struct.unpack(">I", header)[0]
    payload = exactly(length) if length else b""
    if payload is None or not payload:
        return None
    return payload[0], payload[1:]


def raw_session(path, program, role=SESSION):
    """A raw client that said hello and got its welcome; it reads nothing more."""
    learn_protocol(path)
    s = connect_raw(path)
    s.sendall(hello(program, role))
    try:
        answer = read_frame(s, time.monotonic() + HANG)
    except (socket.timeout, OSError) as error:
        s.close()
        raise CaseFailure(f"a raw client ({role and 'tool' or 'session'}) got no welcome: {error}")
    if answer is None or answer[0] != WELCOME:
        s.close()
        raise CaseFailure(f"a raw client's hello was answered with {answer!r}, not a welcome")
    return s


def raw_welcome(case):
    """Whether the case's socket welcomes a tool's hello (False while nobody listens)."""
    try:
        raw_session(case.socket, "hostile-probe", role=TOOL).close()
        return True
    except (OSError, CaseFailure):
        return False


def unread_bytes(s):
    """Bytes waiting in `s` to be read (FIONREAD)."""
    try:
        return struct.unpack("i", fcntl.ioctl(s.fileno(), 0x541B, b"\0\0\0\0"))[0]
    except OSError:
        return -1


def unsent_bytes(s):
    """Bytes written to `s` that the peer has not read yet (SIOCOUTQ)."""
    try:
        return struct.unpack("i", fcntl.ioctl(s.fileno(), 0x5411, b"\0\0\0\0"))[0]
    except OSError:
        return -1


# ---------------------------------------------------------------------------------------
# /proc


def proc_status(pid, key):
    """A field of /proc/PID/status (the number, for the kB ones), or None."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    value = line.split(":", 1)[1].strip()
                    return int(value.split()[0]) if value.endswith("kB") else value
    except OSError:
        return None
    return None


def cpu_seconds(pid):
    """utime + stime of a process, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fd_count(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None


def is_alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def describe_process(pid):
    """State and kernel wait channel: where a stuck process is stuck."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        with open(f"/proc/{pid}/wchan") as f:
            wchan = f.read().strip() or "-"
        return (f"pid {pid} state {state} wchan {wchan}, {cpu_seconds(pid):.1f} CPU s, "
                f"VmRSS {proc_status(pid, 'VmRSS')} kB, VmHWM {proc_status(pid, 'VmHWM')} kB")
    except OSError:
        return f"pid {pid} gone"


def reap(pid):
    """Collects a process that became our child (this process is a subreaper)."""
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and is_alive(pid):
            time.sleep(0.01)


def kill_and_reap(pid):
    try:
        os.kill(pid, signal.SIGCONT)
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return
    reap(pid)


class MemoryGuard:
    """Kills a daemon whose resident memory passes `limit_kb`: a daemon that does not
    bound its memory fails the case instead of swamping the machine (today's daemon
    reaches gigabytes under some floods)."""

    def __init__(self, case, pid, what, limit_kb=1024 * 1024):
        self.pid, self.what, self.limit, self.tripped = pid, what, limit_kb, None
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()
        case.cleanups.append(self.close)

    def _watch(self):
        while not self.stop.wait(0.02):
            rss = proc_status(self.pid, "VmRSS")
            if rss is None:
                return
            if rss > self.limit:
                self.tripped = rss
                try:
                    os.kill(self.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                return

    def check(self):
        if self.tripped:
            raise CaseFailure(f"{self.what}, the daemon's resident memory passed {self.limit // 1024} MB "
                              f"({self.tripped} kB): the test killed it")

    def close(self):
        self.stop.set()
        self.thread.join(timeout=5)


def as_user(uid, command):
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", *command]


def remove_path(path):
    """Removes a file, a symlink (not what it points to) or a folder tree."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(info.st_mode):
        shutil.rmtree(path, ignore_errors=True)
    else:
        os.unlink(path)


# ---------------------------------------------------------------------------------------
# Programs


class Lines:
    """Lines of a stream, read by a thread of their own."""

    def __init__(self, stream, cond):
        self.lines, self.ended, self.cond = [], False, cond
        self.thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self.thread.start()

    def _read(self, stream):
        try:
            for line in stream:
                with self.cond:
                    self.lines.append(line.rstrip("\n"))
                    self.cond.notify_all()
        except (ValueError, OSError):
            pass
        with self.cond:
            self.ended = True
            self.cond.notify_all()


class Prog:
    """One session_prog (or another program): its output lines in order.

    strict: the library's fallback to arbitrating alone (said on stderr with
    AUDIOTOOLBOX_LOG=error) fails the wait at once."""

    def __init__(self, case, name, argv=None, env=None, wrapper=(), cwd=None, preexec=None, strict=True):
        self.case, self.name, self.strict = case, name, strict
        self.pos = 0
        self.cond = threading.Condition(threading.RLock())
        self.proc = subprocess.Popen(
            [*wrapper, *(argv or [session_prog])], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, env=env or case.env, text=True, errors="replace", bufsize=1, cwd=cwd,
            preexec_fn=preexec)
        self.pid = self.proc.pid
        self.out = Lines(self.proc.stdout, self.cond)
        self.err = Lines(self.proc.stderr, self.cond)
        case.progs.append(self)

    @property
    def lines(self):
        return self.out.lines

    @property
    def errors(self):
        return self.err.lines

    def fail(self, why):
        with self.cond:
            seen, errors = list(self.lines), list(self.errors)
        message = f"{self.name} (pid {self.pid}): {why}\n    {self.name} printed:\n{tail(seen)}"
        if errors:
            message += f"\n    {self.name} stderr:\n{tail(errors, 10)}"
        raise CaseFailure(message)

    def expect(self, pattern, timeout=HANG, what=None):
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self.cond:
            i = self.pos
            while True:
                while i < len(self.lines):
                    line = self.lines[i]
                    if BAD_LINE.match(line):
                        self.fail(f"printed '{line}' while waiting for /{pattern}/")
                    if rx.search(line):
                        self.pos = max(self.pos, i + 1)
                        return line
                    i += 1
                if self.strict:
                    fallback = next((e for e in self.errors if FALLBACK.search(e)), None)
                    if fallback:
                        self.fail(f"the library did not use audiosessiond: '{fallback}'")
                if self.out.ended:
                    self.fail(f"exited (status {self.proc.wait()}) while waiting for /{pattern}/")
                if time.monotonic() >= deadline:
                    self.fail(what or f"no line /{pattern}/ within {timeout:.0f} s (hung?)")
                self.cond.wait(max(0.01, deadline - time.monotonic()))

    def ready(self, timeout=HANG, what=None):
        line = self.expect(r"^ready \d+$", timeout, what)
        if line != f"ready {self.pid}":
            self.fail(f"said '{line}', its pid is {self.pid}")

    def send(self, command):
        try:
            self.proc.stdin.write(command + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            self.fail(f"cannot send '{command}': its input is closed")

    def command(self, command, status="0"):
        self.send(command)
        line = self.expect(rf"^{re.escape(command)} \S+$")
        got = line.rsplit(" ", 1)[1]
        if got != status:
            self.fail(f"'{command}' answered {got}, expected {status}")

    def finish(self):
        """Ends its input (a quit), waits for it to exit; returns its whole stderr."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=HANG)
        except subprocess.TimeoutExpired:
            self.fail(f"did not exit within {HANG:.0f} s of the end of its input")
        self.out.thread.join(timeout=5)
        self.err.thread.join(timeout=5)
        return "\n".join(self.errors)


class Fake:
    """fake_daemon.py: a socket where a client looks for its daemon, someone else's."""

    def __init__(self, case, path, bind_uid=None, listen_uid=None, mode="0777"):
        case.serial += 1
        self.control = os.path.join(case.runtime, f"fake-control-{case.serial}.sock")
        command = [sys.executable, FAKE_DAEMON, "--socket", path, "--control", self.control, "--mode", mode]
        if bind_uid is not None:
            command += ["--bind-uid", str(bind_uid)]
        if listen_uid is not None:
            command += ["--listen-uid", str(listen_uid)]
        self.path = path
        self.cond = threading.Condition()
        self.proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     errors="replace", env=case.env)
        case.procs.append(self.proc)
        self.out = Lines(self.proc.stdout, self.cond)
        self.err = Lines(self.proc.stderr, self.cond)
        deadline = time.monotonic() + HANG
        with self.cond:
            while "listening" not in self.out.lines:
                if self.out.ended or time.monotonic() >= deadline:
                    raise CaseFailure(f"the fake daemon did not start: {self.err.lines[-5:]}")
                self.cond.wait(0.1)

    def seen(self):
        """(connections, bytes, detail) the fake saw until now."""
        with connect_raw(self.control) as s:
            answer = b""
            while not answer.endswith(b"\n"):
                chunk = s.recv(4096)
                if not chunk:
                    break
                answer += chunk
        words = answer.decode().split()
        if len(words) < 3 or words[0] != "seen":
            raise CaseFailure(f"the fake daemon answered {answer!r}")
        return int(words[1]), int(words[2]), " ".join(words[3:])


class Case:
    """One case: a fresh runtime folder, what it starts, all gone at the end."""

    def __init__(self, name):
        global case_serial
        case_serial += 1
        self.name = name
        self.marker = f"{name}-{os.getpid()}-{case_serial}"
        self.progs, self.procs, self.cleanups, self.notes, self.transcript = [], [], [], [], []
        self.serial = 0
        self.uses_victim_folder = False
        self.runtime = tempfile.mkdtemp(prefix="athost-", dir="/tmp")
        os.chmod(self.runtime, 0o700)
        self.folder = os.path.join(self.runtime, "audiotoolbox")
        self.socket = os.path.join(self.folder, "audiosessiond.sock")
        self.lock = os.path.join(self.folder, "audiosessiond.lock")
        self.log = os.path.join(self.folder, "audiosessiond.log")
        self.config = os.path.join(self.runtime, "config")
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("AUDIOTOOLBOX_", "AUDIOSESSIOND_", "LISTEN_", "VCARD_", "ALSA_", "PIPEWIRE_",
                                    "XDG_", "DBUS_", "PULSE_"))}
        env.update(XDG_RUNTIME_DIR=self.runtime, XDG_CONFIG_HOME=self.config, AUDIOTOOLBOX_ARBITER="daemon",
                   AUDIOTOOLBOX_BACKEND="virtual", AUDIOTOOLBOX_LOG="error", HOSTILE_CASE=self.marker)
        self.env = env

    # The tool

    def tool(self, *args, rc=0, env=None, user=None, timeout=HANG, binary=False):
        command = [tool_path, *args]
        if user is not None:
            command = as_user(user, command)
        shown = ("(as uid %d) " % user if user is not None else "") + "audiosession " + " ".join(args)
        try:
            run = subprocess.run(command, env=env or self.env, capture_output=True, text=not binary,
                                 timeout=max(0.1, timeout), **({} if binary else {"errors": "replace"}))
        except subprocess.TimeoutExpired:
            stuck = "; ".join(describe_process(p) for p in self.daemon_pids()) or "no daemon of this case runs"
            raise CaseFailure(f"{shown} did not finish within {timeout:.0f} s (daemons: {stuck})")
        out = run.stdout.decode(errors="replace") if binary else run.stdout
        err = run.stderr.decode(errors="replace") if binary else run.stderr
        self.transcript.append(f"$ {shown}  -> {run.returncode}\n{out}{err}")
        if rc is not None and run.returncode != rc:
            raise CaseFailure(f"{shown} exited {run.returncode}, expected {rc}: {clip(out + err)}")
        return run

    def status(self, timeout=HANG):
        run = self.tool("status", "--json", timeout=timeout)
        try:
            return json.loads(run.stdout)
        except ValueError as error:
            raise CaseFailure(f"audiosession status --json printed no JSON ({error}): {clip(run.stdout)}")

    def wait_status(self, predicate, what):
        deadline = time.monotonic() + HANG
        last = "nothing"
        while True:
            try:
                status = self.status(timeout=max(1.0, deadline - time.monotonic()))
                last = json.dumps(status)
                if predicate(status):
                    return status
            except (KeyError, TypeError, IndexError, CaseFailure) as error:
                last = str(error)
            if time.monotonic() >= deadline:
                raise CaseFailure(f"audiosession status never showed {what} within {HANG:.0f} s; last: "
                                  f"{last[:600]}")
            time.sleep(0.05)

    def wait_joined(self, pids, what=None):
        pids = set(pids)
        return self.wait_status(lambda s: pids <= {row["pid"] for row in s["sessions"]},
                                what or f"the sessions of pids {sorted(pids)}")

    # Daemons

    def marked_pids(self):
        """Every process started for this case (its environment carries the marker)."""
        marker = f"HOSTILE_CASE={self.marker}".encode()
        pids = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/environ", "rb") as f:
                        if marker in f.read().split(b"\0"):
                            pids.append(int(entry))
                except OSError:
                    continue
        return pids

    def daemon_pids(self):
        pids = []
        for pid in self.marked_pids():
            try:
                with open(f"/proc/{pid}/comm") as f:
                    if f.read().strip() == "audiosessiond" and is_alive(pid):
                        pids.append(pid)
            except OSError:
                continue
        return pids

    def the_daemon(self):
        """The one daemon of this case (waits until exactly one runs)."""
        deadline = time.monotonic() + HANG
        while True:
            pids = self.daemon_pids()
            if len(pids) == 1:
                return pids[0]
            if time.monotonic() >= deadline:
                raise CaseFailure(f"expected one audiosessiond for this case, found {pids}")
            time.sleep(0.02)

    def start_daemon_via_tool(self, wrapper=()):
        """`audiosession silent off` starts the daemon as a program would (--detach)."""
        command = [*wrapper, tool_path, "silent", "off"]
        try:
            run = subprocess.run(command, env=self.env, capture_output=True, text=True, timeout=HANG)
        except subprocess.TimeoutExpired:
            stuck = "; ".join(describe_process(p) for p in self.daemon_pids()) or "no daemon runs"
            raise CaseFailure(f"audiosession silent off (which starts the daemon) did not finish within "
                              f"{HANG:.0f} s; the daemon: {stuck}")
        self.transcript.append(f"$ {shlex.join(command)} -> {run.returncode}\n{run.stdout}{run.stderr}")
        if run.returncode != 0:
            raise CaseFailure(f"audiosession silent off (which starts the daemon) exited {run.returncode}: "
                              f"{clip(run.stdout + run.stderr)}")
        return self.the_daemon()

    def start_foreground_daemon(self, args=("--idle-seconds", "30"), env=None, wrapper=(), preexec=None,
                                ready=None):
        """The daemon run directly (its messages in a file that goes to OUTDIR/logs);
        waits until it serves: `status --json` says so, or ready(case) is true."""
        self.serial += 1
        log_path = os.path.join(self.runtime, f"daemon-{self.serial}.stderr")
        with open(log_path, "wb") as log:
            proc = subprocess.Popen([*wrapper, daemon_path, *args], env=env or self.env, stdin=subprocess.DEVNULL,
                                    stdout=log, stderr=log, preexec_fn=preexec)
        self.procs.append(proc)
        proc.log_path = log_path
        deadline = time.monotonic() + HANG
        while True:
            if proc.poll() is not None:
                raise CaseFailure(f"audiosessiond exited {proc.returncode} at start: {clip(read_text(log_path))}")
            try:
                if ready is not None:
                    if ready(self):
                        return proc
                    last = "not ready"
                else:
                    status = self.status(timeout=max(1.0, deadline - time.monotonic()))
                    if status.get("daemon"):
                        return proc
                    last = "status says no daemon"
            except CaseFailure as error:
                last = str(error)
            if time.monotonic() >= deadline:
                raise CaseFailure(f"the daemon started directly never served: {last}; {describe_process(proc.pid)}")
            time.sleep(0.05)

    # The victim folder

    def claim_victim_folder(self):
        self.uses_victim_folder = True
        remove_path(VICTIM_FOLDER)

    def victim_env(self):
        env = {k: v for k, v in self.env.items() if k not in ("XDG_RUNTIME_DIR", "XDG_CONFIG_HOME")}
        env["HOME"] = "/nonexistent"
        return env

    def cleanup(self):
        for prog in self.progs:
            try:
                prog.proc.stdin.close()
            except OSError:
                pass
        deadline = time.monotonic() + 5
        for prog in self.progs:
            try:
                prog.proc.wait(timeout=max(0.01, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                kill_and_reap(prog.proc.pid)
                prog.proc.wait()
        for action in reversed(self.cleanups):
            try:
                action()
            except Exception as error:  # cleanup goes on
                self.notes.append(f"cleanup: {type(error).__name__}: {error}")
        for proc in self.procs:
            if proc.poll() is None:
                kill_and_reap(proc.pid)
                proc.wait()
        for pid in self.marked_pids():
            kill_and_reap(pid)
        logs = os.path.join(outdir, "logs")
        os.makedirs(logs, exist_ok=True)
        with open(os.path.join(logs, self.name + ".log"), "w") as f:
            for prog in self.progs:
                f.write(f"== {prog.name} pid {prog.pid} exit {prog.proc.returncode}\n")
                f.write("".join(line + "\n" for line in prog.lines))
                if prog.errors:
                    f.write(f"-- {prog.name} stderr\n" + "".join(line + "\n" for line in prog.errors))
            for entry in self.transcript:
                f.write(entry + "\n")
            for proc in self.procs:
                if getattr(proc, "log_path", None):
                    f.write(f"== daemon {proc.pid} (exit {proc.returncode})\n{read_text(proc.log_path)}\n")
        for folder in (self.folder, VICTIM_FOLDER if self.uses_victim_folder else None):
            if folder and os.path.isfile(os.path.join(folder, "audiosessiond.log")) \
                    and not os.path.islink(os.path.join(folder, "audiosessiond.log")):
                shutil.copy(os.path.join(folder, "audiosessiond.log"), os.path.join(logs, self.name + ".daemon.log"))
        if self.uses_victim_folder:
            remove_path(VICTIM_FOLDER)
        shutil.rmtree(self.runtime, ignore_errors=True)


def read_text(path, limit=None):
    try:
        with open(path, "rb") as f:
            data = f.read() if limit is None else f.read(limit)
        return data.decode(errors="replace")
    except OSError as error:
        return f"({error})"


def file_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def write_wav(path, seconds, rate=48000, channels=2):
    """A tone, 16-bit PCM (sox may be missing)."""
    period = bytearray()
    for i in range(480):  # 100 Hz at 48 kHz: a whole number of cycles
        sample = struct.pack("<h", int(6000 * math.sin(2 * math.pi * i / 480)))
        period += sample * channels
    with wave.open(path, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(bytes(period) * int(seconds * rate / 480))


def check_refused(run, folder, what, quiet_stdout=True):
    """A tool that refused a folder: non-zero status, nothing on stdout (unless not
    asked), an "audiosession:" line on stderr that names the folder."""
    out, err = run.stdout, run.stderr
    if isinstance(out, bytes):
        out, err = out.decode(errors="replace"), err.decode(errors="replace")
    if run.returncode == 0:
        raise CaseFailure(f"{what} exited 0 (expected a refusal of {folder}); stdout {clip(out)} stderr {clip(err)}")
    if out and quiet_stdout:
        raise CaseFailure(f"{what} printed on stdout (expected nothing): {clip(out)}")
    if not any(line.startswith("audiosession:") and folder in line for line in err.splitlines()):
        raise CaseFailure(f"{what} exited {run.returncode} but no stderr line starts with 'audiosession:' and "
                          f"names {folder}: stderr {clip(err)}")


def folder_state(path):
    """What a folder looks like to lstat, and what it holds (for "changed nothing")."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return ("missing",)
    if stat.S_ISLNK(info.st_mode):
        target = os.readlink(path)
        return ("link", target, folder_state(os.path.join(os.path.dirname(path), target)))
    if stat.S_ISDIR(info.st_mode):
        return ("dir", oct(stat.S_IMODE(info.st_mode)), info.st_uid, info.st_gid, tuple(sorted(os.listdir(path))))
    return ("file", oct(info.st_mode), info.st_uid)


def no_daemon_in(c):
    """No daemon serves this case (one that was tried and refused the folder may still
    be on its way out: it is waited for)."""
    deadline = time.monotonic() + HANG
    while pids := c.daemon_pids():
        if time.monotonic() >= deadline:
            raise CaseFailure(f"an audiosessiond runs for this case: {', '.join(describe_process(p) for p in pids)}")
        time.sleep(0.05)


# ---------------------------------------------------------------------------------------
# 1. The runtime folder: refused unless a real directory of the user's, mode 0700.


def fake_in_foreign_folder(c):
    """/tmp/audiotoolbox-65533 made by uid 65534, with a fake daemon's socket in it."""
    c.claim_victim_folder()
    os.mkdir(VICTIM_FOLDER)
    os.chmod(VICTIM_FOLDER, 0o777)
    os.chown(VICTIM_FOLDER, NOBODY, NOBODY)
    return Fake(c, os.path.join(VICTIM_FOLDER, "audiosessiond.sock"), bind_uid=NOBODY)


def fake_behind_symlink(c):
    """/tmp/audiotoolbox-65533 a symlink (made by uid 65534) to its own folder and fake."""
    c.claim_victim_folder()
    attacker = tempfile.mkdtemp(prefix="athost-attacker-", dir="/tmp")
    c.cleanups.append(lambda: shutil.rmtree(attacker, ignore_errors=True))
    os.chmod(attacker, 0o777)
    os.chown(attacker, NOBODY, NOBODY)
    fake = Fake(c, os.path.join(attacker, "audiosessiond.sock"), bind_uid=NOBODY)
    os.symlink(attacker, VICTIM_FOLDER)
    os.lchown(VICTIM_FOLDER, NOBODY, NOBODY)
    return fake


def victim_tool_refused(c, fake, *args):
    run = c.tool(*args, rc=None, env=c.victim_env(), user=VICTIM)
    connections, received, detail = fake.seen()
    if connections:
        raise CaseFailure(f"audiosession {' '.join(args)} run by uid {VICTIM} connected to the socket uid {NOBODY} "
                          f"planted in {VICTIM_FOLDER} ({connections} connection(s), {received} bytes sent to it: "
                          f"{detail}); the tool exited {run.returncode}, stdout {clip(run.stdout, 200)}")
    check_refused(run, VICTIM_FOLDER, f"audiosession {' '.join(args)} (uid {VICTIM}, no XDG_RUNTIME_DIR)")


def case_folder_foreign_owner(c):
    """/tmp/audiotoolbox-65533 belongs to another user, who listens there: the victim's
    `audiosession status` refuses the folder and never connects."""
    victim_tool_refused(c, fake_in_foreign_folder(c), "status")


def case_folder_foreign_symlink(c):
    """/tmp/audiotoolbox-65533 is a symlink to another user's folder with a listening
    socket: refused, never connected."""
    victim_tool_refused(c, fake_behind_symlink(c), "status")


def case_folder_foreign_call(c):
    """`audiosession call start` (which would start a daemon) refuses both planted folders."""
    victim_tool_refused(c, fake_in_foreign_folder(c), "call", "start")
    remove_path(VICTIM_FOLDER)
    victim_tool_refused(c, fake_behind_symlink(c), "call", "start")


def folder_with_mode(c, mode):
    """The user's own folder, open to others: the tool refuses it; a session program
    works alone; nothing is chmod-ed, nothing started."""
    os.mkdir(c.folder)
    os.chmod(c.folder, mode)
    run = c.tool("status", rc=None)
    check_refused(run, c.folder, f"audiosession status (folder mode {mode:04o})", quiet_stdout=False)
    now = stat.S_IMODE(os.lstat(c.folder).st_mode)
    if now != mode:
        raise CaseFailure(f"audiosession status changed the folder's mode from {mode:04o} to {now:04o}")
    prog = Prog(c, "A", strict=False)
    prog.ready()
    prog.command("category medi")
    prog.command("activate")
    errors = prog.finish()
    now = stat.S_IMODE(os.lstat(c.folder).st_mode)
    if now != mode:
        raise CaseFailure(f"the session program changed the folder's mode from {mode:04o} to {now:04o}")
    if "arbitrated alone" not in errors:
        raise CaseFailure(f"the session program's stderr (AUDIOTOOLBOX_LOG=error) does not say 'arbitrated alone': "
                          f"{clip(errors)}")
    no_daemon_in(c)
    left = os.listdir(c.folder)
    if left:
        raise CaseFailure(f"files were made in the refused folder {c.folder}: {sorted(left)}")


def case_folder_mode_0777(c):
    folder_with_mode(c, 0o777)


def case_folder_mode_0750(c):
    folder_with_mode(c, 0o750)


def case_folder_daemon_refuses(c):
    """audiosessiond run directly on a refused folder exits non-zero, names the folder,
    and changes nothing: mode 0777, mode 0750, another user's 0700 folder, a symlink to
    a good folder of the user's."""
    own = os.path.join(c.runtime, "elsewhere")

    def mode(m):
        def make():
            os.mkdir(c.folder)
            os.chmod(c.folder, m)
        return make

    def foreign():
        os.mkdir(c.folder)
        os.chmod(c.folder, 0o700)
        os.chown(c.folder, NOBODY, NOBODY)

    def symlink():
        os.mkdir(own)
        os.chmod(own, 0o700)
        os.symlink(own, c.folder)

    for what, make in (("mode 0777", mode(0o777)), ("mode 0750", mode(0o750)),
                       (f"owned by uid {NOBODY}", foreign), ("a symlink to a 0700 folder", symlink)):
        remove_path(c.folder)
        remove_path(own)
        make()
        before = folder_state(c.folder)
        try:
            run = subprocess.run([daemon_path, "--idle-seconds", "1"], env=c.env, capture_output=True, text=True,
                                 errors="replace", timeout=HANG)
        except subprocess.TimeoutExpired:
            raise CaseFailure(f"audiosessiond on a folder {what} did not exit within {HANG:.0f} s")
        c.transcript.append(f"$ audiosessiond --idle-seconds 1 (folder {what}) -> {run.returncode}\n"
                            f"{run.stdout}{run.stderr}")
        after = folder_state(c.folder)
        problems = []
        if run.returncode == 0:
            problems.append("exited 0")
        if c.folder not in run.stderr:
            problems.append(f"its stderr does not name {c.folder}: {clip(run.stderr, 200)}")
        if after != before:
            problems.append(f"the folder changed: before {before}, after {after}")
        if problems:
            raise CaseFailure(f"audiosessiond on a folder {what}: " + "; ".join(problems))


# ---------------------------------------------------------------------------------------
# 2. Every client checks the daemon's uid (SO_PEERCRED) before it sends anything.


def peer_fake(c):
    """In the user's valid 0700 folder, a socket bound by the user but listened on by
    uid 65534: SO_PEERCRED says 65534."""
    if not os.path.isdir(c.folder):
        os.mkdir(c.folder)
    os.chmod(c.folder, 0o700)
    return Fake(c, c.socket, listen_uid=NOBODY, mode="0600")


def case_peercred_tool(c):
    """`audiosession status` sends nothing to a daemon of another uid, and says so."""
    fake = peer_fake(c)
    run = c.tool("status", rc=None)
    connections, received, detail = fake.seen()
    if received:
        raise CaseFailure(f"audiosession status sent {received} bytes to a daemon whose SO_PEERCRED uid is "
                          f"{NOBODY} ({detail}); it exited {run.returncode}")
    if run.returncode == 0:
        raise CaseFailure(f"audiosession status exited 0 against a daemon of uid {NOBODY}: {clip(run.stdout)}")
    if str(NOBODY) not in run.stderr:
        raise CaseFailure(f"audiosession status exited {run.returncode}; its stderr does not mention uid {NOBODY}: "
                          f"{clip(run.stderr)}")


def case_peercred_session(c):
    """A session program sends nothing to a daemon of another uid, and still works."""
    fake = peer_fake(c)
    prog = Prog(c, "A", strict=False)
    prog.ready()
    prog.command("category medi")
    prog.command("activate")
    time.sleep(OBSERVE)  # a retry in the background would send now
    connections, received, detail = fake.seen()
    if received:
        raise CaseFailure(f"the session program sent {received} bytes to a daemon whose SO_PEERCRED uid is {NOBODY} "
                          f"({connections} connection(s): {detail})")
    prog.command("deactivate")


def case_peercred_reconnect(c):
    """After kill -9 of its daemon, a session reconnecting finds a socket of another uid
    in its place (and the lock held, so no new daemon can serve): it sends nothing."""
    a = Prog(c, "A")
    a.ready()
    a.command("category medi")
    c.wait_joined([a.pid])
    old = c.the_daemon()
    # A is frozen so that the fake is in place before it notices; then the daemon goes.
    os.kill(a.pid, signal.SIGSTOP)
    c.cleanups.append(lambda: os.kill(a.pid, signal.SIGCONT) if is_alive(a.pid) else None)
    kill_and_reap(old)
    lock = os.open(c.lock, os.O_RDWR | os.O_CREAT, 0o600)
    c.cleanups.append(lambda: os.close(lock))
    deadline = time.monotonic() + HANG
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise CaseFailure(f"the lock {c.lock} stayed held after the daemon was killed")
            time.sleep(0.01)
    os.unlink(c.socket)
    fake = peer_fake(c)
    os.kill(a.pid, signal.SIGCONT)
    a.expect(r"^LISTEN died 1$")
    time.sleep(OBSERVE)  # reconnection attempts (back-off from 10 ms) happen now
    connections, received, detail = fake.seen()
    if received:
        raise CaseFailure(f"reconnecting, the session sent {received} bytes to a daemon whose SO_PEERCRED uid is "
                          f"{NOBODY} ({connections} connection(s): {detail})")
    a.send("othr")
    a.expect(r"^othr \S+ \d+$")  # still responsive


# ---------------------------------------------------------------------------------------
# 3. Files in the folder: no following symlinks, explicit modes.


def case_files_no_follow(c):
    """audiosessiond.log and audiosessiond.pid planted as symlinks: the daemon serves
    and neither target changes."""
    os.mkdir(c.folder, 0o700)
    os.chmod(c.folder, 0o700)
    targets = {}
    for name in ("audiosessiond.log", "audiosessiond.pid"):
        target = os.path.join(c.runtime, name + ".target")
        content = f"the target of {name}: must stay as it is\n".encode()
        with open(target, "wb") as f:
            f.write(content)
        os.symlink(target, os.path.join(c.folder, name))
        targets[name] = (target, content)
    c.env["AUDIOSESSIOND_VERBOSE"] = "1"
    a = Prog(c, "A")
    a.ready()
    a.command("category medi")
    a.command("activate")
    c.wait_status(lambda s: any(r["pid"] == a.pid and r["state"] == "active" for r in s["sessions"]),
                  "A active")
    changed = [f"{name} -> {target} now holds {clip(file_bytes(target).decode(errors='replace'), 120)}"
               for name, (target, content) in targets.items() if file_bytes(target) != content]
    if changed:
        raise CaseFailure("the daemon wrote through planted symlinks: " + "; ".join(changed))


class SoundServer:
    """A private PipeWire stack (scripts/pw-stack.sh) in the case's runtime folder, and
    pw-play streams of other programs."""

    def __init__(self, case):
        if not all(shutil.which(t) for t in ("pipewire", "wireplumber", "pipewire-pulse", "pw-play", "pw-dump",
                                             "dbus-daemon", "pactl")):
            raise CaseSkip("no PipeWire on this machine")
        self.case = case
        self.stack = os.path.join(ROOT, "scripts", "pw-stack.sh")
        self.players = []
        case.cleanups.append(self.close)
        started = subprocess.run([self.stack, "start", case.runtime], capture_output=True, text=True, timeout=HANG,
                                 env=case.env)
        if started.returncode != 0:
            raise CaseFailure(f"the private PipeWire did not start: {started.stderr[-300:]}")
        for word in shlex.split(started.stdout.replace("export ", "")):
            key, _, value = word.partition("=")
            case.env[key] = value
        self.tone = os.path.join(case.runtime, "tone.wav")
        write_wav(self.tone, 20)

    def play(self):
        self.players.append(self._player())

    def _player(self):
        return subprocess.Popen(["pw-play", "--media-role", "Music", self.tone], env=self.case.env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def streams(self):
        """{node: (application, channel volumes, mute, soft volumes)} of the pw-play
        streams."""
        run = subprocess.run(["pw-dump"], env=self.case.env, capture_output=True, text=True, timeout=HANG)
        # A NaN or infinite volume is printed as a bare word, which JSON has not.
        text = re.sub(r'(?<=[\s\[,:])-?(nan|inf)\b', lambda m: '"%s"' % m.group(0), run.stdout or "[]")
        try:
            objects = json.loads(text)
        except ValueError:
            return {}
        found = {}
        for o in objects:
            info = o.get("info") or {}
            props = info.get("props") or {}
            if props.get("media.class") == "Stream/Output/Audio" and props.get("application.name") in ("pw-play",
                                                                                                      "pw-cat"):
                params = [p for p in (info.get("params") or {}).get("Props", []) if "channelVolumes" in p]
                if params:
                    volumes = [float(v) if not isinstance(v, str) else float(v) for v in params[0]["channelVolumes"]]
                    soft = [float(v) for v in params[0].get("softVolumes", [])]
                    found[o["id"]] = (props.get("application.name"), volumes, params[0].get("mute", False), soft)
        return found

    def wait_streams(self, count):
        """The players' streams, once `count` of them show (a player that could not
        connect yet, the stack still starting, is started again)."""
        deadline = time.monotonic() + HANG
        restarted = 0
        while True:
            # A stream whose format is not settled yet shows no channel volumes.
            streams = {node: info for node, info in self.streams().items() if info[1]}
            if len(streams) >= count:
                return streams
            for i, player in enumerate(self.players):
                if player.poll() is not None:
                    self.players[i] = self._player()
                    restarted += 1
            if time.monotonic() >= deadline:
                raise CaseFailure(f"{count} pw-play stream(s) never showed in pw-dump (saw {streams}; players started "
                                  f"again {restarted} times)")
            time.sleep(0.05)

    def wait_soft(self, nodes, predicate, what):
        """Until every stream of `nodes` has soft volumes that satisfy `predicate`."""
        deadline = time.monotonic() + HANG
        while True:
            now = self.streams()
            if all(node in now and predicate(now[node][3]) for node in nodes):
                return
            if time.monotonic() >= deadline:
                raise CaseFailure(f"streams {nodes} never showed {what}: "
                                  f"{ {node: now.get(node) for node in nodes} }")
            time.sleep(0.05)

    def close(self):
        for player in self.players:
            if player.poll() is None:
                player.kill()
            player.wait()
        self.players = []
        subprocess.run([self.stack, "stop", self.case.runtime], capture_output=True, timeout=HANG)


def case_journal_umask(c):
    """soundserver.journal is made 0600 even by a daemon started under umask 000."""
    server = SoundServer(c)
    server.play()
    server.wait_streams(1)
    os.mkdir(c.folder, 0o700)
    os.chmod(c.folder, 0o700)
    c.start_foreground_daemon(preexec=lambda: os.umask(0))
    a = Prog(c, "A")
    a.ready()
    a.command("category ambi")
    a.command("duck 1")
    a.command("activate")
    journal = os.path.join(c.folder, "soundserver.journal")
    deadline = time.monotonic() + HANG
    while not os.path.exists(journal):
        if time.monotonic() >= deadline:
            raise CaseFailure(f"no {journal} while a ducking session is active and pw-play plays "
                              f"(streams: {server.streams()})")
        time.sleep(0.02)
    mode = stat.S_IMODE(os.lstat(journal).st_mode)
    if mode != 0o600:
        raise CaseFailure(f"soundserver.journal has mode {mode:o} (daemon under umask 000), expected 600")


# ---------------------------------------------------------------------------------------
# 4. A lock held by someone else is not a silent exit.


def case_lock_held(c):
    """While a process of the user holds the lock and nothing listens, audiosessiond
    exits non-zero and says why."""
    os.mkdir(c.folder, 0o700)
    os.chmod(c.folder, 0o700)
    lock = os.open(c.lock, os.O_RDWR | os.O_CREAT, 0o600)
    c.cleanups.append(lambda: os.close(lock))
    fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        run = subprocess.run([daemon_path, "--idle-seconds", "2"], env=c.env, capture_output=True, text=True,
                             errors="replace", timeout=HANG)
    except subprocess.TimeoutExpired:
        raise CaseFailure(f"audiosessiond did not exit within {HANG:.0f} s while its lock was held")
    c.transcript.append(f"$ audiosessiond --idle-seconds 2 -> {run.returncode}\n{run.stdout}{run.stderr}")
    if run.returncode == 0:
        raise CaseFailure(f"audiosessiond exited 0 while another process held {c.lock} and nothing listened "
                          f"(stderr {clip(run.stderr)})")
    if not re.search(r"lock", run.stderr, re.I):
        raise CaseFailure(f"audiosessiond exited {run.returncode}; its stderr does not mention the lock: "
                          f"{clip(run.stderr)}")


def case_lock_held_no_zombies(c):
    """(review) While another process holds the lock and nothing listens, a program
    keeps trying to reach a daemon, starting one each time: none of them is left as a
    zombie child of the program."""
    os.mkdir(c.folder, 0o700)
    os.chmod(c.folder, 0o700)
    lock = os.open(c.lock, os.O_RDWR | os.O_CREAT, 0o600)
    c.cleanups.append(lambda: os.close(lock))
    fcntl.flock(lock, fcntl.LOCK_EX)
    env = dict(c.env, AUDIOTOOLBOX_ARBITER="daemon", AUDIOTOOLBOX_BACKEND="virtual")
    prog = subprocess.Popen([session_prog], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    c.procs.append(prog)
    ready = prog.stdout.readline()
    if not ready.startswith("ready"):
        raise CaseFailure(f"the program did not initialise: {ready!r}")
    # Several tries go by (each one starts a daemon, which leaves: the lock is held).
    time.sleep(OBSERVE * 2)
    zombies = []
    for task in os.listdir(f"/proc/{prog.pid}/task"):
        with open(f"/proc/{prog.pid}/task/{task}/children") as f:
            for child in f.read().split():
                try:
                    with open(f"/proc/{child}/stat") as stat:
                        if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                            zombies.append(child)
                except FileNotFoundError:
                    pass
    prog.stdin.close()
    prog.wait(timeout=HANG)
    if zombies:
        raise CaseFailure(f"{len(zombies)} zombie child(ren) of the program after {OBSERVE * 2:.0f} s of tries: {zombies}")


# ---------------------------------------------------------------------------------------
# 5. Bounded output.

FLOOD_CAP = 32 * MB  # of statusRequest frames (5 bytes each): far past any bound


def flood(c, daemon_pid):
    """A tool that says hello, then writes status requests and reads nothing, until
    the daemon drops it (a write fails) or has taken FLOOD_CAP bytes of them.
    Returns (socket, bytes written, the error that ended the writing or None)."""
    learn_protocol(c.socket)
    s = connect_raw(c.socket)
    s.sendall(hello("hostile-flood", TOOL))
    s.settimeout(HANG)
    chunk = STATUS_REQUEST * 4096
    written = 0
    try:
        while written < FLOOD_CAP:
            s.sendall(chunk)
            written += len(chunk)
    except (BrokenPipeError, ConnectionResetError) as error:
        return s, written, error
    except socket.timeout:
        raise CaseFailure(f"after {written} bytes of status requests the daemon neither read more nor dropped the "
                          f"client for {HANG:.0f} s ({describe_process(daemon_pid)})")
    return s, written, None


def wait_dropped(s, timeout=HANG):
    """True once the peer closed `s` (EOF or reset seen by poll)."""
    poller = select.poll()
    poller.register(s.fileno(), select.POLLRDHUP | select.POLLHUP | select.POLLERR)
    return bool(poller.poll(int(timeout * 1000)))


def case_flood_unread_tool(c):
    """A tool that floods status requests and never reads is dropped and the daemon's
    memory stays small; then, with 64 sessions whose program names are 4000 bytes
    (large answers), the same flood does not kill the daemon and `audiosession status
    --json` still works."""
    daemon = c.start_foreground_daemon()
    guard = MemoryGuard(c, daemon.pid, "under a flood of status requests")
    s, written, error = flood(c, daemon.pid)
    try:
        guard.check()
        if error is None and not wait_dropped(s):
            raise CaseFailure(f"the daemon took {written} bytes of status requests from a client that reads nothing "
                              f"and had not dropped it {HANG:.0f} s later ({unread_bytes(s)} bytes of answers wait in "
                              f"its socket)")
        # Read to the end: EOF or a reset, never more waiting.
        s.settimeout(HANG)
        try:
            while s.recv(65536):
                pass
        except ConnectionResetError:
            pass
        except socket.timeout:
            raise CaseFailure(f"the flooding client's socket was not closed by the daemon (read waited {HANG:.0f} s)")
    finally:
        s.close()
    guard.check()
    if not is_alive(daemon.pid):
        raise CaseFailure(f"the daemon died (exit {daemon.poll()}): {clip(read_text(daemon.log_path))}")
    peak = proc_status(daemon.pid, "VmHWM")
    if peak is None or peak >= 64 * 1024:
        raise CaseFailure(f"the daemon's peak resident memory (VmHWM) reached {peak} kB under the flood, limit 64 MB")
    c.status()
    first = f"the first flood ({written} bytes written) ended by {type(error).__name__ if error else 'a close'}"

    # The same with answers of some 256 KB (or what fits in a frame).
    sessions = [raw_session(c.socket, f"big{i:02d}-" + "x" * (4000 - 6)) for i in range(64)]
    c.cleanups.append(lambda: [x.close() for x in sessions])
    guard.what = "with 64 sessions named by 4000 bytes, under a flood of status requests"
    s, written, error = flood(c, daemon.pid)
    try:
        # The daemon has read all of it, or dropped the client: then it is asked.
        deadline = time.monotonic() + HANG
        while error is None and unsent_bytes(s) > 0 and not wait_dropped(s, 0) and is_alive(daemon.pid) \
                and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        s.close()
    guard.check()
    if not is_alive(daemon.pid):
        raise CaseFailure(f"with 64 sessions named by 4000 bytes the flood killed the daemon (exit {daemon.poll()}): "
                          f"{clip(read_text(daemon.log_path)[-400:])}")
    try:
        status = c.status()
    except CaseFailure:
        guard.check()
        raise
    guard.check()
    listed, omitted = len(status.get("sessions", [])), status.get("omitted", 0)
    if not isinstance(omitted, int) or listed + omitted != 64:
        raise CaseFailure(f"with 64 sessions named by 4000 bytes, status --json lists {listed} sessions with "
                          f"omitted={omitted!r}")
    c.notes.append(f"{first}; peak resident memory of the daemon: {proc_status(daemon.pid, 'VmHWM')} kB; "
                   f"status listed {listed}, omitted {omitted}")


def case_status_300_sessions(c):
    """300 sessions: status --json lists them all or says how many it left out; the table
    says "more" when it left some out."""
    c.start_foreground_daemon()
    sessions = [raw_session(c.socket, f"many-{i:03d}") for i in range(300)]
    c.cleanups.append(lambda: [s.close() for s in sessions])
    status = c.status()
    listed, omitted = len(status.get("sessions", [])), status.get("omitted", 0)
    if not isinstance(omitted, int) or isinstance(omitted, bool):
        raise CaseFailure(f"status --json has omitted={omitted!r}, not an integer")
    if listed + omitted != 300:
        raise CaseFailure(f"status --json lists {listed} sessions and says omitted={status.get('omitted')!r}: "
                          f"{300 - listed - omitted} of the 300 connected sessions are missing without a word")
    run = c.tool("status")
    if omitted > 0 and not any("more" in line for line in run.stdout.splitlines()):
        raise CaseFailure(f"status --json left {omitted} sessions out, but the table has no line saying 'more': "
                          f"{clip(run.stdout[-300:])}")


# ---------------------------------------------------------------------------------------
# 6. Connections that never say hello.


def hold_connections(path, count):
    """Up to `count` connections that send nothing; stops at a full backlog."""
    held = []
    for _ in range(count):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.setblocking(False)
        deadline = time.monotonic() + HANG
        while True:
            code = s.connect_ex(path)
            if code == 0:
                held.append(s)
                break
            if code != errno.EAGAIN or time.monotonic() >= deadline:  # the backlog is full for now
                s.close()
                return held
            time.sleep(0.005)
    return held


def burn(pid):
    """CPU seconds the process consumes over CPU_WINDOW."""
    before = cpu_seconds(pid)
    time.sleep(CPU_WINDOW)
    return cpu_seconds(pid) - before


def case_idle_1016_connections(c):
    """1,016 connections that never say anything: the daemon does not spin and a new
    session still joins while they are held. The daemon is started by a program whose
    descriptor limit is 1024 (hard 4096)."""
    pid = c.start_daemon_via_tool(wrapper=["prlimit", "--nofile=1024:4096", "--"])
    held = hold_connections(c.socket, 1016)
    c.cleanups.append(lambda: [s.close() for s in held])
    if len(held) < 1016:
        c.notes.append(f"only {len(held)} connections could be made")
    b = Prog(c, "B", strict=False)
    b.ready()
    spent = burn(pid)
    limits = read_text(f"/proc/{pid}/limits")
    nofile = next((line for line in limits.splitlines() if "open files" in line), "?")
    if spent >= 1.0:
        fallback = next((e for e in b.errors if FALLBACK.search(e)), "")
        raise CaseFailure(f"with {len(held)} silent connections held the daemon burnt {spent:.2f} CPU s in "
                          f"{CPU_WINDOW:.0f} s (it has {fd_count(pid)} descriptors; {' '.join(nofile.split())})"
                          + (f"; the new session said '{fallback}'" if fallback else ""))
    c.wait_joined([b.pid], f"the new session B (pid {b.pid}) while {len(held)} silent connections are held")


def expect_closed_by_daemon(s, what):
    """Reads `s` until the daemon closes it; a failure if it is still open after HANG."""
    try:
        s.settimeout(HANG)
        try:
            while s.recv(4096):
                pass
        except ConnectionResetError:
            pass
        except socket.timeout:
            raise CaseFailure(f"{what} was still open after {HANG:.0f} s")
    finally:
        s.close()


def case_silent_connection_closed(c):
    """A connection that never sends anything is closed by the daemon eventually."""
    c.start_foreground_daemon()
    expect_closed_by_daemon(connect_raw(c.socket), "a connection that sent nothing")


def case_unfinished_frame_closed(c):
    """(review) A client that says hello, then sends the first bytes of a frame and
    nothing more, is closed by the daemon eventually (it would hold its buffer forever)."""
    c.start_foreground_daemon()
    s = raw_session(c.socket, "half-a-frame", role=TOOL)
    s.sendall(struct.pack(">I", 200) + b"\x06")  # a 200-byte frame, 1 byte of it
    expect_closed_by_daemon(s, "a connection holding half a frame")


def case_idle_nofile_64(c):
    """The daemon under a hard limit of 64 descriptors, 100 silent connections attempted:
    it does not spin, and once they are closed a session joins."""
    daemon = c.start_foreground_daemon(wrapper=["prlimit", "--nofile=64:64", "--"])
    held = hold_connections(c.socket, 100)
    try:
        spent = burn(daemon.pid)
        if spent >= 1.0:
            raise CaseFailure(f"with {len(held)} silent connections attempted against a limit of 64 descriptors the "
                              f"daemon burnt {spent:.2f} CPU s in {CPU_WINDOW:.0f} s ({fd_count(daemon.pid)} "
                              f"descriptors open)")
    finally:
        for s in held:
            s.close()
    b = Prog(c, "B", strict=False)
    b.ready()
    c.wait_joined([b.pid], f"session B (pid {b.pid}) after the silent connections were closed")


# ---------------------------------------------------------------------------------------
# 7. Never hang a program.


def case_daemon_stopped_init(c):
    """The daemon stopped (SIGSTOP) while a program initialises: AudioSessionInitialize
    returns anyway, and after SIGCONT the program joins the daemon."""
    a = Prog(c, "A")
    a.ready()
    c.wait_joined([a.pid])
    pid = c.the_daemon()
    os.kill(pid, signal.SIGSTOP)
    c.cleanups.append(lambda: os.kill(pid, signal.SIGCONT) if is_alive(pid) else None)
    b = Prog(c, "B", strict=False)
    try:
        b.ready(timeout=STOP_SECONDS, what=f"AudioSessionInitialize did not return within {STOP_SECONDS:.0f} s "
                                           "while the daemon was stopped")
    finally:
        os.kill(pid, signal.SIGCONT)
    c.wait_joined([b.pid], f"B (pid {b.pid}) joined after the daemon was continued (it stays alone?)")


def case_socket_path_too_long(c):
    """A runtime folder whose socket path cannot fit sun_path: initialisation returns and
    the log says "too long"."""
    runtime = os.path.join(c.runtime, "r" * 60, "s" * 60)
    os.makedirs(runtime, mode=0o700)
    c.env["XDG_RUNTIME_DIR"] = runtime
    prog = Prog(c, "A", strict=False)
    prog.ready()
    prog.send("othr")
    prog.expect(r"^othr \S+ \d+$")
    errors = prog.finish()
    if "too long" not in errors:
        raise CaseFailure(f"the socket path has {len(runtime) + len('/audiotoolbox/audiosessiond.sock')} bytes (sun_path "
                          f"holds 107); stderr (AUDIOTOOLBOX_LOG=error) does not say 'too long': {clip(errors)}")


# ---------------------------------------------------------------------------------------
# 8. Configuration files: regular files only, bounded, line by line.


def daemon_config(c):
    folder = os.path.join(c.config, "audiotoolbox")
    os.makedirs(folder, exist_ok=True)
    return os.path.join(folder, "audiosessiond.conf")


def daemon_serves(c):
    c.start_daemon_via_tool()
    run = c.tool("status")
    if "not running" in run.stdout:
        raise CaseFailure(f"audiosession status found no daemon: {clip(run.stdout)}")


def case_config_fifo(c):
    """audiosessiond.conf is a FIFO (nobody writes to it): the daemon starts and serves."""
    os.mkfifo(daemon_config(c))
    daemon_serves(c)


def case_config_dev_zero(c):
    """audiosessiond.conf is a symlink to /dev/zero: the daemon starts and serves."""
    os.symlink("/dev/zero", daemon_config(c))
    daemon_serves(c)


def case_config_long_comment(c):
    """A first line that is a comment of 615 bytes, ending (past byte 511) with
    "others = mute": a comment, so the policy stays duck."""
    line = "#" + "c" * 510 + " " * 90 + "others = mute\n"
    with open(daemon_config(c), "w") as f:
        f.write(line)
    c.env["AUDIOSESSIOND_VERBOSE"] = "1"
    daemon = c.start_foreground_daemon()
    deadline = time.monotonic() + HANG
    while True:
        text = read_text(daemon.log_path)
        said = re.findall(r"config: others = \w+", text)
        if said or time.monotonic() >= deadline:
            break
        time.sleep(0.05)
    if "config: others = mute" in said:
        raise CaseFailure(f"the daemon read the tail of a comment as a setting: its log says {said}")
    if "config: others = duck" not in said:
        raise CaseFailure(f"the daemon's log (AUDIOSESSIOND_VERBOSE=1) has no line 'config: others = duck': "
                          f"{clip(text[-400:])}")


def case_alsa_conf_fifo(c):
    """alsa.conf (of the default backend) is a FIFO: a session program initialises."""
    folder = os.path.join(c.config, "audiotoolbox")
    os.makedirs(folder)
    os.mkfifo(os.path.join(folder, "alsa.conf"))
    del c.env["AUDIOTOOLBOX_BACKEND"]
    c.env["AUDIOTOOLBOX_ARBITER"] = "local"
    prog = Prog(c, "A", strict=False)
    prog.ready(what=f"AudioSessionInitialize did not return within {HANG:.0f} s with alsa.conf a FIFO")
    prog.command("category medi")


# ---------------------------------------------------------------------------------------
# 9. The journal is validated.


def case_journal_planted(c):
    """A planted soundserver.journal: five real streams a "previous daemon" had lowered
    (soft volume 0.5). Four lines naming four of them are not lines the daemon writes
    (the old four-field format asking nan, another application's name, a node that is
    not a number, an extra field), with garbage around them (control characters, a
    node past 32 bits); the fifth line is valid. The valid one is put back (soft volume
    = its own volume again); the other four stay as they were; status works.

    The daemon keeps a line until its stream has told its volumes, and removes the
    journal when no line is left: once the file is gone and the fifth stream is back,
    the daemon has judged every line."""
    server = SoundServer(c)
    for _ in range(5):
        server.play()
    streams = server.wait_streams(5)
    ordered = sorted(streams)
    for node in ordered:
        subprocess.run(["pw-cli", "set-param", str(node), "Props", "{ softVolumes: [ 0.5, 0.5 ] }"], env=c.env,
                       capture_output=True, timeout=HANG)
    server.wait_soft(ordered, lambda soft: soft and all(abs(v - 0.5) < 0.01 for v in soft), "soft volume 0.5")
    bad, control = ordered[:4], ordered[4]
    application = streams[control][0]
    lines = [f"{bad[0]}\t{application}\t0\tnan,nan",
             f"{bad[1]}\tsomeone-else",
             f"0x{bad[2]:x}\t{application}",
             f"{bad[3]}\t{application}\textra",
             "\x1b[2J\x07" * 50,
             f"{2 ** 32 + bad[0]}\t{application}",
             f"{control}\t{application}"]
    os.mkdir(c.folder, 0o700)
    os.chmod(c.folder, 0o700)
    journal = os.path.join(c.folder, "soundserver.journal")
    with open(journal, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.chmod(journal, 0o600)
    c.transcript.append(f"planted {journal}:\n{read_text(journal)}")
    daemon = c.start_foreground_daemon(ready=raw_welcome)
    deadline = time.monotonic() + HANG
    while os.path.exists(journal):
        if time.monotonic() >= deadline:
            raise CaseFailure(f"the daemon never finished with its journal: {journal} is still there after "
                              f"{HANG:.0f} s ({describe_process(daemon.pid)}): {read_text(journal)!r}")
        # A change, for a daemon that looks at its streams when something changes.
        c.tool("silent", "off", rc=None, timeout=max(1.0, deadline - time.monotonic()))
        time.sleep(0.05)
    server.wait_soft([control], lambda soft: soft and all(abs(v - 1.0) < 0.01 for v in soft),
                     "the valid line's stream put back (soft volume 1.0)")
    # The daemon's sets reach different programs' streams in no set order: watch a while.
    observed_until = time.monotonic() + OBSERVE
    while True:
        now = server.streams()
        changed = {node: now[node][3] for node in bad
                   if node in now and not all(abs(v - 0.5) < 0.01 for v in now[node][3])}
        if changed:
            raise CaseFailure(f"lines the daemon does not write were acted on: soft volumes now {changed} "
                              f"(the journal was {lines!r})")
        if time.monotonic() >= observed_until:
            break
        time.sleep(0.1)
    c.tool("status")
    c.status()


# ---------------------------------------------------------------------------------------
# 10. System sounds.


def case_sound_fifo(c):
    """AudioServicesCreateSystemSoundID on a FIFO returns an error, without hanging."""
    fifo = os.path.join(c.runtime, "sound.wav")
    os.mkfifo(fifo)
    try:
        run = subprocess.run([sound_create, fifo], env=c.env, capture_output=True, text=True, timeout=HANG)
    except subprocess.TimeoutExpired:
        raise CaseFailure(f"AudioServicesCreateSystemSoundID on a FIFO did not return within {HANG:.0f} s")
    c.transcript.append(f"$ sound_create {fifo} -> {run.returncode}\n{run.stdout}{run.stderr}")
    match = re.match(r"^create (-?\d+) \d+$", run.stdout.strip())
    if not match:
        raise CaseFailure(f"sound_create printed {clip(run.stdout)} (exit {run.returncode}) {clip(run.stderr)}")
    if int(match.group(1)) == 0:
        raise CaseFailure("AudioServicesCreateSystemSoundID on a FIFO returned noErr")


def finish_flood(c, daemon):
    """A session asks the daemon to finish 100 plays of a 29 s sound (48 kHz stereo) on
    the device a program would name ("default") should it die, and dies."""
    sound = os.path.join(c.runtime, "long.wav")
    write_wav(sound, 29)
    guard = MemoryGuard(c, daemon.pid, "finishing 100 plays of a 29 s sound", limit_kb=2 * 1024 * 1024)
    s = raw_session(c.socket, "hostile-dies-100")
    s.sendall(b"".join(finish_if_dies(i, sound, "default") for i in range(1, 101)))
    s.close()
    try:
        raw_session(c.socket, "after", role=TOOL).close()
    except (OSError, CaseFailure) as error:
        guard.check()
        raise CaseFailure(f"after a session that asked to finish 100 plays of a 29 s sound died, the daemon does "
                          f"not welcome a new client ({error}); the daemon: {describe_process(daemon.pid)}")
    try:
        c.status()
    except CaseFailure:
        guard.check()
        raise
    guard.check()
    if not is_alive(daemon.pid):
        raise CaseFailure(f"the daemon died (exit {daemon.poll()})")
    # The daemon decodes nothing (audiosessiond-finisher does, in a process of its own):
    # its peak stays what a daemon with a few clients needs. It reached 128 MB finishing
    # 24 such plays when it decoded them itself.
    peak = proc_status(daemon.pid, "VmHWM")
    if peak is None or peak >= 32 * 1024:
        raise CaseFailure(f"the daemon's peak resident memory (VmHWM) reached {peak} kB finishing 100 plays of a 29 s "
                          "sound for a session that died, limit 32 MB")


def case_finish_fifo(c):
    """A session asks the daemon to finish a FIFO if it dies, and dies; then one asks for
    100 plays of a 29 s sound, and dies: the daemon still welcomes clients, under 32 MB."""
    daemon = c.start_foreground_daemon()
    fifo = os.path.join(c.runtime, "fifo.wav")
    os.mkfifo(fifo)
    s = raw_session(c.socket, "hostile-dies")
    s.sendall(finish_if_dies(1, fifo, "default"))
    s.close()
    try:
        raw_session(c.socket, "after-fifo", role=TOOL).close()
    except (OSError, CaseFailure) as error:
        raise CaseFailure(f"after a session that asked to finish a FIFO died, the daemon does not welcome a new "
                          f"client ({error}); the daemon: {describe_process(daemon.pid)}")
    finish_flood(c, daemon)


def case_finish_tty(c):
    """(review) A session asks the daemon to finish a terminal (a pty's other end) if it
    dies, and dies: the detached daemon must never open the device (a terminal opened
    by a session leader becomes its controlling terminal, whose hang-up kills it), so
    closing the pty leaves it serving."""
    daemon = c.start_daemon_via_tool()
    master, slave = os.openpty()
    slave_name = os.ttyname(slave)
    os.close(slave)
    s = raw_session(c.socket, "hostile-tty")
    s.sendall(finish_if_dies(1, slave_name, "default"))
    s.close()
    # The daemon had its chance to open it; a status round trip makes sure it handled
    # the death (the finisher is a process of its own: give it its turn too).
    c.status()
    time.sleep(0.5)
    with open(f"/proc/{daemon}/stat") as stat:
        tty = int(stat.read().rsplit(")", 1)[1].split()[4])
    os.close(master)  # the hang-up
    time.sleep(0.5)
    if not os.path.exists(f"/proc/{daemon}"):
        raise CaseFailure(f"closing {slave_name} killed the daemon (its controlling terminal was {tty:#x})")
    if tty != 0:
        raise CaseFailure(f"the daemon took {slave_name} as its controlling terminal (tty_nr {tty:#x})")
    c.status()


def case_finish_flood(c):
    """The 100 plays of a 29 s sound alone (so that the memory bound is checked even
    where the FIFO already stops the daemon)."""
    finish_flood(c, c.start_foreground_daemon())


# ---------------------------------------------------------------------------------------
# 11. The detached daemon.


def case_detached_daemon_hygiene(c):
    """The daemon a program starts (--detach) works in /, with umask 0077, and its soft
    descriptor limit raised to the hard one."""
    cwd = os.path.join(c.runtime, "cwd")
    os.mkdir(cwd)
    a = Prog(c, "A", wrapper=["prlimit", "--nofile=256:4096", "--"], cwd=cwd, preexec=lambda: os.umask(0o022))
    a.ready()
    c.wait_joined([a.pid])
    pid = c.the_daemon()
    problems = []
    where = os.readlink(f"/proc/{pid}/cwd")
    if where != "/":
        problems.append(f"cwd is {where}, expected /")
    umask = proc_status(pid, "Umask")
    if umask != "0077":
        problems.append(f"Umask is {umask}, expected 0077")
    line = next((l for l in read_text(f"/proc/{pid}/limits").splitlines() if l.startswith("Max open files")), "")
    words = line.split()
    if len(words) < 5 or words[3] != words[4]:
        problems.append(f"open files limit soft {words[3] if len(words) > 4 else '?'} != hard "
                        f"{words[4] if len(words) > 4 else '?'} (started by a program with 256:4096)")
    if problems:
        raise CaseFailure(f"the detached daemon (pid {pid}): " + "; ".join(problems))


# ---------------------------------------------------------------------------------------
# 12. Printing to a terminal.

EVIL_NAME = "\x1b[2J\x1b[31mevil\nfake-line\x07"


def check_printable(what, data):
    problems = []
    if b"\x1b" in data:
        problems.append("ESC")
    if b"\x07" in data:
        problems.append("BEL")
    if any(line.startswith(b"fake-line") for line in data.split(b"\n")):
        problems.append("a line starting 'fake-line'")
    if problems:
        raise CaseFailure(f"{what} printed {', '.join(problems)} from a program's name: {data[-300:]!r}")


def case_terminal_escapes(c):
    """A session whose program name holds escape sequences, a newline and a bell: the
    status table and watch lines print none of them."""
    c.start_daemon_via_tool()
    watch = subprocess.Popen([tool_path, "watch"], env=c.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    c.procs.append(watch)
    seen = bytearray()
    cond = threading.Condition()

    def read():
        while True:
            chunk = os.read(watch.stdout.fileno(), 4096)
            if not chunk:
                break
            with cond:
                seen.extend(chunk)
                cond.notify_all()
    threading.Thread(target=read, daemon=True).start()

    def wait_for(needle, what):
        deadline = time.monotonic() + HANG
        with cond:
            while needle not in seen:
                if time.monotonic() >= deadline:
                    raise CaseFailure(f"watch never printed {what}: {bytes(seen[-300:])!r}")
                cond.wait(0.1)

    wait_for(b"watching", "its first line")
    s = raw_session(c.socket, EVIL_NAME)
    c.cleanups.append(s.close)
    wait_for(f"[{os.getpid()}]#".encode(), f"a line about the session of pid {os.getpid()}")
    with cond:
        check_printable("audiosession watch", bytes(seen))
    run = c.tool("status", binary=True)
    if str(os.getpid()).encode() not in run.stdout:
        raise CaseFailure(f"audiosession status does not list the session: {run.stdout[-300:]!r}")
    check_printable("audiosession status", run.stdout)


# ---------------------------------------------------------------------------------------
# 13. The log is rate-limited.


def case_log_rate_limit(c):
    """5,000 connections that each send a malformed frame: the log grows by < 100 KB."""
    pid = c.start_daemon_via_tool()
    before = os.path.getsize(c.log) if os.path.exists(c.log) else 0
    descriptors = fd_count(pid)
    malformed = [b"\x00\x00\x00\x01\xee",                       # an unknown kind
                 b"\x00\x00\x00\x00",                           # an empty frame
                 b"\x7f\xff\xff\xff" + b"x" * 16,               # a frame too large
                 frame(b"\x01\x00")]                            # a truncated hello
    for i in range(5000):
        s = connect_raw(c.socket)
        try:
            s.sendall(malformed[i % len(malformed)])
        except OSError:
            pass
        s.close()
    deadline = time.monotonic() + HANG
    while fd_count(pid) > descriptors:
        if time.monotonic() >= deadline:
            raise CaseFailure(f"the daemon still has {fd_count(pid)} descriptors ({descriptors} before the "
                              f"5,000 malformed connections)")
        time.sleep(0.05)
    c.status()
    grown = (os.path.getsize(c.log) if os.path.exists(c.log) else 0) - before
    if grown >= 100 * 1024:
        raise CaseFailure(f"audiosessiond.log grew by {grown} bytes for 5,000 malformed connections (limit 100 KB); "
                          f"its last line: {clip(read_text(c.log)[-200:], 200)}")


# ---------------------------------------------------------------------------------------
# 14. Close-on-exec.


def vcard_env(c):
    run = subprocess.run([os.path.join(prefix, "bin", "vcard"), "setup", os.path.join(c.runtime, "vcard")],
                         capture_output=True, text=True, timeout=HANG, env=c.env)
    if run.returncode != 0:
        raise CaseFailure(f"vcard setup failed: {clip(run.stderr)}")
    env = dict(c.env)
    for word in shlex.split(run.stdout.replace("export ", "")):
        key, _, value = word.partition("=")
        env[key] = value
    # The card's plugins from PREFIX, whatever prefix vcard was built for.
    conf = env.get("ALSA_CONFIG_PATH")
    if conf and os.path.exists(conf):
        text = read_text(conf)
        plugins = os.path.join(prefix, "lib", "audiotoolbox")
        text = re.sub(r'"[^"]*/lib/audiotoolbox/(libasound_module_\w+\.so)"', lambda m: f'"{plugins}/{m.group(1)}"',
                      text)
        with open(conf, "w") as f:
            f.write(text)
    env.update(AUDIOTOOLBOX_BACKEND="alsa", AUDIOTOOLBOX_ALSA_JACK_CTLS="",
               PATH=os.path.join(prefix, "bin") + ":" + env.get("PATH", "/usr/bin:/bin"))
    return env


def exec_lists_only_std(c, env, what):
    try:
        run = subprocess.run([exec_after_init, fd_list], env=env, capture_output=True, text=True, timeout=HANG)
    except subprocess.TimeoutExpired:
        raise CaseFailure(f"exec_after_init ({what}) did not finish within {HANG:.0f} s")
    c.transcript.append(f"$ exec_after_init fd_list ({what}) -> {run.returncode}\n{run.stdout}{run.stderr}")
    if run.returncode != 0 or not run.stdout:
        raise CaseFailure(f"exec_after_init ({what}) exited {run.returncode}: {clip(run.stderr)}")
    extra = [line for line in run.stdout.splitlines() if line.split()[1] not in ("0", "1", "2")]
    if extra:
        raise CaseFailure(f"after AudioSessionInitialize and SetActive ({what}), an exec'd program inherits: "
                          + "; ".join(extra))


def case_cloexec_alsa_local(c):
    """ALSA backend on the virtual card, arbitrated in-process: an exec'd program
    inherits only 0, 1 and 2."""
    env = vcard_env(c)
    env["AUDIOTOOLBOX_ARBITER"] = "local"
    exec_lists_only_std(c, env, "ALSA backend, local arbiter")


def case_cloexec_alsa_daemon(c):
    """The same with the default (daemon) arbiter."""
    env = vcard_env(c)
    env.pop("AUDIOTOOLBOX_ARBITER", None)
    exec_lists_only_std(c, env, "ALSA backend, default daemon arbiter")


# ---------------------------------------------------------------------------------------
# 15. Many programs at once.


def case_sessions_128_at_once(c):
    """128 programs start at the same moment against one running daemon: every one of
    them joins it (none stays alone for good)."""
    daemon = c.start_daemon_via_tool()
    gate = os.path.join(c.runtime, "gate")
    os.mkfifo(gate)
    # Each waits at the gate (its open of the FIFO returns when the test opens it too),
    # then execs session_prog under the same pid.
    wrapper = ["sh", "-c", 'read line < "$0"; exec "$@"', gate]
    progs = [Prog(c, f"P{i}", wrapper=wrapper, strict=False) for i in range(128)]
    deadline = time.monotonic() + HANG
    while True:  # every one is at the gate: blocked in open(2) of the FIFO
        waiting = sum(1 for p in progs if read_text(f"/proc/{p.pid}/wchan") == "wait_for_partner")
        if waiting == len(progs):
            break
        if time.monotonic() >= deadline:
            raise CaseFailure(f"only {waiting} of 128 programs reached the gate")
        time.sleep(0.02)
    os.close(os.open(gate, os.O_WRONLY))  # opens the gate for all at once
    for prog in progs:
        prog.ready()
    pids = {p.pid for p in progs}
    try:
        c.wait_joined(pids, "all 128 programs")
    except CaseFailure:
        try:
            listed = {row["pid"] for row in c.status()["sessions"]}
        except CaseFailure:
            listed = set()
        missing = [p for p in progs if p.pid not in listed]
        said = next((e for p in missing for e in p.errors if FALLBACK.search(e)), "nothing")
        raise CaseFailure(f"{len(missing)} of 128 programs never joined the daemon within {HANG:.0f} s "
                          f"(e.g. {missing[0].name} pid {missing[0].pid}, which said: {said}); the daemon: "
                          f"{describe_process(daemon)}")
    if c.daemon_pids() != [daemon]:
        raise CaseFailure(f"the daemons are now {c.daemon_pids()}, the one started first was {daemon}")


CASES = [
    ("folder-foreign-owner", case_folder_foreign_owner),
    ("folder-foreign-symlink", case_folder_foreign_symlink),
    ("folder-foreign-call", case_folder_foreign_call),
    ("folder-mode-0777", case_folder_mode_0777),
    ("folder-mode-0750", case_folder_mode_0750),
    ("folder-daemon-refuses", case_folder_daemon_refuses),
    ("peercred-tool", case_peercred_tool),
    ("peercred-session", case_peercred_session),
    ("peercred-reconnect", case_peercred_reconnect),
    ("files-no-follow", case_files_no_follow),
    ("journal-umask", case_journal_umask),
    ("lock-held", case_lock_held),
    ("lock-held-no-zombies", case_lock_held_no_zombies),
    ("flood-unread-tool", case_flood_unread_tool),
    ("status-300-sessions", case_status_300_sessions),
    ("idle-1016-connections", case_idle_1016_connections),
    ("silent-connection-closed", case_silent_connection_closed),
    ("unfinished-frame-closed", case_unfinished_frame_closed),
    ("idle-nofile-64", case_idle_nofile_64),
    ("daemon-stopped-init", case_daemon_stopped_init),
    ("socket-path-too-long", case_socket_path_too_long),
    ("config-fifo", case_config_fifo),
    ("config-dev-zero", case_config_dev_zero),
    ("config-long-comment", case_config_long_comment),
    ("alsa-conf-fifo", case_alsa_conf_fifo),
    ("journal-planted", case_journal_planted),
    ("sound-fifo", case_sound_fifo),
    ("finish-fifo", case_finish_fifo),
    ("finish-flood", case_finish_flood),
    ("finish-tty", case_finish_tty),
    ("detached-daemon-hygiene", case_detached_daemon_hygiene),
    ("terminal-escapes", case_terminal_escapes),
    ("log-rate-limit", case_log_rate_limit),
    ("cloexec-alsa-local", case_cloexec_alsa_local),
    ("cloexec-alsa-daemon", case_cloexec_alsa_daemon),
    ("sessions-128-at-once", case_sessions_128_at_once),
]

# The cases that need root (chown to another user, setuid, setpriv).
AS_OTHER_USERS = {"folder-foreign-owner", "folder-foreign-symlink", "folder-foreign-call", "folder-daemon-refuses",
                  "peercred-tool", "peercred-session", "peercred-reconnect"}


def build():
    """Compiles the programs; returns an error text or None."""
    os.makedirs(outdir, exist_ok=True)
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(prefix, "lib", "pkgconfig"))
    flags = subprocess.run(["pkg-config", f"--define-variable=prefix={prefix}", "--cflags", "--libs", "AudioToolbox"],
                           env=env, capture_output=True, text=True)
    if flags.returncode != 0:
        return f"pkg-config AudioToolbox in {prefix}: {flags.stderr.strip()}"
    library = shlex.split(flags.stdout)
    for source, target, extra in (
            (os.path.join(ROOT, "Tests", "arbiter", "session_prog.c"), session_prog, library),
            (os.path.join(HERE, "sound_create.c"), sound_create, library),
            (os.path.join(HERE, "exec_after_init.c"), exec_after_init, library),
            (os.path.join(HERE, "fd_list.c"), fd_list, [])):
        run = subprocess.run(["cc", "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-o", target, source, *extra,
                              "-lpthread", "-lm"], capture_output=True, text=True)
        if run.returncode != 0:
            return f"{os.path.basename(source)} does not compile:\n{run.stderr}"
    return None


def main():
    global prefix, outdir, session_prog, sound_create, exec_after_init, fd_list, tool_path, daemon_path
    if len(sys.argv) < 3:
        print("usage: run-hostile-tests.py PREFIX OUTDIR [CASE...]", file=sys.stderr)
        return 2
    prefix, outdir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    chosen = sys.argv[3:]
    unknown = [n for n in chosen if not any(name == n or name.startswith(n) for name, _ in CASES)]
    if unknown:
        print(f"unknown case(s): {' '.join(unknown)}; cases: {' '.join(name for name, _ in CASES)}", file=sys.stderr)
        return 2
    session_prog = os.path.join(outdir, "session_prog")
    sound_create = os.path.join(outdir, "sound_create")
    exec_after_init = os.path.join(outdir, "exec_after_init")
    fd_list = os.path.join(outdir, "fd_list")
    tool_path = os.path.join(prefix, "bin", "audiosession")
    daemon_path = os.path.join(prefix, "bin", "audiosessiond")
    # Daemons whose starter exited become our children, so that cleanup can reap them.
    try:
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass
    sys.stdout.reconfigure(line_buffering=True)
    # 1,016 connections and 300 sessions are held by this process.
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > 8192:
        hard = max(soft, 8192) if hard != resource.RLIM_INFINITY else 8192
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    cases = [(name, run) for name, run in CASES if not chosen or any(name == n or name.startswith(n) for n in chosen)]
    passed = failed = 0
    problem = build()
    if problem is None:
        missing = [p for p in (daemon_path, tool_path) if not os.access(p, os.X_OK)]
        if missing:
            problem = "not installed: " + ", ".join(missing)
    if problem:
        for name, _ in cases:
            print(f"FAIL {name}: {problem.splitlines()[0]}")
            failed += 1
        print(problem)
        print(f"hostile: {passed} passed, {failed} failed")
        return 1

    # Cases that act as other users need root and setpriv; without them they are skipped.
    other_users = None
    if os.geteuid() != 0:
        other_users = "needs root to act as uids 65534 and 65533"
    elif shutil.which("setpriv") is None:
        other_users = "needs setpriv to act as uids 65534 and 65533"
    for name, run in cases:
        if other_users and name in AS_OTHER_USERS:
            print(f"SKIP {name}: {other_users}")
            continue
        case = Case(name)
        try:
            run(case)
            print(f"PASS {name}")
            passed += 1
        except CaseSkip as skip:
            print(f"SKIP {name}: {skip}")
        except CaseFailure as failure:
            print(f"FAIL {name}: {failure}")
            failed += 1
        except Exception as error:  # a bug here is a failure too, never a silent pass
            print(f"FAIL {name}: {type(error).__name__}: {error}")
            failed += 1
        finally:
            case.cleanup()
        for note in case.notes:
            print(f"    note: {note}")
    print(f"hostile: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
