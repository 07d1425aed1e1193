import ArbiterProtocol
import ArbiterSocket
import AudioSessionCore
import CDescriptors
import Glibc
import Locking
import POSIXSupport
import Synchronization

/// The run loop's side of the daemon connection: the doorbell it waits on, and when
/// it reads the socket instead of the thread (see DaemonArbiter).
extension DaemonArbiter {
    /// Hands `doorbell` (the ringing end of the doorbell the program's run loop waits
    /// on) to the daemon, now and after every reconnection. The caller keeps it open.
    public func attachDoorbell(_ doorbell: Int32) {
        state.withLock { s in
            s.doorbell = doorbell
            Self.deliverDoorbell(&s)
        }
    }

    /// Sends the doorbell on the current connection, once, when nothing is queued before
    /// it (the descriptor travels with the first byte of its message: it must not
    /// overtake queued bytes; the thread tries again once they are out). Until then the
    /// thread simply keeps reading.
    static func deliverDoorbell(_ s: inout State) {
        guard s.doorbell >= 0, s.fd >= 0, !s.doorbellDelivered else { return }
        flush(&s)
        guard s.outbox.isEmpty else { return }
        s.doorbellDelivered = SocketIO.sendPassing(s.doorbell, on: s.fd, ArbiterMessage.doorbell.frame())
    }

    /// The run loop is about to wait (its doorbell among what it waits on): the thread
    /// leaves the data to it.
    public func runLoopWillWait() {
        state.withLock { s in
            guard s.doorbellAccepted, s.runLoopMayRead else { return }
            s.runLoopWaiting = true
            updateInterest(&s)
        }
    }

    /// The run loop woke, for its doorbell or for anything else: it reads what came (so
    /// the thread is not woken for it), then the thread watches the socket again for
    /// as long as the run loop does other work.
    public func runLoopDidWake() {
        readFromRunLoop()
        state.withLock { s in
            guard s.runLoopWaiting else { return }
            s.runLoopWaiting = false
            updateInterest(&s)
        }
    }

    /// In the parent, after a fork: from now on the thread reads whenever data comes,
    /// waiting run loop or not (a child may run the run loop's copy and take the rings:
    /// its wait set is this process's). The run loop still reads what it finds.
    public func stopReadingOnRunLoop() {
        state.withLock { s in
            s.runLoopMayRead = false
            s.runLoopWaiting = false
            updateInterest(&s)
        }
    }

    /// The doorbell rang (or rings were taken): reads and reports what the socket holds,
    /// on the run loop's thread.
    public func readFromRunLoop() {
        guard started.load(ordering: .acquiring) else { return }
        if !readAvailable() { wake() }  // the thread reconnects
    }

    static func socketEvents(reading: Bool, writing: Bool) -> UInt32 {
        // A hang-up is always watched: the thread reconnects even while the run loop reads.
        EPOLLRDHUP.rawValue | (reading ? EPOLLIN.rawValue : 0) | (writing ? EPOLLOUT.rawValue : 0)
    }

    /// Makes the thread's epoll watch what it should now: data unless the run loop waits
    /// for it, room to write while bytes are queued. One system call, only on a change.
    func updateInterest(_ s: inout State) {
        guard s.fd >= 0 else { return }
        let wanted = Self.socketEvents(reading: !s.runLoopWaiting, writing: !s.outbox.isEmpty)
        guard wanted != s.interest else { return }
        s.interest = wanted
        var event = epoll_event(events: wanted, data: epoll_data_t(fd: s.fd))
        _ = epoll_ctl(epoll, EPOLL_CTL_MOD, s.fd, &event)
    }

}
