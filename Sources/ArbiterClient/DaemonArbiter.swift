import ArbiterProtocol
import ArbiterSocket
import AudioSessionCore
import CDescriptors
import Glibc
import Locking
import POSIXSupport
import Synchronization

/// The session's side of `audiosessiond`: tells the daemon about the session's claim
/// and activations, and reports what the daemon decides for it.
///
/// Calls from the session (under its lock) only queue bytes and try one non-blocking
/// send; a thread of its own reads the socket, writes what is left, and reconnects when
/// the daemon dies — with back-off, starting a new daemon, and re-registering the
/// session's claim and active state, so the program does nothing.
///
/// Reading on the run loop: the thread is one wake-up more between the daemon and the
/// program's callback, and on a machine with few cores each wake-up of a sleeping
/// thread is the larger part of the latency. So when the program's run loop waits for
/// events and the daemon has the session's doorbell (`attachDoorbell`), the thread stops
/// watching the socket for data: the daemon rings the doorbell after writing, the run
/// loop wakes on it and reads the socket itself (`runLoopDidWake`, `readFromRunLoop`).
/// Whenever the run loop is not waiting — busy in a callout, run in another mode, or
/// never run at all — the thread reads as before, so the session's state never waits
/// for the program.
public final class DaemonArbiter: Arbiter, @unchecked Sendable {
    private struct State {
        var fd: Int32
        var outbox: [UInt8] = []
        var claim: SessionClaim?
        var active = false
        var handler: (@Sendable (ArbiterEvent) -> Void)?
        /// Events that arrived before `start` (the daemon's first state).
        var early: [ArbiterEvent] = []
        var stopping = false
        var spawnedDaemon: pid_t?
        /// The run loop's doorbell, handed to every connection; -1 until attached.
        var doorbell: Int32 = -1
        /// Whether the doorbell was sent on the current connection.
        var doorbellDelivered = false
        /// Whether the daemon said it keeps it: only then may the run loop read alone.
        var doorbellAccepted = false
        /// Whether the run loop waits on the doorbell now (between its observer's
        /// before-waiting and after-waiting).
        var runLoopWaiting = false
        /// False once the process has forked: a child running its copy of the run loop
        /// could take the rings (the wait set is shared), so the thread always reads.
        var runLoopMayRead = true
        /// The events the thread's epoll watches on the socket now.
        var interest: UInt32 = 0
    }
    /// The socket's reading side: one reader at a time (the thread or the run loop), so
    /// messages are decoded and reported in order.
    private struct Reading {
        var fd: Int32 = -1
        var decoder = FrameDecoder()
        /// The connection ended (end of stream, error, malformed message): the thread
        /// reconnects.
        var lost = false
        var buffer = [UInt8](repeating: 0, count: 16384)
    }
    private let state: Locked<State>
    private let reading = Locked(Reading())
    private let endpoint: ArbiterEndpoint
    private let daemonExecutable: String
    private let program: String
    /// Wakes the thread when bytes wait to be written, the connection is lost, or when
    /// shutting down.
    private let wakePipe: (read: Int32, write: Int32)
    /// What the thread waits on: the wake pipe and the socket.
    private let epoll: Int32
    private var thread: pthread_t?
    /// The connected socket, readable without the lock (a forked child may not lock).
    private let socketForFork = Atomic<Int32>(-1)
    /// Set once the session is wired (`start`): the run loop reads nothing before.
    private let started = Atomic<Bool>(false)

    /// How long a program waits for the daemon at initialisation or per reconnection
    /// attempt: the whole of connect, start and handshake, whatever signals arrive.
    public static let answerSeconds = 2.0

    /// Why the first connection failed, when it did: the session is then arbitrated
    /// alone until the thread reaches the daemon (tried with back-off).
    public private(set) var firstProblem: EndpointProblem?

