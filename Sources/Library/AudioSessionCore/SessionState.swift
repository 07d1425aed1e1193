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
    /// The device's facts: read when the session starts, then updated by every event.
    var facts: HardwareFacts
    /// The route as last computed from `facts`, the category and the route choice.
    var route: RouteDescription
    /// A system interruption (call, alarm) is in progress: activating a session that
    /// does not mix is refused.
    var systemInterruptionInProgress = false
    /// Another program's sound is playing, as the arbiter says.
    var othersPlaying = false
    /// A ducking session is lowering this one, as the arbiter says.
    var ducked = false
    /// The system's silent switch, as the arbiter says.
    var silentSwitchOn = false
    /// The sound server's default output volume, when one runs (the arbiter says).
    var serverVolume: Float?
    /// Set only while the interruption listener runs for an End.
    var endInterruptionType: InterruptionType?
    /// Listener calls produced by the current change, queued when it succeeds.
    var outbox: [ListenerCall] = []

    var policy: CategoryPolicy { category.policy }
    var mixesWithOthers: Bool { policy.mixesByDefault || mixWithOthers }
    var inputAvailable: Bool { facts.connectedPorts.contains { $0.isInput } }

    /// What the arbiter needs to know of this session.
    var claim: SessionClaim {
        SessionClaim(category: category.rawValue, mode: mode.rawValue, mixes: mixesWithOthers, ducks: duckOthers,
                     output: policy.usesOutput, input: policy.usesInput)
    }

    /// What the session asks of the device: the input only while there is one to use.
    var streamRequest: StreamRequest {
        StreamRequest(input: policy.usesInput && inputAvailable, output: policy.usesOutput,
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
        .inputGainAvailable, .inputGainScalar, .otherAudioIsPlaying,
    ]
}

// MARK: Reading properties (pure functions of the state)

extension SessionState {
    /// The value of a readable property.
    func value(of id: PropertyID) throws(ResultCode) -> PropertyValue {
        if let scalar = try scalar(of: id) { return scalar.propertyValue }
        switch id {
        case .inputSources: return .ports(RoutePolicy.selectable(inputs: true, connected: facts.connectedPorts))
        case .outputDestinations: return .ports(RoutePolicy.selectable(inputs: false, connected: facts.connectedPorts))
        case .inputSource: return .portID(route.inputs.first?.sourceID ?? 0)
        case .outputDestination: return .portID(route.outputs.first?.sourceID ?? 0)
        case .audioRouteDescription: return .route(route)
        case .audioRoute: return .legacyRouteName(route.legacyName)
        default: throw .unsupportedProperty
        }
    }

    /// The value of a scalar property, nil for a CF-valued or unknown one.
    func scalar(of id: PropertyID) throws(ResultCode) -> ScalarValue? {
        switch id {
        case .preferredHardwareSampleRate: return .float64(preferredSampleRate)
        case .preferredHardwareIOBufferDuration: return .float32(preferredIOBufferDuration)
        case .audioCategory: return .uint32(category.rawValue)
        case .currentHardwareSampleRate: return .float64(format.sampleRate)
        case .currentHardwareInputNumberChannels: return .uint32(route.inputs.first?.channelCount ?? 0)
        case .currentHardwareOutputNumberChannels: return .uint32(route.outputs.first?.channelCount ?? 0)
        case .currentHardwareOutputVolume: return .float32(serverVolume ?? facts.outputVolume)
        case .currentHardwareInputLatency: return .float32(format.inputLatency)
        case .currentHardwareOutputLatency: return .float32(format.outputLatency)
        case .currentHardwareIOBufferDuration: return .float32(format.ioBufferDuration)
        case .otherAudioIsPlaying: return .uint32(othersPlaying ? 1 : 0)
        case .audioInputAvailable: return .uint32(inputAvailable ? 1 : 0)
        case .otherMixableAudioShouldDuck: return .uint32(duckOthers ? 1 : 0)
        case .overrideCategoryMixWithOthers: return .uint32(mixWithOthers ? 1 : 0)
        case .overrideCategoryDefaultToSpeaker: return .uint32(defaultToSpeaker ? 1 : 0)
        case .overrideCategoryEnableBluetoothInput: return .uint32(enableBluetoothInput ? 1 : 0)
        case .interruptionType:
            guard let type = endInterruptionType else { throw .unsupportedProperty }
            return .uint32(type.rawValue)
        case .mode: return .uint32(mode.rawValue)
        case .inputGainAvailable: return .uint32(facts.inputGainSettable && inputAvailable ? 1 : 0)
        case .inputGainScalar: return .float32(facts.inputGain)
        default: return nil
        }
    }

    /// Calls of the listeners whose property differs from `before`, with the new value.
    /// Runs on every change, so scalars are compared without building values and the
    /// port lists are only built when the connected ports changed.
    func listenerCalls(since before: SessionState) -> [ListenerCall] {
        var calls: [ListenerCall] = []
        let portsChanged = before.facts.connectedPorts != facts.connectedPorts
        for id in SessionState.observedProperties {
            if let new = try? scalar(of: id) {
                if let old = try? before.scalar(of: id), old == new { continue }
                calls.append(.property(id, new.propertyValue))
            } else if portsChanged, let new = try? value(of: id), (try? before.value(of: id)) != new {
                calls.append(.property(id, new))
            }
        }
        return calls
    }
}
