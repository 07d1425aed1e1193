// audiosessiond: arbitrates the audio sessions of every program of one user (SPEC 7).
//
//   audiosessiond [--detach] [--idle-seconds N]
//
// Listens on $XDG_RUNTIME_DIR/audiotoolbox/audiosessiond.sock (or the socket systemd
// passes, LISTEN_FDS), one daemon per user (a lock), and exits after N seconds (default
// 30, or AUDIOSESSIOND_IDLE_SECONDS) without connections or system interruptions.
// --detach is how the library starts it: a session of its own, no inherited
// descriptors, messages appended to audiosessiond.log next to the socket.
import ArbiterSocket
import Glibc

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
    // A session of its own: the terminal or process group of the program that started
    // it must not take it down. Every descriptor it inherited is closed.
    _ = setsid()
    var keep: Set<Int32> = [0, 1, 2]
    if let systemdListener { keep.insert(systemdListener) }
    closeInheritedDescriptors(keeping: keep)
}

guard endpoint.prepareDirectory() else {
    fputs("audiosessiond: cannot use \(endpoint.directory) (it must be a folder of this user, mode 0700)\n", stderr)
    exit(1)
}
if detach {
    let null = open("/dev/null", O_RDWR)
    let log = open(endpoint.logPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
    if null >= 0 { dup2(null, 0); dup2(null, 1) }
    if log >= 0 { dup2(log, 2) }
    for fd in [null, log] where fd > 2 { close(fd) }
}

// One daemon per user: the lock is held for the daemon's life; a second one gives up.
let lock = open(endpoint.lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
guard lock >= 0, flock(lock, LOCK_EX | LOCK_NB) == 0 else {
    if systemdListener == nil { exit(0) }  // another daemon serves this user
    fputs("audiosessiond: another daemon holds \(endpoint.lockPath)\n", stderr)
    exit(1)
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
    let previousMask = umask(0o077)
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    umask(previousMask)
    guard bound == 0, listen(listener, 128) == 0 else {
        fputs("audiosessiond: cannot listen on \(endpoint.socketPath): \(String(cString: strerror(errno)))\n", stderr)
        exit(1)
    }
}

let pidFile = "\(getpid())\n"
let pidDescriptor = open(endpoint.pidPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
if pidDescriptor >= 0 {
    _ = pidFile.withCString { write(pidDescriptor, $0, strlen($0)) }
    close(pidDescriptor)
}
Log.info("serving \(systemdListener == nil ? endpoint.socketPath : "the socket systemd passed")")

Server(listener: listener, idleSeconds: idleSeconds, journalPath: endpoint.directory + "/soundserver.journal").run()

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
