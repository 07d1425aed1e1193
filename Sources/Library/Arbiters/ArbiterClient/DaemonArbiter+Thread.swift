import ArbiterProtocol
import ArbiterSocket
import ArbiterVocabulary
import AudioSessionCore
import CDescriptors
import Glibc
import Locking
import POSIXSupport
import Synchronization
import Settings

/// The connection's own thread: reads and writes whenever the run loop does not, and
/// reconnects (with back-off) when the daemon goes away or never answered.
extension DaemonArbiter {
    func serve() {
        var events = [epoll_event](repeating: epoll_event(), count: 4)
        var drain = [UInt8](repeating: 0, count: 64)
        // What came before `start` (the run loop reads nothing until then, and may be
        // waiting on its doorbell with the data left to it).
        readAvailable()
        // Not connected yet: the daemon did not answer at initialisation.
        if state.withLock({ $0.fd < 0 }) {
            guard connectAgain(after: firstProblem) else { return }
        }
        while true {
            if reading.withLock({ $0.lost }) {
                reportLoss()
                guard connectAgain(after: nil) else { return }
            }
            let ready = epoll_wait(epoll, &events, Int32(events.count), -1)
            if state.withLock({ $0.stopping }) { return }
            if ready < 0 { continue }
            var socketReady: UInt32 = 0
            for event in events.prefix(Int(ready)) {
                if event.data.fd == wakePipe.read {
                    while read(wakePipe.read, &drain, drain.count) > 0 {}
                } else {
                    socketReady |= event.events
                }
            }
            // Queued bytes first (a wake-up may mean that too); then the interest follows
            // what is left.
            state.withLock { s in
                Self.flush(&s)
                Self.deliverDoorbell(&s)
                updateInterest(&s)
            }
            if socketReady & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 {
                readAvailable()
            }
        }
    }

    /// Reads what the socket holds now and reports each message, in order, whoever calls
    /// it (the thread or the run loop). False once the connection is lost.
    @discardableResult
    func readAvailable() -> Bool {
        reading.withLock { r in
            guard r.fd >= 0 else { return true }  // reconnecting
            while !r.lost {
                let fd = r.fd
                let n = r.buffer.withUnsafeMutableBytes { raw in
                    retryingInterrupts { recv(fd, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT)) }
                }
                if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { break }
                guard n > 0 else { r.lost = true; break }
                r.decoder.feed(r.buffer[0..<n])
                do throws(ProtocolError) {
                    while let message = try r.decoder.next() { report(message) }
                } catch {
                    r.lost = true
                }
                // A short read took all there was; anything newer rings again (or wakes
                // the thread), so no system call is spent to hear "nothing more".
                if n < r.buffer.count { break }
            }
            return !r.lost
        }
    }

    private func report(_ message: ArbiterMessage) {
        handleFromDaemon(message, handler: state.withLock { $0.handler })
    }

    /// The daemon's answer about the doorbell is the arbiter's own business; the rest
    /// goes to the session (kept for `start` when it has not started yet).
    func handleFromDaemon(_ message: ArbiterMessage, handler: (@Sendable (ArbiterEvent) -> Void)?) {
        if case .doorbellAnswer(let accepted) = message {
            state.withLock { s in
                s.doorbellAccepted = accepted
                if !accepted { s.runLoopWaiting = false; updateInterest(&s) }
            }
            return
        }
        guard let event = ArbiterEvent(message) else { return }
        state.withLock { s in
            switch event {
            case .interruptionBegan:
                s.active = false
                s.interrupted = true
            case .interruptionEnded: s.interrupted = false
            default: break
            }
        }
        if let handler { handler(event) } else { state.withLock { $0.early.append(event) } }
    }

    /// The daemon is gone: forget the connection and tell the session (ServerDied);
    /// nobody interrupts it now, the next daemon says what holds.
    private func reportLoss() {
        // Nobody reads the old connection any more.
        reading.withLock { r in
            r.fd = -1
            r.decoder = FrameDecoder()
            r.lost = false
        }
        let (handler, wasInterrupted) = state.withLock { s -> ((@Sendable (ArbiterEvent) -> Void)?, Bool) in
            defer { s.interrupted = false }
            if s.fd >= 0 {
                _ = epoll_ctl(epoll, EPOLL_CTL_DEL, s.fd, nil)
                close(s.fd)
            }
            s.fd = -1
            s.doorbellDelivered = false
            s.doorbellAccepted = false
            s.runLoopWaiting = false
            socketForFork.store(-1, ordering: .relaxed)
            s.outbox = []
            return (s.handler, s.interrupted)
        }
        handler?(.serverDied(sessionSurvives: true))
        // Whoever held the interruption was known to that daemon alone: it ends here. No
        // hint to resume: the holder may well still be playing, and will say so.
        if wasInterrupted { handler?(.interruptionEnded(shouldResume: false)) }
        handler?(.otherAudioChanged(playing: false))
        handler?(.systemInterruptionChanged(false))
        handler?(.silentSwitchChanged(false))
        handler?(.serverVolumeChanged(nil))
    }

    /// Finds or starts a daemon and registers the session again, with back-off (10 ms
    /// doubling to `longestPause`). Returns false when shutting down. Whatever the
    /// problem — no daemon, one that does not answer (stopped), a folder that is not
    /// safe now — the session stays arbitrated alone meanwhile and joins when it can.
    /// `problem`: why the last connection could not be had, if it could not (the
    /// first one, at initialisation): the session then hears of the join.
    private func connectAgain(after problem: EndpointProblem?) -> Bool {
        var pause: UInt32 = 10_000
        var lastProblem = problem
        while !state.withLock({ $0.stopping }) {
            do throws(EndpointProblem) {
                try connectOnce(until: Deadline(secondsFromNow: Self.answerSeconds))
                if lastProblem != nil {
                    Log.notice("audiosessiond answers again: this program's session is arbitrated with the others")
                }
                return true
            } catch {
                if error != lastProblem { Log.notice("\(error); retrying") }
                lastProblem = error
            }
            sleepInterruptibly(microseconds: pause)
            pause = min(pause * 2, Self.longestPause)
        }
        return false
    }

    /// The longest pause between attempts to reach the daemon.
    static let longestPause: UInt32 = 2_000_000

    /// Waits on the wake pipe, so shutting down does not wait for the pause to end.
    private func sleepInterruptibly(microseconds: UInt32) {
        var entry = pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0)
        _ = poll(&entry, 1, Int32(microseconds / 1000))
        var drain = [UInt8](repeating: 0, count: 64)
        while read(wakePipe.read, &drain, drain.count) > 0 {}
    }
}
