import Glibc

/// Why a folder that should be the user's alone cannot be trusted. Each case is a state
/// someone else could have arranged; none is repaired, because repairing a folder
/// another user made (chmod, chown) would hand them whatever they left inside.
public enum FolderProblem: Error, Equatable, Sendable, CustomStringConvertible {
    case symlink
    case notADirectory
    case ownedBy(uid_t)
    case openToOthers(mode: UInt32)
    case cannotCreate(Errno)
    case cannotInspect(Errno)

    public var description: String {
        switch self {
        case .symlink: return "it is a symbolic link"
        case .notADirectory: return "it is not a folder"
        case .ownedBy(let uid): return "it belongs to uid \(uid), not to this user (uid \(getuid()))"
        case .openToOthers(let mode):
            return "its mode is \(String(mode, radix: 8)), not 700 (others may enter or change it)"
        case .cannotCreate(let error): return "it cannot be created: \(error)"
        case .cannotInspect(let error): return "it cannot be inspected: \(error)"
        }
    }
}

/// A folder only this user may enter: the daemon's socket, lock, log and journal live
/// there, so whoever controls it controls what the user's programs talk to.
public enum PrivateFolder {
    /// Makes `path` (mode 0700) if it does not exist; then checks it. Never changes an
    /// existing folder.
    public static func prepare(_ path: String) throws(FolderProblem) {
        if mkdir(path, 0o700) != 0 && errno != EEXIST { throw .cannotCreate(Errno.current) }
        try check(path)
    }

    /// A real directory (not a symlink), owned by this user, mode exactly 0700 in its
    /// permission bits.
    public static func check(_ path: String) throws(FolderProblem) {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw .cannotInspect(Errno.current) }
        let kind = info.st_mode & S_IFMT
        if kind == S_IFLNK { throw .symlink }
        guard kind == S_IFDIR else { throw .notADirectory }
        guard info.st_uid == getuid() else { throw .ownedBy(info.st_uid) }
        let mode = UInt32(info.st_mode & 0o777)
        guard mode == 0o700 else { throw .openToOthers(mode: mode) }
    }
}
