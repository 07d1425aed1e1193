import Glibc
import POSIXSupport

/// Why the user's daemon cannot be used.
public enum EndpointProblem: Error, Equatable, Sendable, CustomStringConvertible {
    /// The runtime folder is not the user's alone (PrivateFolder): refused for good.
    case folder(String, FolderProblem)
    /// The socket's path does not fit a Unix socket address (108 bytes): for good.
    case pathTooLong(String)
    /// Nobody listens on the socket (or it cannot be reached): worth trying later.
    case unreachable(Errno)
    /// The socket is served by another user's process: refused, nothing was sent to it.
    case foreignDaemon(uid: uid_t, pid: pid_t)
    /// The daemon did not answer within the time given.
    case noAnswer
    /// The daemon answered with a refusal or something that is not the protocol.
    case refused(String)
    case cannotStart(String)

    /// A problem that waiting cannot cure: the program arbitrates alone for its life.
    public var isPermanent: Bool {
        switch self {
        case .folder, .pathTooLong: return true
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .folder(let path, let problem): return "refusing the runtime folder \(path): \(problem)"
        case .pathTooLong(let path):
            return "the socket path \(path) is too long for a Unix socket (at most \(ArbiterEndpoint.maximumPathBytes) bytes)"
        case .unreachable(let error): return "nothing answers on the socket: \(error)"
        case .foreignDaemon(let uid, let pid):
            return "the socket is served by uid \(uid) (pid \(pid)), not by this user (uid \(getuid())): refused"
        case .noAnswer: return "audiosessiond did not answer in time"
        case .refused(let reason): return "audiosessiond refused: \(reason)"
        case .cannotStart(let executable): return "cannot start \(executable)"
        }
    }
}

/// Where the user's `audiosessiond` lives: `$XDG_RUNTIME_DIR/audiotoolbox/` (or
/// `/tmp/audiotoolbox-UID/` without one), a folder only the user may enter, holding the
/// socket, the daemon's pid file, its lock, its log and its journal.
public struct ArbiterEndpoint: Sendable {
    public let directory: String
    public var socketPath: String { directory + "/audiosessiond.sock" }
    public var pidPath: String { directory + "/audiosessiond.pid" }
    public var lockPath: String { directory + "/audiosessiond.lock" }
    public var logPath: String { directory + "/audiosessiond.log" }
    public var journalPath: String { directory + "/soundserver.journal" }

    public init(directory: String) { self.directory = directory }

    /// The endpoint of the user running this process (the daemon and the tool read
    /// XDG_RUNTIME_DIR here; the library passes what its configuration read).
    public static func forCurrentUser() -> ArbiterEndpoint {
        forUser(runtimeDirectory: getenv("XDG_RUNTIME_DIR").map { String(cString: $0) })
    }

    /// The endpoint in `runtimeDirectory` (XDG_RUNTIME_DIR), else in /tmp by uid.
    public static func forUser(runtimeDirectory: String?) -> ArbiterEndpoint {
        if let runtimeDirectory, !runtimeDirectory.isEmpty { return ArbiterEndpoint(directory: runtimeDirectory + "/audiotoolbox") }
        return ArbiterEndpoint(directory: "/tmp/audiotoolbox-\(getuid())")
    }

    /// The longest socket path a Unix socket address holds (its terminating NUL aside).
    public static let maximumPathBytes = SunPath.capacity - 1

    /// Makes the folder (0700) if it does not exist and checks that it is the user's
    /// alone and that the socket's path fits. An existing folder is never changed: one
    /// that fails the check may have been prepared by someone else.
    public func prepareDirectory() throws(EndpointProblem) {
        guard socketPath.utf8.count <= Self.maximumPathBytes else { throw .pathTooLong(socketPath) }
        do throws(FolderProblem) {
            try PrivateFolder.prepare(directory)
        } catch {
            throw .folder(directory, error)
        }
    }

    /// A connected, close-on-exec, blocking stream socket to this user's daemon. The
    /// folder is checked again first (it may have been removed and made anew by someone
    /// else since), and the peer must be a process of this user: nothing is sent to any
    /// other.
    public func connect(until deadline: Deadline) throws(EndpointProblem) -> Int32 {
        try prepareDirectory()
        var address = sockaddr_un()
        guard Self.fill(&address, path: socketPath) else { throw .pathTooLong(socketPath) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .unreachable(Errno.current) }
        while true {
            let status = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            if status == 0 { break }
            let error = Errno.current
            if error == .interrupted { continue }
            // A full backlog (a busy or stopped daemon): try again until the deadline.
            if error == .wouldBlock && !deadline.hasPassed {
                usleep(2_000)
                continue
            }
            close(fd)
            throw error == .wouldBlock ? .noAnswer : .unreachable(error)
        }
        let peer: PeerCredentials
        do throws(Errno) {
            peer = try PeerCredentials.of(fd)
        } catch {
            close(fd)
            throw .unreachable(error)
        }
        guard peer.uid == getuid() else {
            close(fd)
            throw .foreignDaemon(uid: peer.uid, pid: peer.pid)
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    /// Fills a Unix socket address; false if the path does not fit.
    public static func fill(_ address: inout sockaddr_un, path: String) -> Bool {
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count <= maximumPathBytes else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return true
    }
}

private enum SunPath {
    static let capacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)
}
