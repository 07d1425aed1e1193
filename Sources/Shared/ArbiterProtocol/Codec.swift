/// Why a frame was rejected. The connection that sent it is closed: a peer that speaks
/// garbage once cannot be trusted to be in step afterwards.
public enum ProtocolError: Error, Equatable, Sendable {
    case emptyFrame
    case frameTooLarge(Int)
    case unknownKind(UInt8)
    /// The payload ended inside a field.
    case truncated
    /// Bytes left over after the kind's last field.
    case trailingBytes(Int)
    case invalidString
    case invalidValue(String)
}

extension ArbiterMessage {
    /// The largest message a client has to send (a `finishIfDies` with two strings of
    /// the longest kind): the daemon reads nothing larger from a client.
    public static let maximumClientPayload = 1 + 4 + 2 * (2 + Int(4096)) + 64

    /// The message as one frame, length prefix included.
    public func frame() -> [UInt8] {
        var w = Writer()
        encode(into: &w)
        let length = UInt32(w.bytes.count)
        return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
            + w.bytes
    }

    private enum Kind: UInt8 {
        case hello = 1, claim, activate, deactivate, system, statusRequest, watch, silentSwitch, finishIfDies, finished
        case doorbell
        case welcome = 64, interruptionBegan, interruptionEnded, otherAudio, ducked, systemState, status, event, failure
        case silentSwitchState, serverVolume, doorbellAnswer
    }

    private func encode(into w: inout Writer) {
        switch self {
        case .hello(let version, let pid, let program, let role):
            w.u8(Kind.hello.rawValue); w.u16(version); w.u32(pid); w.string(program); w.u8(role.rawValue)
        case .claim(let category, let mode, let traits):
            w.u8(Kind.claim.rawValue); w.u32(category); w.u32(mode); w.u8(traits.rawValue)
        case .activate: w.u8(Kind.activate.rawValue)
        case .deactivate(let notify): w.u8(Kind.deactivate.rawValue); w.bool(notify)
        case .system(let kind, let active): w.u8(Kind.system.rawValue); w.u8(kind.rawValue); w.bool(active)
        case .statusRequest: w.u8(Kind.statusRequest.rawValue)
        case .watch: w.u8(Kind.watch.rawValue)
        case .silentSwitch(let on): w.u8(Kind.silentSwitch.rawValue); w.bool(on)
        case .finishIfDies(let token, let path, let device):
            w.u8(Kind.finishIfDies.rawValue); w.u32(token); w.string(path); w.string(device)
        case .finished(let token): w.u8(Kind.finished.rawValue); w.u32(token)
        case .doorbell: w.u8(Kind.doorbell.rawValue)
        case .doorbellAnswer(let accepted): w.u8(Kind.doorbellAnswer.rawValue); w.bool(accepted)
        case .silentSwitchState(let on): w.u8(Kind.silentSwitchState.rawValue); w.bool(on)
        case .serverVolume(let volume):
            w.u8(Kind.serverVolume.rawValue); w.bool(volume != nil); w.u32((volume ?? 0).bitPattern)
        case .welcome(let version, let clientID): w.u8(Kind.welcome.rawValue); w.u16(version); w.u32(clientID)
        case .interruptionBegan(let bySystem): w.u8(Kind.interruptionBegan.rawValue); w.bool(bySystem)
        case .interruptionEnded(let resume): w.u8(Kind.interruptionEnded.rawValue); w.bool(resume)
        case .otherAudio(let playing): w.u8(Kind.otherAudio.rawValue); w.bool(playing)
        case .ducked(let ducked): w.u8(Kind.ducked.rawValue); w.bool(ducked)
        case .systemState(let interrupting): w.u8(Kind.systemState.rawValue); w.bool(interrupting)
        case .status(let status):
            w.u8(Kind.status.rawValue)
            w.u8(UInt8(status.systemInterruptions.count))
            for kind in status.systemInterruptions { w.u8(kind.rawValue) }
            w.bool(status.silentSwitch)
            w.bool(status.soundServer != nil)
            // As many entries as fit in one frame; the rest are counted, never a failure.
            let budget = ArbiterMessage.maximumPayload - 64
            let streams = Writer.fitting(status.soundServer ?? [], budget: budget / 4 - w.bytes.count) { w, stream in
                w.u32(stream.node); w.u32(stream.pid); w.string(stream.application); w.string(stream.role)
                w.bool(stream.running); w.u32(stream.volume.bitPattern); w.bool(stream.mute); w.string(stream.action)
            }
            w.u16(UInt16(streams.count)); w.bytes += streams.bytes
            w.u32(status.omittedStreams &+ UInt32(streams.omitted))
            let sessions = Writer.fitting(status.sessions, budget: budget - w.bytes.count) { w, entry in
                w.u32(entry.clientID); w.u32(entry.pid); w.string(entry.program); w.u32(entry.category)
                w.u32(entry.mode); w.u8(entry.traits.rawValue); w.u8(entry.state.rawValue); w.bool(entry.ducked)
                w.u8(UInt8(min(entry.interruptedBy.count, 255)))
                for id in entry.interruptedBy.prefix(255) { w.u32(id) }
            }
            w.u16(UInt16(sessions.count)); w.bytes += sessions.bytes
            w.u32(status.omittedSessions &+ UInt32(sessions.omitted))
        case .event(let line): w.u8(Kind.event.rawValue); w.string(line)
        case .failure(let reason): w.u8(Kind.failure.rawValue); w.string(reason)
        }
    }

