import Locking

/// One program's audio session: the state machine and every rule of SPEC.md 3–6.
///
/// All mutations run inside `transact`, which holds the lock, rolls the state back if
/// the call fails, and queues the listener calls the change produced while it still
/// holds the lock — so calls queue in the order of the changes they report — then wakes
/// the delivery layer after releasing it. User callbacks never run with the lock held.
public final class Session: Sendable {
    private let backend: HardwareBackend
    private let arbiter: Arbiter
    private let state: Locked<SessionState>
    private let sink: ListenerCallSink
    private let published = PublishedScalars()
    /// The services the session feeds, and the snapshot they last got.
    private let services = Locked<[AudioService]>([])

    /// Creates a session on `backend`, arbitrated by `arbiter`, whose listener calls go
    /// to `sink`. Events are not handled until `start()`.
    public init(backend: HardwareBackend, arbiter: Arbiter, sink: ListenerCallSink) {
        self.backend = backend
        self.arbiter = arbiter
        self.sink = sink
        let facts = backend.facts()
        var initial = SessionState(format: StreamFormat(sampleRate: 0, ioBufferDuration: 0, inputLatency: 0,
                                                        outputLatency: 0),
                                   facts: facts, route: RouteDescription(inputs: [], outputs: []))
        initial.format = backend.idleFormat(initial.streamRequest)
        initial.route = initial.computeRoute()
        state = Locked(initial)
        published.publish(initial)
        _ = arbiter.claimChanged(initial.claim)
    }

    /// Starts handling the backend's events. Separate from `init` so that whoever owns
    /// the session has finished wiring it before the first event can arrive.
    public func start() {
        // Unowned, not weak: a weak reference would give every session a side table and
        // put each retain on the slow path. `deinit` stops the backend before the session
        // goes away, so no event can reach a released session.
        backend.start { [unowned self] event in self.handle(event) }
        arbiter.start { [unowned self] event in self.handle(event) }
    }

    deinit {
        arbiter.shutDown()
        backend.shutDown()
    }

    public var phase: SessionPhase { state.withLock { $0.phase } }

    /// Feeds `service`: it gets the current snapshot now, then one from every
    /// transaction that changes it.
    public func attach(_ service: AudioService) {
        state.withLock { s in
            let added = services.withLock { list -> Bool in
                guard !list.contains(where: { $0 === service }) else { return false }
                list.append(service)
                return true
            }
            if added { service.sessionChanged(snapshot(of: s)) }
        }
    }

    /// Stops feeding `service`.
    /// Before an interruption's Begin is delivered: every service the session feeds has
    /// fallen quiet (see AudioService.awaitQuiet). Takes no lock of the session's while
    /// it waits.
    public func awaitServicesQuiet() {
        for service in services.withLock({ $0 }) { service.awaitQuiet() }
    }

    public func detach(_ service: AudioService) {
        state.withLock { _ in services.withLock { $0.removeAll { $0 === service } } }
    }

    /// What the services are told (see AudioServiceSnapshot). An interrupted session's
    /// audio is silent (SPEC 7: it stops before Begin, until its End), as it is during a
    /// system interruption; lowered while another session ducks this one.
    private func snapshot(of s: SessionState) -> AudioServiceSnapshot {
        let interrupted = s.phase == .interrupted || s.systemInterruptionInProgress
        return AudioServiceSnapshot(active: s.phase == .active, interrupted: interrupted,
                                    level: interrupted ? 0 : s.ducked ? Session.duckedLevel : 1,
                                    silentSwitch: s.silentSwitchOn,
                                    outputSilenced: s.silentSwitchOn && s.policy.silencedBySwitch,
                                    recording: s.policy.usesInput, playing: s.policy.usesOutput,
                                    streamRole: s.policy.streamRole,
                                    device: backend.outputDevice,
                                    sampleRate: s.format.sampleRate, ioBufferDuration: s.format.ioBufferDuration)
    }

