// Error numbers and file descriptors are swift-system's (Errno, FileDescriptor,
// FilePermissions): every module that imports POSIXSupport sees them. What swift-system
// leaves out is here: the calling thread's errno as an Errno, and the EINTR retry for
// the system calls it does not wrap (sockets, poll, fcntl).
@_exported import SystemPackage
import Glibc

extension Errno {
    /// The calling thread's `errno` now.
    public static var current: Errno { Errno(rawValue: errno) }
}

/// Runs `call` again for as long as it fails with EINTR: the one place a signal
/// arriving during a system call swift-system does not wrap is handled. Failure is -1.
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
