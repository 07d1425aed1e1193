import ArbiterProtocol
import ArbiterVocabulary
import Arbitration
import AudioSessionCore
import Testing

private let everyNotice: [Notice] = [
    .interruptionBegan(bySystem: false), .interruptionBegan(bySystem: true),
    .interruptionEnded(shouldResume: true), .interruptionEnded(shouldResume: false),
    .otherAudio(playing: true), .otherAudio(playing: false), .ducked(true), .ducked(false),
    .systemState(interrupting: true), .systemState(interrupting: false), .silentSwitch(on: true), .silentSwitch(on: false),
]

@Suite("One vocabulary per boundary, converted in one place")
struct ArbiterVocabularyTests {
    @Test("A notice means the same to a session whether it comes in-process or through the daemon", arguments: everyNotice)
    func sameMeaningBothWays(_ notice: Notice) throws {
        let direct = ArbiterEvent(notice)
        // Through the daemon: the notice becomes a frame on the wire, then an event.
        let frame = ArbiterMessage(notice).frame()
        var decoder = FrameDecoder()
        decoder.feed(frame)
        let received = try #require(try decoder.next())
        #expect(ArbiterEvent(received) == direct)
    }

    @Test("Each notice has its own event (no two collapse)")
    func distinct() {
        let events = everyNotice.map(ArbiterEvent.init)
        for (i, a) in events.enumerated() {
            for b in events[(i + 1)...] where a == b {
                // Begin by the system or by a session is one event for the session: the
                // only pair allowed to meet.
                #expect(a == .interruptionBegan, "\(a) twice")
            }
        }
    }

    @Test("A claim's traits are exactly its flags", arguments: 0..<16)
    func traits(_ bits: Int) {
        let claim = SessionClaim(category: 1, mode: 2, mixes: bits & 1 != 0, ducks: bits & 2 != 0, output: bits & 4 != 0,
                                 input: bits & 8 != 0)
        let traits = ClaimTraits(claim)
        #expect(traits.contains(.mixes) == claim.mixes && traits.contains(.ducks) == claim.ducks)
        #expect(traits.contains(.output) == claim.output && traits.contains(.input) == claim.input)
        #expect(ArbiterMessage(claim: claim) == .claim(category: 1, mode: 2, traits: traits))
    }

    @Test("Messages that are the connection's own business are not events")
    func notEvents() {
        #expect(ArbiterEvent(ArbiterMessage.welcome(version: 3, clientID: 1)) == nil)
        #expect(ArbiterEvent(ArbiterMessage.doorbellAnswer(accepted: true)) == nil)
        #expect(ArbiterEvent(ArbiterMessage.serverVolume(0.5)) == .serverVolumeChanged(0.5))
    }
}
