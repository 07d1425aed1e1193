import ArbiterProtocol
import ArbiterSocket
import Arbitration
import CDescriptors
import FourCharCodes
import Glibc
import LogLines
import POSIXSupport

/// Routing: what each message asks of the arbitration, and what its notices become for
/// each client and for the watchers.
extension Server {
    func handle(_ message: ArbiterMessage, from connection: Connection) {
        if connection.role == nil {
            guard case .hello(let version, _, let program, let role) = message else {
                expel(connection, reason: "spoke before hello")
                return
            }
            guard version == ArbiterMessage.version else {
                send(.failure("protocol version \(version) is not \(ArbiterMessage.version)"), to: connection)
                expel(connection, reason: "protocol version \(version)")
                return
            }
            connection.role = role
            waitingCount -= 1
            // The kernel's word for who this is, not the hello's.
            connection.pid = UInt32(bitPattern: connection.peerPid)
            // Shown in status, watch lines and the log: short, and nothing a terminal obeys.
            connection.program = printable(String(program.unicodeScalars.prefix(Self.programNameLimit)))
            send(.welcome(version: ArbiterMessage.version, clientID: connection.id), to: connection)
            if role == .session {
                sessions[connection.id] = connection
                if serverVolume != nil { send(.serverVolume(serverVolume), to: connection) }
                event("\(describe(connection)) joined")
                deliver(arbitration.join(connection.id, pid: connection.pid, program: connection.program))
            }
            return
        }
        switch (connection.role, message) {
        case (.session, .claim(let category, let mode, let traits)):
            event("\(describe(connection)) category \(FourCharCode.text(category)) mode \(FourCharCode.text(mode)) \(traitWords(traits))")
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
            expel(connection, reason: "unexpected message \(message)")
        }
    }

    /// Sends each notice to its client, and tells watchers what it means.
    func deliver(_ notices: Arbitration.Notices) {
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
            switch notice {
            case .interruptionBegan(let bySystem):
                event("\(describe(connection)) interrupted\(bySystem ? " by the system" : "")")
            case .interruptionEnded(let resume):
                event("\(describe(connection)) interruption ends\(resume ? " (should resume)" : "")")
            case .ducked(let ducked):
                event("\(describe(connection)) \(ducked ? "ducked" : "unducked")")
            default: break
            }
            let message = ArbiterMessage(notice)
            send(message, to: connection)
        }
    }

    /// Tells watchers (and the log, when verbose) what happened. The line is only made
    /// when someone will read it: this is on the path of every activation.
    func event(_ line: @autoclosure () -> String) {
        guard Log.verbose || !watchers.isEmpty else { return }
        let text = line()
        if Log.verbose { Log.info(text) }
        for connection in watchers.values { send(.event(text), to: connection) }
    }

    /// The table `audiosession status` shows. As long as it is: the encoding keeps
    /// what fits in one frame and counts the rest.
    func status() -> ArbiterStatus {
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

    func describe(_ connection: Connection) -> String {
        "\(connection.program)[\(connection.pid)]#\(connection.id)"
    }
}
