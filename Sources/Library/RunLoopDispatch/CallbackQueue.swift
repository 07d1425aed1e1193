import CoreFoundation
import Glibc
import Locking

/// An item a `CallbackQueue` holds: the item's type says how a new one joins those
/// waiting (appended, or merged into one of them), which is what bounds the queue of a
/// program that does not run its run loop.
public protocol Coalescing: Sendable {
    /// Adds `item`, the newest, to `waiting` (oldest first).
    static func add(_ item: Self, to waiting: inout [Self])
}

/// The program's callbacks waiting for delivery, in order, delivered one at a time on
/// the client's CFRunLoop or on whichever thread drains the pollable descriptor.
///
/// - Order: items are delivered in the order they were enqueued. Delivery takes one
///   item at a time, so a callback that drains again (nested dispatch) continues the
///   same queue with the next item; a drain on another thread while one is delivering
///   returns at once, and the delivering thread delivers the rest.
/// - Bound: the items' own rule (`Coalescing.add`) merges new items into waiting ones
///   (listener calls: one per property, route changes one per reason at most; see
///   ListenerCall), and the storage is released whenever the queue empties.
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

    /// Delivers on `runLoop` in `mode` from now on; items waiting follow.
    public func move(to runLoop: CFRunLoop, mode: CFString) {
        wakeup.move(to: runLoop, mode: mode)
        if state.withLock({ !$0.items.isEmpty }) { wakeup.signalSource() }
        wake()
    }

    /// The descriptor that polls readable while items wait. It is kept readable only
    /// once asked for (the first ask makes it readable if items wait already), so a
    /// program that runs its run loop pays no system call for it per callback.
    public var fileDescriptor: Int32 {
        state.withLock { s in wakeup.startPolling(itemsWaiting: !s.items.isEmpty) }
        return wakeup.fileDescriptor
    }

    /// Adds `items` in order, each as its type says (`Coalescing.add`), and in the same
    /// step makes the descriptor readable and marks the run loop's source signalled, so
    /// a thread that sees the change the items report (the caller enqueues under the
    /// lock that guards it) finds them waiting too, even before `wake`. Takes only this
    /// queue's lock and leaf locks below it (an eventfd write, the CF source's flag), so
    /// it may run under the caller's locks; call `wake` afterwards.
    public func enqueue(_ items: [Item]) {
        guard !items.isEmpty else { return }
        state.withLock { s in
            for item in items { Item.add(item, to: &s.items) }
            wakeup.markReadable()
            wakeup.signalSource()
        }
    }

    /// Wakes the run loop if items wait: a loop asleep in its poll does not look at
    /// its sources' flags by itself.
    public func wake() {
        let waiting = state.withLock { !$0.items.isEmpty }
        if waiting { wakeup.wakeRunLoop() }
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
