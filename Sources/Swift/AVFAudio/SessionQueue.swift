internal import AudioFiles
internal import AudioQueues
internal import AudioSessionCore
public import Foundation
internal import Locking
internal import Runtime

/// What the player and the recorder share: their audio queue, made as the C API makes
/// one (fed by the session, attached to it until disposed), the device clock, and
/// levels in dB.
enum SessionQueue {
    /// A queue of the session's own, delivering its events to `deliver` on the queue's
    /// thread.
    static func make(_ direction: AudioQueue.Direction, _ format: StreamDescription,
                     deliver: @escaping (QueueEvent) -> Void) -> AudioQueue? {
        _ = installForkStep
        guard let queue = try? QueueHandles.made(direction, format: format) else { return nil }
        let entry = Live()
        entry.queue = queue
        QueueHandles.attach(queue, deliver: deliver, deliverNow: deliver,
                            whenDisposed: { live.withLock { list in list.removeAll { $0 === entry } } },
                            findable: { live.withLock { $0.append(entry) } })
        return queue
    }

    /// Whether the session lets the queue start (activating it first, as the C API's
    /// AudioQueueStart does); recording needs a recording category.
    static func sessionAllowsStart(_ queue: AudioQueue) -> Bool { QueueHandles.sessionAllowsStart(queue) == 0 }

    /// The classes' queues alive now, for the fork step (weakly: the player or recorder
    /// owns its queue).
    private final class Live: @unchecked Sendable {
        weak var queue: AudioQueue?
    }
    private static let live = Locked<[Live]>([])

    /// The child of a fork has none of the parent's threads: the players' mix and every
    /// queue of the classes forget what was running and make their locks anew, so the
    /// child can ask a player or recorder anything, or play, without waiting forever on a
    /// lock a vanished thread held.
    static let installForkStep: Void = {
        ForkCoordinator.register(.players) {
            live.reinitializeAfterFork()
            for entry in live.withLock({ $0 }) { entry.queue?.resetAfterFork() }
        }
    }()

    /// The device clock `play(atTime:)` and `record(atTime:)` count in: seconds of the
    /// monotonic clock.
    static var deviceTime: TimeInterval {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// A linear level (0...1) in dB full scale, -160 for silence.
    static func decibels(_ linear: Float) -> Float { linear > 0 ? max(-160, 20 * log10(linear)) : -160 }
}
