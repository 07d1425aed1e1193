import ArbiterProtocol
import ArbiterSocket
import Arbitration
import CDescriptors
import Glibc
import POSIXSupport

/// The daemon: one thread, one epoll loop, the arbitration state and the connections.
///
/// What any peer can make it hold is bounded: bytes queued for a connection
/// (`outboxLimit`, checked as they are queued), connections that have not said hello
/// (`helloSeconds`, `maximumWaitingForHello`: the oldest goes first), bytes read from one
/// connection per turn (`readsPerTurn`), log lines (Log). At its descriptor limit it
/// stops accepting for a moment instead of spinning on a listener it cannot serve.
final class Server {
    private let listener: Int32
    private let idleSeconds: Int
    private let epoll: Int32
    private var connections: [Int32: Connection] = [:]
    /// The session connections by client ID (notices are addressed by it).
    private var sessions: [UInt32: Connection] = [:]
    /// Connections that asked for `watch` lines.
    private var watchers: [Int32: Connection] = [:]
    private var arbitration = Arbitration()
    private var nextID: UInt32 = 1
    private let finisher = SoundFinisher()
    private let soundServer = SoundServerWatcher()
    private let others: OthersPolicy
    /// A client that lets this much pile up unread is dropped (its session released).
    static let outboxLimit = 1 << 20
    /// A connection must say hello this soon after it is accepted.
    static let helloSeconds = Double(getenv("AUDIOSESSIOND_HELLO_SECONDS").map { String(cString: $0) }
                                        .flatMap { Int($0) }.map { max(1, min($0, 60)) } ?? 5)
    /// At most this many connections wait for their hello at once.
    static let maximumWaitingForHello = 256
    /// Reads of `readBuffer` from one connection before the others get their turn.
    static let readsPerTurn = 4
    /// A program's name is cut to this many characters.
    static let programNameLimit = 128
    /// Sounds one client may ask to have finished (CompletePlaybackIfAppDies) at once.
    static let outlivingLimit = 64
    /// Connections accepted per turn of the loop: the accepted ones' hellos are read
    /// before more are taken.
    static let acceptsPerTurn = 64
    /// Connections waiting for their hello, in the order they were accepted (closed or
    /// greeted ones are skipped when reached).
    private var waitingForHello: [Connection] = []
    private var waitingHead = 0
    private var waitingCount = 0
    /// Not accepting until then (the descriptor limit was reached); 0: accepting.
    private var acceptPausedUntil = 0.0
    private var listenerWatched = false
    /// Connections with messages queued since the last flush, in order.
    private var unsent: [Connection] = []
    /// Connections sent something since their doorbell was last rung.
    private var unrung: [Connection] = []

    init(listener: Int32, idleSeconds: Int, journalPath: String) {
        self.listener = listener
        self.idleSeconds = idleSeconds
        others = OthersPolicy(journalPath: journalPath)
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        // Descriptors that are not connections carry their own number in the event.
        for fd in [soundServer.wakeDescriptor, soundServer.folderDescriptor] where fd >= 0 { watch(fd, events: EPOLLIN.rawValue) }
        watchListener(true)
    }

