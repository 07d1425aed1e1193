import ArbiterProtocol

extension ArbiterMessage {
    /// What the daemon sends a client for one notice of the engine.
    public init(_ notice: Notice) {
        switch notice {
        case .interruptionBegan(let bySystem): self = .interruptionBegan(bySystem: bySystem)
        case .interruptionEnded(let resume): self = .interruptionEnded(shouldResume: resume)
        case .otherAudio(let playing): self = .otherAudio(playing: playing)
        case .ducked(let ducked): self = .ducked(ducked)
        case .systemState(let interrupting): self = .systemState(interrupting: interrupting)
        case .silentSwitch(let on): self = .silentSwitchState(on: on)
        }
    }
}
