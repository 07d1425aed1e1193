import Glibc

/// Who is at the other end of a Unix socket, as the kernel recorded it (SO_PEERCRED:
/// when the peer connected, or for a listening socket, when it called listen(2)).
/// Neither side can lie about it.
public struct PeerCredentials: Sendable, Equatable {
    public var pid: pid_t = 0
    public var uid: uid_t = 0
    public var gid: gid_t = 0

    public init() {}

    /// The credentials of `fd`'s peer, or the error getsockopt(2) gave.
    public static func of(_ fd: Int32) throws(Errno) -> PeerCredentials {
        // `struct ucred` of <sys/socket.h>, which Swift sees only with _GNU_SOURCE: same layout.
        var credentials = PeerCredentials()
        var length = socklen_t(MemoryLayout<PeerCredentials>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { throw Errno.current }
        return credentials
    }
}