    private func watch(_ fd: Int32, events: UInt32) {
        var event = epoll_event(events: events, data: epoll_data_t(fd: fd))
        _ = epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event)
    }

    private func watchListener(_ on: Bool) {
        guard on != listenerWatched else { return }
        listenerWatched = on
        if on { watch(listener, events: EPOLLIN.rawValue) } else { _ = epoll_ctl(epoll, EPOLL_CTL_DEL, listener, nil) }
    }

    /// Serves until idle for `idleSeconds` (no connection, no system interruption).
    func run() {
        var idleSince = monotonicSeconds()
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        while true {
            let ready = epoll_wait(epoll, &events, Int32(events.count), nextTimeoutMilliseconds())
            if ready < 0 && errno != EINTR { Log.error("epoll_wait: \(Errno.current)"); return }
            if soundServer.connectIfNeeded() { soundServerChanged() }
            for event in events.prefix(Int(max(0, ready))) {
                let fd = event.data.fd
                if fd == listener { acceptPending(); continue }
                if fd == soundServer.folderDescriptor {
                    if soundServer.folderChanged() { soundServerChanged() }
                    continue
                }
                if fd == soundServer.wakeDescriptor {
                    soundServer.drainWake()
                    soundServerChanged()
                    continue
                }
                guard let connection = connections[fd] else { continue }
                if event.events & EPOLLOUT.rawValue != 0 { flush(connection) }
                if event.events & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0, connection.isOpen {
                    receive(connection)
                }
            }
            closeSilentConnections()
            if acceptPausedUntil > 0 && monotonicSeconds() >= acceptPausedUntil {
                acceptPausedUntil = 0
                watchListener(true)
            }
            sendQueued()
            // A call, an alarm or the silent switch is state worth keeping: stay for it.
            if connections.isEmpty && arbitration.systemInterruptions.isEmpty && !arbitration.silentSwitch
                && !finisher.isBusy {
                if monotonicSeconds() - idleSince >= Double(idleSeconds) {
                    others.restoreAll(watch: soundServer.connection)
                    Log.info("idle for \(idleSeconds) s: exiting")
                    return
                }
            } else {
                idleSince = monotonicSeconds()
            }
        }
    }

    /// Until the next thing with a time: the oldest hello owed, accepting again, or the
    /// idle check (and the sound server's retry) once a second.
    private func nextTimeoutMilliseconds() -> Int32 {
        var wait = 1.0
        if let oldest = oldestWaiting() { wait = min(wait, oldest.acceptedAt + Self.helloSeconds - monotonicSeconds()) }
        if acceptPausedUntil > 0 { wait = min(wait, acceptPausedUntil - monotonicSeconds()) }
        return Int32(max(0, (wait * 1000).rounded(.up)))
    }

    /// Other programs' streams on the sound server count as other audio.
    /// The volume last told to the sessions.
    private var serverVolume: Float?

    private func soundServerChanged() {
        let volume = soundServer.defaultSinkVolume()
        if volume != serverVolume {
            serverVolume = volume
            for connection in sessions.values { send(.serverVolume(volume), to: connection) }
        }
        let owners = soundServer.runningStreamOwners()
        if owners != arbitration.soundServerStreams {
            event("sound server: \(owners.count) other stream(s) running")
            deliver(arbitration.setSoundServerStreams(owners))
        } else {
            applyOthersPolicy()
        }
    }

    /// Lowers, mutes or restores the sound server's other streams for the sessions now
    /// active (see OthersPolicy).
    private func applyOthersPolicy() {
        guard let watch = soundServer.connection else { return }
        others.update(arbitration, streams: soundServer.streams(), watch: watch)
    }

    // MARK: Connections

    private func acceptPending() {
        for _ in 0..<Self.acceptsPerTurn {
            let fd = retryingInterrupts { Glibc.accept(listener, nil, nil) }
            guard fd >= 0 else {
                let error = Errno.current
                if error == .tooManyOpenFiles || error == .systemOutOfFiles {
                    // Room is made by the connection that waited longest for nothing;
                    // without one, the listener rests (it would report the same pending
                    // connection again at once) until a connection closes or 100 ms pass.
                    if !closeOldestWaiting(reason: nil) {
                        Log.error("accept: \(error): not accepting for 100 ms")
                        acceptPausedUntil = monotonicSeconds() + 0.1
                        watchListener(false)
                    }
                }
                return
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            guard let credentials = try? PeerCredentials.of(fd) else { close(fd); continue }
            // The socket's folder is the user's alone; this is the second lock on the door.
            guard credentials.uid == getuid() else {
                Log.error("refused a connection from uid \(credentials.uid) (pid \(credentials.pid)): not this user")
                close(fd)
                continue
            }
            if waitingCount >= Self.maximumWaitingForHello {
                closeOldestWaiting(reason: "more than \(Self.maximumWaitingForHello) connections wait for their hello")
            }
            let connection = Connection(fd: fd, id: nextID, uid: credentials.uid, acceptedAt: monotonicSeconds())
            nextID &+= 1
            if nextID == 0 { nextID = 1 }
            connections[fd] = connection
            waitingForHello.append(connection)
            waitingCount += 1
            watch(fd, events: EPOLLIN.rawValue)
        }
    }

    private func oldestWaiting() -> Connection? {
        while waitingHead < waitingForHello.count {
            let connection = waitingForHello[waitingHead]
            if connection.isOpen && connection.role == nil { return connection }
            waitingHead += 1
        }
        // All skipped: start again with an empty list.
        waitingForHello = []
        waitingHead = 0
        return nil
    }

    /// Closes the connection that has waited longest without saying hello; false if none.
    @discardableResult
    private func closeOldestWaiting(reason: String?) -> Bool {
        guard let oldest = oldestWaiting() else { return false }
        drop(oldest, reason: reason)
        return true
    }

    /// Connections that have not said hello in time.
    private func closeSilentConnections() {
        let now = monotonicSeconds()
        while let oldest = oldestWaiting(), now - oldest.acceptedAt >= Self.helloSeconds {
            drop(oldest, reason: "no hello within \(Int(Self.helloSeconds)) s")
        }
        if waitingHead > 1024 && waitingHead * 2 > waitingForHello.count {
            waitingForHello.removeFirst(waitingHead)
            waitingHead = 0
        }
    }

    /// One read buffer for every connection: the loop is single-threaded.
    private var readBuffer = [UInt8](repeating: 0, count: 16384)

    /// Descriptors that came with a read (a doorbell is the only one expected).
    private var passedDescriptors: [Int32] = []

    private func receive(_ connection: Connection) {
        // A bounded share per turn: a peer that writes without pause cannot keep the
        // loop from the others (the rest stays in its socket; epoll reports it again).
        for _ in 0..<Self.readsPerTurn {
            let n = SocketIO.receive(connection.fd, into: &readBuffer, descriptors: &passedDescriptors,
                                     lostDescriptors: &connection.descriptorLost)
            if !passedDescriptors.isEmpty {
                // One descriptor, kept for the doorbell message it came with; anything
                // more is a client sending what it should not.
                let first = passedDescriptors.removeFirst()
                for extra in passedDescriptors { close(extra) }
                let tooMany = !passedDescriptors.isEmpty || connection.passed >= 0
                passedDescriptors = []
                if connection.passed >= 0 { close(first) } else { connection.passed = first }
                if tooMany {
                    drop(connection, reason: "sent more descriptors than one doorbell")
                    return
                }
            }
            if n > 0 {
                connection.decoder.feed(readBuffer[0..<n])
                // Handled as they come: a flood of requests overflows the outbox early
                // and the connection ends before more is read.
                drain(connection)
                guard connection.isOpen else { return }
                // A short read took all there was: epoll reports anything newer.
                if n < readBuffer.count { return }
                continue
            }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
            drop(connection, reason: n == 0 ? nil : "read: \(Errno.current)")
            return
        }
    }

    /// Handles every complete message received; a malformed one ends the connection.
    private func drain(_ connection: Connection) {
        while connection.isOpen {
            guard !connection.overflowed else {
                drop(connection, reason: "not reading its messages (over \(Self.outboxLimit) bytes queued)")
                return
            }
            let message: ArbiterMessage?
            do throws(ProtocolError) {
                message = try connection.decoder.next()
            } catch {
                drop(connection, reason: "malformed message (\(error))")
                return
            }
            guard let message else { return }
            handle(message, from: connection)
        }
    }

    private func drop(_ connection: Connection, reason: String?) {
        guard connection.isOpen else { return }
        if let reason { Log.error("client \(connection.id) (pid \(connection.pid)): \(reason)") }
        if !connection.overflowed { flush(connection) }  // a last message (a failure) goes out if the socket takes it
        connection.isOpen = false
        if connection.role == nil { waitingCount -= 1 }
        connections[connection.fd] = nil
        sessions[connection.id] = nil
        watchers[connection.fd] = nil
        close(connection.fd)  // also leaves the epoll set
        for fd in [connection.doorbell, connection.passed] where fd >= 0 { close(fd) }
        connection.doorbell = -1
        connection.passed = -1
        connection.outbox = []
        // A descriptor is free again: accept at once if accepting was paused for want of one.
        if acceptPausedUntil > 0 {
            acceptPausedUntil = 0
            watchListener(true)
        }
        // A client that died mid-sound: the daemon plays the rest (CompletePlaybackIfAppDies).
        for (_, play) in connection.outliving { finisher.finish(play.path, device: play.device, startedAt: play.start) }
        if connection.role == .session {
            event("\(describe(connection)) left")
            deliver(arbitration.leave(connection.id))
        }
    }

    /// Queues `message`; `sendQueued` writes it, with whatever else the connection gets
    /// in the same batch: one system call and one ring per session per batch. A
    /// connection whose queue is full gets nothing more and is dropped at the next
    /// chance: memory never grows past the limit for a peer that does not read.
    private func send(_ message: ArbiterMessage, to connection: Connection) {
        guard connection.isOpen, !connection.overflowed else { return }
        let frame = message.frame()
        guard connection.outbox.count + frame.count <= Self.outboxLimit else {
            connection.overflowed = true
            connection.outbox = []
            markUnsent(connection)
            return
        }
        connection.outbox += frame
        markUnsent(connection)
    }

    private func markUnsent(_ connection: Connection) {
        guard !connection.flushPending else { return }
        connection.flushPending = true
        unsent.append(connection)
    }

    private func flush(_ connection: Connection) {
        while !connection.outbox.isEmpty {
            let n = connection.outbox.withUnsafeBytes { raw in
                retryingInterrupts { Glibc.send(connection.fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL)) }
            }
            guard n > 0 else { break }  // EAGAIN: epoll says when; an error shows up as a read error
            connection.outbox.removeFirst(n)
            if connection.doorbell >= 0 && !connection.ringPending {
                connection.ringPending = true
                unrung.append(connection)
            }
        }
        watchOutput(connection, !connection.outbox.isEmpty)
    }

    /// Whether epoll reports room to write on the connection: only while bytes wait.
    private func watchOutput(_ connection: Connection, _ on: Bool) {
        guard connection.isOpen, on != connection.watchingOutput else { return }
        connection.watchingOutput = on
        var event = epoll_event(events: EPOLLIN.rawValue | (on ? EPOLLOUT.rawValue : 0),
                                data: epoll_data_t(fd: connection.fd))
        _ = epoll_ctl(epoll, EPOLL_CTL_MOD, connection.fd, &event)
    }

    /// Writes what was queued, then rings the doorbell of every session that was sent
    /// something: once per batch, after the batch's bytes are in its socket, so the woken
    /// run loop finds them.
    private func sendQueued() {
        let batch = unsent
        unsent = []
        for connection in batch where connection.isOpen {
            connection.flushPending = false
            if connection.overflowed {
                drop(connection, reason: "not reading its messages (over \(Self.outboxLimit) bytes queued)")
                continue
            }
            flush(connection)
        }
        for connection in unrung where connection.doorbell >= 0 {
            connection.ringPending = false
            Doorbell.ring(connection.doorbell)
        }
        unrung = []
    }

    /// A session's doorbell: the socket that came with the message.
    private func acceptDoorbell(from connection: Connection) {
        let fd = connection.passed
        connection.passed = -1
        if fd < 0 && connection.descriptorLost {
            // This daemon could not take the descriptor (at its limit): the session keeps
            // reading on its own thread, as before doorbells.
            connection.descriptorLost = false
            Log.error("client \(connection.id) (pid \(connection.pid)): its doorbell was lost (descriptor limit)")
            send(.doorbellAnswer(accepted: false), to: connection)
            return
        }
        guard fd >= 0 else { drop(connection, reason: "doorbell without a descriptor"); return }
        guard connection.doorbell < 0, Doorbell.isUsable(fd) else {
            close(fd)
            drop(connection, reason: "doorbell is not a Unix packet socket, or a second one")
            return
        }
        connection.doorbell = fd
        send(.doorbellAnswer(accepted: true), to: connection)
        // Bytes sent before the doorbell came (another session's notice in the same
        // pass) had no ring; the session's run loop may already wait on it alone.
        if !connection.ringPending {
            connection.ringPending = true
            unrung.append(connection)
        }
    }

    // MARK: Messages

    private func handle(_ message: ArbiterMessage, from connection: Connection) {
        if connection.role == nil {
            guard case .hello(let version, let pid, let program, let role) = message else {
                drop(connection, reason: "spoke before hello")
                return
            }
            guard version == ArbiterMessage.version else {
                send(.failure("protocol version \(version) is not \(ArbiterMessage.version)"), to: connection)
                drop(connection, reason: "protocol version \(version)")
                return
            }
            connection.role = role
            waitingCount -= 1
            connection.pid = pid
            // Shown in status, watch lines and the log: short, and nothing a terminal obeys.
            connection.program = printable(String(program.unicodeScalars.prefix(Self.programNameLimit)))
            send(.welcome(version: ArbiterMessage.version, clientID: connection.id), to: connection)
            if role == .session {
                sessions[connection.id] = connection
                if serverVolume != nil { send(.serverVolume(serverVolume), to: connection) }
                event("\(describe(connection)) joined")
                deliver(arbitration.join(connection.id, pid: pid, program: connection.program))
            }
            return
        }
        switch (connection.role, message) {
        case (.session, .claim(let category, let mode, let traits)):
            event("\(describe(connection)) category \(fourCC(category)) mode \(fourCC(mode)) \(traitWords(traits))")
            deliver(arbitration.claim(connection.id, category: category, mode: mode, traits: traits))
        case (.session, .activate):
            event("\(describe(connection)) activates")
            deliver(arbitration.activate(connection.id))
        case (.session, .deactivate(let notify)):
            event("\(describe(connection)) deactivates\(notify ? " (notifying others)" : "")")
            deliver(arbitration.deactivate(connection.id, notifyOthers: notify))
        case (.tool, .silentSwitch(let on)):
            event("silent switch \(on ? "on" : "off")")
            deliver(arbitration.setSilentSwitch(on))
        case (.tool, .system(let kind, let active)):
            event("\(kind) \(active ? "starts" : "ends")")
            deliver(arbitration.system(kind, active: active))
        case (_, .finishIfDies(let token, let path, let device)):
            guard connection.outliving.count < Self.outlivingLimit || connection.outliving[token] != nil else {
                Log.error("client \(connection.id) (pid \(connection.pid)): more than \(Self.outlivingLimit) sounds "
                          + "to finish; \(printable(path)) will not be")
                return
            }
            connection.outliving[token] = (path, device, monotonicSeconds())
        case (_, .finished(let token)):
            connection.outliving[token] = nil
        case (.session, .doorbell):
            acceptDoorbell(from: connection)
        case (_, .statusRequest):
            send(.status(status()), to: connection)
        case (_, .watch):
            connection.watching = true
            watchers[connection.fd] = connection
            // The first line confirms the watch (a script can wait for it, then act).
            let status = arbitration.status
            let calls = status.systemInterruptions.map(\.description)
            send(.event("watching \(status.sessions.count) session(s); system: "
                        + (calls.isEmpty ? "no interruption" : calls.joined(separator: ", "))), to: connection)
        default:
            drop(connection, reason: "unexpected message \(message)")
        }
    }

    /// Sends each notice to its client, and tells watchers what it means.
    private func deliver(_ notices: Arbitration.Notices) {
        defer { applyOthersPolicy() }
        guard !notices.isEmpty else { return }
        // Each session concerned wakes as soon as its messages are out, in the order of
        // the notices (the interrupted first), not after the rest of this loop's work.
        defer { sendQueued() }
        var previous: UInt32?
        for (client, notice) in notices {
            if let previous, previous != client { sendQueued() }
            previous = client
            guard let connection = sessions[client] else { continue }
            let message: ArbiterMessage
            switch notice {
            case .interruptionBegan(let bySystem):
                message = .interruptionBegan(bySystem: bySystem)
                event("\(describe(connection)) interrupted\(bySystem ? " by the system" : "")")
            case .interruptionEnded(let resume):
                message = .interruptionEnded(shouldResume: resume)
                event("\(describe(connection)) interruption ends\(resume ? " (should resume)" : "")")
            case .otherAudio(let playing): message = .otherAudio(playing: playing)
            case .ducked(let ducked):
                message = .ducked(ducked)
                event("\(describe(connection)) \(ducked ? "ducked" : "unducked")")
            case .systemState(let interrupting): message = .systemState(interrupting: interrupting)
            case .silentSwitch(let on): message = .silentSwitchState(on: on)
            }
            send(message, to: connection)
        }
    }

    /// Tells watchers (and the log, when verbose) what happened. The line is only made
    /// when someone will read it: this is on the path of every activation.
    private func event(_ line: @autoclosure () -> String) {
        guard Log.verbose || !watchers.isEmpty else { return }
        let text = line()
        if Log.verbose { Log.info(text) }
        for connection in watchers.values { send(.event(text), to: connection) }
    }

    /// The table `audiosession status` shows. As long as it is: the encoding keeps
    /// what fits in one frame and counts the rest.
    private func status() -> ArbiterStatus {
        var status = arbitration.status
        if soundServer.connection != nil {
            status.soundServer = soundServer.streams().map { stream in
                let volume = withUnsafeBytes(of: stream.volumes) { $0.bindMemory(to: Float.self).first ?? 1 }
                return ArbiterStatus.Stream(
                    node: stream.node, pid: UInt32(bitPattern: stream.pid),
                    application: printable(cString(stream.application)), role: printable(cString(stream.role)),
                    running: stream.running != 0, volume: stream.channels > 0 && volume.isFinite ? volume : 1, mute: stream.mute != 0,
                    action: others.action(for: stream.node))
            }
        }
        return status
    }

    private func describe(_ connection: Connection) -> String {
        "\(connection.program)[\(connection.pid)]#\(connection.id)"
    }
}

