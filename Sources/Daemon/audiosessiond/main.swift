// audiosessiond: arbitrates the audio sessions of every program of one user (SPEC 7).
//
//   audiosessiond [--detach] [--idle-seconds N]
//
// Listens on $XDG_RUNTIME_DIR/audiotoolbox/audiosessiond.sock (or the socket systemd
// passes, LISTEN_FDS), one daemon per user (a lock), and exits after N seconds (default
// 30, or AUDIOSESSIOND_IDLE_SECONDS) without connections or system interruptions.
// --detach is how the library starts it: a session of its own, no inherited
// descriptors, messages appended to audiosessiond.log next to the socket.
import ArbiterProtocol
import ArbiterSocket
import Glibc
import POSIXSupport

var detach = false
var idleSeconds = Int(getenv("AUDIOSESSIOND_IDLE_SECONDS").map { String(cString: $0) } ?? "") ?? 30
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--detach": detach = true
    case "--idle-seconds":
        guard let value = arguments.popFirst().flatMap({ Int($0) }), value >= 0 else {
            fputs("audiosessiond: --idle-seconds needs a number of seconds\n", stderr)
            exit(2)
        }
        idleSeconds = value
    case "--help", "-h":
        print("usage: audiosessiond [--detach] [--idle-seconds N]")
        exit(0)
    default:
        fputs("audiosessiond: unknown argument \(argument)\n", stderr)
        exit(2)
    }
}

signal(SIGPIPE, SIG_IGN)
let endpoint = ArbiterEndpoint.forCurrentUser()

/// Descriptors systemd passed (LISTEN_FDS, starting at 3) when it activated the socket.
let systemdListener: Int32? = {
    guard let pid = getenv("LISTEN_PID").map({ String(cString: $0) }), Int32(pid) == getpid(),
          let count = getenv("LISTEN_FDS").map({ String(cString: $0) }).flatMap({ Int($0) }), count >= 1
    else { return nil }
    unsetenv("LISTEN_PID")
    unsetenv("LISTEN_FDS")
    // It must be a listening stream socket, or systemd's unit is wrong.
    var listening: Int32 = 0
    var size = socklen_t(MemoryLayout<Int32>.size)
    guard getsockopt(3, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) == 0, listening != 0 else {
        fputs("audiosessiond: LISTEN_FDS is set but descriptor 3 is not a listening socket\n", stderr)
        exit(1)
    }
    return 3
}()

if detach {
    // The program that started it waits for this first process only, which leaves at
    // once: the daemon is its grandchild, adopted by init, so no zombie is ever left in
    // the program whatever becomes of the daemon.
    let child = fork()
    if child < 0 { exit(1) }
    if child > 0 { _exit(0) }
    // A session of its own: the terminal or process group of the program that started
    // it must not take it down, nor a terminal it happens to open. Every descriptor it
    // inherited is closed.
    _ = setsid()
    signal(SIGHUP, SIG_IGN)
    var keep: Set<Int32> = [0, 1, 2]
    if let systemdListener { keep.insert(systemdListener) }
    closeInheritedDescriptors(keeping: keep)
}
// Nothing of the starting program's context is kept: its folder (a removable disk would
// stay busy), its umask (files made here are the user's alone), its descriptor limit
// (a program started with a low one would cap how many sessions can connect).
_ = chdir("/")
umask(0o077)
DescriptorLimit.raiseToHard()

do throws(EndpointProblem) {
    try endpoint.prepareDirectory()
} catch {
    fputs("audiosessiond: \(error)\n", stderr)
    exit(1)
}
if detach {
    let null = open("/dev/null", O_RDWR | O_CLOEXEC)
    let log = openLog(endpoint.logPath)
    if null >= 0 { dup2(null, 0); dup2(null, 1) }
    if log >= 0 { dup2(log, 2) }
    for fd in [null, log] where fd > 2 { close(fd) }
}

// One daemon per user: the lock is held for the daemon's life.
let lock = (try? SafeFile.openPrivate(endpoint.lockPath, flags: O_RDWR | O_NONBLOCK)) ?? -1
guard lock >= 0 else {
    Log.error("cannot open \(endpoint.lockPath): \(Errno.current)")
    exit(1)
}
if retryingInterrupts({ flock(lock, LOCK_EX | LOCK_NB) }) != 0 {
    leaveToTheLockHolder()
}

