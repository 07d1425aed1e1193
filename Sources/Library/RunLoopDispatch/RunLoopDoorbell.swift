import CoreFoundation
import Glibc
import Synchronization

/// A doorbell another process can ring to wake the program's run loop directly: one
/// end of a Unix packet socket pair is the port of a version-1 `CFRunLoopSource` on the
/// run loop and mode; the ringer gets the other end. An observer of the loop's sleeps
/// comes with it.
///
/// CoreFoundation on Linux waits on its sources' ports with epoll and, when one is
/// ready, reads 8 bytes from it (it expects an eventfd's count), then calls the source.
/// A ring is one 8-byte packet, so that read takes exactly one ring; the source's call
/// then takes any further rings — and, since the port is watched edge-triggered, must:
/// a ring left waiting would never wake the loop again. Whoever takes a ring must then
/// read what it announced (the ringer writes before it rings): `rang` is called again
/// after rings are taken. A socket rather than an eventfd because the kernel
/// wakes a socket's reader as the writer's partner (a synchronous wake-up), which lets
/// the scheduler run the woken thread where the ringer runs instead of waking an idle
/// processor: on small virtual machines that is most of a wake-up's cost.
///
/// The observer tells the owner when the loop is about to wait in this mode and when it
/// woke, so that it can read whatever the ring announced there and otherwise leave the
/// reading to a thread of its own.
public final class RunLoopDoorbell: @unchecked Sendable {
    /// The end to hand to whoever rings (non-blocking, close-on-exec): a ring is one
    /// 8-byte packet.
    public let fileDescriptor: Int32
    /// The end the run loop waits on.
    private let port: Int32
    private let runLoop: CFRunLoop
    private var source: CFRunLoopSource!
    private var observer: CFRunLoopObserver!
    private let willWait: () -> Void
    private let didWake: () -> Void
    private let rang: () -> Void
    /// Set in the child of `fork`: the run loop may still call in, and must reach nothing.
    private let detached = Atomic<Bool>(false)
    /// The thread inside `didWake` or `rang` now (0: none). There the run loop checks its
    /// sources before it sleeps again (after an after-waiting observer it handles the
    /// port that woke it, then loops; after a source, it loops), so a signal needs no
    /// wake-up. One doorbell per process.
    private static let calloutThread = Atomic<UInt>(0)

    static func inCallout() -> Bool {
        calloutThread.load(ordering: .relaxed) == UInt(pthread_self())
    }

    private static func callout(_ body: () -> Void) {
        calloutThread.store(UInt(pthread_self()), ordering: .relaxed)
        body()
        calloutThread.store(0, ordering: .relaxed)
    }

    /// Attaches to `runLoop` in `mode`. The run loop calls `willWait` before it sleeps,
    /// `didWake` after, and `rang` when the doorbell woke it (after `didWake`), once
    /// more if further rings came meanwhile. Nil when the process has no descriptors left.
    public init?(runLoop: CFRunLoop, mode: CFString, willWait: @escaping () -> Void,
                 didWake: @escaping () -> Void, rang: @escaping () -> Void) {
        var ends: [Int32] = [-1, -1]
        let type = Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &ends) == 0 else { return nil }
        port = ends[0]
        fileDescriptor = ends[1]
        // Nothing is ever written the other way.
        shutdown(port, Int32(SHUT_WR))
        self.runLoop = runLoop
        self.willWait = willWait
        self.didWake = didWake
        self.rang = rang
        let info = Unmanaged.passUnretained(self).toOpaque()

        var context = CFRunLoopSourceContext1()
        context.version = 1
        context.info = info
        context.getPort = { info in
            Unmanaged<RunLoopDoorbell>.fromOpaque(info!).takeUnretainedValue().port
        }
        context.perform = { info in
            guard let info else { return }
            let doorbell = Unmanaged<RunLoopDoorbell>.fromOpaque(info).takeUnretainedValue()
            guard !doorbell.isDetached else { return }
            RunLoopDoorbell.callout {
                doorbell.rang()
                if doorbell.takeRings() { doorbell.rang() }
            }
        }
        source = withUnsafeMutablePointer(to: &context) {
            $0.withMemoryRebound(to: CFRunLoopSourceContext.self, capacity: 1) { CFRunLoopSourceCreate(nil, 0, $0) }
        }
        CFRunLoopAddSource(runLoop, source, mode)

        var observerContext = CFRunLoopObserverContext(version: 0, info: info, retain: nil, release: nil,
                                                        copyDescription: nil)
        let activities = CFRunLoopActivity.beforeWaiting.rawValue | CFRunLoopActivity.afterWaiting.rawValue
        observer = CFRunLoopObserverCreate(nil, activities, true, 0, { _, activity, info in
            guard let info else { return }
            let doorbell = Unmanaged<RunLoopDoorbell>.fromOpaque(info).takeUnretainedValue()
            guard !doorbell.isDetached else { return }
            if activity == .beforeWaiting { doorbell.willWait() } else { RunLoopDoorbell.callout { doorbell.didWake() } }
        }, &observerContext)
        CFRunLoopAddObserver(runLoop, observer, mode)
    }

    deinit {
        CFRunLoopObserverInvalidate(observer)
        CFRunLoopSourceInvalidate(source)
        if !isDetached {
            close(port)
            close(fileDescriptor)
        }
    }

    private var isDetached: Bool { detached.load(ordering: .acquiring) }

    /// Takes the rings the run loop's read left; true if there were any.
    private func takeRings() -> Bool {
        var ring: UInt64 = 0
        var took = false
        while recv(port, &ring, 8, Int32(MSG_DONTWAIT)) > 0 { took = true }
        return took
    }

    /// In the child of `fork`: the doorbell is the parent's (the daemon rings the same
    /// socket), and nothing is called again. The child's copy of the port stays open:
    /// the port is registered in the epoll set the child inherited (it is the parent's),
    /// so a child that runs its copy of the run loop may still read from that number,
    /// which must not come to mean one of the child's own descriptors. The parent stops
    /// relying on rings after a fork (see DaemonArbiter.stopReadingOnRunLoop), so a ring
    /// taken here costs it nothing. Async-signal-safe.
    public func detachAfterFork() {
        detached.store(true, ordering: .releasing)
        close(fileDescriptor)
    }
}
