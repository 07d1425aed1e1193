import ArbiterProtocol
import ArbiterSocket
import AudioSessionCore
import Glibc
import Locking
import Synchronization

/// The session's side of `audiosessiond`: tells the daemon about the session's claim
/// and activations, and reports what the daemon decides for it.
///
/// Calls from the session (under its lock) only queue bytes and try one non-blocking
/// send; a thread of its own reads the socket, writes what is left, and reconnects when
/// the daemon dies — with back-off, starting a new daemon, and re-registering the
/// session's claim and active state, so the program does nothing.
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
    }
    private let state: Locked<State>
    private let endpoint: ArbiterEndpoint
    private let daemonExecutable: String
    private let program: String
    /// Wakes the thread when bytes wait to be written or when shutting down.
    private let wakePipe: (read: Int32, write: Int32)
    private var thread: pthread_t?
    /// The connected socket, readable without the lock (a forked child may not lock).
    private let socketForFork = Atomic<Int32>(-1)

    /// Connects (starting the daemon if nobody answers) and says hello. Nil when no
    /// daemon can be reached or started: the caller then arbitrates in-process.
    public init?(endpoint: ArbiterEndpoint, daemonExecutable: String, program: String) {
        guard endpoint.prepareDirectory(),
              let (fd, spawned) = DaemonLauncher.startAndConnect(endpoint, executable: daemonExecutable)
        else { return nil }
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { close(fd); return nil }
        for end in pipeEnds {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        self.endpoint = endpoint
        self.daemonExecutable = daemonExecutable
        self.program = program
        wakePipe = (pipeEnds[0], pipeEnds[1])
        state = Locked(State(fd: fd, spawnedDaemon: spawned))
        guard handshake(fd) else {
            close(fd)
            close(pipeEnds[0])
            close(pipeEnds[1])
            return nil
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        socketForFork.store(fd, ordering: .relaxed)
    }

    /// In the child of a fork: close the parent's connection, which would otherwise keep
    /// the parent's claim alive after the parent exits. Takes no lock, starts nothing.
    public func detachAfterFork() {
        let fd = socketForFork.load(ordering: .relaxed)
        if fd >= 0 { close(fd) }
        close(wakePipe.read)
        close(wakePipe.write)
    }

    deinit {
        close(wakePipe.read)
        close(wakePipe.write)
    }

    /// Hello, then the welcome (blocking briefly: the daemon answers at once).
    private func handshake(_ fd: Int32) -> Bool {
        let hello = ArbiterMessage.hello(version: ArbiterMessage.version, pid: UInt32(getpid()), program: program,
                                         role: .session)
        guard SocketIO.writeAll(fd, hello.frame()) else { return false }
        var decoder = FrameDecoder()
        while true {
            guard let bytes = SocketIO.readSome(fd, timeoutMilliseconds: 2000), !bytes.isEmpty else { return false }
            decoder.feed(bytes)
            do throws(ProtocolError) {
                while let message = try decoder.next() {
                    if case .welcome = message {
                        // What came with the welcome (the daemon's first state) is kept for `start`.
                        while let next = try decoder.next() { keepEarly(next) }
                        return true
                    }
                    guard case .failure(let reason) = message else { continue }
                    fputs("AudioToolbox: audiosessiond refused the session: \(reason)\n", stderr)
                    return false
                }
            } catch {
                return false
            }
        }
    }

    private func keepEarly(_ message: ArbiterMessage) {
        if let event = Self.event(for: message) { state.withLock { $0.early.append(event) } }
    }

    // MARK: Arbiter

    public func start(reportingTo handler: @escaping @Sendable (ArbiterEvent) -> Void) {
        let early = state.withLock { s -> [ArbiterEvent] in
            s.handler = handler
            defer { s.early = [] }
            return s.early
        }
        for event in early { handler(event) }
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
        var decoder = FrameDecoder()
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let (fd, wantsWrite, stopping) = state.withLock { ($0.fd, !$0.outbox.isEmpty, $0.stopping) }
            if stopping { return }
            var fds = [pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: fd, events: Int16(POLLIN | (wantsWrite ? POLLOUT : 0)), revents: 0)]
            if poll(&fds, 2, -1) < 0 { continue }
            if fds[0].revents != 0 {
                while read(wakePipe.read, &buffer, buffer.count) > 0 {}
            }
            if fds[1].revents & Int16(POLLOUT) != 0 { state.withLock { Self.flush(&$0) } }
            guard fds[1].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            var lost = n <= 0
            if n > 0 {
                decoder.feed(buffer[0..<n])
                do throws(ProtocolError) {
                    while let message = try decoder.next() { report(message) }
                } catch {
                    lost = true
                }
            }
            if lost {
                decoder = FrameDecoder()
                guard reconnect() else { return }
            }
        }
    }

    private func report(_ message: ArbiterMessage) {
        guard let event = Self.event(for: message) else { return }
        state.withLock { $0.handler }?(event)
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

    /// The daemon is gone: tell the session (ServerDied), then start or find a new one
    /// and register again, with back-off. Returns false when shutting down.
    private func reconnect() -> Bool {
        let handler = state.withLock { s -> (@Sendable (ArbiterEvent) -> Void)? in
            if s.fd >= 0 { close(s.fd) }
            s.fd = -1
            socketForFork.store(-1, ordering: .relaxed)
            s.outbox = []
            if let pid = s.spawnedDaemon { DaemonLauncher.reapIfExited(pid) }
            return s.handler
        }
        handler?(.serverDied(sessionSurvives: true))
        // Nobody else interrupts this session now; the new daemon says what holds.
        handler?(.otherAudioChanged(playing: false))
        handler?(.systemInterruptionChanged(false))
        handler?(.silentSwitchChanged(false))
        handler?(.serverVolumeChanged(nil))
        var pause: UInt32 = 10_000
        while !state.withLock({ $0.stopping }) {
            if let (fd, spawned) = DaemonLauncher.startAndConnect(endpoint, executable: daemonExecutable),
               handshake(fd) {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                let early = state.withLock { s -> [ArbiterEvent] in
                    s.fd = fd
                    socketForFork.store(fd, ordering: .relaxed)
                    if let spawned { s.spawnedDaemon = spawned }
                    // Register again what the session is.
                    if let claim = s.claim { s.outbox += Self.message(for: claim).frame() }
                    if s.active { s.outbox += ArbiterMessage.activate.frame() }
                    Self.flush(&s)
                    defer { s.early = [] }
                    return s.early
                }
                for event in early { state.withLock { $0.handler }?(event) }
                return true
            }
            usleep(pause)
            pause = min(pause * 2, 1_000_000)
        }
        return false
    }
}
