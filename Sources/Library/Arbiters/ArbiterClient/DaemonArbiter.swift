import ArbiterProtocol
import ArbiterSocket
import ArbiterVocabulary
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
    struct State {
        var fd: Int32
        var outbox: [UInt8] = []
        var claim: SessionClaim?
        /// Whether the session is active as far as the daemon knows: what a
        /// reconnection registers. An interruption makes it inactive.
        var active = false
        /// Interrupted, its End not come yet.
        var interrupted = false
        /// Plays the daemon is to finish if the program dies, sent again to a new daemon.
        var outliving: [UInt32: (path: String, device: String)] = [:]
        var handler: (@Sendable (ArbiterEvent) -> Void)?
        /// Events that arrived before `start` (the daemon's first state).
        var early: [ArbiterEvent] = []
        var stopping = false
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
    struct Reading {
        var fd: Int32 = -1
        var decoder = FrameDecoder()
        /// The connection ended (end of stream, error, malformed message): the thread
        /// reconnects.
        var lost = false
        var buffer = [UInt8](repeating: 0, count: 16384)
    }
    let state: Locked<State>
    let reading = Locked(Reading())
    let endpoint: ArbiterEndpoint
    let daemonExecutable: String
    let program: String
    /// Wakes the thread when bytes wait to be written, the connection is lost, or when
    /// shutting down.
    let wakePipe: (read: Int32, write: Int32)
    /// What the thread waits on: the wake pipe and the socket.
    let epoll: Int32
    var thread: pthread_t?
    /// The connected socket, readable without the lock (a forked child may not lock).
    let socketForFork = Atomic<Int32>(-1)
    /// Set once the session is wired (`start`): the run loop reads nothing before.
    let started = Atomic<Bool>(false)

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
    func connectOnce(until deadline: Deadline) throws(EndpointProblem) {
        let hello = ArbiterMessage.hello(version: ArbiterMessage.version, pid: UInt32(getpid()), program: program,
                                         role: .session)
        let (fd, early, decoder) = try DaemonLauncher.greet(endpoint, executable: daemonExecutable, hello: hello,
                                                            until: deadline)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        // Under the reading lock: what came with the welcome is reported before
        // anything the run loop could read from the new connection.
        reading.withLock { r in
            r.decoder = decoder  // in step with the stream: it may hold part of a frame
            r.lost = false
            let handler = state.withLock { s -> (@Sendable (ArbiterEvent) -> Void)? in
                s.fd = fd
                socketForFork.store(fd, ordering: .relaxed)
                // The doorbell first (nothing is queued yet), then what the session is.
                Self.deliverDoorbell(&s)
                if let claim = s.claim { s.outbox += ArbiterMessage(claim: claim).frame() }
                if s.active { s.outbox += ArbiterMessage.activate.frame() }
                for (token, play) in s.outliving.sorted(by: { $0.key < $1.key }) {
                    s.outbox += ArbiterMessage.finishIfDies(token: token, path: play.path, device: play.device).frame()
                }
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
        queue(ArbiterMessage(claim: claim)) { $0.claim = claim }
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
        queue(.finishIfDies(token: token, path: path, device: device)) { $0.outliving[token] = (path, device) }
    }

    /// That play was heard to its end: nothing to finish.
    public func playFinished(token: UInt32) {
        queue(.finished(token: token)) { $0.outliving[token] = nil }
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
    static func flush(_ s: inout State) {
        while !s.outbox.isEmpty {
            let fd = s.fd
            let n = s.outbox.withUnsafeBytes { raw in
                retryingInterrupts { send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            }
            guard n > 0 else { return }
            s.outbox.removeFirst(n)
        }
    }

    func wake() {
        var byte: UInt8 = 1
        _ = write(wakePipe.write, &byte, 1)
    }

}