    /// Connects (starting the daemon if nobody answers) and says hello, within
    /// `answerSeconds`. Throws only what waiting cannot cure (a runtime folder that is
    /// not the user's alone, a socket path too long): the caller then arbitrates
    /// in-process for good. A daemon that does not answer is tried again by the thread.
    public init(endpoint: ArbiterEndpoint, daemonExecutable: String, program: String) throws(EndpointProblem) {
        try endpoint.prepareDirectory()
        var pipeEnds: [Int32] = [-1, -1]
        guard DescriptorsPipe(&pipeEnds) == 0 else { throw .unreachable(Errno.current) }
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else {
            close(pipeEnds[0])
            close(pipeEnds[1])
            throw .unreachable(Errno.current)
        }
        self.endpoint = endpoint
        self.daemonExecutable = daemonExecutable
        self.program = program
        self.epoll = epoll
        wakePipe = (pipeEnds[0], pipeEnds[1])
        state = Locked(State(fd: -1))
        var wakeEvent = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(fd: wakePipe.read))
        _ = epoll_ctl(epoll, EPOLL_CTL_ADD, wakePipe.read, &wakeEvent)
        do throws(EndpointProblem) {
            try connectOnce(until: Deadline(secondsFromNow: Self.answerSeconds))
        } catch {
            if error.isPermanent {
                close(pipeEnds[0])
                close(pipeEnds[1])
                close(epoll)
                throw error
            }
            firstProblem = error
        }
    }

    /// One attempt: connect (starting the daemon if needed), hello, welcome; then the
    /// socket is the session's, what came with the welcome is reported (or kept for
    /// `start`), and the session's doorbell, claim and activation are sent.
    private func connectOnce(until deadline: Deadline) throws(EndpointProblem) {
        let hello = ArbiterMessage.hello(version: ArbiterMessage.version, pid: UInt32(getpid()), program: program,
                                         role: .session)
        let (fd, spawned, early) = try DaemonLauncher.greet(endpoint, executable: daemonExecutable, hello: hello,
                                                            until: deadline)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        // Under the reading lock: what came with the welcome is reported before
        // anything the run loop could read from the new connection.
        reading.withLock { r in
            r.decoder = FrameDecoder()
            r.lost = false
            let handler = state.withLock { s -> (@Sendable (ArbiterEvent) -> Void)? in
                s.fd = fd
                socketForFork.store(fd, ordering: .relaxed)
                if let spawned { s.spawnedDaemon = spawned }
                // The doorbell first (nothing is queued yet), then what the session is.
                Self.deliverDoorbell(&s)
                if let claim = s.claim { s.outbox += Self.message(for: claim).frame() }
                if s.active { s.outbox += ArbiterMessage.activate.frame() }
                Self.flush(&s)
                s.interest = Self.socketEvents(reading: true, writing: !s.outbox.isEmpty)
                var event = epoll_event(events: s.interest, data: epoll_data_t(fd: fd))
                _ = epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event)
                return s.handler
            }
            for message in early { handleFromDaemon(message, handler: handler) }
            r.fd = fd
        }
    }

    /// In the child of a fork: close the parent's connection, which would otherwise keep
    /// the parent's claim alive after the parent exits. Takes no lock, starts nothing.
    /// The epoll instance is shared with the parent: the child never touches it again
    /// (the run loop's doorbell is detached first, see Runtime).
    public func detachAfterFork() {
        started.store(false, ordering: .relaxed)
        let fd = socketForFork.load(ordering: .relaxed)
        if fd >= 0 { close(fd) }
        close(wakePipe.read)
        close(wakePipe.write)
        close(epoll)
    }

    deinit {
        close(wakePipe.read)
        close(wakePipe.write)
        close(epoll)
    }

    // MARK: The run loop's doorbell

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
    private static func deliverDoorbell(_ s: inout State) {
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

    private static func socketEvents(reading: Bool, writing: Bool) -> UInt32 {
        // A hang-up is always watched: the thread reconnects even while the run loop reads.
        EPOLLRDHUP.rawValue | (reading ? EPOLLIN.rawValue : 0) | (writing ? EPOLLOUT.rawValue : 0)
    }

    /// Makes the thread's epoll watch what it should now: data unless the run loop waits
    /// for it, room to write while bytes are queued. One system call, only on a change.
    private func updateInterest(_ s: inout State) {
        guard s.fd >= 0 else { return }
        let wanted = Self.socketEvents(reading: !s.runLoopWaiting, writing: !s.outbox.isEmpty)
        guard wanted != s.interest else { return }
        s.interest = wanted
        var event = epoll_event(events: wanted, data: epoll_data_t(fd: s.fd))
        _ = epoll_ctl(epoll, EPOLL_CTL_MOD, s.fd, &event)
    }

    // MARK: Arbiter

    public func start(reportingTo handler: @escaping @Sendable (ArbiterEvent) -> Void) {
        let early = state.withLock { s -> [ArbiterEvent] in
            s.handler = handler
            defer { s.early = [] }
            return s.early
        }
        for event in early { handler(event) }
        started.store(true, ordering: .releasing)
        let box = Unmanaged.passRetained(self)
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { context in
            let arbiter = Unmanaged<DaemonArbiter>.fromOpaque(context!).takeRetainedValue()
            arbiter.serve()
            return nil
        }, box.toOpaque())
        if created == 0 { self.thread = thread } else { box.release() }
    }

    public func claimChanged(_ claim: SessionClaim) -> [ArbiterEvent] {
        queue(Self.message(for: claim)) { $0.claim = claim }
        return []
    }

    public func activated() -> [ArbiterEvent] {
        queue(.activate) { $0.active = true }
        return []
    }

    public func deactivated(notifyOthers: Bool) -> [ArbiterEvent] {
        queue(.deactivate(notifyOthers: notifyOthers)) { $0.active = false }
        return []
    }

    public func shutDown() {
        state.withLock { $0.stopping = true; $0.handler = nil }
        wake()
        if let thread { pthread_join(thread, nil) }
        thread = nil
        // The run loop may still call in (its doorbell outlives this): it reads nothing.
        started.store(false, ordering: .releasing)
        reading.withLock { $0.fd = -1 }
        state.withLock { s in
            if s.fd >= 0 { close(s.fd) }
            s.fd = -1
        }
    }

    // MARK: System sounds that outlive the program

    /// A play of `path` on `device` started that the daemon finishes if this program
    /// dies first (CompletePlaybackIfAppDies).
    public func finishIfProgramDies(token: UInt32, path: String, device: String) {
        queue(.finishIfDies(token: token, path: path, device: device)) { _ in }
    }

    /// That play was heard to its end: nothing to finish.
    public func playFinished(token: UInt32) {
        queue(.finished(token: token)) { _ in }
    }

    // MARK: Sending

    /// A daemon that reads nothing (stopped, stuck) gets this much, then the connection
    /// is given up: the reconnection registers the session's current state instead.
    private static let outboxLimit = 256 * 1024

    private func queue(_ message: ArbiterMessage, remember: (inout State) -> Void) {
        let leftover = state.withLock { s -> Bool in
            remember(&s)
            guard s.fd >= 0 else { return false }  // reconnecting: re-registration covers it
            s.outbox += message.frame()
            Self.flush(&s)
            if s.outbox.count > Self.outboxLimit {
                s.outbox = []
                // The thread sees the hang-up and reconnects; the descriptor stays its own.
                shutdown(s.fd, Int32(SHUT_RDWR))
            }
            return !s.outbox.isEmpty
        }
        // The thread writes the rest when the socket takes it.
        if leftover { wake() }
    }

    /// Sends what the socket takes now, without blocking.
    private static func flush(_ s: inout State) {
        while !s.outbox.isEmpty {
            let n = s.outbox.withUnsafeBytes { send(s.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if n > 0 { s.outbox.removeFirst(n); continue }
            if n < 0 && errno == EINTR { continue }
            return
        }
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakePipe.write, &byte, 1)
    }

    // MARK: The thread

    private func serve() {
        var events = [epoll_event](repeating: epoll_event(), count: 4)
        var drain = [UInt8](repeating: 0, count: 64)
        // What came before `start` (the run loop reads nothing until then, and may be
        // waiting on its doorbell with the data left to it).
        readAvailable()
        // Not connected yet: the daemon did not answer at initialisation.
        if state.withLock({ $0.fd < 0 }) {
            guard connectAgain() else { return }
        }
        while true {
            if reading.withLock({ $0.lost }) {
                reportLoss()
                guard connectAgain() else { return }
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
    private func readAvailable() -> Bool {
        reading.withLock { r in
            guard r.fd >= 0 else { return true }  // reconnecting
            while !r.lost {
                let fd = r.fd
                let n = r.buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if n < 0 && errno == EINTR { continue }
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
    private func handleFromDaemon(_ message: ArbiterMessage, handler: (@Sendable (ArbiterEvent) -> Void)?) {
        if case .doorbellAnswer(let accepted) = message {
            state.withLock { s in
                s.doorbellAccepted = accepted
                if !accepted { s.runLoopWaiting = false; updateInterest(&s) }
            }
            return
        }
        guard let event = Self.event(for: message) else { return }
        if let handler { handler(event) } else { state.withLock { $0.early.append(event) } }
    }

    static func message(for claim: SessionClaim) -> ArbiterMessage {
        var traits: ClaimTraits = []
        if claim.mixes { traits.insert(.mixes) }
        if claim.ducks { traits.insert(.ducks) }
        if claim.output { traits.insert(.output) }
        if claim.input { traits.insert(.input) }
        return .claim(category: claim.category, mode: claim.mode, traits: traits)
    }

    static func event(for message: ArbiterMessage) -> ArbiterEvent? {
        switch message {
        case .interruptionBegan: return .interruptionBegan
        case .interruptionEnded(let resume): return .interruptionEnded(shouldResume: resume)
        case .otherAudio(let playing): return .otherAudioChanged(playing: playing)
        case .ducked(let ducked): return .duckedChanged(ducked)
        case .systemState(let interrupting): return .systemInterruptionChanged(interrupting)
        case .silentSwitchState(let on): return .silentSwitchChanged(on)
        case .serverVolume(let volume): return .serverVolumeChanged(volume)
        default: return nil
        }
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
        let handler = state.withLock { s -> (@Sendable (ArbiterEvent) -> Void)? in
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
            if let pid = s.spawnedDaemon { DaemonLauncher.reapIfExited(pid) }
            return s.handler
        }
        handler?(.serverDied(sessionSurvives: true))
        handler?(.otherAudioChanged(playing: false))
        handler?(.systemInterruptionChanged(false))
        handler?(.silentSwitchChanged(false))
        handler?(.serverVolumeChanged(nil))
    }

    /// Finds or starts a daemon and registers the session again, with back-off (10 ms
    /// doubling to `longestPause`). Returns false when shutting down. Whatever the
    /// problem — no daemon, one that does not answer (stopped), a folder that is not
    /// safe now — the session stays arbitrated alone meanwhile and joins when it can.
    private func connectAgain() -> Bool {
        var pause: UInt32 = 10_000
        var lastProblem: EndpointProblem?
        while !state.withLock({ $0.stopping }) {
            do throws(EndpointProblem) {
                try connectOnce(until: Deadline(secondsFromNow: Self.answerSeconds))
                if (lastProblem != nil || firstProblem != nil) && Self.logsProblems {
                    fputs("AudioToolbox: audiosessiond answers again: this program's session is arbitrated with the others\n",
                          stderr)
                }
                return true
            } catch {
                if error != lastProblem && Self.logsProblems {
                    fputs("AudioToolbox: \(error); retrying\n", stderr)
                }
                lastProblem = error
            }
            sleepInterruptibly(microseconds: pause)
            pause = min(pause * 2, Self.longestPause)
        }
        return false
    }

    /// The longest pause between attempts to reach the daemon.
    static let longestPause: UInt32 = 2_000_000
    static let logsProblems = getenv("AUDIOTOOLBOX_LOG").map { String(cString: $0) != "" } ?? false

    /// Waits on the wake pipe, so shutting down does not wait for the pause to end.
    private func sleepInterruptibly(microseconds: UInt32) {
        var entry = pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0)
        _ = poll(&entry, 1, Int32(microseconds / 1000))
        var drain = [UInt8](repeating: 0, count: 64)
        while read(wakePipe.read, &drain, drain.count) > 0 {}
    }
}
