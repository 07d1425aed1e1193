import Glibc
import Locking
import Synchronization

/// AUMatrixMixer ('mxmx'): any number of input buses and of output buses (each Float32,
/// non-interleaved, one to eight channels, all at one rate), and a gain from every input
/// channel to every output channel. Channels are numbered across the buses of a side in
/// order (bus 0's first, then bus 1's ...). kMatrixMixerParam_Volume sets
/// - a crosspoint: global scope, element (input channel << 16) | output channel;
/// - the master gain: global scope, element 0xFFFFFFFF;
/// - an input channel's gain: input scope, the channel as the element;
/// - an output channel's gain: output scope, the channel as the element.
/// Every gain starts at 0, as on the phone: a program sets what it hears. Enable is per bus
/// (input or output scope). The levels are per channel with metering on, each before the
/// channel's gain (Pre...) and after it (Post...), of the last render.
///
/// The first pull of an output bus for a time stamp pulls every enabled input and makes
/// every output channel; the other output buses' pulls for the same time stamp take
/// theirs from that. The program's calls change the configuration under a lock and the
/// gains in atomics; a render copies the configuration only when the lock is free and
/// allocates nothing.
public final class MatrixMixerUnit: AudioUnitInstance, DeclaredParameters, @unchecked Sendable {
    public let kind = UnitKind.matrixMixer
    public var handle: UInt = 0
    /// The most buses on either side, and channels on either side.
    public static let maximumBuses: UInt32 = 64
    public static let maximumChannels = 64
    /// kMatrixMixerParam_*.
    static let volume: UInt32 = 0, enable: UInt32 = 1
    static let master: UInt32 = 0xFFFF_FFFF

    /// What a render copies: plain values only, so that dropping its last copy frees
    /// nothing on the render thread (the buses' formats are the storage's).
    struct Plan {
        var maximumFrames: UInt32 = 4096
        var notifies = RenderNotifies()
        /// Whether any bus meters (the levels are then measured at each mix).
        var metered = false
    }
    /// The buses' formats: set while uninitialized, made into the storage at Initialize.
    struct Sides {
        var inputs = [PCMLayout](repeating: MatrixMixerUnit.stereo, count: 1)
        var outputs = [PCMLayout](repeating: MatrixMixerUnit.stereo, count: 1)
    }
    static let stereo = PCMLayout(sampleRate: 44100, encoding: .float32, channels: 2, interleaved: false)

    /// Made at Initialize for the buses and channels then: buffers, the gains and enables
    /// as atomics (the program sets them while a render reads them), the levels.
    final class Storage {
        let inputChannels: Int, outputChannels: Int
        let inputFirst: [Int], outputFirst: [Int]
        /// The buses' formats, fixed for the storage's life.
        let inputLayouts: [PCMLayout], outputLayouts: [PCMLayout]
        let pulled: [Scratch]
        /// Lent to a caller whose list has no buffers, per output bus.
        let lent: [Scratch]
        /// Where each input channel's samples are after a pull (the callback may point
        /// elsewhere), and each output channel's mix.
        let inputs: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
        let mixed: UnsafeMutablePointer<Float>
        let silence: UnsafeMutablePointer<Float>
        /// (inputs + 1) x (outputs + 1) gains, laid out as kAudioUnitProperty_MatrixLevels.
        let gains: UnsafeMutablePointer<Atomic<UInt32>>
        let enables: UnsafeMutablePointer<Atomic<Bool>>
        /// Per channel, inputs then outputs, before its gain then after: the mean square
        /// and the peak of the last mix, as Float bits.
        let levels: UnsafeMutablePointer<Atomic<UInt64>>
        let callbacks: [RenderCallback?]
        let maximumFrames: Int
        /// The time stamp and size of the mix in `mixed` (a render thread's only).
        var mixedTime = Double.nan, mixedFrames = 0

