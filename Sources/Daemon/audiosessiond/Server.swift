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
    let listener: Int32
    let idleSeconds: Int
    let epoll: Int32
    var connections: [Int32: Connection] = [:]
    /// The session connections by client ID (notices are addressed by it).
    var sessions: [UInt32: Connection] = [:]
    /// Connections that asked for `watch` lines.
    var watchers: [Int32: Connection] = [:]
    var arbitration = Arbitration()
    var nextID: UInt32 = 1
    let finisher = SoundFinisher()
    let soundServer = SoundServerWatcher()
    let others: OthersPolicy
    /// A client that lets this much pile up unread is dropped (its session released).
    static let outboxLimit = 1 << 20
    /// A connection must say hello this soon after it is accepted.
    static let helloSeconds = Double(getenv("AUDIOSESSIOND_HELLO_SECONDS").map { String(cString: $0) }
                                        .flatMap { Int($0) }.map { max(1, min($0, 60)) } ?? 5)
    /// Connections at once, at most (each may hold up to `outboxLimit`).
    static let maximumConnections = 8192
    /// At most this many connections wait for their hello at once.
    static let maximumWaitingForHello = 256
    /// Messages handled for one connection before the others get their turn.
    static let messagesPerTurn = 256
    /// Connections holding part of a frame, oldest first (closed after `helloSeconds`).
    var unfinished: [Connection] = []
    /// Connections with messages read and not yet handled, in turn order.
    var backlog: [Connection] = []
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
    var waitingForHello: [Connection] = []
    var waitingHead = 0
    var waitingCount = 0
    /// Not accepting until then (the descriptor limit was reached); 0: accepting.
    var acceptPausedUntil = 0.0
    var listenerWatched = false
    /// Connections with messages queued since the last flush, in order.
    var unsent: [Connection] = []
    /// Connections sent something since their doorbell was last rung.
    var unrung: [Connection] = []

    init(listener: Int32, idleSeconds: Int, journalPath: String) {
        self.listener = listener
        self.idleSeconds = idleSeconds
        others = OthersPolicy(journalPath: journalPath)
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        // Descriptors that are not connections carry their own number in the event.
        for fd in [soundServer.wakeDescriptor, soundServer.folderDescriptor] where fd >= 0 { watch(fd, events: EPOLLIN.rawValue) }
        watchListener(true)
    }

    func watch(_ fd: Int32, events: UInt32) {
        var event = epoll_event(events: events, data: epoll_data_t(fd: fd))
        _ = epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event)
    }

    func watchListener(_ on: Bool) {
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
            if soundServer.connectIfNeeded() { others.serverReconnected(); soundServerChanged() }
            for event in events.prefix(Int(max(0, ready))) {
                let fd = event.data.fd
                if fd == listener { acceptPending(); continue }
                if fd == soundServer.folderDescriptor {
                    if soundServer.folderChanged() { others.serverReconnected(); soundServerChanged() }
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
            drainBacklog()
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
                    others.restoreAll(watch: soundServer.connection, streams: soundServer.streams())
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
    func nextTimeoutMilliseconds() -> Int32 {
        var wait = backlog.isEmpty ? 1.0 : 0
        if let oldest = oldestWaiting() { wait = min(wait, oldest.acceptedAt + Self.helloSeconds - monotonicSeconds()) }
        if acceptPausedUntil > 0 { wait = min(wait, acceptPausedUntil - monotonicSeconds()) }
        return Int32(max(0, (wait * 1000).rounded(.up)))
    }

    /// Other programs' streams on the sound server count as other audio.
    /// The volume last told to the sessions.
    var serverVolume: Float?

    func soundServerChanged() {
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
    func applyOthersPolicy() {
        guard let watch = soundServer.connection else { return }
        let now = soundServer.snapshot()
        others.update(arbitration, streams: now.streams, complete: now.complete, watch: watch)
    }

    // MARK: Connections

    func acceptPending() {
        for _ in 0..<Self.acceptsPerTurn {
            // Close-on-exec and non-blocking from the start: the finisher's thread may
            // exec (ALSA plugins) at any moment.
            let fd = retryingInterrupts { DescriptorsAccept(listener) }
            guard fd >= 0 else {
                let error = Errno.current
                if error == .wouldBlock { return }
                if error.rawValue == ECONNABORTED || error.rawValue == EPROTO { continue }  // that one is gone
                // Room is made by the connection that waited longest for nothing;
                // without one (or for any other failure: no memory, no buffers), the
                // listener rests until a connection closes or 100 ms pass: it would
                // report the same pending connection again at once.
                let descriptors = error == .tooManyOpenFiles || error == .tooManyOpenFilesInSystem
                if !descriptors || !closeOldestWaiting(reason: "closed to make room (descriptor limit)") {
                    Log.error("accept: \(error): not accepting for 100 ms")
                    acceptPausedUntil = monotonicSeconds() + 0.1
                    watchListener(false)
                }
                return
            }
            guard let credentials = try? PeerCredentials.of(fd) else { close(fd); continue }
            // The socket's folder is the user's alone; this is the second lock on the door.
            guard credentials.uid == getuid() else {
                Log.error("refused a connection from uid \(credentials.uid) (pid \(credentials.pid)): not this user")
                close(fd)
                continue
            }
            guard connections.count < Self.maximumConnections else {
                Log.error("refused a connection: \(Self.maximumConnections) are open")
                close(fd)
                continue
            }
            if waitingCount >= Self.maximumWaitingForHello {
                closeOldestWaiting(reason: "closed: more than \(Self.maximumWaitingForHello) connections wait for their hello")
            }
            let connection = Connection(fd: fd, id: nextID, uid: credentials.uid, peerPid: credentials.pid,
                                        acceptedAt: monotonicSeconds())
            nextID &+= 1
            if nextID == 0 { nextID = 1 }
            connections[fd] = connection
            waitingForHello.append(connection)
            waitingCount += 1
            watch(fd, events: EPOLLIN.rawValue)
        }
    }

    func oldestWaiting() -> Connection? {
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
    /// A connection whose hello has arrived but was not read yet (accepted in this turn)
    /// is read first, and then is no longer waiting: only silent ones are closed.
    @discardableResult
    func closeOldestWaiting(reason: String) -> Bool {
        while let oldest = oldestWaiting() {
            receive(oldest)
            guard oldest.isOpen, oldest.role == nil else { continue }
            drop(oldest, reason: reason)
            return true
        }
        return false
    }

    /// Whether the connection holds part of a frame now, and since when.
    private func noteUnfinished(_ connection: Connection) {
        guard connection.decoder.pendingByteCount > 0 else {
            connection.unfinishedSince = nil
            return
        }
        guard connection.unfinishedSince == nil else { return }
        connection.unfinishedSince = monotonicSeconds()
        if !connection.queuedAsUnfinished {
            connection.queuedAsUnfinished = true
            unfinished.append(connection)
        }
    }

    /// One more turn for the connections whose messages wait.
    private func drainBacklog() {
        let waiting = backlog
        backlog = []
        for connection in waiting {
            connection.inBacklog = false
            guard connection.isOpen else { continue }
            drain(connection)
        }
    }

    /// Connections that have not said hello in time.
    func closeSilentConnections() {
        let now = monotonicSeconds()
        while let oldest = oldestWaiting(), now - oldest.acceptedAt >= Self.helloSeconds {
            drop(oldest, reason: "no hello within \(Int(Self.helloSeconds)) s")
        }
        // A frame begun and never finished: a client does not send half a message.
        while let first = unfinished.first {
            guard first.isOpen, let since = first.unfinishedSince else {
                first.queuedAsUnfinished = false
                unfinished.removeFirst()
                continue
            }
            guard now - since >= Self.helloSeconds else { break }
            unfinished.removeFirst()
            first.queuedAsUnfinished = false
            expel(first, reason: "a message left unfinished for \(Int(Self.helloSeconds)) s")
        }
        if waitingHead > 1024 && waitingHead * 2 > waitingForHello.count {
            waitingForHello.removeFirst(waitingHead)
            waitingHead = 0
        }
    }

    /// One read buffer for every connection: the loop is single-threaded.
    var readBuffer = [UInt8](repeating: 0, count: 16384)

    /// Descriptors that came with a read (a doorbell is the only one expected).
    var passedDescriptors: [Int32] = []

    func receive(_ connection: Connection) {
        // Messages already read wait their turn: nothing more is read meanwhile, so a
        // peer that writes without pause is held to what it can be served.
        guard !connection.inBacklog else { return }
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
                    expel(connection, reason: "sent more descriptors than one doorbell")
                    return
                }
            }
            if n > 0 {
                connection.decoder.feed(readBuffer[0..<n])
                // Handled as they come: a flood of requests overflows the outbox early
                // and the connection ends before more is read.
                drain(connection)
                guard connection.isOpen, !connection.inBacklog else { return }
                // A short read took all there was: epoll reports anything newer.
                if n < readBuffer.count { return }
                continue
            }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
            drop(connection, reason: n == 0 ? nil : "read: \(Errno.current)")
            return
        }
    }

    /// Handles every complete message received; a malformed one ends the connection.
    /// At most `messagesPerTurn`; the rest wait in the backlog for the next turn.
    func drain(_ connection: Connection) {
        var handled = 0
        while connection.isOpen {
            guard handled < Self.messagesPerTurn else {
                if !connection.inBacklog {
                    connection.inBacklog = true
                    backlog.append(connection)
                }
                return
            }
            handled += 1
            guard !connection.overflowed else {
                expel(connection, reason: "not reading its messages (over \(Self.outboxLimit) bytes queued)")
                return
            }
            let message: ArbiterMessage?
            do throws(ProtocolError) {
                message = try connection.decoder.next()
            } catch {
                expel(connection, reason: "malformed message (\(error))")
                return
            }
            guard let message else {
                noteUnfinished(connection)
                return
            }
            handle(message, from: connection)
        }
    }

    /// Ends the connection of a client that is alive but did what it must not: its
    /// program goes on, and finishes its own sounds (CompletePlaybackIfAppDies is for
    /// programs that die).
    func expel(_ connection: Connection, reason: String) {
        connection.outliving = [:]
        drop(connection, reason: reason)
    }

    /// Ends a connection: the client left or died (its sounds are finished), or never
    /// said hello.
    func drop(_ connection: Connection, reason: String?) {
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
        if !connection.outliving.isEmpty {
            finisher.finish(connection.outliving.sorted { $0.key < $1.key }
                .map { (path: $0.value.path, device: $0.value.device, startedAt: $0.value.start) })
        }
        if connection.role == .session {
            event("\(describe(connection)) left")
            deliver(arbitration.leave(connection.id))
        }
    }

}
