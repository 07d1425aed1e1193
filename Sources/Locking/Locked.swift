import Glibc

/// A value guarded by a POSIX mutex.
///
/// Used instead of the standard library's `Mutex` because that one waits on futexes
/// directly, which ThreadSanitizer cannot see: with a pthread mutex `make tsan` checks
/// the library's real locking instead of reporting every guarded access as a race.
public final class Locked<Value>: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // Behind a pointer rather than a stored `var`: the mutex already guarantees
    // exclusive access, and this spares every access the runtime's exclusivity check.
    @usableFromInline let value: UnsafeMutablePointer<Value>

    public init(_ initial: Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        value = .allocate(capacity: 1)
        value.initialize(to: initial)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` with exclusive access to the value. `body` must not call user code.
    @inlinable
    public func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}
