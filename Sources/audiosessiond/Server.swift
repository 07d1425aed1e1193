import ArbiterProtocol
import ArbiterSocket
import Arbitration
import Glibc

/// One connection: a session of some program, or the `audiosession` tool.
final class Connection {
    let fd: Int32
    let id: UInt32
    let uid: uid_t
    var decoder = FrameDecoder()
    var outbox: [UInt8] = []
    var role: ClientRole?
    var pid: UInt32 = 0
    var program = ""
    var watching = false
    /// The session's doorbell (a Unix packet socket), rung after bytes are sent to it; -1: none.
    var doorbell: Int32 = -1
    /// A descriptor that came with the bytes of a `doorbell` message not yet complete.
    var passed: Int32 = -1
    var ringPending = false
    /// Messages were queued for it since its outbox was last flushed.
    var flushPending = false
    /// System sounds to finish if this client dies: token → (file, device, start).
    var outliving: [UInt32: (path: String, device: String, start: Double)] = [:]
    init(fd: Int32, id: UInt32, uid: uid_t) {
        self.fd = fd
        self.id = id
        self.uid = uid
    }
}

/// The daemon: one thread, one poll loop, the arbitration state and the connections.
final class Server {
    private let listener: Int32
    private let idleSeconds: Int
    private var connections: [Int32: Connection] = [:]
    /// The session connections by client ID (notices are addressed by it).
    private var sessions: [UInt32: Connection] = [:]
    private var arbitration = Arbitration()
    private var nextID: UInt32 = 1
    private let finisher = SoundFinisher()
    private let soundServer = SoundServerWatcher()
    private let others: OthersPolicy
    /// A client that lets this much pile up unread is dropped (its session released).
    private let outboxLimit = 1 << 20
    /// Connections with messages queued since the last flush, in order.
    private var unsent: [Connection] = []
    /// Connections sent something since their doorbell was last rung.
    private var unrung: [Connection] = []

    init(listener: Int32, idleSeconds: Int, journalPath: String) {
        self.listener = listener
        self.idleSeconds = idleSeconds
        others = OthersPolicy(journalPath: journalPath)
    }

