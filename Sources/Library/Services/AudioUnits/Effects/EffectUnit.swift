import Locking
import Synchronization

/// An effect unit (kAudioUnitType_Effect): one input bus fed by a render callback or a
/// connection, one output bus, in the effect's one format (Float32, non-interleaved, as
/// the phone's effects take it); pulled by AudioUnitRender or by the unit after it in a
/// graph. The input is pulled into the caller's buffers and processed there by the
/// kind's kernel, or passed through while bypassed (kAudioUnitProperty_BypassEffect).
///
/// The program's calls change the configuration under a lock; the render copies it only
/// when that lock is free and otherwise uses its last copy, and reads parameters from
/// atomics: it never waits for the program and allocates nothing.
public final class EffectUnit: AudioUnitInstance, DeclaredParameters, SavesState, @unchecked Sendable {
    public let kind: UnitKind
    public let definition: EffectDefinition
    public var handle: UInt = 0

    /// What a render reads besides the parameters (plain values: copying retains nothing).
    struct Plan {
        var layout = PCMLayout(sampleRate: 44100, encoding: .float32, channels: 2, interleaved: false)
        var callback: RenderCallback?
        var bypass = false
        var maximumFrames: UInt32 = 4096
        var notifies = RenderNotifies()
    }

    /// Made at Initialize: the kernel and the buffers the input is pulled into.
    final class Storage {
        let kernel: any EffectKernel
        /// The kernel, when it pulls its own input (a time stretch); cast once here, not
        /// on the render thread.
        let pulling: (any PullingKernel)?
        let scratch: Scratch
        let lent: Scratch
        let channels: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
        /// Where each channel of the last pull is (the callback may point elsewhere).
        let pulled: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
        let count: Int
        /// A pulling kernel's input clock: the sample time of its next pull (nil: take
        /// the render's).
        var inputTime: Double?

        init(_ definition: EffectDefinition, layout: PCMLayout, maximumFrames: Int, bands: Int) {
            var setup = EffectSetup(sampleRate: layout.sampleRate, channels: layout.channels, bands: bands)
            setup.maximumFrames = maximumFrames
            kernel = definition.makeKernel(setup)
            pulling = kernel as? any PullingKernel
            scratch = Scratch(count: layout.bufferCount, bytes: maximumFrames * layout.bytesPerFrame)
            lent = Scratch(count: layout.bufferCount, bytes: maximumFrames * layout.bytesPerFrame)
            count = layout.channels
            channels = .allocate(capacity: count)
            channels.initialize(repeating: lent.buffers[0].assumingMemoryBound(to: Float.self), count: count)
            pulled = .allocate(capacity: count)
            pulled.initialize(repeating: scratch.buffers[0].assumingMemoryBound(to: Float.self), count: count)
        }

        deinit {
            channels.deallocate()
            pulled.deallocate()
        }
    }

    struct Config {
        var plan = Plan()
        var storage: Storage?
        /// Storage a render may still name: freed by a later change once it does not.
        var retired: [Storage] = []
        var renderQuality: UInt32 = 0x7F
        var lastRenderError: Int32 = 0
        /// The bands in use (AUNBandEQ; kAUNBandEQProperty_NumberOfBands).
        var bands = 0
        /// kAudioUnitProperty_PresentPreset: none chosen yet.
        var preset = PresetName(number: -1, name: "Untitled")
    }
    let config = Locked(Config())
    /// The render's copy of the plan, and the storage it names by address (0: none).
    private var renderPlan = Plan()
    private let renderStorage = Atomic<UInt>(0)
    private let rendering = Atomic<Bool>(false)
    private let resetRequested = Atomic<Bool>(false)
    /// The parameters' values as Float bit patterns, in the definition's order.
    private let values: UnsafeMutablePointer<Atomic<UInt32>>
    /// The format's sample rate (the top of a cutoff's range), for setParameter to read
    /// without the configuration's lock: a program may set parameters from its render
    /// callback.
    private let sampleRateBits = Atomic<UInt64>(Double(44100).bitPattern)
    /// The specs the kernel writes (meters), by index.
    private let readOnly: [Int]

