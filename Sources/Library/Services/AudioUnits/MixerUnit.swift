import Glibc
import Locking
import Synchronization

/// One input bus of the mixer: what feeds it and its gains. Trivial values, so the
/// render's copy retains nothing.
struct MixerBus {
    var layout = PCMLayout(sampleRate: 44100, encoding: .float32, channels: 2, interleaved: false)
    var callback: RenderCallback?
    /// The volume reached once the latest change (below) has played out.
    var volume: Float = 1
    var enabled = true
    var pan: Float = 0
    var metering = false
    /// A volume change the render has yet to start: bumped with each change, which begins
    /// `delay` frames into the next render and ramps from `rampFrom` (nil: where the
    /// volume is then) over `rampFrames` (0: a step).
    var volumeChange: UInt32 = 0
    var delay: UInt32 = 0
    var rampFrames: UInt32 = 0
    var rampFrom: Float?
}

/// What the mixer's render reads besides its buses.
struct MixerPlan {
    var output = PCMLayout(sampleRate: 44100, encoding: .float32, channels: 2, interleaved: false)
    var outputVolume: Float = 1
    var outputEnabled = true
    var outputMetering = false
    var maximumFrames: UInt32 = 4096
    var notifies = RenderNotifies()
}

/// The multichannel mixer (kAudioUnitSubType_MultiChannelMixer): any number of input
/// buses, each in its own client format (converted, resampled to the output's rate), with
/// volume, enable and pan, summed into one stereo (or mono) output with its own volume,
/// and metered before and after the gains.
///
/// The configuration changes under a lock, from the program's calls. The render (pulled by
/// the output unit's real-time thread) copies it only when that lock is free, into the
/// storage Initialize made, and allocates nothing: a change is heard from the next render,
/// at a buffer boundary (a volume change at the frame its offset names).
public final class MixerUnit: AudioUnitInstance, DeclaredParameters, @unchecked Sendable {
    /// MultiChannelMixer, or AU3DMixerEmbedded (the same engine, its buses placed by the
    /// 3D parameters: SpatialMixer.swift).
    public let kind: UnitKind
    public var handle: UInt = 0
    /// The most input buses a mixer takes (kAudioUnitProperty_ElementCount).
    public static let maximumBuses: UInt32 = 128

    struct Config {
        var buses = [MixerBus](repeating: MixerBus(), count: 8)
        var plan = MixerPlan()
        /// Made at Initialize; nil while uninitialized.
        var storage: MixerStorage?
        /// Storage a render may still be reading: freed by a later change once the render
        /// no longer names it (never by the render thread, and never waiting for it).
        var retired: [MixerStorage] = []
        /// Bumped with every change the render copies.
        var version = 1
        var renderQuality: UInt32 = 0x7F
        var lastRenderError: Int32 = 0
    }
    let config = Locked(Config())
    /// Held by the one render under way, for all of it (a second thread rendering the same
    /// mixer meanwhile is refused).
    let rendering = Atomic<Bool>(false)
    /// The storage renders use, by address (0: none): written only by a render, when it
    /// finds the configuration's lock free, and read by it at its start. A retired storage
    /// is freed, under the configuration's lock (so no render switches meanwhile), only
    /// once this names another: the render under way, if any, uses what this names.
    let renderStorage = Atomic<UInt>(0)
    /// Set by AudioUnitReset: the next render resets what the render owns.
    let resetRequested = Atomic<Bool>(false)

    let disposed = Atomic<Bool>(false)
    public var isDisposed: Bool { disposed.load(ordering: .acquiring) }
    public func markDisposed() { disposed.store(true, ordering: .releasing) }

    let kept = Locked<[AnyObject]>([])
    public func keepAlive(_ object: AnyObject) { kept.withLock { $0.append(object) } }
    public var keptObjects: [AnyObject] { kept.withLock { $0 } }

    /// The 3D mixer's parameters per input bus, and its global ones.
    let spatial = Locked(SpatialState())

    public init(kind: UnitKind = .multiChannelMixer) {
        self.kind = kind
        let fresh = freshBus
        config.withLock { c in c.buses = [MixerBus](repeating: fresh, count: c.buses.count) }
    }

    /// A bus as it starts: the 3D mixer's is in front at one metre (-3 dB a side).
    private var freshBus: MixerBus {
        var bus = MixerBus()
        if kind == .mixer3D { bus.volume = Self.engineGains(SpatialState.Bus()).volume }
        return bus
    }

