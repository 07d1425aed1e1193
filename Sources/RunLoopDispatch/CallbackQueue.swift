import CoreFoundation
import Glibc
import Locking
import Synchronization

/// Queues callbacks and runs them on the client's CFRunLoop, or on whichever thread
/// drains the queue through the pollable descriptor.
///
/// Posting never runs user code: it appends, signals the run-loop source, wakes the run
/// loop and makes the eventfd readable. Draining takes the whole batch out under the
/// lock and runs it with no lock held, so callbacks may post, drain or call the API.
///
/// The descriptor is the read end of a non-blocking pipe holding at most one byte: a
/// byte is written only when the queue goes from idle to signalled.
public final class CallbackQueue: @unchecked Sendable {
    public typealias Work = () -> Void

    private let pending = Locked<[Work]>([])
    private let readFD: Int32
    private let writeFD: Int32
    private let signalled = Atomic<Bool>(false)
    // CF objects are thread-safe for the calls made here (signal, wake up).
    private let runLoop: CFRunLoop
    private var source: CFRunLoopSource!

    /// Attaches a queue to `runLoop` in `mode`.
    public init(runLoop: CFRunLoop, mode: CFString) {
        self.runLoop = runLoop
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            }
        }
        readFD = ends[0]
        writeFD = ends[1]
        var context = CFRunLoopSourceContext()
        context.version = 0
        context.info = Unmanaged.passUnretained(self).toOpaque()
        context.perform = { info in
            guard let info else { return }
            _ = Unmanaged<CallbackQueue>.fromOpaque(info).takeUnretainedValue().drain()
        }
        source = CFRunLoopSourceCreate(nil, 0, &context)
        CFRunLoopAddSource(runLoop, source, mode)
    }

    deinit {
        CFRunLoopSourceInvalidate(source)
        close(readFD)
        close(writeFD)
    }

    /// The descriptor that polls readable while work is pending.
    public var fileDescriptor: Int32 { readFD }

    /// Queues `work` in order and wakes whoever will run it.
    public func post(_ work: [Work]) {
        guard !work.isEmpty else { return }
        pending.withLock { $0.append(contentsOf: work) }
        CFRunLoopSourceSignal(source)
        CFRunLoopWakeUp(runLoop)
        if !signalled.exchange(true, ordering: .acquiringAndReleasing) {
            var byte: UInt8 = 1
            _ = write(writeFD, &byte, 1)
        }
    }

    /// Runs every queued item on the calling thread; returns how many ran.
    @discardableResult
    public func drain() -> Int {
        if signalled.exchange(false, ordering: .acquiringAndReleasing) {
            var byte: UInt8 = 0
            _ = read(readFD, &byte, 1)
        }
        var ran = 0
        while true {
            let batch = pending.withLock { queue -> [Work] in
                defer { queue.removeAll(keepingCapacity: true) }
                return queue
            }
            if batch.isEmpty { return ran }
            for work in batch { work() }
            ran += batch.count
        }
    }
}
