import Locking

/// One program's audio session: the state machine and every rule of SPEC.md 3–6.
///
/// All mutations run inside `transact`, which holds the lock, rolls the state back if
/// the call fails, reports listened values that changed, and hands the resulting
/// notifications to `deliver` only after the lock is released — so user callbacks can
/// never run with the lock held.
public final class Session: Sendable {
    private let backend: HardwareBackend
    private let state: Locked<SessionState>
    private let deliver: @Sendable ([Notification]) -> Void
    private let published = PublishedScalars()

    /// Creates a session on `backend`. `deliver` receives notifications in order; it
    /// must queue them, not call user code on the caller's stack.
    public init(backend: HardwareBackend, deliver: @escaping @Sendable ([Notification]) -> Void) {
        self.backend = backend
        self.deliver = deliver
        let facts = backend.facts()
        var initial = SessionState(format: StreamFormat(sampleRate: 0, ioBufferDuration: 0, inputLatency: 0,
                                                        outputLatency: 0),
                                   facts: facts, route: RouteDescription(inputs: [], outputs: []))
        initial.format = backend.idleFormat(initial.streamRequest)
        initial.route = initial.computeRoute()
        state = Locked(initial)
        published.publish(initial)
        // Unowned, not weak: a weak reference would give every session a side table and
        // put each retain on the slow path. The backend belongs to the session and is
        // only driven while the session exists.
        backend.setEventHandler { [unowned self] event in self.handle(event) }
    }

    public var phase: SessionPhase { state.withLock { $0.phase } }

    // MARK: Activation

    /// The flag bits `setActive` understands.
    public static let notifyOthersOnDeactivation: UInt32 = 1

    public func setActive(_ active: Bool, flags: UInt32) throws(ResultCode) {
        guard flags & ~Session.notifyOthersOnDeactivation == 0 else { throw .unsupportedProperty }
        try transact { s throws(ResultCode) in
            if active {
                try activate(&s)
            } else {
                deactivate(&s, notifyOthers: flags & Session.notifyOthersOnDeactivation != 0)
            }
        }
    }

    private func activate(_ s: inout SessionState) throws(ResultCode) {
        guard s.phase != .active else { return }
        guard !s.systemInterruptionInProgress else { throw .unspecified }
        if s.policy.usesInput && !s.inputAvailable { throw .noHardware }
        s.format = try backend.open(s.streamRequest)
        s.phase = .active
        // A session that does not mix silences the other program, as on a phone.
        if !s.mixesWithOthers && s.facts.otherAudioPlaying { s.interruptedOtherAudio = true }
    }

    private func deactivate(_ s: inout SessionState, notifyOthers: Bool) {
        if s.phase == .interrupted { s.phase = .inactive }
        if s.phase == .active {
            backend.close()
            s.phase = .inactive
            s.format = backend.idleFormat(s.streamRequest)
        }
        // The flag releases the programs this session silenced whenever the session is
        // no longer playing: also after an interruption took it down, which is when a
        // program typically says it is done.
        if notifyOthers { s.interruptedOtherAudio = false }
    }

    // MARK: Properties

    public func size(of id: PropertyID) throws(ResultCode) -> UInt32 {
        let descriptor = try PropertyTable.descriptor(id)
        guard !descriptor.access.isDisjoint(with: [.get, .set]) else { throw .unsupportedProperty }
        return descriptor.type.byteCount
    }

    public func value(of id: PropertyID) throws(ResultCode) -> PropertyValue {
        try value(of: try PropertyTable.descriptor(id, allowing: .get))
    }

    /// The value of a property whose descriptor the caller already looked up and
    /// checked for `.get` access (the C entry point needs the descriptor for the size).
    public func value(of descriptor: PropertyDescriptor) throws(ResultCode) -> PropertyValue {
        try state.withLock { s throws(ResultCode) in try Session.read(descriptor.id, from: s) }
    }

    /// The published bits of a scalar property (see `PropertyDescriptor.publishedSlot`).
    @inline(__always)
    public func publishedBits(slot: Int) -> UInt64 { published.load(slot) }