    /// Serves until idle for `idleSeconds` (no connection, no system interruption).
    func run() {
        var idleSince = monotonicSeconds()
        while true {
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: soundServer.wakeDescriptor, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: soundServer.folderDescriptor, events: Int16(POLLIN), revents: 0)]
            for connection in connections.values {
                let events = POLLIN | (connection.outbox.isEmpty ? 0 : POLLOUT)
                fds.append(pollfd(fd: connection.fd, events: Int16(events), revents: 0))
            }
            let ready = poll(&fds, nfds_t(fds.count), 1000)
            if ready < 0 && errno != EINTR { Log.error("poll: \(String(cString: strerror(errno)))"); return }
            if soundServer.connectIfNeeded() { soundServerChanged() }
            for entry in fds where entry.revents != 0 {
                if entry.fd == listener { accept(); continue }
                if entry.fd == soundServer.folderDescriptor {
                    if soundServer.folderChanged() { soundServerChanged() }
                    continue
                }
                if entry.fd == soundServer.wakeDescriptor {
                    soundServer.drainWake()
                    soundServerChanged()
                    continue
                }
                guard let connection = connections[entry.fd] else { continue }
                if entry.revents & Int16(POLLOUT) != 0 { flush(connection) }
                if entry.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0, connections[entry.fd] != nil {
                    receive(connection)
                }
            }
            sendQueued()
            // A call, an alarm or the silent switch is state worth keeping: stay for it.
            if connections.isEmpty && arbitration.systemInterruptions.isEmpty && !arbitration.silentSwitch
                && !finisher.isPlaying {
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

    private func accept() {
        let fd = Glibc.accept(listener, nil, nil)
        guard fd >= 0 else { return }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var credentials = PeerCredentials()
        var length = socklen_t(MemoryLayout<PeerCredentials>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { close(fd); return }
        // The socket's folder is the user's alone; this is the second lock on the door.
        guard credentials.uid == getuid() else {
            Log.error("refused a connection from uid \(credentials.uid) (pid \(credentials.pid)): not this user")
            close(fd)
            return
        }
        let connection = Connection(fd: fd, id: nextID, uid: credentials.uid)
        nextID &+= 1
        if nextID == 0 { nextID = 1 }
        connections[fd] = connection
    }

    /// One read buffer for every connection: the loop is single-threaded.
    private var readBuffer = [UInt8](repeating: 0, count: 16384)

    /// Descriptors that came with a read (a doorbell is the only one expected).
    private var passedDescriptors: [Int32] = []

    private func receive(_ connection: Connection) {
        while true {
            let n = SocketIO.receive(connection.fd, into: &readBuffer, descriptors: &passedDescriptors)
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
                // A short read took all there was: poll reports anything newer, and the
                // messages are handled now instead of after one more system call.
                if n < readBuffer.count { break }
                continue
            }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { break }
            drain(connection)
            drop(connection, reason: n == 0 ? nil : "read: \(String(cString: strerror(errno)))")
            return
        }
        drain(connection)
    }

    /// Handles every complete message received; a malformed one ends the connection.
    private func drain(_ connection: Connection) {
        while connections[connection.fd] != nil {
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
        if let reason { Log.error("client \(connection.id) (pid \(connection.pid)): \(reason)") }
        flush(connection)  // a last message (a failure) goes out if the socket takes it
        connections[connection.fd] = nil
        sessions[connection.id] = nil
        close(connection.fd)
        for fd in [connection.doorbell, connection.passed] where fd >= 0 { close(fd) }
        connection.doorbell = -1
        connection.passed = -1
        // A client that died mid-sound: the daemon plays the rest (CompletePlaybackIfAppDies).
        for (_, play) in connection.outliving { finisher.finish(play.path, device: play.device, startedAt: play.start) }
        if connection.role == .session {
            event("\(describe(connection)) left")
            deliver(arbitration.leave(connection.id))
        }
    }

    /// Queues `message`; `sendQueued` writes it, with whatever else the connection gets
    /// in the same batch: one system call and one ring per session per batch.
    private func send(_ message: ArbiterMessage, to connection: Connection) {
        connection.outbox += message.frame()
        guard !connection.flushPending else { return }
        connection.flushPending = true
        unsent.append(connection)
    }

    private func flush(_ connection: Connection) {
        while !connection.outbox.isEmpty {
            let n = connection.outbox.withUnsafeBytes {
                Glibc.send(connection.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if n > 0 {
                connection.outbox.removeFirst(n)
                if connection.doorbell >= 0 && !connection.ringPending {
                    connection.ringPending = true
                    unrung.append(connection)
                }
                continue
            }
            if n < 0 && errno == EINTR { continue }
            return  // EAGAIN: poll says when; an error shows up as a read error
        }
    }

    /// Writes what was queued, then rings the doorbell of every session that was sent
    /// something: once per batch, after the batch's bytes are in its socket, so the woken
    /// run loop finds them.
    private func sendQueued() {
        let batch = unsent
        unsent = []
        for connection in batch where connections[connection.fd] === connection {
            connection.flushPending = false
            flush(connection)
            if connection.outbox.count > outboxLimit {
                drop(connection, reason: "not reading its messages")
            }
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
        guard fd >= 0 else { drop(connection, reason: "doorbell without a descriptor"); return }
        guard connection.doorbell < 0, Doorbell.isUsable(fd) else {
            close(fd)
            drop(connection, reason: "doorbell is not a Unix packet socket, or a second one")
            return
        }
        connection.doorbell = fd
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
            connection.pid = pid
            connection.program = program
            send(.welcome(version: ArbiterMessage.version, clientID: connection.id), to: connection)
            if role == .session {
                sessions[connection.id] = connection
                if serverVolume != nil { send(.serverVolume(serverVolume), to: connection) }
                event("\(describe(connection)) joined")
                deliver(arbitration.join(connection.id, pid: pid, program: program))
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
            connection.outliving[token] = (path, device, monotonicSeconds())
        case (_, .finished(let token)):
            connection.outliving[token] = nil
        case (.session, .doorbell):
            acceptDoorbell(from: connection)
        case (_, .statusRequest):
            var status = arbitration.status
            if soundServer.connection != nil {
                status.soundServer = soundServer.streams().map { stream in
                    let volume = withUnsafeBytes(of: stream.volumes) { $0.bindMemory(to: Float.self).first ?? 1 }
                    return ArbiterStatus.Stream(
                        node: stream.node, pid: UInt32(bitPattern: stream.pid), application: cString(stream.application),
                        role: cString(stream.role), running: stream.running != 0,
                        volume: stream.channels > 0 ? volume : 1, mute: stream.mute != 0,
                        action: others.action(for: stream.node))
                }
            }
            send(.status(status), to: connection)
        case (_, .watch):
            connection.watching = true
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
        guard Log.verbose || connections.values.contains(where: \.watching) else { return }
        let text = line()
        if Log.verbose { Log.info(text) }
        for connection in connections.values where connection.watching { send(.event(text), to: connection) }
    }

    private func describe(_ connection: Connection) -> String {
        "\(connection.program)[\(connection.pid)]#\(connection.id)"
    }
}

/// A fixed C character array as a Swift string.
func cString<T>(_ tuple: T) -> String {
    withUnsafeBytes(of: tuple) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
}

func fourCC(_ value: UInt32) -> String {
    let bytes = [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    guard bytes.allSatisfy({ (0x20..<0x7F).contains($0) }) else { return String(value) }
    return String(decoding: bytes, as: UTF8.self)
}

/// `struct ucred` of <sys/socket.h>, which Swift sees only with _GNU_SOURCE.
struct PeerCredentials {
    var pid: pid_t = 0
    var uid: uid_t = 0
    var gid: gid_t = 0
}

func traitWords(_ traits: ClaimTraits) -> String {
    var words: [String] = []
    if traits.contains(.mixes) { words.append("mixes") }
    if traits.contains(.ducks) { words.append("ducks") }
    if traits.contains(.output) { words.append("output") }
    if traits.contains(.input) { words.append("input") }
    return words.isEmpty ? "(silent)" : words.joined(separator: ",")
}

func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

enum Log {
    /// AUDIOSESSIOND_VERBOSE=1 logs every arbitration event (`audiosession watch` shows
    /// them without it).
    static let verbose = getenv("AUDIOSESSIOND_VERBOSE").map { String(cString: $0) == "1" } ?? false
    static func info(_ line: String) { write("info", line) }
    static func error(_ line: String) { write("error", line) }
    private static func write(_ level: String, _ line: String) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        fputs("audiosessiond[\(getpid())] \(now.tv_sec).\(String(format3(now.tv_nsec / 1_000_000))) \(level): \(line)\n", stderr)
    }
    private static func format3(_ ms: Int) -> String {
        ms < 10 ? "00\(ms)" : ms < 100 ? "0\(ms)" : "\(ms)"
    }
}
