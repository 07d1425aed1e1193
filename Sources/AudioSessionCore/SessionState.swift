/// Where a session is in its life. "Uninitialised" is the absence of a session.
public enum SessionPhase: Equatable, Sendable {
    case inactive
    case active
    /// Deactivated by an interruption that has not ended yet.
    case interrupted
}

/// Everything a session knows, as one value: a failed call restores the value it had.
struct SessionState {
    var phase: SessionPhase = .inactive
    var category: Category = .soloAmbientSound
    var mode: Mode = .default
    var mixWithOthers = false
    var defaultToSpeaker = false
    var enableBluetoothInput = false
    var duckOthers = false
    var routeChoice = RoutePolicy.Choice()
    var preferredSampleRate: Double = 0
    var preferredIOBufferDuration: Float = 0
    var format: StreamFormat
    /// The device's facts as last reported; refreshed on every hardware event.
    var facts: HardwareFacts
    /// The route as last computed from `facts`, the category and the route choice.
    var route: RouteDescription
    /// A system interruption (call, alarm) is in progress: activation is refused.
    var systemInterruptionInProgress = false
    /// This session's activation interrupted the other program's sound.
    var interruptedOtherAudio = false
    /// Set only while the interruption listener runs for an End.
    var endInterruptionType: InterruptionType?
    /// Notifications produced by the current call, sent after the lock is released.
    var outbox: [Notification] = []

    var policy: CategoryPolicy { category.policy }
    var mixesWithOthers: Bool { policy.mixesByDefault || mixWithOthers }
    var inputAvailable: Bool { facts.connectedPorts.contains { $0.isInput } }
    var otherAudioIsPlaying: Bool { facts.otherAudioPlaying && !interruptedOtherAudio }

    var streamRequest: StreamRequest {
        StreamRequest(input: policy.usesInput, output: policy.usesOutput,
                      preferredSampleRate: preferredSampleRate,
                      preferredIOBufferDuration: preferredIOBufferDuration)
    }

    func computeRoute() -> RouteDescription {
        RoutePolicy.route(connected: facts.connectedPorts, policy: policy, choice: routeChoice)
    }

    /// The listenable values whose changes are reported to property listeners, in the
    /// order listeners are told about them.
    static let observedProperties: [PropertyID] = [
        .currentHardwareInputNumberChannels, .currentHardwareOutputNumberChannels,
        .currentHardwareOutputVolume, .audioInputAvailable, .inputSources, .outputDestinations,
        .inputGainAvailable, .inputGainScalar,
    ]
}