    // MARK: Elements and formats

    public func elementCount(_ scope: Scope) -> UInt32 {
        scope == .input ? UInt32(config.withLock { $0.buses.count }) : 1
    }

    /// kAudioUnitProperty_ElementCount on the input scope: buses added keep the defaults
    /// and are unfed, buses taken away forget what fed them. An initialized (even
    /// rendering) mixer takes it as the phone's does, as games add channel groups to a
    /// running mixer: the storage is made again here, off the render thread, as for a
    /// format change, and the render moves to it at its next period.
    public func setInputCount(_ count: UInt32) throws(UnitError) {
        guard count >= 1, count <= Self.maximumBuses else { throw .invalidPropertyValue }
        let fresh = freshBus
        try change { c throws(UnitError) in
            let buses = c.buses
            if Int(count) < c.buses.count {
                c.buses.removeLast(c.buses.count - Int(count))
                spatial.withLock { s in s.buses = s.buses.filter { $0.key < count } }
            } else {
                c.buses += [MixerBus](repeating: fresh, count: Int(count) - c.buses.count)
            }
            guard c.storage != nil else { return }
            do throws(UnitError) {
                try remakeStorage(&c)
            } catch {
                c.buses = buses
                throw error
            }
        }
    }

    public func format(scope: Scope, element: UInt32) throws(UnitError) -> PCMLayout {
        try config.withLock { c throws(UnitError) in
            switch scope {
            case .input:
                guard element < c.buses.count else { throw .invalidElement }
                return c.buses[Int(element)].layout
            case .output:
                guard element == 0 else { throw .invalidElement }
                return c.plan.output
            case .global: throw .invalidScope
            }
        }
    }

    /// A bus takes any linear PCM layout; the output is mono or stereo. Set while
    /// initialized, the storage is made again for it.
    public func setFormat(_ layout: PCMLayout, scope: Scope, element: UInt32) throws(UnitError) {
        try change { c throws(UnitError) in
            let (buses, plan) = (c.buses, c.plan)
            switch scope {
            case .input:
                guard element < c.buses.count else { throw .invalidElement }
                c.buses[Int(element)].layout = layout
            case .output:
                guard element == 0 else { throw .invalidElement }
                guard layout.channels <= 2 else { throw .formatNotSupported }
                c.plan.output = layout
            case .global: throw .invalidScope
            }
            guard c.storage != nil else { return }
            do throws(UnitError) {
                try remakeStorage(&c)
            } catch {
                // Storage for the new format could not be made: the old one stays, with
                // the format it was made for.
                (c.buses, c.plan) = (buses, plan)
                throw error
            }
        }
    }

    public var maximumFramesPerSlice: UInt32 { config.withLock { $0.plan.maximumFrames } }

    public func setMaximumFramesPerSlice(_ frames: UInt32) throws(UnitError) {
        guard frames >= 1, frames <= 65536 else { throw .invalidPropertyValue }
        try change { c throws(UnitError) in
            guard c.storage == nil else { throw .initialized }
            c.plan.maximumFrames = frames
        }
    }

    public var renderQuality: UInt32 { config.withLock { $0.renderQuality } }
    public func setRenderQuality(_ quality: UInt32) throws(UnitError) {
        guard quality <= 0x7F else { throw .invalidPropertyValue }
        config.withLock { $0.renderQuality = quality }
    }

    public var lastRenderError: Int32 { config.withLock { $0.lastRenderError } }
    public var latency: Double { 0 }

    // MARK: Inputs and notifies

    public func setRenderCallback(_ callback: RenderCallback?, input: UInt32) throws(UnitError) {
        try change { c throws(UnitError) in
            guard input < c.buses.count else { throw .invalidElement }
            c.buses[Int(input)].callback = callback
        }
    }

    public func addRenderNotify(_ callback: RenderCallback) throws(UnitError) {
        try change { c throws(UnitError) in try c.plan.notifies.add(callback) }
    }

    public func removeRenderNotify(_ callback: RenderCallback) {
        change { $0.plan.notifies.remove(callback) }
    }

