import Glibc

/// A C error number with a Swift name: what a failed system call left in `errno`.
/// Prints as its symbolic meaning ("Too many open files (EMFILE)" reads as
/// strerror's text plus the number), so log lines need no lookup.
public struct Errno: Error, RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's `errno` now.
    public static var current: Errno { Errno(rawValue: errno) }

    /// The corresponding C error is `EINTR`.
    public static let interrupted = Errno(rawValue: EINTR)
    /// The corresponding C error is `EAGAIN` (also `EWOULDBLOCK`).
    public static let wouldBlock = Errno(rawValue: EAGAIN)
    /// The corresponding C error is `EMFILE`.
    public static let tooManyOpenFiles = Errno(rawValue: EMFILE)
    /// The corresponding C error is `ENFILE`.
    public static let systemOutOfFiles = Errno(rawValue: ENFILE)
    /// The corresponding C error is `ELOOP` (what O_NOFOLLOW gives for a symlink).
    public static let symlinkLoop = Errno(rawValue: ELOOP)
    /// The corresponding C error is `ENOENT`.
    public static let noSuchFile = Errno(rawValue: ENOENT)

    public var description: String { "\(String(cString: strerror(rawValue))) (errno \(rawValue))" }
}

/// Runs `call` again for as long as it fails with EINTR: the one place a signal
/// arriving during a system call is handled. `failed` says what failure looks like
/// (-1 for most calls).
@inline(__always)
public func retryingInterrupts<T: BinaryInteger>(_ call: () -> T) -> T {
    while true {
        let result = call()
        if result == -1 && errno == EINTR { continue }
        return result
    }
}

/// `call`'s result, or its errno as a thrown `Errno`; EINTR retried.
@inline(__always)
public func checked<T: BinaryInteger>(_ call: () -> T) throws(Errno) -> T {
    let result = retryingInterrupts(call)
    if result == -1 { throw Errno.current }
    return result
}
