import CoreFoundation
import Locking

/// One callback queue per run loop and mode, made on first use and shared by every
/// registration on that place: queues, system-sound completions and any service with
/// callbacks of its own keep their queues here, so each place has one wake-up and one
/// descriptor per kind of callback.
public final class RunLoopQueues<Item: Coalescing>: @unchecked Sendable {
    /// A run loop (by identity: run loops live as long as their thread) and a mode.
    private struct Place: Hashable {
        let runLoop: UInt
        let mode: String
    }
    private let queues = Locked<[Place: CallbackQueue<Item>]>([:])
    private let deliver: (Item) -> Void

    /// Queues that deliver each item through `deliver`.
    public init(deliver: @escaping (Item) -> Void) {
        self.deliver = deliver
    }

    /// The queue of `runLoop` in `mode`, made if there is none; nil when no descriptor
    /// can be had for a new one.
    public func queue(runLoop: CFRunLoop, mode: CFString) -> CallbackQueue<Item>? {
        let place = Place(runLoop: UInt(bitPattern: Unmanaged.passUnretained(runLoop).toOpaque()), mode: Self.text(mode))
        return queues.withLock { queues in
            if let existing = queues[place] { return existing }
            guard let made = CallbackQueue<Item>(runLoop: runLoop, mode: mode, deliver: deliver) else { return nil }
            queues[place] = made
            return made
        }
    }

    /// In the child of a fork: every queue belongs to the parent (detached, never
    /// delivering), and the child starts with none.
    public func forgetAfterFork() {
        queues.reinitializeAfterFork()
        queues.withLock { queues in
            for queue in queues.values { queue.detachAfterFork() }
            queues = [:]
        }
    }

    private static func text(_ string: CFString) -> String {
        let length = CFStringGetLength(string)
        let capacity = CFStringGetMaximumSizeForEncoding(length, CFStringBuiltInEncodings.UTF8.rawValue) + 1
        var buffer = [CChar](repeating: 0, count: Int(capacity))
        guard CFStringGetCString(string, &buffer, capacity, CFStringBuiltInEncodings.UTF8.rawValue) else { return "" }
        return String(cString: buffer)
    }
}
