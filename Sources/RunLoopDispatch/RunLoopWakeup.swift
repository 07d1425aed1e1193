import CoreFoundation
import Glibc
import Synchronization

/// Wakes whoever delivers callbacks: a version-0 `CFRunLoopSource` on the program's run
/// loop and mode, and a pollable descriptor for programs that run no CF run loop.
///
/// The descriptor is the read end of a non-blocking pipe. `CallbackQueue` makes it
/// readable and unreadable under its own lock (`markReadable`, `markUnreadable`), so the
/// descriptor is readable exactly while callbacks wait; the run-loop source is signalled
/// outside that lock.
final class RunLoopWakeup: @unchecked Sendable {
    /// The descriptor that polls readable while callbacks wait.
    let fileDescriptor: Int32
    private let writeEnd: Int32
    /// Whether the pipe holds a byte. Guarded by the queue's lock.
    private var readable = false
    /// Set in the child of `fork`: this wakeup, and what it wakes, belong to the parent.
    private let detached = Atomic<Bool>(false)
    // CF objects are thread-safe for the calls made here (signal, wake up).
    private let runLoop: CFRunLoop
    private var source: CFRunLoopSource!
    private let onSignal: () -> Void

    /// Attaches to `runLoop` in `mode`; the run loop calls `onSignal` after a
    /// `signalRunLoop`. Nil when the process has no descriptors left for the pipe.
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

    /// Makes the run loop call `onSignal`.
    func signalRunLoop() {
        guard !isDetached else { return }
        CFRunLoopSourceSignal(source)
        CFRunLoopWakeUp(runLoop)
    }

    /// Makes the descriptor readable. Called under the queue's lock.
    func markReadable() {
        guard !readable, !isDetached else { return }
        readable = true
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Makes the descriptor unreadable. Called under the queue's lock.
    func markUnreadable() {
        guard readable, !isDetached else { return }
        readable = false
        var bytes = (UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &bytes, { read(fileDescriptor, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// In the child of `fork`: closes the child's copies of the pipe (shared with the
    /// parent: a byte written here would make the parent's descriptor readable) and
    /// never signals again. Only async-signal-safe work: the child may have been forked
    /// from any state.
    func detachAfterFork() {
        detached.store(true, ordering: .releasing)
        // The numbers may be reused by the child's own session: never touched again.
        Glibc.close(fileDescriptor)
        Glibc.close(writeEnd)
    }
}