        init(_ sides: Sides, maximumFrames frames: UInt32, callbacks: [RenderCallback?], values: [UInt64: Float]) {
            inputLayouts = sides.inputs
            outputLayouts = sides.outputs
            inputChannels = sides.inputs.reduce(0) { $0 + $1.channels }
            outputChannels = sides.outputs.reduce(0) { $0 + $1.channels }
            inputFirst = sides.inputs.indices.map { i in sides.inputs[..<i].reduce(0) { $0 + $1.channels } }
            outputFirst = sides.outputs.indices.map { i in sides.outputs[..<i].reduce(0) { $0 + $1.channels } }
            maximumFrames = Int(frames)
            pulled = sides.inputs.map { Scratch(count: $0.channels, bytes: Int(frames) * 4) }
            lent = sides.outputs.map { Scratch(count: $0.channels, bytes: Int(frames) * 4) }
            inputs = .allocate(capacity: max(1, inputChannels))
            mixed = .allocate(capacity: max(1, outputChannels) * maximumFrames)
            silence = .allocate(capacity: maximumFrames)
            silence.initialize(repeating: 0, count: maximumFrames)
            inputs.initialize(repeating: silence, count: max(1, inputChannels))
            mixed.initialize(repeating: 0, count: max(1, outputChannels) * maximumFrames)
            let cells = (inputChannels + 1) * (outputChannels + 1)
            gains = .allocate(capacity: cells)
            for i in 0..<cells { (gains + i).initialize(to: Atomic(0)) }
            let buses = sides.inputs.count + sides.outputs.count
            enables = .allocate(capacity: buses)
            for i in 0..<buses { (enables + i).initialize(to: Atomic(true)) }
            levels = .allocate(capacity: 2 * max(1, inputChannels + outputChannels))
            for i in 0..<2 * max(1, inputChannels + outputChannels) { (levels + i).initialize(to: Atomic(0)) }
            self.callbacks = callbacks
            for (key, value) in values { store(key, value) }
        }

        deinit {
            let cells = (inputChannels + 1) * (outputChannels + 1)
            gains.deinitialize(count: cells)
            gains.deallocate()
            enables.deinitialize(count: pulled.count + outputFirst.count)
            enables.deallocate()
            levels.deinitialize(count: 2 * max(1, inputChannels + outputChannels))
            levels.deallocate()
            inputs.deallocate()
            mixed.deallocate()
            silence.deallocate()
        }

        /// A value the program set (its key: MatrixMixerUnit.key) into the atomics.
        func store(_ key: UInt64, _ value: Float) {
            let (id, scope, element) = MatrixMixerUnit.unkey(key)
            if id == MatrixMixerUnit.enable {
                // A bus past this storage's (a value kept from before a smaller count) is
                // not this storage's to hold.
                guard scope != .global, Int(element) < (scope == .input ? pulled.count : outputFirst.count) else { return }
                let at = scope == .input ? Int(element) : pulled.count + Int(element)
                enables[at].store(value != 0, ordering: .relaxed)
                return
            }
            guard id == MatrixMixerUnit.volume, let cell = cell(scope, element) else { return }
            gains[cell].store(value.bitPattern, ordering: .relaxed)
        }

        /// The gain's place in the levels layout; nil for one past the channels.
        func cell(_ scope: Scope, _ element: UInt32) -> Int? {
            let width = outputChannels + 1
            switch scope {
            case .global:
                if element == MatrixMixerUnit.master { return inputChannels * width + outputChannels }
                let (i, o) = (Int(element >> 16), Int(element & 0xFFFF))
                return i < inputChannels && o < outputChannels ? i * width + o : nil
            case .input: return Int(element) < inputChannels ? Int(element) * width + outputChannels : nil
            case .output: return Int(element) < outputChannels ? inputChannels * width + Int(element) : nil
            }
        }

        func gain(_ cell: Int) -> Float { Float(bitPattern: gains[cell].load(ordering: .relaxed)) }
    }

    struct Config {
        var plan = Plan()
        var sides = Sides()
        var callbacks: [RenderCallback?] = [nil]
        /// Every value the program set, by key (a gain or an enable), kept across a
        /// re-initialize: the gains of channels that still exist come back.
        var values: [UInt64: Float] = [:]
        var metering: Set<UInt64> = []
        var storage: Storage?
        var retired: [Storage] = []
        var renderQuality: UInt32 = 0x7F
        var lastRenderError: Int32 = 0
    }
    let config = Locked(Config())
    private var renderPlan = Plan()
    private let renderStorage = Atomic<UInt>(0)
    private let rendering = Atomic<Bool>(false)
    private let resetRequested = Atomic<Bool>(false)