    /// Reads a property from a state value: a pure function, shared by `value(of:)`
    /// and change detection.
    static func read(_ id: PropertyID, from s: SessionState) throws(ResultCode) -> PropertyValue {
        if let scalar = try readScalar(id, from: s) { return scalar.propertyValue }
        switch id {
        case .inputSources: return .ports(RoutePolicy.selectable(inputs: true, connected: s.facts.connectedPorts))
        case .outputDestinations:
            return .ports(RoutePolicy.selectable(inputs: false, connected: s.facts.connectedPorts))
        case .inputSource: return .portID(s.route.inputs.first?.sourceID ?? 0)
        case .outputDestination: return .portID(s.route.outputs.first?.sourceID ?? 0)
        case .audioRouteDescription: return .route(s.route)
        case .audioRoute: return .legacyRouteName(s.route.legacyName)
        default: throw .unsupportedProperty
        }
    }

    /// The value of a scalar property, nil for a CF-valued or unknown one.
    static func readScalar(_ id: PropertyID, from s: SessionState) throws(ResultCode) -> ScalarValue? {
        switch id {
        case .preferredHardwareSampleRate: return .float64(s.preferredSampleRate)
        case .preferredHardwareIOBufferDuration: return .float32(s.preferredIOBufferDuration)
        case .audioCategory: return .uint32(s.category.rawValue)
        case .currentHardwareSampleRate: return .float64(s.format.sampleRate)
        case .currentHardwareInputNumberChannels: return .uint32(s.route.inputs.first?.channelCount ?? 0)
        case .currentHardwareOutputNumberChannels: return .uint32(s.route.outputs.first?.channelCount ?? 0)
        case .currentHardwareOutputVolume: return .float32(s.facts.outputVolume)
        case .currentHardwareInputLatency: return .float32(s.format.inputLatency)
        case .currentHardwareOutputLatency: return .float32(s.format.outputLatency)
        case .currentHardwareIOBufferDuration: return .float32(s.format.ioBufferDuration)
        case .otherAudioIsPlaying: return .uint32(s.otherAudioIsPlaying ? 1 : 0)
        case .audioInputAvailable: return .uint32(s.inputAvailable ? 1 : 0)
        case .otherMixableAudioShouldDuck: return .uint32(s.duckOthers ? 1 : 0)
        case .overrideCategoryMixWithOthers: return .uint32(s.mixWithOthers ? 1 : 0)
        case .overrideCategoryDefaultToSpeaker: return .uint32(s.defaultToSpeaker ? 1 : 0)
        case .overrideCategoryEnableBluetoothInput: return .uint32(s.enableBluetoothInput ? 1 : 0)
        case .interruptionType:
            guard let type = s.endInterruptionType else { throw .unsupportedProperty }
            return .uint32(type.rawValue)
        case .mode: return .uint32(s.mode.rawValue)
        case .inputGainAvailable: return .uint32(s.facts.inputGainSettable && s.inputAvailable ? 1 : 0)
        case .inputGainScalar: return .float32(s.facts.inputGain)
        default: return nil
        }
    }

    public func setValue(_ value: PropertyValue, of id: PropertyID) throws(ResultCode) {
        _ = try PropertyTable.descriptor(id, allowing: .set)
        try transact { s throws(ResultCode) in try write(value, to: id, in: &s) }
    }

