import CoreFoundation
import Glibc
import Locking

/// An item a `CallbackQueue` can coalesce with a later one while both wait.
public protocol Coalescing: Sendable {
    /// Items with equal keys coalesce while waiting for delivery.
    var coalescingKey: Int { get }
    /// This waiting item combined with `newer`, a later one with the same key.
    func merged(with newer: Self) -> Self
}

/// The program's callbacks waiting for delivery, in order, delivered one at a time on
/// the client's CFRunLoop or on whichever thread drains the pollable descriptor.
///
/// - Order: items are delivered in the order they were enqueued. Delivery takes one
///   item at a time, so a callback that drains again (nested dispatch) continues the
///   same queue with the next item; a drain on another thread while one is delivering
///   returns at once, and the delivering thread delivers the rest.
/// - Bound: an item whose key is already waiting merges into it and moves to the end
///   (it reports the newest change), so the queue holds at most one item per key, and
///   its storage is released whenever it empties.
public final class CallbackQueue<Item: Coalescing>: @unchecked Sendable {
    private struct State {
        var items: [Item] = []
        /// The thread delivering, and how deeply its drains are nested.
        var deliverer: pthread_t?
        var depth = 0
    }
    private let state = Locked(State())
    private let deliver: (Item) -> Void
    private var wakeup: RunLoopWakeup!

    /// A queue delivering through `deliver` on `runLoop` in `mode`; nil when no
    /// descriptor can be had for the pollable wake-up.
    public init?(runLoop: CFRunLoop, mode: CFString, deliver: @escaping (Item) -> Void) {
        self.deliver = deliver
        // The wakeup calls back into this queue unretained: the queue owns the wakeup,
        // so it always outlives it.
        guard let wakeup = RunLoopWakeup(runLoop: runLoop, mode: mode, onSignal: { [unowned(unsafe) self] in
            _ = self.drain()
        }) else { return nil }
        self.wakeup = wakeup
    }

    /// The descriptor that polls readable while items wait.
    public var fileDescriptor: Int32 { wakeup.fileDescriptor }

    /// Appends `items` in order, merging each into a waiting item with the same key.
    /// Takes only this queue's lock and calls nothing else, so it may run under the
    /// caller's locks; call `wake` afterwards.
    public func enqueue(_ items: [Item]) {
        state.withLock { s in
            for item in items {
                if let index = s.items.firstIndex(where: { $0.coalescingKey == item.coalescingKey }) {
                    let waiting = s.items.remove(at: index)
                    s.items.append(waiting.merged(with: item))
                } else {
                    s.items.append(item)
                }
            }
        }
    }

    /// Wakes the run loop and makes the descriptor readable while items wait.
    public func wake() {
        let waiting = state.withLock { s -> Bool in
            if !s.items.isEmpty { wakeup.markReadable() }
            return !s.items.isEmpty
        }
        if waiting { wakeup.signalRunLoop() }
    }

    /// Delivers every waiting item on the calling thread, one at a time; returns how many
    /// it delivered (0 when another thread is delivering).
    @discardableResult
    public func drain() -> Int {
        guard !wakeup.isDetached else { return 0 }
        let me = pthread_self()
        let mayDeliver = state.withLock { s -> Bool in
            if let deliverer = s.deliverer, pthread_equal(deliverer, me) == 0 { return false }
            s.deliverer = me
            s.depth += 1
            return true
        }
        guard mayDeliver else { return 0 }
        var delivered = 0
        while let item = next() {
            deliver(item)
            delivered += 1
        }
        return delivered
    }

    /// The next item, or nil when none waits: then this drain's level ends, and the
    /// outermost one gives up delivering, in the same step, so an item enqueued after
    /// it is never left behind unwoken. The descriptor turns unreadable in that step
    /// too: it is readable exactly while items wait.
    private func next() -> Item? {
        state.withLock { s -> Item? in
            if !s.items.isEmpty { return s.items.removeFirst() }
            wakeup.markUnreadable()
            s.depth -= 1
            if s.depth == 0 {
                s.deliverer = nil
                s.items = []  // give the storage back
            }
            return nil
        }
    }

    /// In the child of `fork`: the queue belongs to the parent's session and must never
    /// deliver or signal again. Async-signal-safe.
    public func detachAfterFork() {
        wakeup.detachAfterFork()
    }
}