    let disposed = Atomic<Bool>(false)
    public var isDisposed: Bool { disposed.load(ordering: .acquiring) }
    public func markDisposed() { disposed.store(true, ordering: .releasing) }
    let kept = Locked<[AnyObject]>([])
    public func keepAlive(_ object: AnyObject) { kept.withLock { $0.append(object) } }
    public var keptObjects: [AnyObject] { kept.withLock { $0 } }

    public init() {}

    deinit {
        config.withLock { c in
            c.retired.removeAll()
            c.storage = nil
        }
    }

    static func key(_ id: UInt32, _ scope: Scope, _ element: UInt32) -> UInt64 {
        UInt64(id) << 40 | UInt64(scope.rawValue) << 32 | UInt64(element)
    }
    static func unkey(_ key: UInt64) -> (UInt32, Scope, UInt32) {
        (UInt32(key >> 40), Scope(rawValue: UInt32(key >> 32 & 0xFF)) ?? .global, UInt32(truncatingIfNeeded: key))
    }

    // MARK: Elements and formats

    public func elementCount(_ scope: Scope) -> UInt32 {
        config.withLock { c in
            switch scope {
            case .input: UInt32(c.sides.inputs.count)
            case .output: UInt32(c.sides.outputs.count)
            case .global: 1
            }
        }
    }

    /// kAudioUnitProperty_ElementCount of either side, 1 to 64, while uninitialized: buses
    /// added are stereo; buses taken away forget what fed them.
    public func setElementCount(_ count: UInt32, scope: Scope) throws(UnitError) {
        guard scope != .global else { throw .invalidScope }
        guard count >= 1, count <= Self.maximumBuses else { throw .invalidPropertyValue }
        try config.withLock { c throws(UnitError) in
            guard c.storage == nil else { throw .initialized }
            var side = scope == .input ? c.sides.inputs : c.sides.outputs
            if Int(count) < side.count { side.removeLast(side.count - Int(count)) }
            side += [PCMLayout](repeating: Self.stereo, count: max(0, Int(count) - side.count))
            let total = side.reduce(0) { $0 + $1.channels }
            guard total <= Self.maximumChannels else { throw .invalidPropertyValue }
            // What was set for buses (and their channels) taken away goes with them.
            let kept = UInt32(count)
            c.values = c.values.filter { key, _ in
                let (id, keyScope, element) = Self.unkey(key)
                return !(id == Self.enable && keyScope == scope && element >= kept)
            }
            c.metering = c.metering.filter { key in
                let (_, keyScope, element) = Self.unkey(key)
                return !(keyScope == scope && element >= kept)
            }
            c.plan.metered = !c.metering.isEmpty
            if scope == .input {
                c.sides.inputs = side
                c.callbacks = Array(c.callbacks.prefix(Int(count))) + [RenderCallback?](repeating: nil,
                                                                                          count: max(0, Int(count) - c.callbacks.count))
            } else {
                c.sides.outputs = side
            }
        }
    }

    public func format(scope: Scope, element: UInt32) throws(UnitError) -> PCMLayout {
        try config.withLock { c throws(UnitError) in
            switch scope {
            case .input:
                guard element < c.sides.inputs.count else { throw .invalidElement }
                return c.sides.inputs[Int(element)]
            case .output:
                guard element < c.sides.outputs.count else { throw .invalidElement }
                return c.sides.outputs[Int(element)]
            case .global: throw .invalidScope
            }
        }
    }

