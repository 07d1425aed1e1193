import CDescriptors
import CoreFoundation
import Glibc
import Locking
import Synchronization

/// Wakes whoever delivers callbacks: a version-0 `CFRunLoopSource` on the program's run
/// loop and mode, and a pollable descriptor for programs that run no CF run loop.
///
/// The descriptor is a non-blocking eventfd. Once a program has asked for it,
/// `CallbackQueue` makes it readable and unreadable under its own lock (`markReadable`,
/// `markUnreadable`: one system call each), so the descriptor is readable exactly while
/// callbacks wait; the run-loop source is marked signalled under that lock too, and the
/// loop woken outside it.
final class RunLoopWakeup: @unchecked Sendable {
    /// The descriptor that polls readable while callbacks wait.
    let fileDescriptor: Int32
    /// Whether the eventfd's count is not zero. Guarded by the queue's lock.
    private var readable = false
    /// Whether a program has asked for the descriptor: until then nobody polls it, and an
    /// event costs no system call for it. Guarded by the queue's lock.
    private var polled = false
    /// Set in the child of `fork`: this wakeup, and what it wakes, belong to the parent.
    private let detached = Atomic<Bool>(false)
    // CF objects are thread-safe for the calls made here (signal, wake up). The run loop
    // and mode change once at most: a program's default session moves to the run loop
    // that AudioSessionInitialize names (see `move`).
    private let place: Locked<(runLoop: CFRunLoop, mode: CFString)>
    private var source: CFRunLoopSource!
    private let onSignal: () -> Void

    /// Attaches to `runLoop` in `mode`; the run loop calls `onSignal` after a
    /// `signalSource`. Nil when the process has no descriptor left.
    init?(runLoop: CFRunLoop, mode: CFString, onSignal: @escaping () -> Void) {
        fileDescriptor = DescriptorsEventFD()
        guard fileDescriptor >= 0 else { return nil }
        place = Locked((runLoop, mode))
        self.onSignal = onSignal
        var context = CFRunLoopSourceContext()
        context.version = 0
        context.info = Unmanaged.passUnretained(self).toOpaque()
        context.perform = { info in
            guard let info else { return }
            Unmanaged<RunLoopWakeup>.fromOpaque(info).takeUnretainedValue().onSignal()
        }
        source = CFRunLoopSourceCreate(nil, 0, &context)
        CFRunLoopAddSource(runLoop, source, mode)
    }

    deinit {
        CFRunLoopSourceInvalidate(source)
        if !isDetached { Glibc.close(fileDescriptor) }
    }

    var isDetached: Bool { detached.load(ordering: .acquiring) }

    /// Marks the source signalled: the run loop calls `onSignal` the next time it looks
    /// at its sources. Only the source's own lock is taken (a leaf), so the queue calls
    /// this under its lock.
    func signalSource() {
        guard !isDetached else { return }
        CFRunLoopSourceSignal(source)
    }

    /// Wakes the run loop so it looks at its signalled source.
    func wakeRunLoop() {
        guard !isDetached else { return }
        // Inside the doorbell's callouts the loop checks its sources before it sleeps
        // again: no wake-up needed. Anywhere else (even on the loop's thread, e.g. in a
        // program's before-waiting observer) the loop may be about to sleep.
        if !RunLoopDoorbell.inCallout() { CFRunLoopWakeUp(place.withLock { $0.runLoop }) }
    }

    /// Delivers on `runLoop` in `mode` from now on, and no longer where it did.
    func move(to runLoop: CFRunLoop, mode: CFString) {
        let old = place.withLock { p in
            defer { p = (runLoop, mode) }
            return p
        }
        CFRunLoopRemoveSource(old.runLoop, source, old.mode)
        CFRunLoopAddSource(runLoop, source, mode)
        // Anything signalled before the move is delivered where the program now looks.
        CFRunLoopWakeUp(runLoop)
    }

    /// Makes the descriptor readable. Called under the queue's lock.
    func markReadable() {
        guard polled, !readable, !isDetached else { return }
        readable = true
        var one: UInt64 = 1
        _ = write(fileDescriptor, &one, 8)
    }

    /// The descriptor is polled from now on: readable at once if callbacks wait. Called
    /// under the queue's lock.
    func startPolling(itemsWaiting: Bool) {
        polled = true
        if itemsWaiting { markReadable() }
    }

    /// Makes the descriptor unreadable. Called under the queue's lock.
    func markUnreadable() {
        guard readable, !isDetached else { return }
        readable = false
        var count: UInt64 = 0
        _ = read(fileDescriptor, &count, 8)
    }

    /// In the child of `fork`: closes the child's copy of the eventfd (shared with the
    /// parent: a count written here would make the parent's descriptor readable) and
    /// never signals again. Only async-signal-safe work: the child may have been forked
    /// from any state.
    func detachAfterFork() {
        detached.store(true, ordering: .releasing)
        // The number may be reused by the child's own session: never touched again.
        Glibc.close(fileDescriptor)
    }
}
