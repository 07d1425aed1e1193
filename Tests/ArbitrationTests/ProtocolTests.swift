import ArbiterProtocol
import Testing

/// One message of every kind, with awkward field values.
let sampleMessages: [ArbiterMessage] = [
    .hello(version: ArbiterMessage.version, pid: 4_000_000_000, program: "sip-client é", role: .session),
    .hello(version: 0, pid: 0, program: "", role: .tool),
    .claim(category: 0x6D65_6469, mode: 0x6466_6C74, traits: [.mixes, .ducks, .output, .input]),
    .claim(category: 0, mode: 0, traits: []),
    .activate,
    .deactivate(notifyOthers: true), .deactivate(notifyOthers: false),
    .system(.call, active: true), .system(.alarm, active: false),
    .statusRequest, .watch, .doorbell,
    .welcome(version: 1, clientID: 0xFFFF_FFFF),
    .interruptionBegan(bySystem: true), .interruptionBegan(bySystem: false),
    .interruptionEnded(shouldResume: true), .interruptionEnded(shouldResume: false),
    .otherAudio(playing: true), .ducked(false), .systemState(interrupting: true),
    .status(ArbiterStatus(systemInterruptions: [.call, .alarm], sessions: [
        .init(clientID: 1, pid: 10, program: "a", category: 1, mode: 2, traits: [.output], state: .interrupted,
              ducked: true, interruptedBy: [0, 2, 3]),
        .init(clientID: 2, pid: 11, program: String(repeating: "x", count: 300), category: 3, mode: 4, traits: [],
              state: .active, ducked: false, interruptedBy: []),
    ])),
    .status(ArbiterStatus(systemInterruptions: [], sessions: [])),
    .status(ArbiterStatus(systemInterruptions: [.alarm], silentSwitch: true, sessions: [])),
    .status(ArbiterStatus(systemInterruptions: [], sessions: [], soundServer: [
        .init(node: 42, pid: 100, application: "Firefox", role: "Music", running: true, volume: 0.3, mute: false,
              action: "lowered"),
    ])),
    .status(ArbiterStatus(systemInterruptions: [], sessions: [], soundServer: [])),
    .silentSwitch(on: true), .silentSwitch(on: false), .silentSwitchState(on: true),
    .serverVolume(0.3), .serverVolume(nil), .serverVolume(1),
    .finishIfDies(token: 7, path: "/home/u/sounds/ding é.wav", device: "default"), .finished(token: 0xFFFF_FFFF),
    .event("sp[12]#3 activates"), .failure("protocol version 9 is not 1"),
]

/// A small deterministic generator, so a failure can be replayed.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("audiosessiond protocol")
struct ProtocolTests {
    @Test("every message survives a round trip, fed whole or byte by byte", arguments: sampleMessages)
    func roundTrip(_ message: ArbiterMessage) throws {
        var whole = FrameDecoder()
        whole.feed(message.frame())
        #expect(try whole.next() == message)
        #expect(try whole.next() == nil)
        var trickle = FrameDecoder()
        var decoded: [ArbiterMessage] = []
        for byte in message.frame() + message.frame() {
            trickle.feed([byte])
            while let next = try trickle.next() { decoded.append(next) }
        }
        #expect(decoded == [message, message])
        #expect(trickle.pendingByteCount == 0)
    }

    @Test("malformed frames are rejected with the reason", arguments: [
        ([0, 0, 0, 0], ProtocolError.emptyFrame),
        ([0, 0x10, 0, 1, 3], .frameTooLarge(0x10_0001)),
        ([0, 0, 0, 1, 99], .unknownKind(99)),
        ([0, 0, 0, 2, 3, 1], .trailingBytes(1)),
        ([0, 0, 0, 2, 4, 2], .invalidValue("bool")),
        ([0, 0, 0, 3, 1, 0, 1], .truncated),
        ([0, 0, 0, 11, 1, 0, 1, 0, 0, 0, 1, 0, 2, 0xC3, 0x28], .invalidString),
        ([0, 0, 0, 12, 1, 0, 1, 0, 0, 0, 1, 0, 0, 7, 0, 0], .invalidValue("role")),
        ([0, 0, 0, 10, 2, 0, 0, 0, 1, 0, 0, 0, 1, 0x10], .invalidValue("traits")),
    ] as [([UInt8], ProtocolError)])
    func rejects(_ bytes: [UInt8], _ expected: ProtocolError) {
        var decoder = FrameDecoder()
        decoder.feed(bytes)
        #expect(throws: expected) { _ = try decoder.next() }
    }

    @Test("every truncation of every message is incomplete, never wrong")
    func truncations() throws {
        for message in sampleMessages {
            let frame = message.frame()
            for cut in 0..<frame.count {
                var decoder = FrameDecoder()
                decoder.feed(frame[0..<cut])
                #expect(try decoder.next() == nil, "a cut frame of \(message) decoded")
            }
            // A frame whose length hides part of the payload: truncated inside a field.
            if frame.count > 5 {
                var short = Array(frame.dropLast())
                let length = UInt32(short.count - 4)
                short[0...3] = [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF),
                                UInt8(length & 0xFF)]
                var decoder = FrameDecoder()
                decoder.feed(short)
                #expect(throws: ProtocolError.self) { _ = try decoder.next() }
            }
        }
    }

    /// The fuzzer: random frames and mutations of valid ones. The decoder must return a
    /// message or a ProtocolError for each, never crash or hang; a decoded message must
    /// encode again to a frame that decodes to itself.
    @Test("fuzz: 300 000 random and mutated frames")
    func fuzz() throws {
        var random = SplitMix(state: 0x5EED)
        let frames = sampleMessages.map { $0.frame() }
        var decodedCount = 0, rejectedCount = 0, incompleteCount = 0
        let total = 300_000
        for round in 0..<total {
            var bytes: [UInt8]
            if round % 3 == 0 {
                let length = Int.random(in: 1...40, using: &random)
                bytes = [0, 0, 0, UInt8(length)] + (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            } else {
                bytes = frames[Int.random(in: 0..<frames.count, using: &random)]
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let index = Int.random(in: 0..<bytes.count, using: &random)
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0: bytes[index] = UInt8.random(in: 0...255, using: &random)
                    case 1: bytes[index] ^= UInt8(1) << UInt8.random(in: 0...7, using: &random)
                    case 2: bytes.remove(at: index)
                    default: bytes.insert(UInt8.random(in: 0...255, using: &random), at: index)
                    }
                    if bytes.isEmpty { bytes = [0] }
                }
            }
            var decoder = FrameDecoder()
            decoder.feed(bytes)
            do throws(ProtocolError) {
                var any = false
                while let message = try decoder.next() {
                    any = true
                    decodedCount += 1
                    var again = FrameDecoder()
                    again.feed(message.frame())
                    #expect(try again.next() == message)
                }
                if !any { incompleteCount += 1 }
            } catch {
                rejectedCount += 1
            }
        }
        print("fuzz: \(total) frames: \(decodedCount) decoded, \(rejectedCount) rejected, "
              + "\(incompleteCount) incomplete (waiting for more bytes), no crash")
        #expect(rejectedCount > total / 2, "the mutations should mostly be caught")
    }
}