    /// Decodes one payload (the bytes after the length prefix).
    public static func decode(payload: ArraySlice<UInt8>) throws(ProtocolError) -> ArbiterMessage {
        var r = Reader(bytes: payload)
        guard let kindByte = try? r.u8() else { throw .emptyFrame }
        guard let kind = Kind(rawValue: kindByte) else { throw .unknownKind(kindByte) }
        let message: ArbiterMessage
        switch kind {
        case .hello:
            let version = try r.u16(), pid = try r.u32(), program = try r.string()
            guard let role = ClientRole(rawValue: try r.u8()) else { throw .invalidValue("role") }
            message = .hello(version: version, pid: pid, program: program, role: role)
        case .claim:
            let category = try r.u32(), mode = try r.u32()
            let traits = ClaimTraits(rawValue: try r.u8())
            guard ClaimTraits.known.isSuperset(of: traits) else { throw .invalidValue("traits") }
            message = .claim(category: category, mode: mode, traits: traits)
        case .activate: message = .activate
        case .deactivate: message = .deactivate(notifyOthers: try r.bool())
        case .system:
            guard let interruption = SystemInterruption(rawValue: try r.u8()) else { throw .invalidValue("system") }
            message = .system(interruption, active: try r.bool())
        case .statusRequest: message = .statusRequest
        case .watch: message = .watch
        case .silentSwitch: message = .silentSwitch(on: try r.bool())
        case .finishIfDies: message = .finishIfDies(token: try r.u32(), path: try r.string(), device: try r.string())
        case .finished: message = .finished(token: try r.u32())
        case .doorbell: message = .doorbell
        case .doorbellAnswer: message = .doorbellAnswer(accepted: try r.bool())
        case .silentSwitchState: message = .silentSwitchState(on: try r.bool())
        case .serverVolume:
            let known = try r.bool()
            let volume = Float(bitPattern: try r.u32())
            guard !known || (volume.isFinite && volume >= 0 && volume <= 4) else { throw .invalidValue("volume") }
            message = .serverVolume(known ? volume : nil)
        case .welcome: message = .welcome(version: try r.u16(), clientID: try r.u32())
        case .interruptionBegan: message = .interruptionBegan(bySystem: try r.bool())
        case .interruptionEnded: message = .interruptionEnded(shouldResume: try r.bool())
        case .otherAudio: message = .otherAudio(playing: try r.bool())
        case .ducked: message = .ducked(try r.bool())
        case .systemState: message = .systemState(interrupting: try r.bool())
        case .status: message = .status(try r.status())
        case .event: message = .event(try r.string())
        case .failure: message = .failure(try r.string())
        }
        guard r.remaining == 0 else { throw .trailingBytes(r.remaining) }
        return message
    }
}

/// Splits a byte stream into messages. Feed it what the socket gave; take messages
/// until it returns nil (a frame is incomplete). After an error the stream is unusable.
public struct FrameDecoder: Sendable {
    private var buffer: [UInt8] = []
    private var start = 0
    /// The largest payload accepted (a peer announcing more is refused at once).
    private let maximumPayload: Int
    public init(maximumPayload: Int = ArbiterMessage.maximumPayload) {
        self.maximumPayload = min(maximumPayload, ArbiterMessage.maximumPayload)
    }

    public mutating func feed<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        buffer.append(contentsOf: bytes)
    }

    /// The next complete message, nil if more bytes are needed.
    public mutating func next() throws(ProtocolError) -> ArbiterMessage? {
        let available = buffer.count - start
        guard available >= 4 else { compact(); return nil }
        let length = Int(buffer[start]) << 24 | Int(buffer[start + 1]) << 16 | Int(buffer[start + 2]) << 8
            | Int(buffer[start + 3])
        guard length > 0 else { throw .emptyFrame }
        guard length <= maximumPayload else { throw .frameTooLarge(length) }
        guard available >= 4 + length else { compact(); return nil }
        let payload = buffer[(start + 4)..<(start + 4 + length)]
        start += 4 + length
        return try ArbiterMessage.decode(payload: payload)
    }

    /// Bytes received but not yet part of a returned message.
    public var pendingByteCount: Int { buffer.count - start }

    private mutating func compact() {
        if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
    }
}