    /// Ducked sounds play at this fraction of their level (about -10 dB).
    public static let duckedLevel: Float = 0.3

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
        // A call or an alarm keeps every session from starting, mixing or not (SPEC 7).
        guard !s.systemInterruptionInProgress else { throw .unspecified }
        // Only a category that does nothing but record needs an input to activate:
        // PlayAndRecord plays alone until an input appears (SPEC 9).
        if s.policy.usesInput && !s.policy.usesOutput && !s.inputAvailable { throw .noHardware }
        s.format = try backend.activate(s.streamRequest)
        s.phase = .active
        // Last: nothing may fail once the arbiter knows.
        apply(arbiter.activated(), to: &s)
    }

    private func deactivate(_ s: inout SessionState, notifyOthers: Bool) {
        // An interrupted session stays interrupted: it is inactive already, and the End
        // still reaches it. Ported programs commonly stop (and deactivate) in their
        // Begin handler and restart only on End.
        if s.phase == .active {
            backend.deactivate()
            s.phase = .inactive
            s.format = backend.idleFormat(s.streamRequest)
        }
        // The arbiter hears of every deactivation, also after an interruption took the
        // session down, which is when a program typically says it is done: the flag then
        // still releases the sessions this one interrupted.
        apply(arbiter.deactivated(notifyOthers: notifyOthers), to: &s)
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
        try state.withLock { s throws(ResultCode) in try s.value(of: descriptor.id) }
    }

    /// The published bits of a scalar property (see `PropertyDescriptor.publishedSlot`).
    @inline(__always)
    public func publishedBits(slot: Int) -> UInt64 { published.load(slot) }

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
        s.format = try backend.activate(s.streamRequest)
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
        // A category is a policy: setting it never fails for want of an input (SPEC 9).
        if s.phase == .active { s.format = try backend.activate(s.streamRequest) }
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

    /// A stream a service opened reports what the device granted it: while the session
    /// is active its Current* properties read that (the stream's real rate, period and
    /// latencies) rather than what activation negotiated.
    public func streamGranted(_ format: StreamFormat) {
        try? transact { s throws(ResultCode) in
            guard s.phase == .active else { return }
            s.format = format
        }
    }

    /// Applies an event reported by the backend, with the facts it carries.
    public func handle(_ event: HardwareEvent) {
        try? transact { s throws(ResultCode) in
            let request = s.streamRequest
            s.facts.apply(event)
            switch event {
            case .portsConnected:
                portsChanged(&s, reason: .newDeviceAvailable, request: request)
            case .portsDisconnected:
                portsChanged(&s, reason: .oldDeviceUnavailable, request: request)
            case .outputVolumeChanged, .inputGainChanged, .inputGainSettableChanged:
                break  // reported by change detection in `transact`
            }
        }
    }

    /// Applies what other programs or the system did.
    public func handle(_ event: ArbiterEvent) {
        try? transact { s throws(ResultCode) in apply([event], to: &s) }
    }

    private func apply(_ events: [ArbiterEvent], to s: inout SessionState) {
        for event in events {
            switch event {
            case .interruptionBegan:
                beginInterruption(&s)
            case .interruptionEnded(let shouldResume):
                endInterruption(&s, shouldResume: shouldResume)
            case .otherAudioChanged(let playing):
                s.othersPlaying = playing  // listeners: change detection in `transact`
            case .duckedChanged(let ducked):
                s.ducked = ducked
            case .systemInterruptionChanged(let interrupting):
                s.systemInterruptionInProgress = interrupting
            case .silentSwitchChanged(let on):
                s.silentSwitchOn = on
            case .serverVolumeChanged(let volume):
                s.serverVolume = volume  // listeners: change detection in `transact`
            case .serverDied(let sessionSurvives):
                if !sessionSurvives { deactivate(&s, notifyOthers: false) }
                s.outbox.append(.property(.serverDied, .uint32(1)))
            }
        }
    }

    /// `request` is what the session asked of the device before the ports changed.
    private func portsChanged(_ s: inout SessionState, reason: RouteChangeReason, request: StreamRequest) {
        // A route override lasts only until the next route change.
        s.routeChoice.overrideToSpeaker = false
        let route = s.computeRoute()
        // Losing the last port of a direction the category uses leaves it without a
        // suitable route (for the input, only while recording: SPEC 9); a direction that
        // had none already loses nothing.
        let outputLost = s.policy.usesOutput && !s.route.outputs.isEmpty && route.outputs.isEmpty
        let inputLost = s.phase == .active && s.policy.usesInput && !s.route.inputs.isEmpty && route.inputs.isEmpty
        // An input appearing or vanishing changes what the session needs from the device
        // (PlayAndRecord without an input runs for output alone).
        if s.streamRequest != request { renegotiate(&s) }
        rerouteIfChanged(&s, reason: outputLost || inputLost ? .noSuitableRouteForCategory : reason)
    }

    /// The device's format for the current request, after the ports changed. An event
    /// cannot fail: if the device refuses now, the format it granted before stands.
    private func renegotiate(_ s: inout SessionState) {
        if s.phase == .active {
            if let format = try? backend.activate(s.streamRequest) { s.format = format }
        } else {
            s.format = backend.idleFormat(s.streamRequest)
        }
    }

    private func beginInterruption(_ s: inout SessionState) {
        guard s.phase == .active else { return }
        // The session is made inactive before it hears about the interruption.
        backend.deactivate()
        s.phase = .interrupted
        s.format = backend.idleFormat(s.streamRequest)
        s.routeChoice.overrideToSpeaker = false
        s.route = s.computeRoute()
        s.outbox.append(.interruption(.begin))
    }

    private func endInterruption(_ s: inout SessionState, shouldResume: Bool) {
        guard s.phase == .interrupted else { return }
        s.phase = .inactive
        s.outbox.append(.interruption(.end(shouldResume ? .shouldResume : .shouldNotResume)))
    }

    /// Runs `body` (the interruption listener's End call) with InterruptionType readable.
    /// A nested dispatch inside the callback may deliver another End: each restores what
    /// its caller could read.
    public func withEndInterruptionType<T>(_ type: InterruptionType, _ body: () -> T) -> T {
        // InterruptionType is not published: it is read under the lock, from the state.
        let outer = state.withLock { s -> InterruptionType? in
            defer { s.endInterruptionType = type }
            return s.endInterruptionType
        }
        defer { state.withLock { $0.endInterruptionType = outer } }
        return body()
    }

    // MARK: Transactions

    /// Runs a mutation under the lock: all or nothing. The listener calls it produces are
    /// queued before the lock is released, and their deliverer woken after.
    private func transact(_ body: (inout SessionState) throws(ResultCode) -> Void) throws(ResultCode) {
        let (failure, queued): (ResultCode?, Bool) = state.withLock { s in
            let saved = s
            do throws(ResultCode) {
                try body(&s)
            } catch {
                s = saved
                return (error, false)
            }
            // The arbiter learns the new claim with the change that made it.
            if s.claim != saved.claim { apply(arbiter.claimChanged(s.claim), to: &s) }
            published.publish(s)
            let fed = snapshot(of: s)
            if fed != snapshot(of: saved) { for service in services.withLock({ $0 }) { service.sessionChanged(fed) } }
            if s.route.inputs.first != saved.route.inputs.first { backend.useInput(s.route.inputs.first) }
            let calls = s.outbox + s.listenerCalls(since: saved)
            s.outbox = []
            if !calls.isEmpty { sink.enqueue(calls) }
            return (nil, !calls.isEmpty)
        }
        if queued { sink.wake() }
        if let failure { throw failure }
    }
}