    let disposed = Atomic<Bool>(false)
    public var isDisposed: Bool { disposed.load(ordering: .acquiring) }
    public func markDisposed() { disposed.store(true, ordering: .releasing) }
    let kept = Locked<[AnyObject]>([])
    public func keepAlive(_ object: AnyObject) { kept.withLock { $0.append(object) } }
    public var keptObjects: [AnyObject] { kept.withLock { $0 } }

    public init(kind: UnitKind, definition: EffectDefinition) {
        self.kind = kind
        self.definition = definition
        values = .allocate(capacity: max(1, definition.parameters.count))
        for (i, spec) in definition.parameters.enumerated() {
            (values + i).initialize(to: Atomic<UInt32>(spec.defaultValue.bitPattern))
        }
        readOnly = definition.parameters.indices.filter { definition.parameters[$0].readOnly }
        config.withLock { $0.bands = definition.bands?.initial ?? 0 }
        if let first = definition.initialPreset { try? setPresentPreset(PresetName(number: first, name: "")) }
    }

    deinit {
        config.withLock { c in
            c.retired.removeAll()
            c.storage = nil
        }
        values.deinitialize(count: definition.parameters.count)
        values.deallocate()
    }

    // MARK: Elements and format

    public func elementCount(_ scope: Scope) -> UInt32 { 1 }

    public func format(scope: Scope, element: UInt32) throws(UnitError) -> PCMLayout {
        guard scope != .global else { throw .invalidScope }
        guard element == 0 else { throw .invalidElement }
        return config.withLock { $0.plan.layout }
    }

