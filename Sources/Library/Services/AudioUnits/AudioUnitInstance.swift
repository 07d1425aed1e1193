import Glibc

/// What the AudioUnit functions ask of any unit, whatever its kind: its formats, its
/// inputs and their callbacks, its parameters, its life, and a pull of its output. An
/// I/O, generic or converter unit is an OutputUnit; a mixer is a MixerUnit. What only
/// one kind has (EnableIO, the input callback, metering) the ABI asks of that kind.
public protocol AudioUnitInstance: AnyObject, Sendable {
    var kind: UnitKind { get }
    /// The program's name for the unit (its AudioUnit handle). Set once before use.
    var handle: UInt { get set }

    /// How many elements the scope has (global: 1).
    func elementCount(_ scope: Scope) -> UInt32
    func format(scope: Scope, element: UInt32) throws(UnitError) -> PCMLayout
    func setFormat(_ layout: PCMLayout, scope: Scope, element: UInt32) throws(UnitError)
    var maximumFramesPerSlice: UInt32 { get }
    func setMaximumFramesPerSlice(_ frames: UInt32) throws(UnitError)
    var renderQuality: UInt32 { get }
    func setRenderQuality(_ quality: UInt32) throws(UnitError)
    var lastRenderError: Int32 { get }
    /// Seconds from a frame's render to its sound (0 for a pulled unit).
    var latency: Double { get }

    /// Keeps `object` as long as the unit lives: what its callbacks use (a connection's
    /// link, a graph's meter) outlives a render under way when its owner lets it go.
    func keepAlive(_ object: AnyObject)
    /// What `keepAlive` holds.
    var keptObjects: [AnyObject] { get }

    /// Sets (or, with nil, removes) what feeds input element `input`.
    func setRenderCallback(_ callback: RenderCallback?, input: UInt32) throws(UnitError)
    func addRenderNotify(_ callback: RenderCallback) throws(UnitError)
    func removeRenderNotify(_ callback: RenderCallback)

    func parameter(_ id: UInt32, scope: Scope, element: UInt32) throws(UnitError) -> Float
    /// Sets a parameter; `offset` frames into the next render when the unit can place it
    /// there (the mixer's gains), else at that render's start.
    func setParameter(_ id: UInt32, scope: Scope, element: UInt32, value: Float, offset: UInt32) throws(UnitError)

    var isInitialized: Bool { get }
    /// Set when the program disposed of the unit: a render that still holds it (a stream's
    /// look-up) refuses it as the handle table would.
    var isDisposed: Bool { get }
    func markDisposed()
    func initialize() throws(UnitError)
    /// Returns whether the unit was running.
    @discardableResult func uninitialize() -> Bool
    func reset()
    /// In the child of a fork: locks the parent's threads may have held made usable.
    func resetAfterFork()

    /// Renders `frames` frames of output element `bus` into `list` (AudioUnitRender, a
    /// connection's pull). Allocates nothing and never waits for a lock.
    func renderPulled(flags: UnsafeMutablePointer<UInt32>, timeStamp: UnsafeRawPointer, bus: UInt32,
                      frames: UInt32, list: UnsafeMutableRawPointer) throws(UnitError)
}

/// A unit whose buses meter their levels (kAudioUnitProperty_MeteringMode): the mixers.
public protocol MeteringUnit: AudioUnitInstance {
    func isMetering(scope: Scope, element: UInt32) throws(UnitError) -> Bool
    func setMetering(_ on: Bool, scope: Scope, element: UInt32) throws(UnitError)
}

extension MixerUnit: MeteringUnit {}
extension MatrixMixerUnit: MeteringUnit {}

extension AudioUnitInstance {
    /// Makes input `input`'s format the source's output format, as a connection does (a
    /// connection made, a graph initialized after either changed).
    public func takeFormat(input: UInt32, from source: any AudioUnitInstance, output: UInt32) throws(UnitError) {
        let format = try source.format(scope: .output, element: output)
        guard (try? self.format(scope: .input, element: input)) != format else { return }
        try setFormat(format, scope: .input, element: input)
    }
}

/// The parameter of the output units (kHALOutputParam_Volume): global, element 0.
let outputVolumeParameter: UInt32 = 14
/// Varispeed's parameters (kVarispeedParam_PlaybackRate, _PlaybackCents).
let varispeedRateParameter: UInt32 = 0, varispeedCentsParameter: UInt32 = 1

extension OutputUnit: AudioUnitInstance, DeclaredParameters {
    public var isDisposed: Bool { disposed.load(ordering: .acquiring) }
    public func markDisposed() { disposed.store(true, ordering: .releasing) }

    public func elementCount(_ scope: Scope) -> UInt32 { scope == .global ? 1 : kind.elementCount }

    public func setRenderCallback(_ callback: RenderCallback?, input: UInt32) throws(UnitError) {
        guard input == 0 else { throw .invalidElement }
        setRenderCallback(callback)
    }

    public func parameter(_ id: UInt32, scope: Scope, element: UInt32) throws(UnitError) -> Float {
        try checkParameter(id, scope: scope, element: element)
        let plan = config.withLock { $0.plan }
        switch (kind, id) {
        case (.varispeed, varispeedRateParameter): return Float(plan.playbackRate)
        case (.varispeed, _): return Float(1200 * log2(plan.playbackRate))
        default: return plan.volume
        }
    }

    public func setParameter(_ id: UInt32, scope: Scope, element: UInt32, value: Float, offset: UInt32) throws(UnitError) {
        try checkParameter(id, scope: scope, element: element)
        guard value.isFinite else { throw .invalidParameter }
        switch (kind, id) {
        case (.varispeed, varispeedRateParameter):
            guard value >= 0.25, value <= 4 else { throw .invalidParameter }
            config.withLock { $0.plan.playbackRate = Double(value) }
        case (.varispeed, _):
            guard value >= -2400, value <= 2400 else { throw .invalidParameter }
            config.withLock { $0.plan.playbackRate = pow(2, Double(value) / 1200) }
        default:
            try setVolume(value)
        }
    }

    /// kVarispeedParam_PlaybackRate (0.25 to 4, 1) and _PlaybackCents (-2400 to 2400, 0).
    static let varispeedParameters = [
        ParameterSpec(id: varispeedRateParameter, name: "Playback Rate", unit: ParameterSpec.rate, range: 0.25...4,
                      defaultValue: 1),
        ParameterSpec(id: varispeedCentsParameter, name: "Playback Cents", unit: ParameterSpec.cents, range: -2400...2400,
                      defaultValue: 0),
    ]
    /// kHALOutputParam_Volume (linear, 0 to 1, 1): the other kinds here.
    static let outputParameters = [
        ParameterSpec(id: outputVolumeParameter, name: "Volume", unit: ParameterSpec.linearGain, range: 0...1,
                      defaultValue: 1),
    ]

    public func declaredParameters(in scope: Scope) -> [ParameterSpec] {
        guard scope == .global else { return [] }
        return kind == .varispeed ? Self.varispeedParameters : Self.outputParameters
    }

    /// Varispeed has its rate and cents; every other kind here the output volume: global,
    /// element 0.
    private func checkParameter(_ id: UInt32, scope: Scope, element: UInt32) throws(UnitError) {
        _ = try declaredSpec(id, scope: .global)
        guard scope == .global else { throw .invalidScope }
        guard element == 0 else { throw .invalidElement }
    }
}