let listener: Int32
if let systemdListener {
    listener = systemdListener
    _ = fcntl(listener, F_SETFD, FD_CLOEXEC)
    _ = fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK)
} else {
    listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
    var address = sockaddr_un()
    guard listener >= 0, ArbiterEndpoint.fill(&address, path: endpoint.socketPath) else {
        fputs("audiosessiond: cannot create a socket at \(endpoint.socketPath)\n", stderr)
        exit(1)
    }
    // Holding the lock, any socket file left is a dead daemon's.
    unlink(endpoint.socketPath)
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    guard bound == 0, listen(listener, 128) == 0 else {
        fputs("audiosessiond: cannot listen on \(endpoint.socketPath): \(Errno.current)\n", stderr)
        exit(1)
    }
}

do throws(Errno) {
    try SafeFile.replacePrivate(endpoint.pidPath, with: Array("\(getpid())\n".utf8))
} catch {
    Log.error("cannot write \(endpoint.pidPath): \(error)")
}
Log.info("serving \(systemdListener == nil ? endpoint.socketPath : "the socket systemd passed")")

Server(listener: listener, idleSeconds: idleSeconds, journalPath: endpoint.journalPath).run()

// Leaving: the socket goes first, so a program that connects from now on starts a new
// daemon rather than reaching a closing one.
if systemdListener == nil { unlink(endpoint.socketPath) }
unlink(endpoint.pidPath)
exit(0)

func closeInheritedDescriptors(keeping keep: Set<Int32>) {
    guard let directory = opendir("/proc/self/fd") else { return }
    var open: [Int32] = []
    while let entry = readdir(directory) {
        let name = withUnsafePointer(to: entry.pointee.d_name) {
            $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
        }
        if let fd = Int32(name) { open.append(fd) }
    }
    let own = dirfd(directory)
    closedir(directory)
    for fd in open where !keep.contains(fd) && fd != own { close(fd) }
}

/// The log: appended to, mode 0600, never through a symlink or into anything but a
/// regular file (a FIFO left there would block the daemon's every line). Whatever else
/// is at the path is removed first: the folder is the user's own, checked above.
func openLog(_ path: String) -> Int32 {
    for _ in 0..<2 {
        if let fd = try? SafeFile.openPrivate(path, flags: O_WRONLY | O_APPEND | O_NONBLOCK) {
            var info = stat()
            if fstat(fd, &info) == 0 && info.st_mode & S_IFMT == S_IFREG {
                _ = fcntl(fd, F_SETFL, O_APPEND)
                return fd
            }
            close(fd)
        }
        unlink(path)
    }
    return -1
}

/// Another process holds the lock. Many programs starting at once each start a daemon
/// and all but one land here: when the holder answers as this user's daemon, leaving
/// is right. A holder that is leaving (idle: its socket is gone, its lock not yet) lets
/// go of the lock soon: then this one takes it and returns to serve, or a program that
/// started it while the last one left would find nobody. When nothing answers and the
/// lock stays held, something that is not a working daemon holds it, and saying so (and
/// failing) is what lets the user find it.
func leaveToTheLockHolder() {
    Log.info("another process holds \(endpoint.lockPath): waiting for it to serve or to leave")
    let deadline = Deadline(secondsFromNow: 2)
    var lastProblem = EndpointProblem.noAnswer
    while !deadline.hasPassed {
        if retryingInterrupts({ flock(lock, LOCK_EX | LOCK_NB) }) == 0 {
            Log.info("the last audiosessiond left: serving in its place")
            return
        }
        let hello = ArbiterMessage.hello(version: ArbiterMessage.version, pid: UInt32(getpid()),
                                         program: "audiosessiond", role: .tool)
        do throws(EndpointProblem) {
            let (fd, _, _) = try DaemonLauncher.greet(endpoint, executable: nil, hello: hello, until: deadline)
            close(fd)
            Log.info("another audiosessiond serves this user: leaving")
            exit(0)
        } catch {
            lastProblem = error
            // Nobody there, or a daemon that closed the connection on its way out: the
            // lock may come free; anything else is an answer that is not a daemon's.
            switch error {
            case .unreachable, .noAnswer: usleep(20_000); continue
            default: break
            }
            break
        }
    }
    Log.error("\(endpoint.lockPath) is held by another process, but no audiosessiond of this user answers on "
              + "\(endpoint.socketPath) (\(lastProblem)): not starting")
    exit(1)
}