    /// Float32, non-interleaved (any layout of one channel), one to eight channels, while
    /// uninitialized; the rate of every bus is the rate of the one set last.
    public func setFormat(_ layout: PCMLayout, scope: Scope, element: UInt32) throws(UnitError) {
        guard scope != .global else { throw .invalidScope }
        guard layout.encoding == .float32, !layout.interleaved || layout.channels == 1, (1...8).contains(layout.channels)
        else { throw .formatNotSupported }
        let taken = PCMLayout(sampleRate: layout.sampleRate, encoding: .float32, channels: layout.channels, interleaved: false)
        try config.withLock { c throws(UnitError) in
            let count = scope == .input ? c.sides.inputs.count : c.sides.outputs.count
            guard element < count else { throw .invalidElement }
            let current = scope == .input ? c.sides.inputs[Int(element)] : c.sides.outputs[Int(element)]
            guard current != taken else { return }
            guard c.storage == nil else { throw .initialized }
            var sides = c.sides
            if scope == .input { sides.inputs[Int(element)] = taken } else { sides.outputs[Int(element)] = taken }
            guard sides.inputs.reduce(0, { $0 + $1.channels }) <= Self.maximumChannels,
                  sides.outputs.reduce(0, { $0 + $1.channels }) <= Self.maximumChannels else { throw .formatNotSupported }
            for i in sides.inputs.indices { sides.inputs[i].sampleRate = taken.sampleRate }
            for i in sides.outputs.indices { sides.outputs[i].sampleRate = taken.sampleRate }
            c.sides = sides
        }
    }

    /// kAudioUnitProperty_MatrixDimensions: the input and output channels.
    public var dimensions: (inputs: Int, outputs: Int) {
        config.withLock { c in (c.sides.inputs.reduce(0) { $0 + $1.channels }, c.sides.outputs.reduce(0) { $0 + $1.channels }) }
    }

    /// kAudioUnitProperty_MatrixLevels: every gain, (inputs + 1) rows of (outputs + 1):
    /// crosspoints, each input's gain at the end of its row, the outputs' gains in the
    /// last row, the master gain last.
    public var levels: [Float] {
        let (inputs, outputs) = dimensions
        let values = config.withLock { $0.values }
        var table = [Float](repeating: 0, count: (inputs + 1) * (outputs + 1))
        for (key, value) in values {
            let (id, scope, element) = Self.unkey(key)
            guard id == Self.volume else { continue }
            switch scope {
            case .global where element == Self.master: table[inputs * (outputs + 1) + outputs] = value
            case .global:
                let (i, o) = (Int(element >> 16), Int(element & 0xFFFF))
                if i < inputs && o < outputs { table[i * (outputs + 1) + o] = value }
            case .input: if Int(element) < inputs { table[Int(element) * (outputs + 1) + outputs] = value }
            case .output: if Int(element) < outputs { table[inputs * (outputs + 1) + Int(element)] = value }
            }
        }
        return table
    }

