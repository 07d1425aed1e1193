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
public final class MixerUnit: AudioUnitInstance, @unchecked Sendable {
    public let kind = UnitKind.multiChannelMixer
    public var handle: UInt = 0
    /// The most input buses a mixer takes (kAudioUnitProperty_ElementCount).
    public static let maximumBuses: UInt32 = 128

    struct Config {
        var buses = [MixerBus](repeating: MixerBus(), count: 8)
        var plan = MixerPlan()
        /// Made at Initialize; nil while uninitialized.
        var storage: MixerStorage?
        /// Storage a render may still be reading: freed by the program's thread once no
        /// render runs (never by the render thread).
        var retired: [MixerStorage] = []
        /// Bumped with every change the render copies.
        var version = 1
        var renderQuality: UInt32 = 0x7F
        var lastRenderError: Int32 = 0
    }
    let config = Locked(Config())
    /// Held by the one render under way, for all of it: the storage is the render's then.
    let rendering = Atomic<Bool>(false)
    /// The thread that holds `rendering` (a callback of that render calling back in must
    /// not wait for itself).
    let renderingThread = Atomic<UInt>(0)
    /// The storage the last render used: the render's own (read and written only with
    /// `rendering` held), cleared when the storage it names is let go.
    nonisolated(unsafe) var renderStorage: Unmanaged<MixerStorage>?

    let kept = Locked<[AnyObject]>([])
    public func keepAlive(_ object: AnyObject) { kept.withLock { $0.append(object) } }

    public init() {}

    // MARK: Elements and formats

    public func elementCount(_ scope: Scope) -> UInt32 {
        scope == .input ? UInt32(config.withLock { $0.buses.count }) : 1
    }

    /// kAudioUnitProperty_ElementCount on the input scope: buses added keep the defaults,
    /// buses taken away forget what fed them. Only while uninitialized.
    public func setInputCount(_ count: UInt32) throws(UnitError) {
        guard count >= 1, count <= Self.maximumBuses else { throw .invalidPropertyValue }
        try change { c throws(UnitError) in
            guard c.storage == nil else { throw .initialized }
            if Int(count) < c.buses.count {
                c.buses.removeLast(c.buses.count - Int(count))
            } else {
                c.buses += [MixerBus](repeating: MixerBus(), count: Int(count) - c.buses.count)
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
            if c.storage != nil { try remakeStorage(&c) }
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
        _ = try isMetering(scope: scope, element: element)
        change { c in
            if scope == .input { c.buses[Int(element)].metering = on } else { c.plan.outputMetering = on }
        }
    }

    // MARK: Parameters

    /// The parameters (kMultiChannelMixerParam_*): gains are set, levels read.
    enum Parameter: UInt32 {
        case volume = 0, enable = 1, pan = 2
        case preAverage = 1000, prePeak = 2000, postAverage = 3000, postPeak = 4000
    }

    public func parameter(_ id: UInt32, scope: Scope, element: UInt32) throws(UnitError) -> Float {
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
        try scheduleVolume(id, scope: scope, element: element, value: value, from: nil, delay: offset, ramp: 0)
    }

    /// A parameter change (AudioUnitSetParameter, AudioUnitScheduleParameters): a volume
    /// `delay` frames into the next render, as a step or a ramp of `ramp` frames from
    /// `from`; the other gains at that render's start.
    public func scheduleVolume(_ id: UInt32, scope: Scope, element: UInt32, value: Float, from: Float?, delay: UInt32,
                               ramp: UInt32) throws(UnitError) {
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

    /// Resamplers forget what they hold; meters fall to the floor.
    public func reset() {
        // The render's own state: only while no render runs.
        guard let storage = config.withLock({ $0.storage }) else { return }
        whileNotRendering { storage.reset() }
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
    /// storage a change retired once no render holds it.
    @discardableResult
    func change<R>(_ body: (inout Config) throws(UnitError) -> R) throws(UnitError) -> R {
        let (result, retiredSome) = try config.withLock { c throws(UnitError) -> (R, Bool) in
            let result = try body(&c)
            c.version &+= 1
            return (result, !c.retired.isEmpty)
        }
        if retiredSome { freeRetired() }
        return result
    }

    func change<R>(_ body: (inout Config) -> R) -> R {
        let (result, retiredSome) = config.withLock { c -> (R, Bool) in
            let result = body(&c)
            c.version &+= 1
            return (result, !c.retired.isEmpty)
        }
        if retiredSome { freeRetired() }
        return result
    }

    private func remakeStorage(_ c: inout Config) throws(UnitError) {
        guard let made = MixerStorage(buses: c.buses, plan: c.plan) else { throw .formatNotSupported }
        if let old = c.storage { c.retired.append(old) }
        c.storage = made
    }

    /// Frees retired storage once no render is under way; from inside a render (a
    /// callback changing the mixer) it waits for a later change.
    private func freeRetired() {
        guard renderingThread.load(ordering: .acquiring) != UInt(pthread_self()) else { return }
        whileNotRendering {
            // The render's reference goes first, unless it names the current storage (by
            // address: retaining one about to be freed is not allowed).
            let retired = config.withLock { c -> [MixerStorage] in
                let current = c.storage.map { Unmanaged.passUnretained($0).toOpaque() }
                if let used = renderStorage, used.toOpaque() != current { renderStorage = nil }
                defer { c.retired.removeAll() }
                return c.retired
            }
            _ = retired
        }
    }

    /// Runs `body` with the render flag taken: a render under way is let finish (a
    /// render is bounded; this is the program's thread, never the render's).
    private func whileNotRendering(_ body: () -> Void) {
        guard renderingThread.load(ordering: .acquiring) != UInt(pthread_self()) else { return }
        while !rendering.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
            sched_yield()
        }
        body()
        rendering.store(false, ordering: .releasing)
    }
}
