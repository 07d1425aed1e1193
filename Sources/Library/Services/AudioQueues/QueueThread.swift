import AudioStreams
import Dispatch
import Glibc
import Synchronization

/// What a queue tells the program, in order, from its own thread: a played buffer, a
/// recorded one, a property that changed. The ABI layer calls the program's callbacks
/// there, or hands them to the program's run loop.
public enum QueueEvent: @unchecked Sendable {
    case output(QueueBuffer)
    case input(QueueBuffer, packets: Int, descriptions: UnsafeMutableRawPointer?, sampleTime: Double, hostTime: UInt64)
    case property(UInt32)
}

/// A queue's own thread: the library thread its callbacks run on when it has no run
/// loop. It is woken by the real-time thread (a semaphore signal, which never blocks),
/// frees what was played, fills recorded buffers and reports each event in order.
final class QueueThread: @unchecked Sendable {
    let wakeups = DispatchSemaphore(value: 0)
    let quit = Atomic<Bool>(false)
    let exited = DispatchSemaphore(value: 0)
    let threadID = Atomic<Int>(0)

    var isCurrent: Bool { threadID.load(ordering: .acquiring) == Int(bitPattern: UInt(pthread_self())) }

    /// Starts the loop: `turn` runs after every wake-up until `quit` is set.
    func start(turn: @escaping () -> Void) -> Bool {
        IOThread.spawn(name: "AT queue") { [self] in
            threadID.store(Int(bitPattern: UInt(pthread_self())), ordering: .releasing)
            while true {
                wakeups.wait()
                if quit.load(ordering: .acquiring) { break }
                turn()
                if quit.load(ordering: .acquiring) { break }
            }
            exited.signal()
        }
    }

    @inline(__always)
    func wake() { wakeups.signal() }

    /// Stops the loop; waits for it unless called from it (then it ends after the
    /// current callback returns).
    func stop() {
        quit.store(true, ordering: .releasing)
        wakeups.signal()
        if !isCurrent { _ = exited.wait(timeout: .now() + .seconds(5)) }
    }
}