    public var maximumFramesPerSlice: UInt32 { config.withLock { $0.plan.maximumFrames } }
    public func setMaximumFramesPerSlice(_ frames: UInt32) throws(UnitError) {
        guard frames >= 1, frames <= 65536 else { throw .invalidPropertyValue }
        try config.withLock { c throws(UnitError) in
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

    // MARK: Inputs, notifies, metering

    /// What feeds input bus `input`: taken at Initialize, as the formats are (a graph
    /// sets it before, AUGraphUpdate re-initializes).
    public func setRenderCallback(_ callback: RenderCallback?, input: UInt32) throws(UnitError) {
        try config.withLock { c throws(UnitError) in
            guard input < c.callbacks.count else { throw .invalidElement }
            c.callbacks[Int(input)] = callback
            if let old = c.storage {
                // Made again with the new feed, off the render thread; the old one is freed
                // once no render names it.
                c.retired.append(old)
                c.storage = Storage(c.sides, maximumFrames: c.plan.maximumFrames, callbacks: c.callbacks, values: c.values)
                freeRetired(&c)
            }
        }
    }

    public func addRenderNotify(_ callback: RenderCallback) throws(UnitError) {
        try config.withLock { c throws(UnitError) in try c.plan.notifies.add(callback) }
    }

    public func removeRenderNotify(_ callback: RenderCallback) {
        config.withLock { $0.plan.notifies.remove(callback) }
    }

    /// kAudioUnitProperty_MeteringMode of an input or output bus.
    public func isMetering(scope: Scope, element: UInt32) throws(UnitError) -> Bool {
        guard scope != .global else { throw .invalidScope }
        guard element < elementCount(scope) else { throw .invalidElement }
        return config.withLock { $0.metering.contains(Self.key(0, scope, element)) }
    }

    public func setMetering(_ on: Bool, scope: Scope, element: UInt32) throws(UnitError) {
        guard scope != .global else { throw .invalidScope }
        guard element < elementCount(scope) else { throw .invalidElement }
        config.withLock { c in
            if on { c.metering.insert(Self.key(0, scope, element)) } else { c.metering.remove(Self.key(0, scope, element)) }
            c.plan.metered = !c.metering.isEmpty
        }
    }

    // MARK: Parameters

    /// Checks a parameter's address against the buses and channels there are now.
    private func check(_ id: UInt32, scope: Scope, element: UInt32, _ c: Config) throws(UnitError) {
        let inputs = c.sides.inputs.reduce(0) { $0 + $1.channels }, outputs = c.sides.outputs.reduce(0) { $0 + $1.channels }
        switch id {
        case Self.volume:
            switch scope {
            case .global:
                guard element == Self.master || (Int(element >> 16) < inputs && Int(element & 0xFFFF) < outputs)
                else { throw .invalidElement }
            case .input: guard Int(element) < inputs else { throw .invalidElement }
            case .output: guard Int(element) < outputs else { throw .invalidElement }
            }
        case Self.enable:
            guard scope != .global else { throw .invalidScope }
            let buses = scope == .input ? c.sides.inputs.count : c.sides.outputs.count
            guard element < UInt32(buses) else { throw .invalidElement }
        case 1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000:
            guard scope != .global else { throw .invalidScope }
            guard Int(element) < (scope == .input ? inputs : outputs) else { throw .invalidElement }
        default: throw .invalidParameter
        }
    }

    /// kMatrixMixerParam_Volume: linear gain, 0 at first; in the global scope a
    /// crosspoint's (element: input channel << 16 | output channel) or the master's
    /// (0xFFFFFFFF); in the input and output scopes a channel's. Values above 1 are taken
    /// (they amplify); the range shown is the usual one.
    static let gainParameter = ParameterSpec(id: volume, name: "Volume", unit: ParameterSpec.linearGain, range: 0...1,
                                             defaultValue: 0)
    /// kMatrixMixerParam_Enable (a bus's) and the levels of a channel, read only: in dB
    /// (1000 to 4000) and linear (5000 to 8000).
    static let channelParameters: [ParameterSpec] = [
        gainParameter,
        ParameterSpec(id: enable, name: "Enable", unit: ParameterSpec.boolean, range: 0...1, defaultValue: 1),
    ] + zip([1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000] as [UInt32],
            ["Pre Average Power", "Pre Peak Hold Level", "Post Average Power", "Post Peak Hold Level",
             "Pre Average Power Linear", "Pre Peak Hold Level Linear", "Post Average Power Linear",
             "Post Peak Hold Level Linear"]).map { id, name in
        id < 5000 ? ParameterSpec(id: id, name: name, unit: ParameterSpec.decibels, range: -120...0, defaultValue: -120,
                                  readOnly: true)
                  : ParameterSpec(id: id, name: name, unit: ParameterSpec.linearGain, range: 0...1, defaultValue: 0,
                                  readOnly: true)
    }

    public func declaredParameters(in scope: Scope) -> [ParameterSpec] {
        scope == .global ? [Self.gainParameter] : Self.channelParameters
    }

    public func parameter(_ id: UInt32, scope: Scope, element: UInt32) throws(UnitError) -> Float {
        let (value, storage) = try config.withLock { c throws(UnitError) -> (Float?, Storage?) in
            try check(id, scope: scope, element: element, c)
            return (c.values[Self.key(id, scope, element)], c.storage)
        }
        guard id >= 1000 else { return value ?? (id == Self.enable ? 1 : 0) }
        // A level: the last mix's, of the channel.
        guard let storage else { return id >= 5000 ? 0 : -120 }
        // Before the channel's gain (Pre...) or after it (Post...).
        let channel = scope == .input ? Int(element) : storage.inputChannels + Int(element)
        let after = [3000, 4000, 7000, 8000].contains(id) ? 1 : 0
        let bits = storage.levels[2 * channel + after].load(ordering: .relaxed)
        let meanSquare = Float(bitPattern: UInt32(truncatingIfNeeded: bits >> 32)), peak = Float(bitPattern: UInt32(truncatingIfNeeded: bits))
        let linear = (id / 1000) % 2 == 1 ? meanSquare.squareRoot() : peak
        return id >= 5000 ? linear : max(-120, 20 * log10(max(linear, 1e-6)))
    }

    /// A gain that is not a number, or below 0, is refused; enable is 0 or not; the levels
    /// are read only.
    public func setParameter(_ id: UInt32, scope: Scope, element: UInt32, value: Float, offset: UInt32) throws(UnitError) {
        guard value.isFinite, value >= 0, id < 1000 else { throw .invalidParameter }
        try config.withLock { c throws(UnitError) in
            try check(id, scope: scope, element: element, c)
            let key = Self.key(id, scope, element)
            c.values[key] = id == Self.enable ? (value != 0 ? 1 : 0) : value
            c.storage?.store(key, c.values[key]!)
        }
    }

    // MARK: Life

    public var isInitialized: Bool { config.withLock { $0.storage != nil } }

    public func initialize() throws(UnitError) {
        config.withLock { c in
            guard c.storage == nil else { return }
            c.storage = Storage(c.sides, maximumFrames: c.plan.maximumFrames, callbacks: c.callbacks, values: c.values)
            freeRetired(&c)
        }
    }

    @discardableResult
    public func uninitialize() -> Bool {
        config.withLock { c in
            if let old = c.storage { c.retired.append(old) }
            c.storage = nil
            freeRetired(&c)
        }
        return false
    }

    public func reset() { resetRequested.store(true, ordering: .releasing) }

    public func resetAfterFork() {
        config.reinitializeAfterFork()
        rendering.store(false, ordering: .releasing)
    }

    private func freeRetired(_ c: inout Config) {
        guard !c.retired.isEmpty else { return }
        let named = renderStorage.load(ordering: .acquiring)
        c.retired.removeAll { UInt(bitPattern: Unmanaged.passUnretained($0).toOpaque()) != named }
    }

    // MARK: Render

    public func renderPulled(flags: UnsafeMutablePointer<UInt32>, timeStamp: UnsafeRawPointer, bus: UInt32,
                             frames: UInt32, list: UnsafeMutableRawPointer) throws(UnitError) {
        guard rendering.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            throw .cannotDoInCurrentContext
        }
        defer { rendering.store(false, ordering: .releasing) }
        _ = config.withLockIfAvailable { c in
            renderPlan = c.plan
            let named = c.storage.map { UInt(bitPattern: Unmanaged.passUnretained($0).toOpaque()) } ?? 0
            renderStorage.store(named, ordering: .releasing)
        }
        guard let address = UnsafeRawPointer(bitPattern: renderStorage.load(ordering: .acquiring)) else {
            throw .uninitialized
        }
        let storage = Unmanaged<Storage>.fromOpaque(address).takeUnretainedValue()
        let plan = renderPlan
        guard Int(bus) < storage.outputLayouts.count else { throw .invalidElement }
        guard Int(frames) <= storage.maximumFrames else { throw .tooManyFramesToProcess }
        let layout = storage.outputLayouts[Int(bus)]
        let count = try lend(storage.lent[Int(bus)], to: list, laidOut: layout, frames: Int(frames))
        plan.notifies.call(RenderAction.preRender, flags: flags.pointee, timeStamp, bus: bus, frames: frames, list)
        if resetRequested.exchange(false, ordering: .acquiring) { storage.mixedTime = .nan }
        let time = timeStamp.load(as: Double.self)
        if !(storage.mixedTime == time && storage.mixedFrames == Int(frames)) {
            try mix(storage, timeStamp: timeStamp, frames: Int(frames), metered: plan.metered)
            storage.mixedTime = time
            storage.mixedFrames = Int(frames)
        }
        let first = storage.outputFirst[Int(bus)]
        for c in 0..<min(count, layout.channels) {
            let to = (list + 8 + 16 * c).load(fromByteOffset: 8, as: UnsafeMutablePointer<Float>.self)
            to.update(from: storage.mixed + (first + c) * storage.maximumFrames, count: Int(frames))
        }
        plan.notifies.call(RenderAction.postRender, flags: flags.pointee, timeStamp, bus: bus, frames: frames, list)
    }

    /// Pulls every enabled input and makes every output channel into `storage.mixed`.
    private func mix(_ storage: Storage, timeStamp: UnsafeRawPointer, frames: Int, metered: Bool) throws(UnitError) {
        // Index loops: no iterator on the render path, even built unoptimized.
        for b in 0..<storage.pulled.count {
            let scratch = storage.pulled[b]
            let channels = storage.inputLayouts[b].channels, first = storage.inputFirst[b]
            guard storage.enables[b].load(ordering: .relaxed), let callback = storage.callbacks[b] else {
                for c in 0..<channels { storage.inputs[first + c] = storage.silence }
                continue
            }
            let input = scratch.list
            scratch.present(bytes: UInt32(frames * 4), channelsPerBuffer: 1)
            var inputFlags: UInt32 = 0
            let status = callback.call(&inputFlags, timeStamp, UInt32(b), UInt32(frames), input)
            if status != 0 {
                _ = config.withLockIfAvailable { $0.lastRenderError = status }
                throw UnitError(rawValue: status) ?? .cannotDoInCurrentContext
            }
            for c in 0..<channels {
                storage.inputs[first + c] = (input + 8 + 16 * c).load(fromByteOffset: 8, as: UnsafeMutablePointer<Float>?.self)
                    ?? storage.silence
            }
        }
        let width = storage.outputChannels + 1
        let master = storage.gain(storage.inputChannels * width + storage.outputChannels)
        for o in 0..<storage.outputChannels {
            let out = storage.mixed + o * storage.maximumFrames
            out.update(repeating: 0, count: frames)
            let on = storage.enables[storage.pulled.count + outputBus(of: o, storage)].load(ordering: .relaxed)
            let outputGain = on ? master * storage.gain(storage.inputChannels * width + o) : 0
            // The sum before the output's gain (measured there when metering), then the gain.
            if outputGain != 0 || metered {
                for i in 0..<storage.inputChannels {
                    let g = storage.gain(i * width + storage.outputChannels) * storage.gain(i * width + o)
                    guard g != 0 else { continue }
                    let from = storage.inputs[i]
                    for f in 0..<frames { out[f] += g * from[f] }
                }
            }
            if metered { storage.levels[2 * (storage.inputChannels + o)].store(Self.level(out, frames), ordering: .relaxed) }
            if outputGain != 1 { for f in 0..<frames { out[f] *= outputGain } }
            if metered {
                storage.levels[2 * (storage.inputChannels + o) + 1].store(Self.level(out, frames), ordering: .relaxed)
            }
        }
        guard metered else { return }
        for i in 0..<storage.inputChannels {
            let before = Self.level(storage.inputs[i], frames)
            storage.levels[2 * i].store(before, ordering: .relaxed)
            storage.levels[2 * i + 1].store(Self.scaled(before, by: storage.gain(i * width + storage.outputChannels)),
                                            ordering: .relaxed)
        }
    }

    private func outputBus(of channel: Int, _ storage: Storage) -> Int {
        var bus = 0
        while bus + 1 < storage.outputFirst.count && storage.outputFirst[bus + 1] <= channel { bus += 1 }
        return bus
    }

    /// A packed level after a gain: the mean square by its square, the peak by it.
    private static func scaled(_ level: UInt64, by gain: Float) -> UInt64 {
        let meanSquare = Float(bitPattern: UInt32(truncatingIfNeeded: level >> 32)) * gain * gain
        let peak = Float(bitPattern: UInt32(truncatingIfNeeded: level)) * gain
        return UInt64(meanSquare.bitPattern) << 32 | UInt64(peak.bitPattern)
    }

    /// A channel's mean square and peak over the slice, packed as two Float bit patterns.
    private static func level(_ samples: UnsafePointer<Float>, _ frames: Int) -> UInt64 {
        var sum: Float = 0, peak: Float = 0
        for f in 0..<frames {
            sum += samples[f] * samples[f]
            peak = max(peak, abs(samples[f]))
        }
        return UInt64((sum / Float(max(1, frames))).bitPattern) << 32 | UInt64(peak.bitPattern)
    }
}
