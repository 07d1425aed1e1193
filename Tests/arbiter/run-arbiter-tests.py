#!/usr/bin/env python3
"""Cross-process arbitration tests: several ported programs and audiosessiond (SPEC 7).

    run-arbiter-tests.py PREFIX OUTDIR

Builds Tests/arbiter/session_prog.c (a legacy-API program driven through stdin, see its
header) and peer_probe.c against `pkg-config AudioToolbox` from an installed PREFIX,
then runs each case with its own fresh XDG_RUNTIME_DIR (so its own audiosessiond,
started on demand by the library from PREFIX/bin), AUDIOTOOLBOX_ARBITER=daemon and
AUDIOTOOLBOX_BACKEND=virtual. Prints "PASS <case>", "FAIL <case>: <why>" or
"SKIP <case>: <why>", then "arbiter: N passed, N failed"; exits 1 if any failed.
Transcripts of every program, the tool runs and the daemon's log go to OUTDIR/logs.

How the cases decide, without sleeps or timed assertions:
- A program's lines are matched in order (`expect`). Skipping over a BEGIN or END line
  while looking for something else is a failure: interruptions must be exactly the
  expected ones. With the daemon's ordering promise (for one change, a session gets its
  Begin/End before its OtherAudioIsPlaying notice) this turns "no BEGIN" into "the
  LISTEN othr line came and no BEGIN before it".
- Activation is asynchronous to the daemon, so before the next program acts the test
  waits for a sign that the daemon has handled the previous step: a notice in another
  program, or `audiosession status --json` showing the state (polled).
- 30 s without the awaited line is reported as a hang, with the lines seen.
"""
import ctypes
import collections
import json
import os
import pwd
import grp
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HANG = 30.0  # turns a hang into a failure; never a measure of speed
HERE = os.path.dirname(os.path.abspath(__file__))
INTERRUPTION = re.compile(r"^(BEGIN|END)\b")
# Lines that are failures wherever they appear.
BAD_LINE = re.compile(r"^(WRONG-THREAD|init-failed|listen-failed|thread-failed|INTERRUPTION|LISTEN \S+ badsize)")
# The library falls back to arbitrating alone when it cannot use the daemon (logged with
# AUDIOTOOLBOX_LOG=error); every case would then hang, so say it at once.
FALLBACK = re.compile(r"cannot be reached|arbitrated alone|refused the session")

prefix = outdir = session_prog = fork_prog = peer_probe = None
tool_path = daemon_path = None


class CaseFailure(Exception):
    pass


class CaseSkip(Exception):
    pass


def require_pipewire(tools):
    """The case needs the sound server's tools. Missing, it cannot apply here: a skip
    that says so — unless the run requires PipeWire (AUDIOTOOLBOX_TESTS_REQUIRE_PIPEWIRE=1,
    set by make check where the packages are installed), where it is a failure."""
    missing = [t for t in tools if not shutil.which(t)]
    if not missing:
        return
    why = f"no PipeWire on this machine (missing {', '.join(missing)})"
    if os.environ.get("AUDIOTOOLBOX_TESTS_REQUIRE_PIPEWIRE") == "1":
        raise CaseFailure(why + ", but this run requires it")
    raise CaseSkip(why)


def tail(lines, count=25):
    shown = lines[-count:]
    return "\n".join("      | " + line for line in shown) if shown else "      | (nothing)"