    /// kAudioUnitProperty_MeteringMode of a bus (input scope) or of the output.
    public func isMetering(scope: Scope, element: UInt32) throws(UnitError) -> Bool {
        try config.withLock { c throws(UnitError) in
            switch scope {
            case .input:
                guard element < c.buses.count else { throw .invalidElement }
                return c.buses[Int(element)].metering
            case .output:
                guard element == 0 else { throw .invalidElement }
                return c.plan.outputMetering
            case .global: throw .invalidScope
            }
        }
    }

    public func setMetering(_ on: Bool, scope: Scope, element: UInt32) throws(UnitError) {
        try change { c throws(UnitError) in
            switch scope {
            case .input:
                guard element < c.buses.count else { throw .invalidElement }
                c.buses[Int(element)].metering = on
            case .output:
                guard element == 0 else { throw .invalidElement }
                c.plan.outputMetering = on
            case .global: throw .invalidScope
            }
        }
    }

    // MARK: Parameters

    /// The parameters (kMultiChannelMixerParam_*): gains are set, levels read.
    enum Parameter: UInt32 {
        case volume = 0, enable = 1, pan = 2
        case preAverage = 1000, prePeak = 2000, postAverage = 3000, postPeak = 4000
    }

    /// kMultiChannelMixerParam_Volume (linear, 0 to 1, 1), _Enable (1) and, on the input
    /// buses, _Pan (-1 to 1, 0); and the levels, read only, in dB.
    static let busParameters = [
        ParameterSpec(id: 0, name: "Volume", unit: ParameterSpec.linearGain, range: 0...1, defaultValue: 1),
        ParameterSpec(id: 1, name: "Enable", unit: ParameterSpec.boolean, range: 0...1, defaultValue: 1),
        ParameterSpec(id: 2, name: "Pan", unit: ParameterSpec.pan, range: -1...1, defaultValue: 0),
    ]
    static let levelParameters = [
        ParameterSpec(id: 1000, name: "Pre Average Power", unit: ParameterSpec.decibels, range: -120...0,
                      defaultValue: -120, readOnly: true),
        ParameterSpec(id: 2000, name: "Pre Peak Hold Level", unit: ParameterSpec.decibels, range: -120...0,
                      defaultValue: -120, readOnly: true),
        ParameterSpec(id: 3000, name: "Post Average Power", unit: ParameterSpec.decibels, range: -120...0,
                      defaultValue: -120, readOnly: true),
        ParameterSpec(id: 4000, name: "Post Peak Hold Level", unit: ParameterSpec.decibels, range: -120...0,
                      defaultValue: -120, readOnly: true),
    ]

    public func declaredParameters(in scope: Scope) -> [ParameterSpec] {
        switch (kind == .mixer3D, scope) {
        case (false, .input): return Self.busParameters + Self.levelParameters
        case (false, .output): return Self.busParameters.filter { $0.id != Parameter.pan.rawValue } + Self.levelParameters
        case (false, .global): return []
        case (true, .input): return Self.spatialBusParameters + Self.levelParameters
        case (true, .output): return Self.spatialOutputParameters + Self.levelParameters
        case (true, .global): return Self.spatialGlobalParameters
        }
    }

    public func parameter(_ id: UInt32, scope: Scope, element: UInt32) throws(UnitError) -> Float {
        if kind == .mixer3D, id < 1000 { return try spatialParameter(id, scope: scope, element: element) }
        guard scope != .global else { throw .invalidScope }
        guard let which = Parameter(rawValue: id) else { throw .invalidParameter }
        let (storage, values) = try config.withLock { c throws(UnitError) -> (MixerStorage?, (Float, Bool, Float)) in
            switch scope {
            case .input:
                guard element < c.buses.count else { throw .invalidElement }
                let bus = c.buses[Int(element)]
                return (c.storage, (bus.volume, bus.enabled, bus.pan))
            case .output:
                guard element == 0 else { throw .invalidElement }
                guard which != .pan else { throw .invalidParameter }
                return (c.storage, (c.plan.outputVolume, c.plan.outputEnabled, 0))
            case .global: throw .invalidScope
            }
        }
        switch which {
        case .volume: return values.0
        case .enable: return values.1 ? 1 : 0
        case .pan: return values.2
        default:
            // Levels exist once rendering is possible; silence reads as the floor.
            let row = scope == .output ? -1 : Int(element)
            return storage?.level(which, row: row) ?? MixerStorage.floor
        }
    }

