@testable import AudioSessionCore
import Synchronization
import InProcessArbiter
import Testing
import VirtualAudioDevice

/// A listener call, briefly.
typealias Note = ListenerCall

/// Collects, in order, every listener call a session queues. An optional probe runs on
/// each batch when the session wakes its deliverer, outside the recorder's lock and
/// outside the session's lock (exactly where a real callback would run), so a test can
/// look at the session from "inside" a callback.
final class Recorder: ListenerCallSink {
    typealias Probe = @Sendable (Session, [Note]) -> Void

    private struct State {
        var notes: [Note] = []
        /// Queued since the last wake: the batch the probe sees next.
        var unprobed: [Note] = []
        weak var session: Session?
        var probe: Probe?
        /// Runs as calls are queued, under the session's lock (what the session had done
        /// by then, before anyone could see the calls).
        var atEnqueue: (@Sendable ([Note]) -> Void)?
    }
    private let state = Mutex(State())

    func attach(_ session: Session) { state.withLock { $0.session = session } }

    /// Runs `probe` on every later batch (replacing any earlier probe).
    func onDeliver(_ probe: @escaping Probe) { state.withLock { $0.probe = probe } }

    /// Runs `hook` on every later batch as it is queued.
    func onEnqueue(_ hook: @escaping @Sendable ([Note]) -> Void) { state.withLock { $0.atEnqueue = hook } }

    func enqueue(_ calls: [Note]) {
        let hook = state.withLock { s in
            s.notes += calls
            s.unprobed += calls
            return s.atEnqueue
        }
        hook?(calls)
    }

    func wake() {
        let (probe, session, batch) = state.withLock { s -> (Probe?, Session?, [Note]) in
            defer { s.unprobed.removeAll() }
            return (s.probe, s.session, s.unprobed)
        }
        if let probe, let session, !batch.isEmpty { probe(session, batch) }
    }

    /// Everything received since the last call, in order.
    func take() -> [Note] {
        state.withLock { s in
            defer { s.notes.removeAll() }
            return s.notes
        }
    }

    /// The route changes among `take()`, in order.
    func takeRouteChanges() -> [RouteChange] {
        take().compactMap { note in
            if case .property(.audioRouteChange, .routeChange(let change)) = note { return change }
            return nil
        }
    }
}

/// The virtual device behind a switch that makes it refuse activation as a busy ALSA
/// device does ('what'), to reach the failure paths of changes that renegotiate.
final class BusyableDevice: HardwareBackend {
    let device: VirtualAudioDevice
    private let busyFlag = Shared(false)
    init(_ device: VirtualAudioDevice) { self.device = device }
    var busy: Bool {
        get { busyFlag.value }
        set { busyFlag.withLock { $0 = newValue } }
    }
    func facts() -> HardwareFacts { device.facts() }
    var outputDevice: AudioOutputDevice { device.outputDevice }
    func activate(_ request: StreamRequest) throws(ResultCode) -> StreamFormat {
        if busy { throw .unspecified }
        return try device.activate(request)
    }
    func idleFormat(_ request: StreamRequest) -> StreamFormat { device.idleFormat(request) }
    func deactivate() { device.deactivate() }
    func setInputGain(_ gain: Float) { device.setInputGain(gain) }
    func useInput(_ port: Port?) { device.useInput(port) }
    func start(reportingTo handler: @escaping @Sendable (HardwareEvent) -> Void) { device.start(reportingTo: handler) }
    func shutDown() { device.shutDown() }
}

/// A session on a fresh virtual device, with a recorder for what it delivers.
/// An audio service that keeps every snapshot the session fed it.
final class RecordingService: AudioService, @unchecked Sendable {
    private let snapshots = Mutex<[AudioServiceSnapshot]>([])
    func sessionChanged(_ snapshot: AudioServiceSnapshot) { snapshots.withLock { $0.append(snapshot) } }
    var received: [AudioServiceSnapshot] { snapshots.withLock { $0 } }
    var latest: AudioServiceSnapshot? { received.last }
    func resetAfterFork() { snapshots.withLock { $0 = [] } }
}

struct Fixture {
    let device = VirtualAudioDevice()
    /// The simulated rest of the system: other program, interruptions, server death.
    let arbiter = InProcessArbiter()
    let recorder = Recorder()
    let session: Session
    /// The switch between session and device.
    let busyable: BusyableDevice

    init() {
        busyable = BusyableDevice(device)
        session = Session(backend: busyable, arbiter: arbiter, sink: recorder)
        recorder.attach(session)
        session.start()
    }

    func set(_ id: PropertyID, _ value: UInt32) throws(ResultCode) {
        try session.setValue(.uint32(value), of: id)
    }

    func category(_ category: Category) throws(ResultCode) {
        try set(.audioCategory, category.rawValue)
    }

    func activate() throws(ResultCode) { try session.setActive(true, flags: 0) }
    func deactivate() throws(ResultCode) { try session.setActive(false, flags: 0) }

    func uint32(_ id: PropertyID) throws -> UInt32? { try session.value(of: id).uint32 }

    func float32(_ id: PropertyID) throws -> Float? {
        if case .float32(let v) = try session.value(of: id) { return v }
        return nil
    }

    func float64(_ id: PropertyID) throws -> Double? {
        if case .float64(let v) = try session.value(of: id) { return v }
        return nil
    }

    var route: RouteDescription? {
        if case .route(let route)? = try? session.value(of: .audioRouteDescription) { return route }
        return nil
    }

    var legacyRoute: String? {
        if case .legacyRouteName(let name)? = try? session.value(of: .audioRoute) { return name }
        return nil
    }

    /// Every readable property's value (InterruptionType aside: it is readable only in
    /// an End callback), in table order: equal snapshots mean no visible state changed.
    func snapshot() throws -> [String] {
        try PropertyTable.all
            .filter { $0.access.contains(.get) && $0.id != .interruptionType }
            .map { "\($0.id)=\(try session.value(of: $0.id))" }
    }
}

/// `'spkr'`: kAudioSessionOverrideAudioRoute_Speaker.
let speakerOverride = FourCharCode.make("spkr")

/// A route change notification, for exact comparisons.
func routeChange(_ reason: RouteChangeReason, from previous: RouteDescription,
                 to current: RouteDescription) -> Note {
    .property(.audioRouteChange, .routeChange(RouteChange(reason: reason, previous: previous, current: current)))
}

/// A route description, briefly.
func route(in inputs: [Port] = [], out outputs: [Port] = []) -> RouteDescription {
    RouteDescription(inputs: inputs, outputs: outputs)
}

/// All eight category constants, the deprecated aliases last.
let allCategories: [Category] = [
    .ambientSound, .soloAmbientSound, .mediaPlayback, .recordAudio, .playAndRecord, .audioProcessing,
    .userInterfaceSoundEffects, .liveAudio,
]

let allModes: [Mode] = [.default, .voiceChat, .videoRecording, .measurement, .gameChat]

/// The category a deprecated alias behaves as (the category itself otherwise).
func target(of category: Category) -> Category {
    switch category {
    case .userInterfaceSoundEffects: return .ambientSound
    case .liveAudio: return .mediaPlayback
    default: return category
    }
}

/// A mutable value shared with callbacks (a Mutex in a class, so closures can capture it).
final class Shared<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<R>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
    var value: Value { withLock { $0 } }
}
