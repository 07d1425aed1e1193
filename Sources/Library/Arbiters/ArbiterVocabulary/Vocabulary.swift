import ArbiterProtocol
import Arbitration
import AudioSessionCore

// One fact, three boundaries: the session speaks `SessionClaim` and `ArbiterEvent`
// (AudioSessionCore), the arbitration engine `ClaimTraits` and `Notice` (Arbitration),
// the wire `ArbiterMessage` (ArbiterProtocol). Every conversion the library's two
// arbiters make between them is here, and tested here (ArbiterVocabularyTests): a rule
// of SPEC 7 means the same thing to the in-process arbiter, the daemon and its clients.
// The one the daemon makes (a notice onto the wire) is Arbitration's own
// (Notice+Wire.swift), so that the daemon needs nothing of the library's core.

extension ClaimTraits {
    /// What a session's claim means to the others.
    public init(_ claim: SessionClaim) {
        self = []
        if claim.mixes { insert(.mixes) }
        if claim.ducks { insert(.ducks) }
        if claim.output { insert(.output) }
        if claim.input { insert(.input) }
    }
}

extension ArbiterMessage {
    /// The claim as the daemon receives it.
    public init(claim: SessionClaim) {
        self = .claim(category: claim.category, mode: claim.mode, traits: ClaimTraits(claim))
    }

}

extension ArbiterEvent {
    /// What one notice of the engine means to the session (the in-process arbiter).
    public init(_ notice: Notice) {
        switch notice {
        case .interruptionBegan: self = .interruptionBegan
        case .interruptionEnded(let resume): self = .interruptionEnded(shouldResume: resume)
        case .otherAudio(let playing): self = .otherAudioChanged(playing: playing)
        case .ducked(let ducked): self = .duckedChanged(ducked)
        case .systemState(let interrupting): self = .systemInterruptionChanged(interrupting)
        case .silentSwitch(let on): self = .silentSwitchChanged(on)
        }
    }

    /// What a message from the daemon means to the session; nil for messages that are
    /// the connection's own business (welcome, doorbell answers, status...).
    public init?(_ message: ArbiterMessage) {
        switch message {
        case .interruptionBegan: self = .interruptionBegan
        case .interruptionEnded(let resume): self = .interruptionEnded(shouldResume: resume)
        case .otherAudio(let playing): self = .otherAudioChanged(playing: playing)
        case .ducked(let ducked): self = .duckedChanged(ducked)
        case .systemState(let interrupting): self = .systemInterruptionChanged(interrupting)
        case .silentSwitchState(let on): self = .silentSwitchChanged(on)
        case .serverVolume(let volume): self = .serverVolumeChanged(volume)
        default: return nil
        }
    }
}
