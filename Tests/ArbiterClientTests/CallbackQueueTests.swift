import CoreFoundation
import Glibc
import RunLoopDispatch
import Synchronization
import Testing

/// A plain item: every one is kept, in order.
private struct Numbered: Coalescing {
    let number: Int
    static func add(_ item: Numbered, to waiting: inout [Numbered]) { waiting.append(item) }
}

/// What a thread that sees a change may count on: the session enqueues a change's
/// listener calls under the lock that guards the change and wakes the run loop after
/// releasing it. A thread that reads the change in between (a test polling a route, a
/// program's own thread) and then runs its run loop once, without waiting, must find the
/// calls: CI's loaded machine preempted the enqueuing thread between the two steps, and
/// test_listeners saw the route changed but no route-change call.
@Suite struct CallbackQueueTests {
    @Test func itemsEnqueuedButNotYetWokenAreFoundByARunLoopPass() throws {
        let delivered = Mutex<[Int]>([])
        let mode = kCFRunLoopDefaultMode!
        let queue = try #require(CallbackQueue<Numbered>(runLoop: CFRunLoopGetCurrent(), mode: mode) { item in
            delivered.withLock { $0.append(item.number) }
        })
        queue.enqueue([Numbered(number: 1), Numbered(number: 2)])

        var readable = pollfd(fd: queue.fileDescriptor, events: Int16(POLLIN), revents: 0)
        #expect(poll(&readable, 1, 0) == 1, "the descriptor is readable as soon as items are enqueued")

        // One pass that does not wait: only a source already signalled is handled.
        while CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0, true) == .handledSource {}
        #expect(delivered.withLock { $0 } == [1, 2])
        readable.revents = 0
        #expect(poll(&readable, 1, 0) == 0, "the descriptor is unreadable once the queue is empty")

        // wake() with nothing waiting wakes nothing and delivers nothing again.
        queue.wake()
        while CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0, true) == .handledSource {}
        #expect(delivered.withLock { $0 } == [1, 2])
    }

    /// The descriptor costs a system call per callback only once a program asks for it;
    /// asked for late, it is readable at once for what already waits, and follows the
    /// queue from then on.
    @Test func aDescriptorAskedForLateIsReadableForWhatWaits() throws {
        let queue = try #require(CallbackQueue<Numbered>(runLoop: CFRunLoopGetCurrent(), mode: kCFRunLoopDefaultMode!) { _ in })
        queue.enqueue([Numbered(number: 1)])
        var readable = pollfd(fd: queue.fileDescriptor, events: Int16(POLLIN), revents: 0)
        #expect(poll(&readable, 1, 0) == 1, "asked for after an item waits, the descriptor is readable")
        #expect(queue.drain() == 1)
        readable.revents = 0
        #expect(poll(&readable, 1, 0) == 0, "drained, it is not")
        queue.enqueue([Numbered(number: 2)])
        readable.revents = 0
        #expect(poll(&readable, 1, 0) == 1, "an item enqueued later makes it readable again")
        #expect(queue.drain() == 1)
    }
}