    private func write(_ value: PropertyValue, to id: PropertyID, in s: inout SessionState) throws(ResultCode) {
        switch (id, value) {
        case (.preferredHardwareSampleRate, .float64(let rate)):
            guard rate == 0 || (8_000...384_000).contains(rate) else { throw .unsupportedProperty }
            s.preferredSampleRate = rate
            try renegotiateIfActive(&s)
        case (.preferredHardwareIOBufferDuration, .float32(let duration)):
            guard duration == 0 || (duration > 0 && duration <= 1) else { throw .unsupportedProperty }
            s.preferredIOBufferDuration = duration
            try renegotiateIfActive(&s)
        case (.audioCategory, .uint32(let raw)):
            guard let category = Category(rawValue: raw) else { throw .unsupportedProperty }
            try change(&s, to: category)
        case (.overrideAudioRoute, .uint32(let raw)):
            try overrideRoute(&s, raw: raw)
        case (.otherMixableAudioShouldDuck, .uint32(let flag)):
            guard s.policy.duckSettable else { throw .incompatibleCategory }
            s.duckOthers = flag != 0
            // Ducking others only makes sense while mixing with them.
            if s.duckOthers && s.policy.mixWithOthersSettable { s.mixWithOthers = true }
        case (.overrideCategoryMixWithOthers, .uint32(let flag)):
            guard s.policy.mixWithOthersSettable else { throw .incompatibleCategory }
            s.mixWithOthers = flag != 0
        case (.overrideCategoryDefaultToSpeaker, .uint32(let flag)):
            guard s.policy.defaultToSpeakerSettable else { throw .incompatibleCategory }
            s.defaultToSpeaker = flag != 0
        case (.overrideCategoryEnableBluetoothInput, .uint32(let flag)):
            guard s.policy.bluetoothInputSettable else { throw .incompatibleCategory }
            s.enableBluetoothInput = flag != 0
        case (.mode, .uint32(let raw)):
            guard let mode = Mode(rawValue: raw) else { throw .unsupportedProperty }
            try change(&s, to: mode)
        case (.inputSource, .portID(let portID)):
            try select(&s, portID: portID, input: true)
        case (.outputDestination, .portID(let portID)):
            try select(&s, portID: portID, input: false)
        case (.inputGainScalar, .float32(let gain)):
            guard !gain.isNaN else { throw .unsupportedProperty }
            guard s.facts.inputGainSettable && s.inputAvailable else { throw .noHardware }
            let clamped = min(max(gain, 0), 1)
            backend.setInputGain(clamped)
            s.facts.inputGain = clamped
        default:
            throw .unsupportedProperty
        }
    }

    private func renegotiateIfActive(_ s: inout SessionState) throws(ResultCode) {
        guard s.phase == .active else { return }
        s.format = try backend.open(s.streamRequest)
    }

    private func change(_ s: inout SessionState, to category: Category) throws(ResultCode) {
        guard category != s.category else { return }
        let previousRoute = s.route
        s.category = category
        // Overrides belong to the category they were set for.
        s.mixWithOthers = false
        s.defaultToSpeaker = false
        s.enableBluetoothInput = false
        s.duckOthers = false
        s.routeChoice.overrideToSpeaker = false
        if !category.policy.allows(s.mode) { s.mode = .default }
        if s.phase == .active {
            if s.policy.usesInput && !s.inputAvailable { throw .noHardware }
            s.format = try backend.open(s.streamRequest)
        }
        s.route = s.computeRoute()
        if s.phase == .active {
            s.outbox.append(.property(.audioRouteChange, .routeChange(
                RouteChange(reason: .categoryChange, previous: previousRoute, current: s.route))))
        }
    }

    private func change(_ s: inout SessionState, to mode: Mode) throws(ResultCode) {
        guard s.phase != .active else { throw .unspecified }
        guard !s.mixesWithOthers, s.policy.allows(mode) else { throw .incompatibleCategory }
        s.mode = mode
        if mode == .voiceChat { s.enableBluetoothInput = true }
    }

    private func overrideRoute(_ s: inout SessionState, raw: UInt32) throws(ResultCode) {
        let speaker = FourCharCode.make("spkr")
        guard raw == 0 || raw == speaker else { throw .unsupportedProperty }
        guard raw == 0 || s.policy.routeOverrideAllowed else { throw .incompatibleCategory }
        s.routeChoice.overrideToSpeaker = raw == speaker
        rerouteIfChanged(&s, reason: .override)
    }

    private func select(_ s: inout SessionState, portID: UInt32, input: Bool) throws(ResultCode) {
        let choices = RoutePolicy.selectable(inputs: input, connected: s.facts.connectedPorts)
        guard let port = choices.first(where: { $0.sourceID == portID }) else { throw .unsupportedProperty }
        if input { s.routeChoice.selectedInput = port } else { s.routeChoice.selectedOutput = port }
        // Choosing a source or destination is a route change: the speaker override ends.
        s.routeChoice.overrideToSpeaker = false
        rerouteIfChanged(&s, reason: .routeConfigurationChange)
    }

    /// Recomputes the route and, if it differs, records it and tells route listeners.
    private func rerouteIfChanged(_ s: inout SessionState, reason: RouteChangeReason) {
        let previous = s.route
        s.route = s.computeRoute()
        guard s.route != previous else { return }
        s.outbox.append(.property(.audioRouteChange, .routeChange(
            RouteChange(reason: reason, previous: previous, current: s.route))))
    }