private struct Writer {
    var bytes: [UInt8] = []
    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func bool(_ v: Bool) { bytes.append(v ? 1 : 0) }
    mutating func u16(_ v: UInt16) { bytes += [UInt8(v >> 8), UInt8(v & 0xFF)] }
    mutating func u32(_ v: UInt32) {
        bytes += [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }
    /// Strings longer than the field allows are cut at a character boundary.
    mutating func string(_ s: String) {
        var utf8 = Array(s.utf8)
        if utf8.count > Int(Reader.maximumString) {
            var cut = Substring(s)
            while cut.utf8.count > Int(Reader.maximumString) { cut = cut.dropLast() }
            utf8 = Array(cut.utf8)
        }
        u16(UInt16(utf8.count))
        bytes += utf8
    }

    /// Encodes `items` one after the other while they fit in `budget` bytes (at most
    /// 65,535 of them); says how many went in and how many did not.
    static func fitting<T>(_ items: [T], budget: Int,
                           _ encode: (inout Writer, T) -> Void) -> (bytes: [UInt8], count: Int, omitted: Int) {
        var w = Writer()
        var count = 0
        for item in items {
            var one = Writer()
            encode(&one, item)
            guard count < Int(UInt16.max), w.bytes.count + one.bytes.count <= budget else { break }
            w.bytes += one.bytes
            count += 1
        }
        return (w.bytes, count, items.count - count)
    }
}

private struct Reader {
    static let maximumString: UInt16 = 4096
    let bytes: ArraySlice<UInt8>
    var index: Int
    init(bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        index = bytes.startIndex
    }
    var remaining: Int { bytes.endIndex - index }

    mutating func u8() throws(ProtocolError) -> UInt8 {
        guard remaining >= 1 else { throw .truncated }
        defer { index += 1 }
        return bytes[index]
    }
    mutating func bool() throws(ProtocolError) -> Bool {
        switch try u8() {
        case 0: return false
        case 1: return true
        default: throw .invalidValue("bool")
        }
    }
    mutating func u16() throws(ProtocolError) -> UInt16 {
        UInt16(try u8()) << 8 | UInt16(try u8())
    }
    mutating func u32() throws(ProtocolError) -> UInt32 {
        UInt32(try u16()) << 16 | UInt32(try u16())
    }
    mutating func string() throws(ProtocolError) -> String {
        let length = try u16()
        guard length <= Reader.maximumString else { throw .invalidValue("string length") }
        guard remaining >= Int(length) else { throw .truncated }
        let slice = bytes[index..<(index + Int(length))]
        index += Int(length)
        guard let string = String(validating: slice, as: UTF8.self) else { throw .invalidString }
        return string
    }
    mutating func status() throws(ProtocolError) -> ArbiterStatus {
        var systems: [SystemInterruption] = []
        for _ in 0..<(try u8()) {
            guard let kind = SystemInterruption(rawValue: try u8()) else { throw .invalidValue("system") }
            systems.append(kind)
        }
        let silent = try bool()
        let hasServer = try bool()
        var streams: [ArbiterStatus.Stream] = []
        for _ in 0..<(try u16()) {
            let node = try u32(), pid = try u32(), application = try string(), role = try string()
            let running = try bool()
            let volume = Float(bitPattern: try u32())
            guard volume.isFinite else { throw .invalidValue("volume") }
            let mute = try bool()
            let action = try string()
            streams.append(.init(node: node, pid: pid, application: application, role: role, running: running,
                                 volume: volume, mute: mute, action: action))
        }
        let omittedStreams = try u32()
        guard hasServer || (streams.isEmpty && omittedStreams == 0) else { throw .invalidValue("streams without a server") }
        var sessions: [ArbiterStatus.Entry] = []
        for _ in 0..<(try u16()) {
            let clientID = try u32(), pid = try u32(), program = try string(), category = try u32(), mode = try u32()
            let traits = ClaimTraits(rawValue: try u8())
            guard ClaimTraits.known.isSuperset(of: traits) else { throw .invalidValue("traits") }
            guard let state = ArbiterStatus.State(rawValue: try u8()) else { throw .invalidValue("state") }
            let ducked = try bool()
            var by: [UInt32] = []
            for _ in 0..<(try u8()) { by.append(try u32()) }
            sessions.append(.init(clientID: clientID, pid: pid, program: program, category: category, mode: mode,
                                  traits: traits, state: state, ducked: ducked, interruptedBy: by))
        }
        var status = ArbiterStatus(systemInterruptions: systems, silentSwitch: silent, sessions: sessions,
                                   soundServer: hasServer ? streams : nil)
        status.omittedSessions = try u32()
        status.omittedStreams = omittedStreams
        return status
    }
}
