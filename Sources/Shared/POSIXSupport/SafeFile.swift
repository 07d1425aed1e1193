import CDescriptors
import Glibc

/// Why a file was not read.
public enum FileProblem: Error, Equatable, Sendable, CustomStringConvertible {
    case cannotOpen(Errno)
    /// A FIFO, a device, a socket, a folder: reading it could block forever or never end.
    case notARegularFile
    case tooLarge(limit: Int)
    case readFailed(Errno)

    public var description: String {
        switch self {
        case .cannotOpen(let error): return "cannot open it: \(error)"
        case .notARegularFile: return "it is not a regular file"
        case .tooLarge(let limit): return "it is larger than \(limit) bytes"
        case .readFailed(let error): return "cannot read it: \(error)"
        }
    }
}

/// Opening and reading files without trusting what is at the path.
public enum SafeFile {
    /// Opens a file of the private folder for writing, creating it with mode 0600 — never
    /// through a symlink (O_NOFOLLOW) and never inherited by a program we exec
    /// (O_CLOEXEC). `flags` adds O_APPEND, O_TRUNC, O_EXCL...
    public static func openPrivate(_ path: String, flags: Int32) throws(Errno) -> Int32 {
        try checked { open(path, flags | O_CREAT | O_NOFOLLOW | O_CLOEXEC, FilePermissions.ownerReadWrite.rawValue) }
    }

    /// The bytes of a regular file of at most `limit` bytes. Opened non-blocking (a FIFO
    /// then neither blocks the open nor is read), checked with fstat before any read.
    /// `followSymlinks`: false for files of the private folder; true for the user's own
    /// configuration, which dotfile managers commonly link in — a link to a FIFO or a
    /// device is still refused by the check.
    public static func readRegular(_ path: String, limit: Int, followSymlinks: Bool) throws(FileProblem) -> [UInt8] {
        let file = FileDescriptor(rawValue: try openRegular(path, followSymlinks: followSymlinks))
        defer { try? file.close() }
        var info = stat()
        guard fstat(file.rawValue, &info) == 0 else { throw .readFailed(Errno.current) }
        guard info.st_size <= limit else { throw .tooLarge(limit: limit) }
        // The size can change while reading: never read past the limit.
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var count = 0
        while count < bytes.count {
            let n: Int
            do {
                n = try bytes.withUnsafeMutableBytes { raw in
                    try file.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[count...]))
                }
            } catch let error as Errno {
                throw .readFailed(error)
            } catch {
                throw .readFailed(.ioError)
            }
            if n == 0 { break }
            count += n
        }
        guard count <= limit else { throw .tooLarge(limit: limit) }
        return Array(bytes[0..<count])
    }

    /// A descriptor for reading the regular file at `path` (close-on-exec, blocking).
    /// What is at the path is looked at before it is opened for reading (O_PATH, then
    /// fstat): a device is never opened at all — opening one can hang (a FIFO without a
    /// writer), change the hardware (a serial port's DTR) or make it the caller's
    /// controlling terminal (a tty, for a process without one: then its hang-up kills it).
    public static func openRegular(_ path: String, followSymlinks: Bool) throws(FileProblem) -> Int32 {
        let handle = retryingInterrupts { DescriptorsOpenPath(path, followSymlinks ? 1 : 0) }
        guard handle >= 0 else { throw .cannotOpen(Errno.current) }
        defer { close(handle) }
        var info = stat()
        guard fstat(handle, &info) == 0 else { throw .readFailed(Errno.current) }
        // O_PATH with O_NOFOLLOW opens a symlink itself: refused as open(2) would.
        if info.st_mode & S_IFMT == S_IFLNK { throw .cannotOpen(.tooManySymbolicLinkLevels) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .notARegularFile }
        // The same file, whatever the path says now.
        let fd = retryingInterrupts { open("/proc/self/fd/\(handle)", O_RDONLY | O_CLOEXEC | O_NOCTTY) }
        guard fd >= 0 else { throw .cannotOpen(Errno.current) }
        return fd
    }

    /// The lines of a small regular file (see `readRegular`), whole: a line is never cut
    /// into pieces however long it is, so the tail of a long comment is never taken for
    /// a setting. Invalid UTF-8 is replaced, not fatal.
    public static func lines(_ path: String, limit: Int, followSymlinks: Bool) throws(FileProblem) -> [String] {
        let bytes = try readRegular(path, limit: limit, followSymlinks: followSymlinks)
        return bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
    }

    /// Replaces `path` with `bytes` at once (a temporary file beside it, then rename):
    /// a reader sees the old content or the new, never half; mode 0600, no symlink
    /// followed, an existing temporary (a crash's leftover) removed first.
    public static func replacePrivate(_ path: String, with bytes: [UInt8]) throws(Errno) {
        let temporary = path + ".new"
        unlink(temporary)
        let file = FileDescriptor(rawValue: try openPrivate(temporary, flags: O_WRONLY | O_EXCL))
        do {
            _ = try file.closeAfter { try file.writeAll(bytes) }
        } catch {
            unlink(temporary)
            throw error as? Errno ?? .ioError
        }
        guard rename(temporary, path) == 0 else {
            let error = Errno.current
            unlink(temporary)
            throw error
        }
    }
}
