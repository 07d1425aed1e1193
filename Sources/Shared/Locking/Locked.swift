import Glibc

/// A value guarded by a POSIX mutex.
///
/// Used instead of the standard library's `Mutex` because that one waits on futexes
/// directly, which ThreadSanitizer cannot see: with a pthread mutex `make tsan` checks
/// the library's real locking instead of reporting every guarded access as a race.
///
/// Debug builds use an error-checking mutex, so a thread that locks twice or unlocks a
/// lock it does not hold stops at once instead of deadlocking or corrupting state;
/// every build checks what pthread returns.
public final class Locked<Value>: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // Behind a pointer rather than a stored `var`: the mutex already guarantees
    // exclusive access, and this spares every access the runtime's exclusivity check.
    @usableFromInline let value: UnsafeMutablePointer<Value>

    public init(_ initial: Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        var attributes = pthread_mutexattr_t()
        Self.check(pthread_mutexattr_init(&attributes), "pthread_mutexattr_init")
        #if DEBUG
        Self.check(pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK)), "pthread_mutexattr_settype")
        #endif
        Self.check(pthread_mutex_init(mutex, &attributes), "pthread_mutex_init")
        pthread_mutexattr_destroy(&attributes)
        value = .allocate(capacity: 1)
        value.initialize(to: initial)
    }

    deinit {
        Self.check(pthread_mutex_destroy(mutex), "pthread_mutex_destroy")
        mutex.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` with exclusive access to the value. `body` must not call user code.
    @inlinable
    public func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        Self.check(pthread_mutex_lock(mutex), "pthread_mutex_lock")
        defer { Self.check(pthread_mutex_unlock(mutex), "pthread_mutex_unlock") }
        return try body(&value.pointee)
    }

    /// Runs `body` with the value if the lock is free at this instant, else returns nil
    /// without waiting: for real-time threads, which must never wait for a thread of
    /// lower priority (they keep what they read last time instead).
    @inlinable
    public func withLockIfAvailable<Result>(_ body: (inout Value) -> Result) -> Result? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { Self.check(pthread_mutex_unlock(mutex), "pthread_mutex_unlock") }
        return body(&value.pointee)
    }

    /// A failed lock operation is a bug in the library (a lock taken twice, released by
    /// the wrong thread, destroyed while held): stop with a message rather than run on
    /// with state no lock protects.
    @inlinable
    static func check(_ result: Int32, _ operation: StaticString) {
        guard result != 0 else { return }
        fatalError("AudioToolbox: \(operation) failed with error \(result)")
    }

    /// Makes the lock usable in the child of `fork`, where the thread that held it does
    /// not exist: re-initialises it. Call only from a fork handler, when the caller knows
    /// no thread of the child uses it.
    public func reinitializeAfterFork() {
        mutex.initialize(to: pthread_mutex_t())
        Self.check(pthread_mutex_init(mutex, nil), "pthread_mutex_init")
    }
}