class Prog:
    """One session_prog: its output lines in order, read by a thread of their own."""

    def __init__(self, case, name, options=()):
        self.case, self.name = case, name
        self.lines, self.errors = [], []
        self.pos = 0  # index after the last matched line
        self.ended = False  # its standard output reached its end: it exited
        self.cond = threading.Condition(threading.RLock())
        self.category = None
        self.proc = subprocess.Popen(
            [session_prog, *options], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=case.env, text=True, bufsize=1)
        self.pid = self.proc.pid
        self.readers = [threading.Thread(target=self._read, args=(stream, sink), daemon=True)
                        for stream, sink in ((self.proc.stdout, self.lines), (self.proc.stderr, self.errors))]
        for reader in self.readers:
            reader.start()

    def _read(self, stream, sink):
        for line in stream:
            with self.cond:
                sink.append(line.rstrip("\n"))
                self.cond.notify_all()
        with self.cond:
            if sink is self.lines:
                self.ended = True
            self.cond.notify_all()

    def fail(self, why):
        with self.cond:
            seen, errors = list(self.lines), list(self.errors)
        message = f"{self.name} (pid {self.pid}): {why}\n    {self.name} printed:\n{tail(seen)}"
        if errors:
            message += f"\n    {self.name} stderr:\n{tail(errors, 10)}"
        raise CaseFailure(message)

    def expect(self, pattern):
        """The next line matching `pattern` after the last one matched."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + HANG
        with self.cond:  # a reentrant lock: fail() may take it again
            i = self.pos
            while True:
                while i < len(self.lines):
                    line = self.lines[i]
                    if BAD_LINE.match(line):
                        self.fail(f"printed '{line}' while waiting for /{pattern}/")
                    if rx.search(line):
                        self.pos = max(self.pos, i + 1)
                        return line
                    if INTERRUPTION.match(line):
                        self.fail(f"unexpected '{line}' while waiting for /{pattern}/")
                    i += 1
                fallback = next((e for e in self.errors if FALLBACK.search(e)), None)
                if fallback:
                    self.fail(f"the library did not use audiosessiond: '{fallback}'")
                if self.ended:
                    self.fail(f"exited (status {self.proc.wait()}) while waiting for /{pattern}/")
                if time.monotonic() >= deadline:
                    self.fail(f"no line /{pattern}/ within {HANG:.0f} s (hung?)")
                self.cond.wait(max(0.01, deadline - time.monotonic()))

    def send(self, command):
        try:
            self.proc.stdin.write(command + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError):
            self.fail(f"cannot send '{command}': its input is closed")

    def command(self, command, status="0"):
        """Sends a command and checks its answer line `<command> <status>`."""
        self.send(command)
        line = self.expect(rf"^{re.escape(command)} \S+$")
        got = line.rsplit(" ", 1)[1]
        if got != status:
            self.fail(f"'{command}' answered {got}, expected {status}")

    def othr(self, value):
        """Reads OtherAudioIsPlaying with AudioSessionGetProperty."""
        self.send("othr")
        line = self.expect(r"^othr \S+ \d+$")
        if line != f"othr 0 {value}":
            self.fail(f"OtherAudioIsPlaying read '{line}', expected 'othr 0 {value}'")

    def set_category(self, code):
        self.command(f"category {code}")
        self.category = code

    def leftover_interruptions(self):
        """BEGIN/END lines that came after the last matched line (none were expected)."""
        with self.cond:
            return [line for line in self.lines[self.pos:] if INTERRUPTION.match(line)]

    def close_input(self):
        try:
            self.proc.stdin.close()  # end of input is a quit
        except (BrokenPipeError, OSError):
            pass


class Case:
    """One case: a fresh runtime folder, its programs and its daemon, all gone at the end."""

    def __init__(self, name):
        self.name = name
        self.progs = []
        self.notes = []
        self.runtime = tempfile.mkdtemp(prefix="atarb-", dir="/tmp" if os.path.isdir("/tmp") else None)
        os.chmod(self.runtime, 0o700)
        self.folder = os.path.join(self.runtime, "audiotoolbox")
        self.socket = os.path.join(self.folder, "audiosessiond.sock")
        self.pidfile = os.path.join(self.folder, "audiosessiond.pid")
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("AUDIOTOOLBOX_", "AUDIOSESSIOND_", "LISTEN_", "VCARD_"))}
        env.update(XDG_RUNTIME_DIR=self.runtime, AUDIOTOOLBOX_ARBITER="daemon", AUDIOTOOLBOX_BACKEND="virtual",
                   AUDIOTOOLBOX_LOG="error")
        self.env = env
        self.transcript = []

    # Programs

    def start(self, *specs):
        """Starts programs at once, then waits for each one's `ready <pid>`.
        A spec is a name or (name, [options])."""
        progs = []
        for spec in specs:
            name, options = (spec, ()) if isinstance(spec, str) else spec
            prog = Prog(self, name, options)
            self.progs.append(prog)
            progs.append(prog)
        for prog in progs:
            line = prog.expect(r"^ready \d+$")
            if line != f"ready {prog.pid}":
                prog.fail(f"said '{line}', its pid is {prog.pid}")
        return progs

    # The tool and the daemon

    def tool(self, *args, rc=0):
        try:
            run = subprocess.run([tool_path, *args], env=self.env, capture_output=True, text=True, timeout=HANG)
        except subprocess.TimeoutExpired:
            raise CaseFailure(f"audiosession {' '.join(args)} did not finish within {HANG:.0f} s")
        self.transcript.append(f"$ audiosession {' '.join(args)}  -> {run.returncode}\n{run.stdout}{run.stderr}")
        if rc is not None and run.returncode != rc:
            raise CaseFailure(f"audiosession {' '.join(args)} exited {run.returncode}, expected {rc}: "
                              f"{(run.stdout + run.stderr).strip()[-500:]}")
        return run

    def status(self):
        run = self.tool("status", "--json")
        try:
            return json.loads(run.stdout)
        except ValueError as error:
            raise CaseFailure(f"audiosession status --json printed no JSON ({error}): {run.stdout[:300]!r}")

    def wait_status(self, predicate, what):
        """Polls `status --json` until predicate(status) holds (the daemon caught up)."""
        deadline = time.monotonic() + HANG
        while True:
            try:
                status = self.status()  # a daemon being replaced may fail one query
                last = json.dumps(status)
                if predicate(status):
                    return status
            except (KeyError, TypeError, IndexError, CaseFailure) as error:
                last = str(error)  # not there yet
            if time.monotonic() >= deadline:
                raise CaseFailure(f"audiosession status never showed {what}; last:\n      {last}")
            time.sleep(0.05)

    def wait_joined(self, progs):
        """Every program's session is known to the daemon, with the category it set."""
        def joined(status):
            by_pid = sessions_by_pid(status)
            return all(p.pid in by_pid and (p.category is None or by_pid[p.pid]["category"] == p.category)
                       for p in progs)
        return self.wait_status(joined, "every program joined: " + ", ".join(f"{p.name}={p.pid}" for p in progs))

    def daemon_pid(self):
        try:
            with open(self.pidfile) as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            return None

    def daemon_pids(self):
        """This case's daemons: the pid file's, and any audiosessiond whose environment
        names this case's runtime folder (one that had not written its file yet)."""
        pids = set()
        pid = self.daemon_pid()
        if pid and is_daemon(pid):
            pids.add(pid)
        marker = f"XDG_RUNTIME_DIR={self.runtime}".encode()
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/comm") as f:
                    if f.read().strip() != "audiosessiond":
                        continue
                with open(f"/proc/{entry}/environ", "rb") as f:
                    if marker in f.read().split(b"\0"):
                        pids.add(int(entry))
            except OSError:
                continue
        return pids

    def kill_daemons(self):
        for pid in self.daemon_pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            reap(pid)

    def cleanup(self):
        for prog in self.progs:
            prog.close_input()
        deadline = time.monotonic() + 5
        for prog in self.progs:
            try:
                prog.proc.wait(timeout=max(0.01, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                prog.proc.kill()
                prog.proc.wait()
        for prog in self.progs:
            for reader in prog.readers:
                reader.join(timeout=5)  # the last lines, for the transcript
        self.kill_daemons()
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
        daemon_log = os.path.join(self.folder, "audiosessiond.log")
        if os.path.exists(daemon_log):
            shutil.copy(daemon_log, os.path.join(logs, self.name + ".daemon.log"))
        shutil.rmtree(self.runtime, ignore_errors=True)


def is_daemon(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip() == "audiosessiond"
    except OSError:
        return False


def reap(pid):
    """Collects a daemon that became our child (this process is a subreaper)."""
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        # Not ours to wait for: wait until it is gone from /proc (or a zombie elsewhere).
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and is_daemon(pid):
            try:
                with open(f"/proc/{pid}/stat") as f:
                    if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                        return
            except OSError:
                return
            time.sleep(0.01)


def sessions_by_pid(status):
    return {s["pid"]: s for s in status["sessions"]}


def session(status, prog):
    found = sessions_by_pid(status).get(prog.pid)
    if found is None:
        raise CaseFailure(f"status --json does not list {prog.name} (pid {prog.pid}): {json.dumps(status)}")
    return found


def check_session(status, prog, state=None, by=None, **fields):
    """Checks one session's row of `status --json`; `by` lists the interrupters (programs or 0)."""
    row = session(status, prog)
    wanted = dict(fields)
    if state is not None:
        wanted["state"] = state
    if by is not None:
        wanted["interruptedBy"] = sorted(0 if p == 0 else session(status, p)["clientID"] for p in by)
    got = {key: sorted(row[key]) if isinstance(row.get(key), list) else row.get(key) for key in wanted}
    wanted = {key: sorted(value) if isinstance(value, list) else value for key, value in wanted.items()}
    if got != wanted:
        raise CaseFailure(f"status of {prog.name}: {got}, expected {wanted}\n      row: {json.dumps(row)}")


def expect_no_leftovers(case):
    for prog in case.progs:
        extra = prog.leftover_interruptions()
        if extra:
            prog.fail(f"unexpected interruption callbacks at the end: {extra}")


# ---------------------------------------------------------------------------------------
# Cases. Each gets a fresh Case; a CaseFailure or CaseSkip ends it.


def case_a(c):
    """Two MediaPlayback sessions: B's activation interrupts A; B's notifying
    deactivation ends it with ShouldResume."""
    a, b = c.start("A", "B")
    a.set_category("medi")
    b.set_category("medi")
    c.wait_joined([a, b])
    a.command("activate")
    b.expect(r"^LISTEN othr 1$")  # the daemon has A active
    b.command("activate")
    a.expect(r"^BEGIN$")
    a.expect(r"^LISTEN othr 1$")
    a.othr(1)
    b.expect(r"^LISTEN othr 0$")
    status = c.status()
    check_session(status, a, state="interrupted", by=[b])
    check_session(status, b, state="active", by=[], category="medi", program="session_prog")
    b.command("deactivate notify")
    a.expect(r"^END resume$")
    a.expect(r"^LISTEN othr 0$")
    a.othr(0)
    status = c.status()
    check_session(status, a, state="inactive", by=[])
    check_session(status, b, state="inactive", by=[])


def case_a2(c):
    """The VoIP pattern across processes: A reactivates inside its End (ShouldResume)
    and is active again in the daemon's eyes."""
    a, b = c.start(("A", ["--reactivate-on-end"]), "B")
    a.set_category("medi")
    b.set_category("medi")
    c.wait_joined([a, b])
    a.command("activate")
    b.expect(r"^LISTEN othr 1$")
    b.command("activate")
    a.expect(r"^BEGIN$")
    b.expect(r"^LISTEN othr 0$")
    b.command("deactivate notify")
    a.expect(r"^END resume$")
    a.expect(r"^end-activate 0$")
    b.expect(r"^LISTEN othr 1$")  # A plays again
    c.wait_status(lambda s: session(s, a)["state"] == "active", "A active again")


def not_interrupted(c, a_setup, b_setup):
    """A (set up by a_setup) is active when B (b_setup) activates: A must see B's sound
    (LISTEN othr 1) with no BEGIN before it, and stay active."""
    a, b = c.start("A", "B")
    a_setup(a)
    b_setup(b)
    c.wait_joined([a, b])
    a.command("activate")
    b.expect(r"^LISTEN othr 1$")
    b.command("activate")
    a.expect(r"^LISTEN othr 1$")  # expect() fails on a BEGIN before it
    status = c.status()
    check_session(status, a, state="active", by=[])
    check_session(status, b, state="active", by=[])
    return a, b


def case_b1(c):
    """An Ambient session is not interrupted by a MediaPlayback one."""
    not_interrupted(c, lambda a: a.set_category("ambi"), lambda b: b.set_category("medi"))


def case_b2(c):
    """MediaPlayback with MixWithOthers is not interrupted by a MediaPlayback one."""
    def mixing(a):
        a.set_category("medi")
        a.command("mix 1")
    a, _ = not_interrupted(c, mixing, lambda b: b.set_category("medi"))
    check_session(c.status(), a, options=["mixes", "output"])


def case_b3(c):
    """An Ambient session does not interrupt a MediaPlayback one."""
    not_interrupted(c, lambda a: a.set_category("medi"), lambda b: b.set_category("ambi"))


def case_b4(c):
    """A ducking MediaPlayback session (duck turns MixWithOthers on) lowers an Ambient
    one without interrupting it, and restores it when it deactivates."""
    def ducking(b):
        b.set_category("medi")
        b.command("duck 1")
    a, b = not_interrupted(c, lambda a: a.set_category("ambi"), ducking)
    c.wait_status(lambda s: session(s, a)["ducked"] is True, "A ducked")
    b.command("deactivate")
    a.expect(r"^LISTEN othr 0$")
    c.wait_status(lambda s: session(s, a)["ducked"] is False, "A no longer ducked")


def case_c(c):
    """Deactivating without the flag sends no End."""
    a, b = c.start("A", "B")
    a.set_category("medi")
    b.set_category("medi")
    c.wait_joined([a, b])
    a.command("activate")
    b.expect(r"^LISTEN othr 1$")
    b.command("activate")
    a.expect(r"^BEGIN$")
    a.expect(r"^LISTEN othr 1$")
    b.command("deactivate")
    a.expect(r"^LISTEN othr 0$")  # an END before it fails


def chain(c):
    """A interrupted by B, then B by C (A, being inactive, is not interrupted again)."""
    a, b, cc = c.start("A", "B", "C")
    for prog in (a, b, cc):
        prog.set_category("medi")
    c.wait_joined([a, b, cc])
    a.command("activate")
    b.expect(r"^LISTEN othr 1$")
    cc.expect(r"^LISTEN othr 1$")
    b.command("activate")
    a.expect(r"^BEGIN$")
    a.expect(r"^LISTEN othr 1$")
    b.expect(r"^LISTEN othr 0$")
    cc.command("activate")
    b.expect(r"^BEGIN$")
    b.expect(r"^LISTEN othr 1$")
    cc.expect(r"^LISTEN othr 0$")
    status = c.status()
    check_session(status, a, state="interrupted", by=[b])
    check_session(status, b, state="interrupted", by=[cc])
    check_session(status, cc, state="active", by=[])
    return a, b, cc


def case_d(c):
    """Two interrupters in a chain: C's notifying deactivation ends B's interruption only;
    A's ends when B, which interrupted it, deactivates with the flag too (B does so while
    inactive: the flag still releases what B interrupted)."""
    a, b, cc = chain(c)
    cc.command("deactivate notify")
    b.expect(r"^END resume$")
    b.expect(r"^LISTEN othr 0$")
    a.expect(r"^LISTEN othr 0$")  # nobody plays now; an END before it fails
    check_session(c.status(), a, state="interrupted", by=[b])
    b.command("deactivate notify")
    a.expect(r"^END resume$")
    status = c.status()
    for prog in (a, b, cc):
        check_session(status, prog, state="inactive", by=[])


def case_d2(c):
    """The same chain, B leaving first: B interrupted A, so A's End comes with B's
    notifying deactivation even though C (which never interrupted A) still plays;
    C's later deactivation sends A nothing more."""
    a, b, cc = chain(c)
    b.command("deactivate notify")
    a.expect(r"^END resume$")
    check_session(c.status(), b, state="interrupted", by=[cc])
    cc.command("deactivate notify")
    b.expect(r"^END resume$")
    a.expect(r"^LISTEN othr 0$")  # a second END before it fails


def case_e(c):
    """A program that deactivates inside its Begin handler still gets its End."""
    a, b = c.start(("A", ["--deactivate-in-begin"]), "B")
    a.set_category("medi")
    b.set_category("medi")
    c.wait_joined([a, b])
    a.command("activate")
    b.expect(r"^LISTEN othr 1$")
    b.command("activate")
    a.expect(r"^BEGIN$")
    a.expect(r"^begin-deactivate 0$")
    a.expect(r"^LISTEN othr 1$")
    b.command("deactivate notify")
    a.expect(r"^END resume$")


def case_f(c):
    """Killing the interrupter (kill -9) counts as a notifying deactivation."""
    a, b = c.start("A", "B")
    a.set_category("medi")
    b.set_category("medi")
    c.wait_joined([a, b])
    a.command("activate")
    b.expect(r"^LISTEN othr 1$")
    b.command("activate")
    a.expect(r"^BEGIN$")
    a.expect(r"^LISTEN othr 1$")
    b.proc.kill()
    b.proc.wait()
    a.expect(r"^END resume$")
    a.expect(r"^LISTEN othr 0$")
    c.wait_status(lambda s: b.pid not in sessions_by_pid(s), "B gone")


def case_g(c):
    """kill -9 of the daemon: every session hears ServerDied; the library starts a new
    daemon and registers again (A active, B inactive), and arbitration works again."""
    a, b = c.start("A", "B")
    a.set_category("medi")
    b.set_category("medi")
    c.wait_joined([a, b])
    a.command("activate")
    b.expect(r"^LISTEN othr 1$")
    old = c.daemon_pid()
    if not old or not is_daemon(old):
        raise CaseFailure(f"no audiosessiond pid in {c.pidfile} (read {old})")
    os.kill(old, signal.SIGKILL)
    reap(old)
    a.expect(r"^LISTEN died 1$")
    b.expect(r"^LISTEN died 1$")

    def registered_again(s):
        pid = c.daemon_pid()
        rows = sessions_by_pid(s)
        return (pid not in (None, old) and a.pid in rows and b.pid in rows
                and rows[a.pid]["state"] == "active" and rows[a.pid]["category"] == "medi"
                and rows[b.pid]["category"] == "medi")
    c.wait_status(registered_again, "a new daemon with A active and B registered")
    b.command("activate")
    a.expect(r"^BEGIN$")
    status = c.status()
    check_session(status, a, state="interrupted", by=[b])
    check_session(status, b, state="active")


def case_g3(c):
    """A program starts the daemon while the last one is on its way out (idle: its socket
    already gone, its lock not yet let go, as between its unlink and its exit). The
    daemon it starts must not give up on seeing the lock held: once the lock is free a
    daemon serves, and the program is answered within its time."""
    import fcntl
    os.makedirs(c.folder, mode=0o700, exist_ok=True)
    holder = os.open(os.path.join(c.folder, "audiosessiond.lock"), os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(holder, fcntl.LOCK_EX)
    log = os.path.join(c.folder, "audiosessiond.log")
    env = dict(c.env, AUDIOTOOLBOX_LOG="info")
    try:
        tool = subprocess.Popen([tool_path, "call", "start"], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        # The lock is let go only once the daemon the tool started has found it held, so
        # the hand-over is what this case runs, however slowly the daemon starts.
        deadline = time.monotonic() + HANG
        while time.monotonic() < deadline:
            try:
                with open(log, errors="replace") as f:
                    if "waiting for it to serve or to leave" in f.read():
                        break
            except OSError:
                pass
            time.sleep(0.01)
        else:
            raise CaseFailure("the daemon the tool started never said it found the lock held")
    finally:
        os.close(holder)
    try:
        out, err = tool.communicate(timeout=HANG)
    except subprocess.TimeoutExpired:
        tool.kill()
        raise CaseFailure(f"audiosession call start did not finish within {HANG:.0f} s")
    c.transcript.append(f"$ audiosession call start  -> {tool.returncode}\n{out}{err}")
    if tool.returncode != 0:
        raise CaseFailure("a program starting the daemon while the last one left was not answered: "
                          f"{err.strip() or out.strip()}")
    with open(log, errors="replace") as f:
        if "the last audiosessiond left: serving in its place" not in f.read():
            raise CaseFailure("the daemon that found the lock held did not take it over when it came free")
    c.tool("call", "end")


def case_h(c):
    """A call (`audiosession call start|end`): "the phone always wins" (SPEC 7): every
    active session gets Begin, the Ambient one too; every activation fails with 'what'
    meanwhile, mixing or not; the end brings End with ShouldResume to each."""
    p, q, m = c.start("P", "Q", "M")
    p.set_category("medi")
    q.set_category("ambi")
    m.set_category("medi")
    c.wait_joined([p, q, m])
    p.command("activate")
    q.expect(r"^LISTEN othr 1$")
    m.expect(r"^LISTEN othr 1$")
    q.command("activate")
    p.expect(r"^LISTEN othr 1$")

    c.tool("call", "start")
    p.expect(r"^BEGIN$")
    q.expect(r"^BEGIN$")  # Ambient mixes, and is interrupted all the same
    m.expect(r"^LISTEN othr 0$")  # both went quiet
    status = c.status()
    if status.get("systemInterruptions") != ["call"]:
        raise CaseFailure(f"status systemInterruptions {status.get('systemInterruptions')}, expected ['call']")
    check_session(status, p, state="interrupted", by=[0])
    check_session(status, q, state="interrupted", by=[0])
    check_session(status, m, state="inactive", by=[])

    # The call state reaches each program as a notice that has no callback: the status
    # above was asked after it went out, and the daemon's notices to one program stay
    # in order, so by the time M's othr 0 came its call state had come too.
    m.command("activate", "what")
    q.command("activate", "what")  # mixing or not
    p.command("activate", "what")
    status = c.status()
    check_session(status, m, state="inactive")
    check_session(status, p, state="interrupted", by=[0])

    c.tool("call", "end")
    p.expect(r"^END resume$")
    q.expect(r"^END resume$")
    c.wait_status(lambda s: s["systemInterruptions"] == [] and session(s, p)["state"] == "inactive"
                  and session(s, q)["state"] == "inactive", "the call over and P, Q inactive")


def case_h3(c):
    """The VoIP pattern after a call: a program that reactivates inside its End (with
    ShouldResume) must succeed, so the end of the call has to be known to the library
    by the time the End callback runs."""
    p, q = c.start(("P", ["--reactivate-on-end"]), "Q")
    p.set_category("plar")
    q.set_category("ambi")
    c.wait_joined([p, q])
    p.command("activate")
    q.expect(r"^LISTEN othr 1$")
    c.tool("call", "start")
    p.expect(r"^BEGIN$")
    q.expect(r"^LISTEN othr 0$")
    c.tool("call", "end")
    p.expect(r"^END resume$")
    line = p.expect(r"^end-activate \S+$")
    if line != "end-activate 0":
        p.fail(f"reactivating inside the End of a call answered '{line}' (the end of the call "
               "seems to reach the library after the End callback)")
    q.expect(r"^LISTEN othr 1$")
    c.wait_status(lambda s: s["systemInterruptions"] == [] and session(s, p)["state"] == "active",
                  "the call over and P active again")


def case_h4(c):
    """A program that never calls AudioSessionInitialize has the default session, as on
    the phone: its unit's start activates it (SoloAmbient), which interrupts a
    MediaPlayback program; a call stops that unit though nobody listens; a late
    AudioSessionInitialize adopts the session, and the call's End reaches its listener."""
    a, b = c.start("A", ("B", ["--no-session"]))
    a.set_category("medi")
    c.wait_joined([a])
    b.send("othr")
    line = b.expect(r"^othr \S+ \d+$")
    if line != "othr !ini 0":
        b.fail(f"the session API before AudioSessionInitialize answered '{line}', expected 'othr !ini 0'")
    a.command("activate")
    b.command("unit start")
    a.expect(r"^BEGIN$")
    status = c.wait_status(lambda s: b.pid in sessions_by_pid(s) and session(s, b)["state"] == "active",
                           "B's default session active")
    check_session(status, b, category="solo")
    check_session(status, a, state="interrupted", by=[b])
    c.tool("call", "start")
    deadline = time.monotonic() + HANG
    while True:
        b.send("running")
        line = b.expect(r"^running -?\d+ -?\d+$")
        if line == "running 0 -1":
            break
        if time.monotonic() >= deadline:
            b.fail(f"the call did not stop the default session's unit: '{line}'")
        time.sleep(0.05)
    # B runs its run loop: the Begin went, to no listener, when the call began.
    b.command("init")
    b.command("activate", "what")  # the call goes on
    c.tool("call", "end")
    b.expect(r"^END resume$")
    c.wait_status(lambda s: s["systemInterruptions"] == [] and session(s, b)["state"] == "inactive",
                  "the call over and B inactive")


def case_h2(c):
    """An alarm is a system interruption too: it silences a mixing game as well (the
    2010 guide's alarm scenario)."""
    a, b = c.start("A", "B")
    a.set_category("solo")
    b.set_category("ambi")
    c.wait_joined([a, b])
    a.command("activate")
    b.expect(r"^LISTEN othr 1$")
    b.command("activate")
    a.expect(r"^LISTEN othr 1$")
    c.tool("alarm", "start")
    a.expect(r"^BEGIN$")
    b.expect(r"^BEGIN$")
    status = c.status()
    if status.get("systemInterruptions") != ["alarm"]:
        raise CaseFailure(f"status systemInterruptions {status.get('systemInterruptions')}, expected ['alarm']")
    check_session(status, a, state="interrupted", by=[0])
    check_session(status, b, state="interrupted", by=[0])
    c.tool("alarm", "end")
    a.expect(r"^END resume$")
    b.expect(r"^END resume$")
    c.wait_status(lambda s: s["systemInterruptions"] == [], "the alarm over")


def case_i0(c):
    """16 programs starting together with no daemon running end up in one daemon: each
    library starts one on demand, and all but one of those give way."""
    progs = c.start(*[f"P{i}" for i in range(16)])
    status = c.wait_joined(progs)
    if len(status["sessions"]) != len(progs):
        raise CaseFailure(f"one daemon should list {len(progs)} sessions: {json.dumps(status)}")
    # A daemon that lost the race may still be on its way out: wait for it to go.
    deadline = time.monotonic() + HANG
    while len(daemons := c.daemon_pids()) != 1:
        if time.monotonic() >= deadline:
            raise CaseFailure(f"{len(daemons)} audiosessiond processes for one user: {sorted(daemons)}")
        time.sleep(0.05)


def case_i(c):
    """64 MediaPlayback programs, activated one after another: each activation
    interrupts the previous one; the daemon lists 64 sessions, one active."""
    count = 64
    first, = c.start("P0")  # the first starts the daemon; the other 63 start together
    progs = [first] + c.start(*[f"P{i}" for i in range(1, count)])
    for prog in progs:
        prog.send("category medi")
    for prog in progs:
        prog.expect(r"^category medi 0$")
        prog.category = "medi"
    c.wait_joined(progs)
    progs[0].command("activate")
    progs[1].expect(r"^LISTEN othr 1$")
    for previous, prog in zip(progs, progs[1:]):
        prog.command("activate")
        previous.expect(r"^BEGIN$")  # also the sign that the daemon has this activation
    status = c.status()
    mine = [sessions_by_pid(status).get(p.pid) for p in progs]
    if None in mine or len(status["sessions"]) != count:
        raise CaseFailure(f"status lists {len(status['sessions'])} sessions, "
                          f"{mine.count(None)} of ours missing (expected {count})")
    active = [row for row in status["sessions"] if row["state"] == "active"]
    if len(active) != 1 or active[0]["pid"] != progs[-1].pid:
        raise CaseFailure(f"{len(active)} active sessions {[r['pid'] for r in active]}, expected only P{count - 1}")
    for previous, prog in zip(progs, progs[1:]):
        check_session(status, previous, state="interrupted", by=[prog])


def case_j(c):
    """OtherAudioIsPlaying: 0 alone, 1 while another session with output is active (and
    its listener fires on each change), not for a session without output."""
    a, b, r = c.start("A", "B", "R")
    a.set_category("ambi")
    b.set_category("medi")
    r.set_category("reca")
    c.wait_joined([a, b, r])
    a.othr(0)
    # RecordAudio has no output: the others' OtherAudioIsPlaying stays 0.
    r.command("activate")
    c.wait_status(lambda s: session(s, r)["state"] == "active", "R active")
    a.othr(0)  # a wrong notice still on its way would be missed here, never invented
    with a.cond:
        if "LISTEN othr 1" in a.lines:
            a.fail("OtherAudioIsPlaying went to 1 for a session without output")
    b.command("activate")  # interrupts R (neither mixes); A gets B's sound
    r.expect(r"^BEGIN$")
    a.expect(r"^LISTEN othr 1$")
    a.othr(1)
    b.command("deactivate")
    a.expect(r"^LISTEN othr 0$")
    a.othr(0)


def case_k(c):
    """A program of another user is refused at the door (SO_PEERCRED), even when the
    folder and socket permissions would let it in; the daemon goes on serving."""
    if os.geteuid() != 0:
        raise CaseSkip("needs root to run a probe as nobody")
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        raise CaseSkip("no user nobody")
    try:
        group = grp.getgrnam("nogroup").gr_gid
    except KeyError:
        group = nobody.pw_gid
    if shutil.which("setpriv") is None:
        raise CaseSkip("no setpriv")
    a, = c.start("A")
    a.set_category("medi")
    c.wait_joined([a])
    # Control: the probe as this user is accepted (a welcome, kind 64), so it can tell.
    own = subprocess.run([peer_probe, c.socket], capture_output=True, text=True, timeout=HANG)
    c.transcript.append(f"$ peer_probe {c.socket} -> {own.returncode}\n{own.stdout}{own.stderr}")
    if not re.match(r"^data \d+ 64$", own.stdout.strip()):
        raise CaseFailure(f"peer_probe as this user got '{own.stdout.strip()}', expected a welcome ('data <n> 64')")
    # The probe lives in the runtime folder, which nobody can enter after this.
    probe = os.path.join(c.runtime, "peer_probe")
    shutil.copy(peer_probe, probe)
    os.chmod(probe, 0o755)
    os.chmod(c.runtime, 0o711)
    os.chmod(c.folder, 0o711)
    os.chmod(c.socket, 0o666)
    command = ["setpriv", f"--reuid={nobody.pw_uid}", f"--regid={group}", "--clear-groups", probe, c.socket]
    try:
        run = subprocess.run(command, capture_output=True, text=True, timeout=HANG, env=c.env)
    except subprocess.TimeoutExpired:
        raise CaseFailure("peer_probe did not finish")
    answer = run.stdout.strip()
    c.transcript.append(f"$ {shlex.join(command)} -> {run.returncode}\n{run.stdout}{run.stderr}")
    if run.returncode != 0 or not (answer == "closed" or answer.startswith("refused")):
        raise CaseFailure(f"a peer of uid {nobody.pw_uid} got '{answer}' (exit {run.returncode}, "
                          f"stderr {run.stderr.strip()!r}), expected 'closed'")
    if answer != "closed":
        c.notes.append(f"the daemon answered the foreign peer with a failure message: '{answer}'")
    # The user's own programs and tool refuse a folder open to others: close it again.
    os.chmod(c.folder, 0o700)
    check_session(c.status(), a)  # still serving
    log = os.path.join(c.folder, "audiosessiond.log")
    if os.path.exists(log):
        with open(log, errors="replace") as f:
            if str(nobody.pw_uid) not in f.read():
                raise CaseFailure(f"the refusal is not in {log} (no mention of uid {nobody.pw_uid})")
    else:
        c.notes.append("no audiosessiond.log to check the refusal was logged")


def case_l(c):
    """systemd socket activation: the socket is bound by someone else (here, the test, as
    systemd would) and passed as descriptor 3 with LISTEN_FDS/LISTEN_PID."""
    os.makedirs(c.folder, mode=0o700, exist_ok=True)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(c.socket)
    listener.listen(16)
    pid = os.fork()
    if pid == 0:
        try:
            os.dup2(listener.fileno(), 3)
            os.set_inheritable(3, True)  # dup2 onto itself keeps close-on-exec
            env = dict(c.env, LISTEN_FDS="1", LISTEN_PID=str(os.getpid()))
            os.execve(daemon_path, [daemon_path, "--idle-seconds", "5"], env)
        finally:
            os._exit(127)
    listener.close()
    try:
        a, b = c.start("A", "B")
        a.set_category("medi")
        b.set_category("medi")
        c.wait_joined([a, b])
        a.command("activate")
        c.wait_status(lambda s: session(s, a)["state"] == "active", "A active")
        b.command("activate")
        a.expect(r"^BEGIN$")
        status = c.status()
        if not status.get("daemon"):
            raise CaseFailure("the tool found no daemon")
        if c.daemon_pid() != pid:
            raise CaseFailure(f"the pid file says {c.daemon_pid()}, the socket-activated daemon is {pid}")
        b.command("deactivate notify")
        a.expect(r"^END resume$")
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        reap(pid)


def case_m(c):
    """`audiosession watch`: a confirmation line, then one line per event as it happens."""
    watch = subprocess.Popen([tool_path, "watch"], env=c.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True)
    lines = []
    reader = threading.Thread(target=lambda: [lines.append(l.rstrip("\n")) for l in watch.stdout], daemon=True)
    reader.start()

    def wait_line(pattern):
        deadline = time.monotonic() + HANG
        while time.monotonic() < deadline:
            for line in list(lines):
                if re.search(pattern, line):
                    return line
            time.sleep(0.02)
        raise CaseFailure(f"watch never printed /{pattern}/; it printed: {lines[-10:]}")

    try:
        wait_line(r"^watching 0 session\(s\); system: no interruption$")
        a, b = c.start("A", "B")
        a.set_category("medi")
        b.set_category("medi")
        wait_line(rf"\[{a.pid}\]#\d+ joined")
        c.wait_joined([a, b])
        a.command("activate")
        wait_line(rf"\[{a.pid}\]#\d+ activates")
        b.command("activate")
        a.expect(r"^BEGIN$")
        wait_line(rf"\[{a.pid}\]#\d+ interrupted$")
        c.tool("call", "start")
        wait_line(r"^call starts$")
        b.expect(r"^BEGIN$")
        c.tool("call", "end")
        wait_line(r"^call ends$")
        b.expect(r"^END resume$")
    finally:
        watch.kill()
        watch.wait()


def case_n(c):
    """Issue 10, first part: another program's stream on the sound server (a private,
    headless PipeWire in this case's runtime folder) is other audio: A's
    OtherAudioIsPlaying listener hears it start and stop."""
    require_pipewire(("pipewire", "wireplumber", "pipewire-pulse", "pw-play", "dbus-daemon"))
    stack = os.path.join(os.path.dirname(HERE), "..", "scripts", "pw-stack.sh")
    started = subprocess.run([stack, "start", c.runtime], capture_output=True, text=True, timeout=HANG)
    if started.returncode != 0:
        raise CaseFailure(f"the private PipeWire did not start: {started.stderr[-300:]}")
    try:
        for word in shlex.split(started.stdout.replace("export ", "")):
            key, _, value = word.partition("=")
            c.env[key] = value
        tone = os.path.join(c.runtime, "tone.wav")
        import wave, struct, math
        with wave.open(tone, "wb") as w:
            w.setnchannels(2); w.setsampwidth(2); w.setframerate(48000)
            w.writeframes(b"".join(struct.pack("<hh", int(6000 * math.sin(i / 9)), int(6000 * math.sin(i / 9)))
                                   for i in range(48000 * 10)))
        (a,) = c.start("A")
        a.othr(0)
        player = subprocess.Popen(["pw-play", "--media-role", "Music", tone], env=c.env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            a.expect(r"^LISTEN othr 1$")
        finally:
            player.kill()
            player.wait()
        a.expect(r"^LISTEN othr 0$")
        a.othr(0)
    finally:
        subprocess.run([stack, "stop", c.runtime], capture_output=True, timeout=HANG)


TONE_AMPLITUDE = 6000  # of the other programs' tone, in 16-bit samples


def write_tone(path, seconds):
    import wave, math, array
    second = array.array("h")
    for i in range(48000):
        v = int(TONE_AMPLITUDE * math.sin(i / 9))
        second.extend((v, v))
    with wave.open(path, "wb") as w:
        w.setnchannels(2); w.setsampwidth(2); w.setframerate(48000)
        # A second's samples over again (sin(i / 9) does not repeat each second: a jump,
        # once a second, that no level measured here notices).
        w.writeframes(second.tobytes() * seconds)


def tone_rms():
    """The RMS of the tone as written, in full scale: what a stream at volume 1 plays."""
    import math
    samples = [int(TONE_AMPLITUDE * math.sin(i / 9)) / 32768 for i in range(48000)]
    return math.sqrt(sum(x * x for x in samples) / len(samples))


class SoundServer:
    """A private PipeWire stack in a case's runtime folder, and a stream of another
    program (pw-play of a long tone) whose volumes the tests read with pw-dump and whose
    level they hear with pw-record."""

    def __init__(self, case, config=None):
        require_pipewire(("pipewire", "wireplumber", "pipewire-pulse", "pw-play", "pw-record", "pw-dump", "wpctl",
                          "dbus-daemon"))
        self.case = case
        self.stack = os.path.join(os.path.dirname(HERE), "..", "scripts", "pw-stack.sh")
        if config:
            folder = os.path.join(case.runtime, "config", "audiotoolbox")
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, "audiosessiond.conf"), "w") as f:
                f.write(config)
        started = subprocess.run([self.stack, "start", case.runtime], capture_output=True, text=True, timeout=HANG)
        if started.returncode != 0:
            raise CaseFailure(f"the private PipeWire did not start: {started.stderr[-300:]}")
        for word in shlex.split(started.stdout.replace("export ", "")):
            key, _, value = word.partition("=")
            case.env[key] = value
        case.env["XDG_CONFIG_HOME"] = os.path.join(case.runtime, "config")
        self.tone = os.path.join(case.runtime, "tone.wav")
        write_tone(self.tone, 120)
        self.player = None

    def play(self):
        """Starts pw-play and returns its stream. A pw-play that exits before its stream
        shows (the stack still settling as it connected) is started again."""
        self.player = self.start_player()
        deadline = time.monotonic() + HANG
        restarted = 0
        while True:
            stream = self.stream()
            if stream is not None:
                return stream
            if self.player.poll() is not None:
                self.player = self.start_player()
                restarted += 1
            if time.monotonic() >= deadline:
                raise CaseFailure(f"pw-play's stream never showed (pw-play started again {restarted} times)")
            time.sleep(0.05)

    def start_player(self, role="Music"):
        return subprocess.Popen(["pw-play", "--media-role", role, self.tone], env=self.case.env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stream(self):
        """pw-play's stream (see find_stream), or None."""
        return find_stream(self.case, lambda props: props.get("application.name") in ("pw-play", "pw-cat"))

    def wait(self, predicate, what):
        """Polls pw-dump until predicate(stream) holds."""
        deadline = time.monotonic() + HANG
        last = None
        while time.monotonic() < deadline:
            last = self.stream()
            if predicate(last):
                return last
            time.sleep(0.05)
        raise CaseFailure(f"the other program's stream never showed {what}; last: {last}")

    def close(self):
        if self.player:
            self.player.kill()
            self.player.wait()
        subprocess.run([self.stack, "stop", self.case.runtime], capture_output=True, timeout=HANG)


def heard(c):
    """The level the desktop plays at, as a fraction of the tone's: the RMS of what
    reaches the sink (its monitor, after every stream's volumes, mixed), recorded with
    pw-record, over the tone's as written. None while nothing was recorded (the
    recorder not linked yet). The cases that listen have one stream playing."""
    import wave, struct, math
    run = subprocess.run(["pw-dump"], env=c.env, capture_output=True, text=True, timeout=HANG)
    sinks = [o["id"] for o in json.loads(run.stdout or "[]")
             if ((o.get("info") or {}).get("props") or {}).get("media.class") == "Audio/Sink"]
    if not sinks:
        return None
    out = os.path.join(c.runtime, "heard.wav")
    try:
        os.unlink(out)
    except FileNotFoundError:
        pass
    subprocess.run(["timeout", "0.8", "pw-record", "--target", str(sinks[0]), "-P", "{ stream.capture.sink = true }",
                    out], env=c.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=HANG)
    try:
        with wave.open(out) as w:
            frames = w.readframes(w.getnframes())
            width, count = w.getsampwidth(), w.getnframes() * w.getnchannels()
    except (OSError, EOFError, wave.Error):
        return None
    if count < 4800:
        return None
    if width == 2:
        samples = [x / 32768 for x in struct.unpack(f"<{count}h", frames[:count * 2])]
    elif width == 4:
        samples = list(struct.unpack(f"<{count}f", frames[:count * 4]))
    else:
        raise CaseFailure(f"pw-record wrote {width}-byte samples")
    # The last half: the start may predate a change just made.
    tail = samples[len(samples) // 2:]
    return math.sqrt(sum(x * x for x in tail) / len(tail)) / tone_rms()


def wait_heard(c, level, what):
    """Records the sink until it plays at `level` (of the tone's, within 0.03)."""
    deadline = time.monotonic() + HANG
    levels = []
    while time.monotonic() < deadline:
        got = heard(c)
        levels.append(got)
        if got is not None and abs(got - level) < 0.03:
            return got
    shown = ", ".join("nothing" if x is None else f"{x:.3f}" for x in levels[-6:])
    raise CaseFailure(f"the sink never played at {level} ({what}); last levels heard: {shown}")


def near(volumes, value):
    return volumes is not None and len(volumes) > 0 and all(abs(v - value) < 0.01 for v in volumes)


def untouched(s):
    """The user's own volume and mute (channel volumes 1.0, not muted): what the policy
    manager saves is not ours to change."""
    return s is not None and near(s.volumes, 1.0) and not s.mute


def lowered(s, level):
    return untouched(s) and near(s.soft, level) and not s.soft_mute


def muted(s):
    return untouched(s) and s.soft_mute


def case_x(c):
    """Issue 16: a stream that comes through pipewire-pulse (libpulse, SDL, most desktop
    audio) belongs to the program it names, not to pipewire-pulse: the active session's
    own music is neither other audio to it nor lowered; another program's stream is."""
    server = SoundServer(c)
    players = []
    try:
        server.play()  # pw-play: another program, native PipeWire
        (a,) = c.start("A")
        a.set_category("medi")
        a.command("activate")
        c.wait_status(lambda s: any(x["action"] == "lowered" for x in (s["soundServer"] or [])),
                      "pw-play's stream lowered while A plays")
        tone = os.path.join(c.runtime, "tone.wav")
        # A's own music, through the pulse protocol, naming A's process as libpulse does.
        own = subprocess.Popen(["paplay", f"--property=application.process.id={a.pid}", "--property=media.role=Music",
                                tone], env=c.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        players.append(own)
        status = c.wait_status(lambda s: any(x["pid"] == a.pid and x["running"] for x in (s["soundServer"] or [])),
                               "A's own pulse stream, owned by A")
        mine = [x for x in status["soundServer"] if x["pid"] == a.pid]
        if any(x["action"] for x in mine):
            raise CaseFailure(f"A's own stream was {mine[0]['action']} by A's own session: {mine}")
        a.othr(1)  # pw-play's stream is other audio; A's own is not what makes it so
        server.player.kill()
        server.player.wait()
        server.player = None
        a.expect(r"^LISTEN othr 0$")  # only A's own stream is left: no other audio
        a.othr(0)
    finally:
        for player in players:
            player.kill()
            player.wait()
        server.close()


def own_stream(c, prog, what):
    """The properties of the first PipeWire stream that names `prog`'s process (waited for)."""
    found = {}

    def own(props):
        if props.get("application.process.id") in (prog.pid, str(prog.pid)):
            found.update(props)
            return True
        return False
    deadline = time.monotonic() + HANG
    while find_stream(c, own) is None:
        if time.monotonic() > deadline:
            raise CaseFailure(f"no PipeWire stream names {prog.name}'s process ({what})")
        time.sleep(0.05)
    return found

def case_u2(c):
    """Issue 17: where a sound server runs, an I/O unit plays through a PipeWire stream of
    its own, named after the program, with its pid and its category's media role; what
    it renders reaches the sink at its level; a call stops it before Begin (the sink
    falls silent) and the program's start after End brings it back."""
    server = SoundServer(c)
    # Not the virtual device the other cases insist on: it has no speaker. The session
    # takes the machine's card, or (none here) the virtual device with its sound sent to
    # the sound server.
    c.env.pop("AUDIOTOOLBOX_BACKEND", None)
    c.env["AUDIOTOOLBOX_ALSA_JACK_CTLS"] = ""
    try:
        (a,) = c.start("A")
        a.set_category("medi")
        a.command("unit start")
        found = own_stream(c, a, "A's unit")
        wrong = {key: found.get(key) for key, want in (("application.name", "session_prog"), ("media.role", "Music"),
                                                       ("media.category", "Playback")) if found.get(key) != want}
        if wrong:
            raise CaseFailure(f"A's stream has {wrong}; all its properties: {found}")
        wait_heard(c, 1.0, "A's unit")
        c.tool("call", "start")
        a.expect(r"^BEGIN$")
        wait_heard(c, 0.0, "A's unit stopped by the call")
        c.tool("call", "end")
        a.expect(r"^END resume$")
        a.command("unit start")
        wait_heard(c, 1.0, "A's unit started again after End")
    finally:
        server.close()


def case_u3(c):
    """Issue 31: where a sound server runs, a system sound plays through a PipeWire stream
    of the program's own (media.role Notification), as its units do: with no ALSA card
    for the program it is heard at the sink, where it used to complete unheard."""
    server = SoundServer(c)
    c.env.pop("AUDIOTOOLBOX_BACKEND", None)
    c.env["AUDIOTOOLBOX_ALSA_JACK_CTLS"] = ""
    sound = os.path.join(c.runtime, "chime.wav")
    write_tone(sound, 10)
    try:
        (a,) = c.start("A")
        a.set_category("medi")
        a.command(f"sound {sound}")
        found = own_stream(c, a, "A's system sound")
        if found.get("media.role") != "Notification":
            raise CaseFailure(f"A's system-sound stream has media.role {found.get('media.role')!r}; all: {found}")
        wait_heard(c, 1.0, "A's system sound")
        a.expect(r"^sound-done$")
    finally:
        server.close()


def plays_through_pipewire(c, command, what):
    """A program's `command start` (its service playing the tone) is a PipeWire stream of
    the program's own, heard at the sink; a call silences it before Begin, and the same
    command after End plays it again."""
    server = SoundServer(c)
    c.env.pop("AUDIOTOOLBOX_BACKEND", None)
    c.env["AUDIOTOOLBOX_ALSA_JACK_CTLS"] = ""
    try:
        (a,) = c.start("A")
        a.set_category("medi")
        a.command(f"{command} start")
        deadline = time.monotonic() + HANG
        while find_stream(c, lambda props: props.get("application.process.id") in (a.pid, str(a.pid))) is None:
            if time.monotonic() > deadline:
                raise CaseFailure("no PipeWire stream names A's process")
            time.sleep(0.05)
        wait_heard(c, 1.0, f"A's {what}")
        c.tool("call", "start")
        a.expect(r"^BEGIN$")
        wait_heard(c, 0.0, f"A's {what} stopped by the call")
        c.tool("call", "end")
        a.expect(r"^END resume$")
        a.command(f"{command} start")
        wait_heard(c, 1.0, f"A's {what} started again after End")
    finally:
        server.close()


def case_q1(c):
    """Issue 19: where a sound server runs, an output audio queue plays through a PipeWire
    stream of its own (the queue streams through an I/O unit the session feeds); a call
    stops it before Begin (the sink falls silent) and AudioQueueStart after End resumes
    it."""
    plays_through_pipewire(c, "queue", "queue")


def case_g1(c):
    """Issue 34: the same for an AUGraph (an AUConverter node fed by a node input
    callback, into RemoteIO): a stream of the program's, stopped by a call before Begin,
    played again by AUGraphStart after End."""
    plays_through_pipewire(c, "graph", "graph")


def case_g2(c):
    """Issue 34: a MultiChannelMixer graph of two buses, each giving the tone at volume 0.5
    (one SInt16 at 48 kHz, one Float at 24 kHz, resampled), into RemoteIO: the sink hears
    the whole tone only if both buses mix; stopped by a call before Begin, played again by
    AUGraphStart after End."""
    plays_through_pipewire(c, "mixer", "mixer graph")


Stream = collections.namedtuple("Stream", "node volumes mute soft soft_mute")


def find_stream(c, matches):
    """The first playback stream whose properties `matches`, as pw-dump shows it: its
    node, channel volumes and mute (the user's) and soft volumes and mute (what the
    daemon lowers and mutes with); None if there is none."""
    run = subprocess.run(["pw-dump"], env=c.env, capture_output=True, text=True, timeout=HANG)
    try:
        objects = json.loads(run.stdout or "[]")
    except ValueError:
        return None
    for o in objects:
        info = o.get("info") or {}
        props = info.get("props") or {}
        if props.get("media.class") == "Stream/Output/Audio" and matches(props):
            params = [p for p in (info.get("params") or {}).get("Props", []) if "channelVolumes" in p]
            if params:
                p = params[0]
                return Stream(o["id"], p["channelVolumes"], p.get("mute", False), p.get("softVolumes", []),
                              p.get("softMute", False))
    return None


def pulse_stream_of(c, pid):
    """The stream that names process `pid` (see find_stream)."""
    return find_stream(c, lambda props: props.get("application.process.id") == pid)


def wait_pulse_stream(c, pid, predicate, what):
    deadline = time.monotonic() + HANG
    last = seen_last = None
    while time.monotonic() < deadline:
        last = pulse_stream_of(c, pid)
        seen_last = last or seen_last
        if last and predicate(last):
            return last
        time.sleep(0.05)
    last = seen_last
    run = subprocess.run(["pw-dump"], env=c.env, capture_output=True, text=True, timeout=HANG)
    streams = [((o.get("info") or {}).get("props") or {}) for o in json.loads(run.stdout or "[]")]
    seen = [(p.get("application.name"), p.get("application.process.id")) for p in streams
            if p.get("media.class") == "Stream/Output/Audio"]
    raise CaseFailure(f"the stream of pid {pid} never showed {what}; last: {last}; streams (name, pid): {seen}")


def case_y(c):
    """Issue 16 (SPEC 7): an interrupted program falls silent — its own stream at the
    sound server is muted while its session is interrupted (nothing of it reaches the
    sink), and restored exactly when the interruption ends."""
    server = SoundServer(c)
    players = []
    try:
        (a, b) = c.start("A", "B")
        a.set_category("medi")
        b.set_category("medi")
        a.command("activate")
        own = subprocess.Popen(["paplay", f"--property=application.process.id={a.pid}", "--property=media.role=Music",
                                server.tone], env=c.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        players.append(own)
        mine = wait_pulse_stream(c, a.pid, untouched, "A's own stream playing at the user's volume")
        wait_heard(c, 1.0, "A's own stream while A is active")
        b.command("activate")
        a.expect(r"^BEGIN$")
        wait_pulse_stream(c, a.pid, muted, "A's own stream muted while A is interrupted")
        wait_heard(c, 0.0, "A's own stream while A is interrupted")
        b.command("deactivate notify")
        a.expect(r"^END resume$")
        wait_pulse_stream(c, a.pid, lambda s: untouched(s) and not s.soft_mute, "A's own stream restored after its End")
        wait_heard(c, 1.0, "A's own stream after its End")
    finally:
        for player in players:
            player.kill()
            player.wait()
        server.close()


def case_o(c):
    """A ducking session lowers another program's stream while active and restores it
    exactly; the default policy lowers it for a non-mixing session too. Lowered through
    the stream's soft volume: what is heard is lowered, the user's volume is not."""
    server = SoundServer(c)
    try:
        node = server.play().node
        server.wait(untouched, "volume 1.0")
        (a, b) = c.start("A", "B")
        a.set_category("ambi")
        a.command("duck 1")
        a.command("activate")
        server.wait(lambda s: lowered(s, 0.3), "soft volume 0.3 while A ducks, its own volume 1.0")
        wait_heard(c, 0.3, "while A ducks")
        # Someone sets the stream's own volume to what it is (WirePlumber restoring it, a
        # volume key at the top): the node drops soft values on any such set. The daemon
        # must lower it again.
        subprocess.run(["pw-cli", "set-param", str(node), "Props", "{ channelVolumes: [ 1.0, 1.0 ] }"], env=c.env,
                       capture_output=True, timeout=HANG)
        wait_heard(c, 0.3, "lowered again after a same-value set of its own volume")
        # `audiosession status` shows the server's stream and what was done to it.
        c.wait_status(lambda s: any(x["action"] == "lowered" and x["running"] for x in (s["soundServer"] or [])),
                      "the other program's stream, lowered")
        a.command("deactivate")
        server.wait(lambda s: lowered(s, 1.0), "soft volume 1.0 again")
        wait_heard(c, 1.0, "after A deactivated")
        b.set_category("medi")
        b.command("activate")
        server.wait(lambda s: lowered(s, 0.3), "soft volume 0.3 while B (not mixing) plays: the default 'duck'")
        b.command("deactivate")
        server.wait(lambda s: lowered(s, 1.0), "soft volume 1.0 again")
    finally:
        server.close()


def start_ducker(c):
    """Program A with an active Ambient session that ducks others."""
    (a,) = c.start("A")
    a.set_category("ambi")
    a.command("duck 1")
    a.command("activate")
    return a


def case_o2(c):
    """A stream the user muted stays muted while a session ducks it, and after."""
    server = SoundServer(c)
    try:
        node = server.play().node
        subprocess.run(["wpctl", "set-mute", str(node), "1"], env=c.env, capture_output=True, timeout=HANG)
        server.wait(lambda s: s is not None and s.mute, "muted by the user")
        wait_heard(c, 0.0, "muted by the user")
        a = start_ducker(c)
        server.wait(lambda s: s is not None and s.mute and near(s.soft, 0.3) and s.soft_mute,
                    "lowered, and still muted (soft mute) as the user left it")
        a.command("deactivate")
        c.wait_status(lambda s: session(s, a)["state"] == "inactive", "A inactive")
        server.wait(lambda s: s is not None and s.mute and s.soft_mute and near(s.soft, 1.0),
                    "restored: still the user's mute")
        wait_heard(c, 0.0, "still muted after A")
    finally:
        server.close()


def case_p(c):
    """With `others = mute`, a non-mixing session mutes the other program and unmutes it
    (its soft mute: the user's mute stays off)."""
    server = SoundServer(c, config="others = mute\n")
    try:
        node = server.play().node
        (a,) = c.start("A")
        a.set_category("medi")
        a.command("activate")
        server.wait(muted, "muted (the user's volume and mute kept)")
        wait_heard(c, 0.0, "muted while A plays")
        a.command("deactivate")
        server.wait(lambda s: untouched(s) and not s.soft_mute, "unmuted")
        wait_heard(c, 1.0, "after A deactivated")
    finally:
        server.close()


def case_q(c):
    """A change the user makes while a session ducks is kept, not overwritten or restored."""
    server = SoundServer(c)
    try:
        node = server.play().node
        a = start_ducker(c)
        server.wait(lambda s: lowered(s, 0.3), "soft volume 0.3 while A ducks")
        subprocess.run(["wpctl", "set-volume", str(node), "0.8"], env=c.env, capture_output=True, timeout=HANG)
        server.wait(lambda s: near(s.volumes, 0.8 ** 3), "the user's volume")
        wait_heard(c, 0.8 ** 3, "at the user's volume, A still ducking")
        a.command("deactivate")
        # A marker that the daemon handled the deactivation: the status shows A inactive.
        c.wait_status(lambda s: session(s, a)["state"] == "inactive", "A inactive")
        stream = server.stream()
        if not stream or not near(stream.volumes, 0.8 ** 3):
            raise CaseFailure(f"the user's volume was not kept: {stream}")
        wait_heard(c, 0.8 ** 3, "at the user's volume after A deactivated")
        # The daemon saw the user's change as theirs (not merely restored it by chance).
        status = c.status()
        actions = [x["action"] for x in (status["soundServer"] or []) if x["node"] == node]
        if actions != ["left to the user"]:
            raise CaseFailure(f"the daemon did not take the user's change as theirs: status says {actions}")
    finally:
        server.close()


def case_r(c):
    """A daemon killed while it had lowered a stream: the next daemon puts it back."""
    server = SoundServer(c)
    try:
        node = server.play().node
        a = start_ducker(c)
        server.wait(lambda s: lowered(s, 0.3), "soft volume 0.3 while A ducks")
        # The program is frozen first, so that it cannot reconnect (and duck again) nor
        # leave (which would restore): only the journal can.
        os.kill(a.proc.pid, signal.SIGSTOP)
        c.kill_daemons()
        a.proc.kill()
        a.proc.wait()
        stream = server.stream()
        if not lowered(stream, 0.3):
            raise CaseFailure(f"the stream should still be lowered after the kills: {stream}")
        c.tool("silent", "off")  # starts a new daemon, which finds the journal
        server.wait(lambda s: lowered(s, 1.0), "soft volume 1.0 restored by the new daemon")
        wait_heard(c, 1.0, "restored by the new daemon")
    finally:
        server.close()


def saved_state(c):
    """WirePlumber's saved stream state (restore-stream): {key: value}."""
    path = os.path.join(c.runtime, "state", "wireplumber", "restore-stream")
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return {}
    return dict(line.split("=", 1) for line in lines if "=" in line)


MUSIC_VOLUMES = "Output/Audio:media.role:Music:channelVolumes"
GAME_VOLUMES = "Output/Audio:media.role:Game:channelVolumes"


def check_music_saved_untouched(c, when):
    saved = saved_state(c).get(MUSIC_VOLUMES)
    if saved is not None and any(abs(float(v) - 1.0) > 0.01 for v in saved.strip(";").split(";")):
        raise CaseFailure(f"WirePlumber saved the Music role's volumes as {saved} ({when}): the daemon's lowering "
                          f"became the user's saved volume")


def set_game_volume(c, server):
    """The user sets a Game stream to 0.5 on the desktop's scale (0.125 linear): a
    saved value of our own to watch WirePlumber with. Returns once it is saved to its
    file (WirePlumber writes its whole state then)."""
    game = server.start_player(role="Game")
    try:
        stream = wait_role_stream(c, "Game", lambda s: s is not None, "a Game stream")
        subprocess.run(["wpctl", "set-volume", str(stream.node), "0.5"], env=c.env, capture_output=True, timeout=HANG)
        deadline = time.monotonic() + HANG
        while not saved_state(c).get(GAME_VOLUMES, "").startswith("0.125"):
            if time.monotonic() >= deadline:
                raise CaseFailure(f"WirePlumber never saved the Game stream's 0.125: {saved_state(c)}")
            time.sleep(0.05)
    finally:
        game.kill()
        game.wait()
    wait_role_stream(c, "Game", lambda s: s is None, "the Game stream gone")


def wait_role_stream(c, role, predicate, what):
    deadline = time.monotonic() + HANG
    while True:
        stream = find_stream(c, lambda props: props.get("media.role") == role
                             and props.get("application.name") in ("pw-play", "pw-cat"))
        if predicate(stream):
            return stream
        if time.monotonic() >= deadline:
            raise CaseFailure(f"never {what}; last: {stream}")
        time.sleep(0.05)


def next_music_player(c, server):
    """A music player started after the session: its stream, once WirePlumber has given
    it what it saved for the role. A Game player started after it is the marker: once
    the Game stream shows the 0.125 saved for Game, the Music one (older) has been given
    its saved state too."""
    music = server.start_player(role="Music")
    stream = wait_role_stream(c, "Music", lambda s: s is not None, "the new Music stream")
    game = server.start_player(role="Game")
    try:
        wait_role_stream(c, "Game", lambda s: s is not None and near(s.volumes, 0.125),
                         "the Game marker stream at its saved 0.125")
    finally:
        game.kill()
        game.wait()
    return music, wait_role_stream(c, "Music", lambda s: s is not None and s.node == stream.node, "the Music stream")


def case_z1(c):
    """Issue 16: the desktop's saved volumes stay as the user left them. A music player
    lowered by a ducking session exits while lowered; the next music player, started
    after the session, plays at the user's volume. (WirePlumber saves a volume set on
    a stream for its role and gives it to the next stream of that role.)"""
    server = SoundServer(c)
    second = None
    try:
        set_game_volume(c, server)
        first = server.play()
        a = start_ducker(c)
        # Judged by what is heard, whatever the means of lowering.
        wait_heard(c, 0.3, "the first player, while A ducks")
        server.player.kill()  # exits while lowered
        server.player.wait()
        server.player = None
        server.wait(lambda s: s is None, "the first player's stream gone")
        a.command("deactivate")
        c.wait_status(lambda s: session(s, a)["state"] == "inactive", "A inactive")
        second, stream = next_music_player(c, server)
        if not untouched(stream):
            raise CaseFailure(f"a music player started after the session got volumes {stream.volumes} "
                              f"(mute {stream.mute}) from WirePlumber: the daemon's lowering was saved as the user's")
        wait_heard(c, 1.0, "the second player, started after the session")
        check_music_saved_untouched(c, "after the session")
    finally:
        if second:
            second.kill()
            second.wait()
        server.close()


def restart_wireplumber(c):
    """Stops the stack's WirePlumber and starts another with the stack's own folders
    (scripts/pw-stack.sh), once the new one has named the default sink."""
    stack = os.path.join(os.path.dirname(HERE), "..", "scripts", "pw-stack.sh")
    run = subprocess.run([stack, "restart-wireplumber", c.runtime], capture_output=True, text=True, timeout=HANG)
    if run.returncode != 0:
        raise CaseFailure(f"WirePlumber could not be restarted: {run.stderr[-300:]}")


def case_z2(c):
    """Issue 16: while a music player is lowered, WirePlumber writes its state out, the
    daemon is killed, WirePlumber restarts and the player exits: nothing of the
    lowering is in WirePlumber's saved state, and the next music player (after a new
    daemon started) gets the user's volume."""
    server = SoundServer(c)
    second = None
    try:
        server.play()
        a = start_ducker(c)
        wait_heard(c, 0.3, "the player, while A ducks")  # whatever the means of lowering
        set_game_volume(c, server)  # WirePlumber writes its whole state while Music is lowered
        check_music_saved_untouched(c, "written out while a music player was lowered")
        os.kill(a.proc.pid, signal.SIGSTOP)
        c.kill_daemons()
        a.proc.kill()
        a.proc.wait()
        restart_wireplumber(c)
        server.player.kill()  # exits while lowered, with no daemon to put it back
        server.player.wait()
        server.player = None
        server.wait(lambda s: s is None, "the first player's stream gone")
        c.tool("silent", "off")  # a new daemon, which reads the journal
        second, stream = next_music_player(c, server)
        if not untouched(stream):
            raise CaseFailure(f"a music player started after the restarts got volumes {stream.volumes} "
                              f"(mute {stream.mute}) from WirePlumber: the daemon's lowering was saved as the user's")
        check_music_saved_untouched(c, "after the restarts")
    finally:
        if second:
            second.kill()
            second.wait()
        server.close()


def start_with_slider_moved(c):
    """A session program, then the desktop's slider moved to 0.3: its volume listener
    hears 1.00, then 0.30."""
    (a,) = c.start("A")
    a.expect(r"^LISTEN vol 1\.00$")
    subprocess.run(["wpctl", "set-volume", "@DEFAULT_AUDIO_SINK@", "0.3"], env=c.env, capture_output=True,
                   timeout=HANG)
    a.expect(r"^LISTEN vol 0\.30$")
    return a


def case_s(c):
    """On a PipeWire system CurrentHardwareOutputVolume is the default sink's volume as the
    desktop shows it, and the listener hears the desktop's slider (wpctl)."""
    server = SoundServer(c)
    try:
        a = start_with_slider_moved(c)
        a.send("vol")
        line = a.expect(r"^vol \S+ \S+$")
        if line != "vol 0 0.30":
            a.fail(f"CurrentHardwareOutputVolume read '{line}', expected 'vol 0 0.30'")
    finally:
        server.close()


def case_s2(c):
    """Issue 16: WirePlumber restarts (its "default" metadata goes and comes back): the
    desktop's slider still reaches the volume listener afterwards."""
    server = SoundServer(c)
    try:
        a = start_with_slider_moved(c)
        restart_wireplumber(c)
        # The new WirePlumber may restore the sink's saved volume first: whatever it
        # says, the next change of the slider must reach the listener.
        with a.cond:
            since = len(a.lines)
        deadline = time.monotonic() + HANG
        while time.monotonic() < deadline:
            subprocess.run(["wpctl", "set-volume", "@DEFAULT_AUDIO_SINK@", "0.6"], env=c.env, capture_output=True,
                           timeout=HANG)
            a.send("vol")
            line = a.expect(r"^vol \S+ \S+$")
            if line == "vol 0 0.60":
                break
            time.sleep(0.1)
        else:
            a.fail("after WirePlumber restarted, the slider's 0.6 never reached CurrentHardwareOutputVolume")
        # Its listener heard it too (before or after the read's answer).
        deadline = time.monotonic() + HANG
        while True:
            with a.cond:
                reached = "LISTEN vol 0.60" in a.lines[since:]
            if reached:
                break
            if time.monotonic() >= deadline:
                a.fail("the volume listener never heard 0.60 after WirePlumber restarted")
            time.sleep(0.05)
    finally:
        server.close()


def case_t(c):
    """A sound server that starts after the daemon is found (and one that stops is
    noticed): another program's stream counts once the server is up, and no more once it
    is gone."""
    (a,) = c.start("A")
    c.wait_joined([a])
    if c.status().get("soundServer") is not None:
        raise CaseFailure("a sound server is reported before one runs")
    server = SoundServer(c)
    try:
        server.play()
        a.expect(r"^LISTEN othr 1$")
        subprocess.run([server.stack, "stop", c.runtime], capture_output=True, timeout=HANG)
        a.expect(r"^LISTEN othr 0$")
    finally:
        server.close()


def case_u(c):
    """A program whose run loop is busy (its main thread inside a long command, the way
    a ported app's UI works) still sees what other programs do: while its run loop
    does not wait on the daemon's doorbell, the library's own thread reads for it."""
    a, b = c.start("A", "B")
    a.set_category("ambi")
    b.set_category("medi")
    c.wait_joined([a, b])
    a.othr(0)
    a.send("busy 20000")
    a.expect(r"^busy started$")
    b.command("activate")
    line = a.expect(r"^busy othr \d -> \d$")
    if line != "busy othr 0 -> 1":
        a.fail(f"while its run loop was busy the session read '{line}', expected 'busy othr 0 -> 1'")
    # Back in its run loop, the listener call waiting for it is delivered.
    a.expect(r"^LISTEN othr 1$")
    b.command("deactivate")
    a.expect(r"^LISTEN othr 0$")


def open_descriptors(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None


def case_v(c):
    """The doorbell a session hands the daemon: a Unix packet socket is accepted and
    rung; anything else (a stream socket, a pipe, an eventfd, no descriptor, two) ends
    only that connection, leaks no descriptor in the daemon, and the daemon serves on."""
    a, = c.start("A")
    a.set_category("medi")
    c.wait_joined([a])
    daemon = c.daemon_pid()
    before = open_descriptors(daemon)

    def probe(kind):
        run = subprocess.run([peer_probe, c.socket, "doorbell", kind], capture_output=True, text=True,
                             timeout=HANG)
        c.transcript.append(f"$ peer_probe {c.socket} doorbell {kind} -> {run.returncode}\n{run.stdout}{run.stderr}")
        return run.stdout.strip()

    if probe("seqpacket") != "rang":
        raise CaseFailure("a session's packet-socket doorbell was not rung after the daemon answered it")
    for kind in ("stream", "pipe", "eventfd", "none", "two"):
        answer = probe(kind)
        if answer != "closed":
            raise CaseFailure(f"a doorbell of kind '{kind}' got '{answer}', expected the connection closed")
    if probe("seqpacket") != "rang":
        raise CaseFailure("after the refused doorbells a good one was not rung")
    # Every probe has gone; its descriptors (and any it passed) with it.
    deadline = time.monotonic() + HANG
    while open_descriptors(daemon) != before and time.monotonic() < deadline:
        time.sleep(0.05)
    if open_descriptors(daemon) != before:
        raise CaseFailure(f"the daemon holds {open_descriptors(daemon)} descriptors after the probes, {before} before")
    # The daemon still arbitrates: a second program interrupts the first.
    a.command("activate")
    b, = c.start("B")
    b.set_category("medi")
    b.command("activate")
    a.expect(r"^BEGIN$")



def case_w(c):
    """A program with a session forks; each child makes a session of its own and
    interrupts the parent: the parent hears every Begin and End, and its connection
    is never disturbed (no ServerDied). The child's run loop waits on the epoll set it
    inherited from the parent, so the child must not add its doorbell there."""
    try:
        run = subprocess.run([fork_prog], capture_output=True, text=True, timeout=HANG, env=c.env)
    except subprocess.TimeoutExpired:
        raise CaseFailure("fork_prog did not finish")
    c.transcript.append(f"$ fork_prog -> {run.returncode}\n{run.stdout}{run.stderr}")
    if run.returncode != 0 or run.stdout.strip() != "begins 5 ends 5 died 0":
        raise CaseFailure(f"fork_prog printed '{run.stdout.strip()}' (exit {run.returncode}), "
                          "expected 'begins 5 ends 5 died 0'")


CASES = [
    ("a-interrupt-and-resume", case_a),
    ("a2-reactivate-on-end", case_a2),
    ("b1-ambient-not-interrupted", case_b1),
    ("b2-mixwithothers-not-interrupted", case_b2),
    ("b3-ambient-does-not-interrupt", case_b3),
    ("b4-ducking", case_b4),
    ("c-no-flag-no-end", case_c),
    ("d-two-interrupters", case_d),
    ("d2-interrupted-interrupter-releases", case_d2),
    ("e-deactivate-in-begin", case_e),
    ("f-interrupter-killed", case_f),
    ("g-daemon-killed", case_g),
    ("g3-daemon-started-while-the-last-leaves", case_g3),
    ("h-call", case_h),
    ("h2-alarm", case_h2),
    ("h3-reactivate-after-call", case_h3),
    ("h4-default-session", case_h4),
    ("i0-concurrent-start", case_i0),
    ("i-64-sessions", case_i),
    ("j-other-audio-playing", case_j),
    ("k-peer-refused", case_k),
    ("l-socket-activation", case_l),
    ("m-watch", case_m),
    ("n-sound-server-streams", case_n),
    ("o-sound-server-ducking", case_o),
    ("o2-user-muted-stream-stays-muted", case_o2),
    ("p-sound-server-mute", case_p),
    ("q-sound-server-user-change-kept", case_q),
    ("r-sound-server-restored-after-kill", case_r),
    ("s-sound-server-volume", case_s),
    ("t-sound-server-comes-and-goes", case_t),
    ("u-busy-run-loop-still-informed", case_u),
    ("v-doorbell-checked", case_v),
    ("w-forked-child-sessions", case_w),
    ("x-pulse-stream-owned-by-its-program", case_x),
    ("u2-unit-plays-through-pipewire", case_u2),
    ("u3-system-sound-plays-through-pipewire", case_u3),
    ("q1-queue-plays-through-pipewire", case_q1),
    ("g1-graph-plays-through-pipewire", case_g1),
    ("g2-mixer-graph-plays-through-pipewire", case_g2),
    ("y-interrupted-program-muted", case_y),
    ("s2-volume-after-wireplumber-restart", case_s2),
    ("z1-saved-volume-player-exits-lowered", case_z1),
    ("z2-saved-volume-daemon-killed-wireplumber-restarted", case_z2),
]


def build():
    """Compiles the two programs; returns an error text or None."""
    os.makedirs(outdir, exist_ok=True)
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(prefix, "lib", "pkgconfig"))
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "AudioToolbox"], env=env, capture_output=True,
                           text=True)
    if flags.returncode != 0:
        return f"pkg-config AudioToolbox in {prefix}: {flags.stderr.strip()}"
    for source, target, extra in ((os.path.join(HERE, "session_prog.c"), session_prog, shlex.split(flags.stdout)),
                                  (os.path.join(HERE, "fork_prog.c"), fork_prog, shlex.split(flags.stdout)),
                                  (os.path.join(HERE, "peer_probe.c"), peer_probe, [])):
        run = subprocess.run(["cc", "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-o", target, source, *extra,
                              "-lpthread", "-lm"], capture_output=True, text=True)
        if run.returncode != 0:
            return f"{os.path.basename(source)} does not compile:\n{run.stderr}"
    return None


def show_daemon_log(name, lines=20):
    """The end of a failed case's daemon log, so that a run whose files are gone (CI's)
    still says what the daemon did."""
    try:
        with open(os.path.join(outdir, "logs", name + ".daemon.log"), errors="replace") as f:
            tail = f.read().splitlines()[-lines:]
    except OSError:
        return
    for line in tail:
        print(f"    daemon: {line}")


def main():
    global prefix, outdir, session_prog, fork_prog, peer_probe, tool_path, daemon_path
    if len(sys.argv) != 3:
        print("usage: run-arbiter-tests.py PREFIX OUTDIR", file=sys.stderr)
        return 2
    prefix, outdir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    session_prog = os.path.join(outdir, "session_prog")
    peer_probe = os.path.join(outdir, "peer_probe")
    fork_prog = os.path.join(outdir, "fork_prog")
    tool_path = os.path.join(prefix, "bin", "audiosession")
    daemon_path = os.path.join(prefix, "bin", "audiosessiond")
    # Daemons whose starter exited become our children, so that cleanup can reap them.
    try:
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass
    sys.stdout.reconfigure(line_buffering=True)

    passed = failed = 0
    problem = build()
    if problem is None:
        missing = [p for p in (daemon_path, tool_path) if not os.access(p, os.X_OK)]
        if missing:
            problem = "not installed: " + ", ".join(missing)
    if problem:
        for name, _ in CASES:
            print(f"FAIL {name}: {problem.splitlines()[0]}")
            failed += 1
        print(problem)
        print(f"arbiter: {passed} passed, {failed} failed")
        return 1

    # ARBITER_CASES="a g u": only the cases whose names start with one of these.
    chosen = os.environ.get("ARBITER_CASES", "").split()
    for name, run in CASES:
        if chosen and not any(name.startswith(p + "-") for p in chosen):
            continue
        case = Case(name)
        failed_before = failed
        try:
            run(case)
            expect_no_leftovers(case)
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
        if failed_before != failed:
            show_daemon_log(name)
        for note in case.notes:
            print(f"    note: {note}")
    print(f"arbiter: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
