import Glibc

/// Where the user's `audiosessiond` lives: `$XDG_RUNTIME_DIR/audiotoolbox/` (or
/// `/tmp/audiotoolbox-UID/` without one), a folder only the user may enter, holding the
/// socket, the daemon's pid file, its lock and its log.
public struct ArbiterEndpoint: Sendable {
    public let directory: String
    public var socketPath: String { directory + "/audiosessiond.sock" }
    public var pidPath: String { directory + "/audiosessiond.pid" }
    public var lockPath: String { directory + "/audiosessiond.lock" }
    public var logPath: String { directory + "/audiosessiond.log" }

    public init(directory: String) { self.directory = directory }

    /// The endpoint of the user running this process.
    public static func forCurrentUser() -> ArbiterEndpoint {
        if let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), !runtime.isEmpty {
            return ArbiterEndpoint(directory: runtime + "/audiotoolbox")
        }
        return ArbiterEndpoint(directory: "/tmp/audiotoolbox-\(getuid())")
    }

    /// Creates the folder (0700) if needed and checks that it is this user's and closed
    /// to others: a socket in a folder someone else controls could be anyone's.
    public func prepareDirectory() -> Bool {
        if mkdir(directory, 0o700) != 0 && errno != EEXIST { return false }
        var info = stat()
        guard lstat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == getuid() else {
            return false
        }
        if info.st_mode & 0o077 != 0 { return chmod(directory, 0o700) == 0 }
        return true
    }

    /// A connected, close-on-exec stream socket to the daemon, or nil.
    public func connect() -> Int32? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_un()
        guard Self.fill(&address, path: socketPath) else { close(fd); return nil }
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard status == 0 else { close(fd); return nil }
        return fd
    }

    /// Fills a Unix socket address; false if the path does not fit.
    public static func fill(_ address: inout sockaddr_un, path: String) -> Bool {
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return true
    }
}

/// Blocking helpers for short exchanges (the tool, the library's handshake).
public enum SocketIO {
    /// Writes all of `bytes`; false on error.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += n
        }
        return true
    }

    /// Reads what is available (blocking until something is, or `timeoutMilliseconds`
    /// passes: then an empty array). nil at end of stream or on error.
    public static func readSome(_ fd: Int32, timeoutMilliseconds: Int32 = -1) -> [UInt8]? {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&pfd, 1, timeoutMilliseconds)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 { return nil }
            if ready == 0 { return [] }
            break
        }
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return nil }
            return Array(buffer[0..<n])
        }
    }
}