    /// The effect works in one format: setting either side sets both. Float32,
    /// non-interleaved (any layout of one channel), one to eight channels; not while
    /// initialized.
    public func setFormat(_ layout: PCMLayout, scope: Scope, element: UInt32) throws(UnitError) {
        guard scope != .global else { throw .invalidScope }
        guard element == 0 else { throw .invalidElement }
        guard layout.encoding == .float32, !layout.interleaved || layout.channels == 1, (1...8).contains(layout.channels)
        else { throw .formatNotSupported }
        try config.withLock { c throws(UnitError) in
            guard c.plan.layout != layout else { return }
            guard c.storage == nil else { throw .initialized }
            c.plan.layout = PCMLayout(sampleRate: layout.sampleRate, encoding: .float32, channels: layout.channels,
                                      interleaved: false)
            sampleRateBits.store(layout.sampleRate.bitPattern, ordering: .relaxed)
        }
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
    public var latency: Double { definition.latency?(value(of:)) ?? 0 }
    public var tailTime: Double { definition.tailTime?(value(of:)) ?? 0 }

    /// The value of parameter `id` (0 for one the definition lacks).
    private func value(of id: UInt32) -> Float {
        guard let i = definition.parameters.firstIndex(where: { $0.id == id }) else { return 0 }
        return Float(bitPattern: values[i].load(ordering: .relaxed))
    }

    /// kAudioUnitProperty_BypassEffect: the input passes unchanged.
    public var isBypassed: Bool { config.withLock { $0.plan.bypass } }
    public func setBypassed(_ on: Bool) {
        config.withLock { $0.plan.bypass = on }
    }

    // MARK: Input and notifies

    public func setRenderCallback(_ callback: RenderCallback?, input: UInt32) throws(UnitError) {
        guard input == 0 else { throw .invalidElement }
        config.withLock { $0.plan.callback = callback }
    }

    public func addRenderNotify(_ callback: RenderCallback) throws(UnitError) {
        try config.withLock { c throws(UnitError) in try c.plan.notifies.add(callback) }
    }

    public func removeRenderNotify(_ callback: RenderCallback) {
        config.withLock { $0.plan.notifies.remove(callback) }
    }

    // MARK: Parameters

    public func declaredParameters(in scope: Scope) -> [ParameterSpec] { scope == .global ? visibleParameters : [] }

    /// The parameters a program sees now: a banded unit's in its bands in use.
    public var visibleParameters: [ParameterSpec] {
        let bands = config.withLock { $0.bands }
        return definition.parameters.filter { definition.isVisible($0.id, bands: bands) }
    }

    /// The spec of a parameter the program sees now, and its index.
    public func spec(of id: UInt32) throws(UnitError) -> (index: Int, spec: ParameterSpec) {
        guard let index = definition.parameters.firstIndex(where: { $0.id == id }), !definition.parameters[index].presetOnly,
              definition.bands == nil || definition.isVisible(id, bands: config.withLock { $0.bands })
        else { throw .invalidParameter }
        return (index, definition.parameters[index])
    }

    private func index(of id: UInt32, scope: Scope, element: UInt32) throws(UnitError) -> Int {
        // The band check takes the lock: only banded units need it, and they do not render
        // the program's parameter calls under it.
        let index: Int
        if definition.bands == nil {
            guard let found = definition.parameters.firstIndex(where: { $0.id == id }), !definition.parameters[found].presetOnly
            else { throw .invalidParameter }
            index = found
        } else {
            index = try spec(of: id).index
        }
        guard scope == .global else { throw .invalidScope }
        guard element == 0 else { throw .invalidElement }
        return index
    }

    public func parameter(_ id: UInt32, scope: Scope, element: UInt32) throws(UnitError) -> Float {
        let i = try index(of: id, scope: scope, element: element)
        return Float(bitPattern: values[i].load(ordering: .relaxed))
    }

    /// A value outside the parameter's range is held to it (as a knob stops at its end);
    /// a value that is not a number, or a meter's, is refused. Heard from the next render.
    public func setParameter(_ id: UInt32, scope: Scope, element: UInt32, value: Float, offset: UInt32) throws(UnitError) {
        let i = try index(of: id, scope: scope, element: element)
        let spec = definition.parameters[i]
        guard value.isFinite, !spec.readOnly else { throw .invalidParameter }
        store(value, at: i)
    }

    private func store(_ value: Float, at i: Int) {
        let spec = definition.parameters[i]
        let rate = Double(bitPattern: sampleRateBits.load(ordering: .relaxed))
        let held = min(max(value, spec.minimum), spec.maximum(rate))
        values[i].store(held.bitPattern, ordering: .relaxed)
    }

    // MARK: Bands, presets and state

    public var bandCount: Int { config.withLock { $0.bands } }

    /// kAUNBandEQProperty_NumberOfBands: 1 to the kind's maximum, while uninitialized.
    public func setBandCount(_ count: Int) throws(UnitError) {
        guard let bands = definition.bands else { throw .invalidProperty }
        guard (1...bands.maximum).contains(count) else { throw .invalidPropertyValue }
        try config.withLock { c throws(UnitError) in
            guard c.storage == nil else { throw .initialized }
            c.bands = count
        }
    }

    public var factoryPresets: [PresetName] { definition.presets.map { PresetName(number: $0.number, name: $0.name) } }

    public var presentPreset: PresetName { config.withLock { $0.preset } }

    /// A factory preset's number gives its values; a negative number only names what the
    /// parameters hold now (a program's own preset); another number is refused.
    public func setPresentPreset(_ preset: PresetName) throws(UnitError) {
        if preset.number >= 0 {
            guard let factory = definition.presets.first(where: { $0.number == preset.number }) else {
                throw .invalidPropertyValue
            }
            for (id, value) in factory.values {
                if let i = definition.parameters.firstIndex(where: { $0.id == id }) { store(value, at: i) }
            }
            config.withLock { $0.preset = PresetName(number: factory.number, name: factory.name) }
        } else {
            config.withLock { $0.preset = preset }
        }
    }

    /// kAudioUnitProperty_ClassInfo: the values the program can set, named as the present
    /// preset.
    public var state: UnitState {
        // Internal values too: a saved AUiPodEQ keeps its curve.
        let bands = config.withLock { $0.bands }
        let settable = definition.parameters.filter { !$0.readOnly && ($0.presetOnly || definition.isVisible($0.id, bands: bands)) }
            .map { ($0.id, value(of: $0.id)) }
        return UnitState(type: kind.type, subtype: kind.subtype, manufacturer: kind.manufacturer,
                         name: presentPreset.name, data: UnitState.block(settable))
    }

    /// Takes a saved state of this kind: every value of the global scope it holds (held
    /// to its range; IDs this unit lacks are passed over), its name as a preset of the
    /// program's. A state of another component, another version or data that does not
    /// parse is refused, and nothing changes.
    public func restore(_ state: UnitState) throws(UnitError) {
        guard state.version == 0, state.type == kind.type, state.subtype == kind.subtype,
              state.manufacturer == kind.manufacturer, let entries = state.entries()
        else { throw .invalidPropertyValue }
        for entry in entries where entry.scope == 0 && entry.element == 0 && entry.value.isFinite {
            if let i = definition.parameters.firstIndex(where: { $0.id == entry.id }), !definition.parameters[i].readOnly {
                store(entry.value, at: i)
            }
        }
        config.withLock { $0.preset = PresetName(number: -1, name: state.name) }
    }

    // MARK: Life

    public var isInitialized: Bool { config.withLock { $0.storage != nil } }

    public func initialize() throws(UnitError) {
        config.withLock { c in
            guard c.storage == nil else { return }
            c.storage = Storage(definition, layout: c.plan.layout, maximumFrames: Int(c.plan.maximumFrames), bands: c.bands)
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

    /// A retired storage no render names is freed (under the lock a render takes to name
    /// another).
    private func freeRetired(_ c: inout Config) {
        guard !c.retired.isEmpty else { return }
        let named = renderStorage.load(ordering: .acquiring)
        c.retired.removeAll { UInt(bitPattern: Unmanaged.passUnretained($0).toOpaque()) != named }
    }

    // MARK: Render

    /// AudioUnitRender of the output bus: notifies before; the input pulled into the
    /// caller's buffers (or ours, lent where the caller gave none); the kernel over them
    /// unless bypassed; notifies after.
    public func renderPulled(flags: UnsafeMutablePointer<UInt32>, timeStamp: UnsafeRawPointer, bus: UInt32,
                             frames: UInt32, list: UnsafeMutableRawPointer) throws(UnitError) {
        guard bus == 0 else { throw .invalidElement }
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
        guard frames <= plan.maximumFrames else { throw .tooManyFramesToProcess }
        if resetRequested.exchange(false, ordering: .acquiring) {
            storage.kernel.reset()
            storage.inputTime = nil
        }
        let layout = plan.layout
        let count = try lend(storage.lent, to: list, laidOut: layout, frames: Int(frames))
        plan.notifies.call(RenderAction.preRender, flags: flags.pointee, timeStamp, bus: 0, frames: frames, list)
        guard let callback = plan.callback else {
            _ = config.withLockIfAvailable { $0.lastRenderError = UnitError.noConnection.rawValue }
            throw .noConnection
        }
        for i in 0..<min(count, storage.count) {
            storage.channels[i] = (list + 8 + 16 * i).load(fromByteOffset: 8, as: UnsafeMutablePointer<Float>.self)
        }
        let specs = definition.parameters.count
        try withUnsafeTemporaryAllocation(of: Float.self, capacity: max(1, specs)) { parameters throws(UnitError) in
            for i in 0..<specs { parameters[i] = Float(bitPattern: values[i].load(ordering: .relaxed)) }
            if let pulling = storage.pulling, !plan.bypass {
                try renderPulling(pulling, storage: storage, callback: callback, timeStamp: timeStamp, frames: Int(frames),
                                  count: min(count, storage.count), parameters: parameters.baseAddress!)
            } else if storage.pulling != nil {
                // A bypassed time unit passes its input through, still on the input's own
                // clock: what feeds it never sees time go back when the bypass ends.
                try pullStamped(storage, callback: callback, timeStamp: timeStamp, frames: Int(frames))
                for i in 0..<min(count, storage.count) { storage.channels[i].update(from: storage.pulled[i], count: Int(frames)) }
            } else {
                // The input into the caller's buffers, processed there.
                try pull(storage, callback: callback, timeStamp: timeStamp, frames: frames)
                for i in 0..<min(count, storage.count) { storage.channels[i].update(from: storage.pulled[i], count: Int(frames)) }
                if !plan.bypass {
                    storage.kernel.process(storage.channels, count: min(count, storage.count), frames: Int(frames),
                                           parameters: parameters.baseAddress!)
                }
            }
            if !plan.bypass { for i in readOnly { values[i].store(parameters[i].bitPattern, ordering: .relaxed) } }
        }
        plan.notifies.call(RenderAction.postRender, flags: flags.pointee, timeStamp, bus: 0, frames: frames, list)
    }

    /// One pull of the input into our scratch list; `storage.pulled` then names where each
    /// channel is (the callback may point a buffer elsewhere; one it leaves without data
    /// reads as silence). A failed callback's status is the render's error.
    private func pull(_ storage: Storage, callback: RenderCallback, timeStamp: UnsafeRawPointer,
                      frames: UInt32) throws(UnitError) {
        let input = storage.scratch.list
        let bytes = UInt32(Int(frames) * 4)
        storage.scratch.present(bytes: bytes, channelsPerBuffer: 1)
        var inputFlags: UInt32 = 0
        let status = callback.call(&inputFlags, timeStamp, 0, frames, input)
        if status != 0 {
            _ = config.withLockIfAvailable { $0.lastRenderError = status }
            throw UnitError(rawValue: status) ?? .cannotDoInCurrentContext
        }
        for i in 0..<storage.count {
            let entry = input + 8 + 16 * i
            if let from = entry.load(fromByteOffset: 8, as: UnsafeMutablePointer<Float>?.self) {
                storage.pulled[i] = from
            } else {
                let silent = storage.scratch.buffers[i].assumingMemoryBound(to: Float.self)
                silent.update(repeating: 0, count: Int(frames))
                storage.pulled[i] = silent
            }
        }
    }

    /// A pulling kernel's render: it pulls as many blocks as it needs, each stamped with the
    /// input's own sample time (which runs at the input's pace, not the output's).
    private func renderPulling(_ kernel: any PullingKernel, storage: Storage, callback: RenderCallback,
                               timeStamp: UnsafeRawPointer, frames: Int, count: Int,
                               parameters: UnsafeMutablePointer<Float>) throws(UnitError) {
        var failure: UnitError?
        let done = kernel.render(into: storage.channels, count: count, frames: frames, parameters: parameters) { n in
            do throws(UnitError) {
                try pullStamped(storage, callback: callback, timeStamp: timeStamp, frames: n)
            } catch {
                failure = error
                return nil
            }
            return UnsafePointer(storage.pulled)
        }
        if let failure { throw failure }
        if !done { throw .cannotDoInCurrentContext }
    }

    /// One pull of `frames` frames stamped with the input's clock (from the render's time
    /// after a reset), which it then advances.
    private func pullStamped(_ storage: Storage, callback: RenderCallback, timeStamp: UnsafeRawPointer,
                             frames: Int) throws(UnitError) {
        let time = storage.inputTime ?? timeStamp.load(as: Double.self)
        try withUnsafeTemporaryAllocation(byteCount: 64, alignment: 8) { stamp throws(UnitError) in
            let stamp = stamp.baseAddress!
            stamp.copyMemory(from: timeStamp, byteCount: 64)
            stamp.storeBytes(of: time, as: Double.self)
            // mFlags: the sample time is valid.
            stamp.storeBytes(of: stamp.load(fromByteOffset: 56, as: UInt32.self) | 1, toByteOffset: 56, as: UInt32.self)
            try pull(storage, callback: callback, timeStamp: UnsafeRawPointer(stamp), frames: UInt32(frames))
        }
        storage.inputTime = time + Double(frames)
    }
}