    public func setParameter(_ id: UInt32, scope: Scope, element: UInt32, value: Float, offset: UInt32) throws(UnitError) {
        if kind == .mixer3D {
            guard id < 1000 else { throw .invalidParameter }
            return try setSpatialParameter(id, scope: scope, element: element, value: value)
        }
        try scheduleVolume(id, scope: scope, element: element, value: value, from: nil, delay: offset, ramp: 0)
    }

    /// A parameter change (AudioUnitSetParameter, AudioUnitScheduleParameters): a volume
    /// `delay` frames into the next render, as a step or a ramp of `ramp` frames from
    /// `from`; the other gains at that render's start.
    public func scheduleVolume(_ id: UInt32, scope: Scope, element: UInt32, value: Float, from: Float?, delay: UInt32,
                               ramp: UInt32) throws(UnitError) {
        guard scope != .global else { throw .invalidScope }
        guard let which = Parameter(rawValue: id) else { throw .invalidParameter }
        guard value.isFinite, from?.isFinite ?? true else { throw .invalidParameter }
        try change { c throws(UnitError) in
            switch (scope, which) {
            case (.global, _): throw .invalidScope
            case (.input, _) where element >= c.buses.count, (.output, _) where element != 0: throw .invalidElement
            case (.input, .volume):
                guard value >= 0, value <= 1, (from ?? 0) >= 0, (from ?? 0) <= 1 else { throw .invalidParameter }
                var bus = c.buses[Int(element)]
                bus.volume = value
                bus.volumeChange &+= 1
                bus.delay = delay
                bus.rampFrames = ramp
                bus.rampFrom = from
                c.buses[Int(element)] = bus
            case (.input, .enable): c.buses[Int(element)].enabled = value != 0
            case (.input, .pan):
                guard value >= -1, value <= 1 else { throw .invalidParameter }
                c.buses[Int(element)].pan = value
            case (.output, .volume):
                guard value >= 0, value <= 1 else { throw .invalidParameter }
                c.plan.outputVolume = value
            case (.output, .enable): c.plan.outputEnabled = value != 0
            default:
                // Pan on the output, and the levels, which are read only.
                throw .invalidParameter
            }
        }
    }

    // MARK: Life

    public var isInitialized: Bool { config.withLock { $0.storage != nil } }

    public func initialize() throws(UnitError) {
        try change { c throws(UnitError) in
            guard c.storage == nil else { return }
            try remakeStorage(&c)
        }
    }

    @discardableResult
    public func uninitialize() -> Bool {
        change { c in
            if let old = c.storage { c.retired.append(old) }
            c.storage = nil
        }
        return false
    }

    /// Resamplers forget what they hold; meters fall to the floor. That state is the
    /// render's: the next render does it.
    public func reset() {
        resetRequested.store(true, ordering: .releasing)
    }

    public func resetAfterFork() {
        config.reinitializeAfterFork()
        rendering.store(false, ordering: .releasing)
        if let storage = config.withLock({ $0.storage }) { storage.board.reinitializeAfterFork() }
    }

    deinit {
        // The last reference: no render can hold the storage.
        config.withLock { c in
            c.retired.removeAll()
            c.storage = nil
        }
    }

    // MARK: Changes

    /// Applies a change under the lock, bumps the version the render copies by, and frees
    /// the retired storage no render names any more.
    @discardableResult
    func change<R>(_ body: (inout Config) throws(UnitError) -> R) throws(UnitError) -> R {
        try config.withLock { c throws(UnitError) -> R in
            let result = try body(&c)
            c.version &+= 1
            freeRetired(&c)
            return result
        }
    }

    func change<R>(_ body: (inout Config) -> R) -> R {
        config.withLock { c -> R in
            let result = body(&c)
            c.version &+= 1
            freeRetired(&c)
            return result
        }
    }

    private func remakeStorage(_ c: inout Config) throws(UnitError) {
        guard let made = MixerStorage(buses: c.buses, plan: c.plan) else { throw .formatNotSupported }
        if let old = c.storage { c.retired.append(old) }
        c.storage = made
    }

    /// Under the configuration's lock, which a render must take to name other storage:
    /// the retired storage the render does not name is freed (a storage's deinit frees
    /// memory only, no program code).
    private func freeRetired(_ c: inout Config) {
        guard !c.retired.isEmpty else { return }
        let named = renderStorage.load(ordering: .acquiring)
        c.retired.removeAll { UInt(bitPattern: Unmanaged.passUnretained($0).toOpaque()) != named }
    }
}
