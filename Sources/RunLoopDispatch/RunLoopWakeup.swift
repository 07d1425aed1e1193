import CoreFoundation
import Glibc
import Synchronization

/// Wakes whoever delivers callbacks: a version-0 `CFRunLoopSource` on the program's run
/// loop and mode, and a pollable descriptor for programs that run no CF run loop.
///
/// The descriptor is the read end of a non-blocking pipe: `signal` makes it readable
/// (one byte, however often it is called before the next `acknowledge`), and
/// `acknowledge` empties it of whatever was written, so no leftover byte can keep it
/// readable.
final class RunLoopWakeup: @unchecked Sendable {
    /// The descriptor that polls readable while a signal is unacknowledged.
    let fileDescriptor: Int32
    private let writeEnd: Int32
    private let signalled = Atomic<Bool>(false)
    /// Set in the child of `fork`: this wakeup, and what it wakes, belong to the parent.
    private let detached = Atomic<Bool>(false)
    // CF objects are thread-safe for the calls made here (signal, wake up).
    private let runLoop: CFRunLoop
    private var source: CFRunLoopSource!
    private let onSignal: () -> Void

    /// Attaches to `runLoop` in `mode`; the run loop calls `onSignal` after a `signal`.
    /// Nil when the process has no descriptors left for the pipe.
    init?(runLoop: CFRunLoop, mode: CFString, onSignal: @escaping () -> Void) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        fileDescriptor = ends[0]
        writeEnd = ends[1]
        self.runLoop = runLoop
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
        if !isDetached {
            Glibc.close(fileDescriptor)
            Glibc.close(writeEnd)
        }
    }

    var isDetached: Bool { detached.load(ordering: .acquiring) }

    func signal() {
        guard !isDetached else { return }
        CFRunLoopSourceSignal(source)
        CFRunLoopWakeUp(runLoop)
        if !signalled.exchange(true, ordering: .acquiringAndReleasing) {
            var byte: UInt8 = 1
            _ = write(writeEnd, &byte, 1)
        }
    }

    /// Makes the descriptor unreadable until the next `signal`.
    func acknowledge() {
        guard !isDetached else { return }
        // Always read, flag or not: a signal racing with this may write after its flag
        // was cleared, and a skipped read would leave the descriptor readable with
        // nothing to deliver. The flag only spares `signal` its write.
        signalled.store(false, ordering: .releasing)
        var bytes = (UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &bytes, { read(fileDescriptor, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// In the child of `fork`: this wakeup belongs to the parent's session. Closes the
    /// child's copies of the pipe (shared with the parent: a byte written here would
    /// make the parent's descriptor readable) and never signals again. Only
    /// async-signal-safe work: the child may have been forked from any state.
    func detachAfterFork() {
        detached.store(true, ordering: .releasing)
        // The numbers may be reused by the child's own session: never touched again.
        Glibc.close(fileDescriptor)
        Glibc.close(writeEnd)
    }
}
