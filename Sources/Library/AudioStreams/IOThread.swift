import Glibc
import Settings

/// The threads that exchange periods with a device: detached, and real-time
/// (SCHED_FIFO) where the system grants it — as root, with an rtprio limit, or not at
/// all (then they run at normal priority and say so). `AUDIOTOOLBOX_REALTIME=0` asks for
/// normal priority.
public enum IOThread {
    /// The priority asked for: low among real-time priorities, as desktop sound servers
    /// give their clients, so a program's busy callback cannot starve the system's own.
    static let priority: Int32 = 10

    /// Starts `body` on a new thread, named `name` (seen in top, gdb, and by the
    /// real-time test, which finds the I/O threads by it); false when no thread could be
    /// made. `realTime`: the thread asks for real-time priority before `body`, unless the
    /// configuration says not to (read here, on the caller's thread).
    public static func spawn(name: String = "AT I/O", realTime: Bool = false, _ body: @escaping () -> Void) -> Bool {
        final class Box { let body: () -> Void; init(_ body: @escaping () -> Void) { self.body = body } }
        let askPriority = realTime && Configuration.current.realTime
        let box = Unmanaged.passRetained(Box({
            _ = name.withCString { setThreadName(pthread_self(), $0) }
            if askPriority { _ = becomeRealTime() }
            body()
        }))
        var thread = pthread_t()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        defer { pthread_attr_destroy(&attributes) }
        let created = pthread_create(&thread, &attributes, { context in
            Unmanaged<Box>.fromOpaque(context!).takeRetainedValue().body()
            return nil
        }, box.toOpaque())
        if created != 0 { box.release() }
        return created == 0
    }

    /// Asks for real-time priority for the calling thread; returns whether it was granted.
    static func becomeRealTime() -> Bool {
        var parameters = sched_param()
        parameters.sched_priority = priority
        return pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters) == 0
    }

    /// The monotonic clock in nanoseconds: the host time of time stamps.
    @inline(__always)
    public static func hostTime() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}

/// glibc's pthread_setname_np, which Swift's Glibc module leaves out (it is a GNU
/// extension). A plain C call: the name is at most 15 bytes.
@_silgen_name("pthread_setname_np")
private func setThreadName(_ thread: pthread_t, _ name: UnsafePointer<CChar>) -> Int32
