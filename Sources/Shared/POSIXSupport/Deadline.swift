import Glibc

/// A point on the monotonic clock by which something must be done. Waits are bounded
/// by what is left of it rather than by a count of tries, so signals (which cut a
/// wait short) and slow machines neither lengthen nor shorten the bound.
public struct Deadline: Sendable {
    public let seconds: Double

    public init(secondsFromNow: Double) { seconds = Deadline.now() + secondsFromNow }

    public static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    public var hasPassed: Bool { Deadline.now() >= seconds }

    /// What is left, in whole milliseconds for poll(2) (0 once passed, rounded up so a
    /// wait never returns early only to find a sliver left).
    public var remainingMilliseconds: Int32 {
        let left = seconds - Deadline.now()
        guard left > 0 else { return 0 }
        return Int32(min((left * 1000).rounded(.up), Double(Int32.max)))
    }

    /// Waits until `fd` has any of `events` or the deadline passes; signals do not end
    /// the wait early. Returns the revents, or 0 when time ran out.
    public func wait(for fd: Int32, events: Int16) throws(Errno) -> Int16 {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        while true {
            let ready = poll(&entry, 1, remainingMilliseconds)
            if ready > 0 { return entry.revents }
            if ready == 0 { if hasPassed { return 0 } else { continue } }
            if errno == EINTR { continue }
            throw Errno.current
        }
    }
}