    // MARK: Hardware and system events

    /// Applies an event reported by the backend.
    public func handle(_ event: HardwareEvent) {
        try? transact { s throws(ResultCode) in
            s.facts = backend.facts()
            switch event {
            case .portsConnected:
                portsChanged(&s, reason: .newDeviceAvailable)
            case .portsDisconnected:
                portsChanged(&s, reason: .oldDeviceUnavailable)
            case .otherAudioChanged:
                if !s.facts.otherAudioPlaying { s.interruptedOtherAudio = false }
            case .outputVolumeChanged, .inputGainChanged, .inputGainSettableChanged:
                break  // reported by change detection in `transact`
            case .interruptionBegan:
                beginInterruption(&s)
            case .interruptionEnded(let shouldResume):
                endInterruption(&s, shouldResume: shouldResume)
            case .serverDied:
                deactivate(&s, notifyOthers: false)
                s.outbox.append(.property(.serverDied, .uint32(1)))
            }
        }
    }

    private func portsChanged(_ s: inout SessionState, reason: RouteChangeReason) {
        // A route override lasts only until the next route change.
        s.routeChoice.overrideToSpeaker = false
        let route = s.computeRoute()
        let outputLost = s.policy.usesOutput && route.outputs.isEmpty
        let inputLost = s.policy.usesInput && route.inputs.isEmpty
        rerouteIfChanged(&s, reason: outputLost || inputLost ? .noSuitableRouteForCategory : reason)
    }

    private func beginInterruption(_ s: inout SessionState) {
        s.systemInterruptionInProgress = true
        guard s.phase == .active else { return }
        // The session is made inactive before it hears about the interruption.
        backend.close()
        s.phase = .interrupted
        s.format = backend.idleFormat(s.streamRequest)
        s.routeChoice.overrideToSpeaker = false
        s.route = s.computeRoute()
        s.outbox.append(.interruption(.begin))
    }

    private func endInterruption(_ s: inout SessionState, shouldResume: Bool) {
        s.systemInterruptionInProgress = false
        guard s.phase == .interrupted else { return }
        s.phase = .inactive
        s.outbox.append(.interruption(.end(shouldResume ? .shouldResume : .shouldNotResume)))
    }

    /// Runs `body` (the interruption listener's End call) with InterruptionType readable.
    public func withEndInterruptionType<T>(_ type: InterruptionType, _ body: () -> T) -> T {
        // InterruptionType is not published: it is read under the lock, from the state.
        state.withLock { $0.endInterruptionType = type }
        defer { state.withLock { $0.endInterruptionType = nil } }
        return body()
    }

    // MARK: Transactions

    /// Runs a mutation under the lock: all or nothing, then delivers its notifications.
    private func transact(_ body: (inout SessionState) throws(ResultCode) -> Void) throws(ResultCode) {
        let (failure, outbox): (ResultCode?, [Notification]) = state.withLock { s in
            let saved = s
            do throws(ResultCode) {
                try body(&s)
            } catch {
                s = saved
                return (error, [])
            }
            published.publish(s)
            if s.route.inputs.first != saved.route.inputs.first { backend.useInput(s.route.inputs.first) }
            s.outbox += Session.observedChanges(from: saved, to: s)
            defer { s.outbox = [] }
            return (nil, s.outbox)
        }
        if !outbox.isEmpty { deliver(outbox) }
        if let failure { throw failure }
    }

    /// Listened properties whose value differs between two states, with the new value.
    /// Runs on every call, so scalars are compared without building values and the port
    /// lists are only built when the connected ports changed.
    private static func observedChanges(from before: SessionState, to after: SessionState) -> [Notification] {
        var changes: [Notification] = []
        let portsChanged = before.facts.connectedPorts != after.facts.connectedPorts
        for id in SessionState.observedProperties {
            if let new = try? readScalar(id, from: after) {
                if let old = try? readScalar(id, from: before), old == new { continue }
                changes.append(.property(id, new.propertyValue))
            } else if portsChanged, let new = try? read(id, from: after), (try? read(id, from: before)) != new {
                changes.append(.property(id, new))
            }
        }
        return changes
    }
}
