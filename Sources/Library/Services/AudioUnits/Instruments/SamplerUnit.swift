import CMusicSynth
import Glibc
import Locking
import Synchronization

/// AUSampler (kAudioUnitType_MusicDevice, 'samp'): a music device with no input and one
/// output bus (Float32, non-interleaved, one or two channels), played by MIDI. What it
/// plays is a SamplerInstrument, loaded into FluidSynth: a SoundFont preset, audio files,
/// an .aupreset's zones, or before any of those a sine, as the phone's.
///
/// The synthesizer is made at Initialize (and made again when an instrument is loaded
/// into an initialized sampler, off the render thread) and is only ever called by the
/// render: the program's MIDI reaches it through a queue the render drains, each event at
/// its frame offset, so the render never waits for the program and allocates nothing.
public final class SamplerUnit: AudioUnitInstance, DeclaredParameters, SavesState, @unchecked Sendable {
    public let kind: UnitKind
    public var handle: UInt = 0

    struct Plan {
        var layout = PCMLayout(sampleRate: 44100, encoding: .float32, channels: 2, interleaved: false)
        var maximumFrames: UInt32 = 4096
        var notifies = RenderNotifies()
    }

    /// The synthesizer playing one instrument at one rate, and the room the render works in.
    final class Engine {
        let synth: OpaquePointer
        let instrument: LoadedInstrument
        let lent: Scratch
        let spare: UnsafeMutablePointer<Float>
        /// Render thread only: the tuning last given to the synthesizer.
        var tuning: (Float, Float) = (0, 0)
        /// Render thread only: the sampler's frame at which this synthesizer's first block
        /// began (its blocks of 64 frames start there).
        var origin: Int64 = -1

        init(_ instrument: LoadedInstrument, layout: PCMLayout, maximumFrames: Int) throws(UnitError) {
            // A sampler's one instrument near full scale, as the phone's; General MIDI's
            // sixteen channels lower, so a full arrangement does not clip.
            guard let synth = MusicSynthNew(layout.sampleRate, 256, instrument.generalMIDI ? 0.4 : 1.0) else {
                throw .failedInitialization
            }
            guard MusicSynthUseFont(synth, instrument.font) == 0 else {
                MusicSynthDelete(synth)
                throw .failedInitialization
            }
            for channel in Int32(0)..<16 {
                if instrument.generalMIDI {
                    _ = MusicSynthSelect(synth, channel, channel == 9 ? 128 : 0, 0)
                } else {
                    _ = MusicSynthSelect(synth, channel, Int32(instrument.bank), Int32(instrument.program))
                }
            }
            self.synth = synth
            self.instrument = instrument
            lent = Scratch(count: layout.bufferCount, bytes: maximumFrames * layout.bytesPerFrame)
            spare = .allocate(capacity: max(1, maximumFrames))
        }

        deinit {
            MusicSynthDelete(synth)
            spare.deallocate()
        }
    }

    struct Config {
        var plan = Plan()
        var source: SamplerInstrument = .sine
        var loaded: LoadedInstrument?
        var engine: Engine?
        /// Engines a render may still name: freed by a later change once it does not.
        var retired: [Engine] = []
        var renderQuality: UInt32 = 0x7F
        var lastRenderError: Int32 = 0
    }
    let config = Locked(Config())
    private var renderPlan = Plan()
    private let renderEngine = Atomic<UInt>(0)
    private let rendering = Atomic<Bool>(false)
    private let resetRequested = Atomic<Bool>(false)
    private let events = MIDIEventQueue()
    private let scheduled = ScheduledMIDIQueue()
    /// Frames rendered since Initialize: the clock a music player schedules by.
    private let rendered = Atomic<Int64>(0)
    private let generation = Atomic<UInt32>(0)
    private let noteSerial = Atomic<UInt32>(0)

    /// kAUSamplerParam_Gain (-90 to 12 dB, 0), _CoarseTuning (-24 to 24 semitones, 0),
    /// _FineTuning (-99 to 99 cents, 0), _Pan (-1 to 1, 0).
    public static let parameters = [
        ParameterSpec(id: 900, name: "Gain", unit: ParameterSpec.decibels, range: -90...12, defaultValue: 0),
        ParameterSpec(id: 901, name: "Coarse Tuning", unit: 10, range: -24...24, defaultValue: 0),
        ParameterSpec(id: 902, name: "Fine Tuning", unit: ParameterSpec.cents, range: -99...99, defaultValue: 0),
        ParameterSpec(id: 903, name: "Pan", unit: 18, range: -1...1, defaultValue: 0),
    ]
    private let values: UnsafeMutablePointer<Atomic<UInt32>> = {
        let values = UnsafeMutablePointer<Atomic<UInt32>>.allocate(capacity: SamplerUnit.parameters.count)
        for (i, spec) in SamplerUnit.parameters.enumerated() {
            (values + i).initialize(to: Atomic<UInt32>(spec.defaultValue.bitPattern))
        }
        return values
    }()

    let disposed = Atomic<Bool>(false)
    public var isDisposed: Bool { disposed.load(ordering: .acquiring) }
    public func markDisposed() { disposed.store(true, ordering: .releasing) }
    let kept = Locked<[AnyObject]>([])
    public func keepAlive(_ object: AnyObject) { kept.withLock { $0.append(object) } }
    public var keptObjects: [AnyObject] { kept.withLock { $0 } }

    public init(kind: UnitKind, instrument: SamplerInstrument = .sine) {
        self.kind = kind
        config.withLock { $0.source = instrument }
    }

    deinit {
        config.withLock { c in
            c.retired.removeAll()
            c.engine = nil
        }
        values.deinitialize(count: SamplerUnit.parameters.count)
        values.deallocate()
    }

    // MARK: Elements and format

    public func elementCount(_ scope: Scope) -> UInt32 { scope == .input ? 0 : 1 }

    public func format(scope: Scope, element: UInt32) throws(UnitError) -> PCMLayout {
        guard scope == .output else { throw scope == .input ? .invalidElement : .invalidScope }
        guard element == 0 else { throw .invalidElement }
        return config.withLock { $0.plan.layout }
    }

    /// Float32, one or two channels, non-interleaved (any layout of one), while
    /// uninitialized.
    public func setFormat(_ layout: PCMLayout, scope: Scope, element: UInt32) throws(UnitError) {
        guard scope == .output else { throw scope == .input ? .invalidElement : .invalidScope }
        guard element == 0 else { throw .invalidElement }
        guard layout.encoding == .float32, !layout.interleaved || layout.channels == 1, (1...2).contains(layout.channels)
        else { throw .formatNotSupported }
        try config.withLock { c throws(UnitError) in
            guard c.plan.layout != layout else { return }
            guard c.engine == nil else { throw .initialized }
            c.plan.layout = PCMLayout(sampleRate: layout.sampleRate, encoding: .float32, channels: layout.channels,
                                      interleaved: false)
        }
    }

    public var maximumFramesPerSlice: UInt32 { config.withLock { $0.plan.maximumFrames } }
    public func setMaximumFramesPerSlice(_ frames: UInt32) throws(UnitError) {
        guard frames >= 1, frames <= 65536 else { throw .invalidPropertyValue }
        try config.withLock { c throws(UnitError) in
            guard c.engine == nil else { throw .initialized }
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

    public func setRenderCallback(_ callback: RenderCallback?, input: UInt32) throws(UnitError) { throw .invalidElement }

    public func addRenderNotify(_ callback: RenderCallback) throws(UnitError) {
        try config.withLock { c throws(UnitError) in try c.plan.notifies.add(callback) }
    }

    public func removeRenderNotify(_ callback: RenderCallback) {
        config.withLock { $0.plan.notifies.remove(callback) }
    }

    // MARK: Parameters

    public func declaredParameters(in scope: Scope) -> [ParameterSpec] { scope == .global ? SamplerUnit.parameters : [] }

    public func spec(of id: UInt32) throws(UnitError) -> (index: Int, spec: ParameterSpec) {
        guard let index = SamplerUnit.parameters.firstIndex(where: { $0.id == id }) else { throw .invalidParameter }
        return (index, SamplerUnit.parameters[index])
    }

    public func parameter(_ id: UInt32, scope: Scope, element: UInt32) throws(UnitError) -> Float {
        let i = try spec(of: id).index
        guard scope == .global else { throw .invalidScope }
        guard element == 0 else { throw .invalidElement }
        return Float(bitPattern: values[i].load(ordering: .relaxed))
    }

    /// Held to the parameter's range; heard from the next render.
    public func setParameter(_ id: UInt32, scope: Scope, element: UInt32, value: Float, offset: UInt32) throws(UnitError) {
        let (i, spec) = try spec(of: id)
        guard scope == .global else { throw .invalidScope }
        guard element == 0 else { throw .invalidElement }
        guard value.isFinite else { throw .invalidParameter }
        values[i].store(min(max(value, spec.minimum), spec.maximum(0)).bitPattern, ordering: .relaxed)
    }

    private func value(_ i: Int) -> Float { Float(bitPattern: values[i].load(ordering: .relaxed)) }

    // MARK: Instruments

    public var instrument: SamplerInstrument { config.withLock { $0.source } }

    /// Loads an instrument (kAUSamplerProperty_LoadInstrument, _LoadPresetFromBank,
    /// _LoadAudioFiles, an .aupreset): read now, played from the next render if the
    /// sampler is initialized (the notes sounding stop), else from Initialize. A file that
    /// is missing or unreadable changes nothing.
    /// Reads an instrument as `load` does, with the same errors, and loads nothing (a
    /// node that has no unit yet keeps it for the unit to come).
    public static func check(_ instrument: SamplerInstrument) throws(UnitError) { _ = try LoadedInstrument.load(instrument) }

    public func load(_ instrument: SamplerInstrument) throws(UnitError) {
        let loaded = try LoadedInstrument.load(instrument)
        try config.withLock { c throws(UnitError) in
            if c.engine != nil {
                let engine = try Engine(loaded, layout: c.plan.layout, maximumFrames: Int(c.plan.maximumFrames))
                if let old = c.engine { c.retired.append(old) }
                c.engine = engine
                freeRetired(&c)
            }
            c.source = instrument
            c.loaded = loaded
        }
    }

    // MARK: Saved state

    /// The four parameters; the instrument is not part of it (a program loads its own).
    public var state: UnitState {
        UnitState(type: kind.type, subtype: kind.subtype, manufacturer: kind.manufacturer, name: "Untitled",
                  data: UnitState.block(SamplerUnit.parameters.indices.map { (SamplerUnit.parameters[$0].id, value($0)) }))
    }

    /// The saved parameters, and the instrument if the state names one (an .aupreset's
    /// zones): loaded first, so a missing sample refuses the whole and changes nothing.
    public func restore(_ state: UnitState) throws(UnitError) {
        guard state.version == 0, state.type == kind.type, state.subtype == kind.subtype,
              state.manufacturer == kind.manufacturer, let entries = state.entries()
        else { throw .invalidPropertyValue }
        if let instrument = state.instrument { try load(instrument) }
        for entry in entries where entry.scope == 0 && entry.element == 0 && entry.value.isFinite {
            if let i = SamplerUnit.parameters.firstIndex(where: { $0.id == entry.id }) {
                let spec = SamplerUnit.parameters[i]
                values[i].store(min(max(entry.value, spec.minimum), spec.maximum(0)).bitPattern, ordering: .relaxed)
            }
        }
    }

    // MARK: MIDI (MusicDevice.h)

    /// A channel message: its status byte and data, at a frame offset into the next render.
    public func midiEvent(status: UInt32, data1: UInt32, data2: UInt32, offset: UInt32) throws(UnitError) {
        guard isInitialized else { throw .uninitialized }
        let status = UInt8(truncatingIfNeeded: status)
        guard status >= 0x80, status < 0xF0 else { throw .parameter }
        let length = status & 0xF0 == 0xC0 || status & 0xF0 == 0xD0 ? 2 : 3
        let bytes = (status, UInt8(truncatingIfNeeded: data1) & 0x7F, UInt8(truncatingIfNeeded: data2) & 0x7F)
        let queued = withUnsafeBytes(of: bytes) { events.push(offset: offset, UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
        guard queued else { throw .cannotDoInCurrentContext }
    }

    /// A system-exclusive message (F0 ... F7), of at most 32 bytes, at the next render's start.
    public func sysEx(_ bytes: UnsafeRawBufferPointer) throws(UnitError) {
        guard isInitialized else { throw .uninitialized }
        guard bytes.count >= 2, bytes.count <= MIDIEventQueue.mostBytes, bytes[0] == 0xF0 else { throw .parameter }
        guard events.push(offset: 0, bytes) else { throw .cannotDoInCurrentContext }
    }

    /// MusicDeviceStartNote: a note on a group (MIDI channel 0 to 15) at a pitch (its
    /// fraction is dropped) and velocity; returns the ID MusicDeviceStopNote takes.
    public func startNote(group: UInt32, pitch: Float, velocity: Float, offset: UInt32) throws(UnitError) -> UInt32 {
        guard group < 16 else { throw .invalidElement }
        guard pitch.isFinite, pitch >= 0, pitch < 128, velocity.isFinite, velocity >= 0, velocity < 128 else {
            throw .parameter
        }
        let key = UInt32(pitch)
        try midiEvent(status: 0x90 | group, data1: key, data2: max(1, UInt32(velocity)), offset: offset)
        let serial = noteSerial.wrappingAdd(1, ordering: .relaxed).newValue & 0xFFFF
        return serial << 16 | group << 8 | key
    }

    public func stopNote(group: UInt32, note: UInt32, offset: UInt32) throws(UnitError) {
        guard group < 16, note >> 8 & 0xFF == group else { throw .invalidElement }
        try midiEvent(status: 0x80 | group, data1: note & 0x7F, data2: 0, offset: offset)
    }

    // MARK: Scheduled MIDI (a music player)

    /// Frames rendered since Initialize.
    public var renderedFrames: Int64 { rendered.load(ordering: .acquiring) }
    public var sampleRate: Double { config.withLock { $0.plan.layout.sampleRate } }

    /// Forgets every scheduled event not yet played (a player's Stop or SetTime): returns
    /// the generation to schedule the next ones in.
    public func newScheduleGeneration() -> UInt32 { generation.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue }
    public var scheduleGeneration: UInt32 { generation.load(ordering: .acquiring) }

    /// Queues `bytes` to sound at `frame` of the sampler's output (at once if that has
    /// passed); false if the queue is full or the message too long.
    public func schedule(frame: Int64, generation: UInt32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        scheduled.push(frame: frame, generation: generation, bytes)
    }

    /// Scheduled events waiting to be played.
    public var scheduledWaiting: Int { scheduled.waiting }

    /// Applies one event to the synthesizer (render thread).
    private func apply(_ bytes: UnsafeRawBufferPointer, to engine: Engine) {
        let synth = engine.synth, status = bytes[0]
        if status == 0xF0 {
            MusicSynthSysEx(synth, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(bytes.count))
            return
        }
        let channel = Int32(status & 0x0F)
        let d1 = Int32(bytes.count > 1 ? bytes[1] : 0), d2 = Int32(bytes.count > 2 ? bytes[2] : 0)
        switch status & 0xF0 {
        case 0x80: MusicSynthNoteOff(synth, channel, d1)
        case 0x90: MusicSynthNoteOn(synth, channel, d1, d2)
        case 0xA0: MusicSynthKeyPressure(synth, channel, d1, d2)
        case 0xB0: MusicSynthControl(synth, channel, d1, d2)
        case 0xC0:
            // An instrument's sampler stays on what it loaded unless its font has the program.
            let instrument = engine.instrument
            if instrument.generalMIDI || MusicFontHasPreset(instrument.font, Int32(instrument.bank), d1) != 0 {
                MusicSynthProgramChange(synth, channel, d1)
            }
        case 0xD0: MusicSynthChannelPressure(synth, channel, d1)
        default: MusicSynthPitchBend(synth, channel, d1 | d2 << 7)
        }
    }

    // MARK: Life

    public var isInitialized: Bool { config.withLock { $0.engine != nil } }

    public func initialize() throws(UnitError) {
        let (source, loaded) = config.withLock { ($0.source, $0.loaded) }
        let instrument: LoadedInstrument
        if let loaded { instrument = loaded } else { instrument = try LoadedInstrument.load(source) }
        try config.withLock { c throws(UnitError) in
            guard c.engine == nil else { return }
            c.engine = try Engine(instrument, layout: c.plan.layout, maximumFrames: Int(c.plan.maximumFrames))
            c.loaded = instrument
            freeRetired(&c)
            rendered.store(0, ordering: .releasing)
        }
    }

    @discardableResult
    public func uninitialize() -> Bool {
        config.withLock { c in
            if let old = c.engine { c.retired.append(old) }
            c.engine = nil
            freeRetired(&c)
        }
        return false
    }

    /// Silences every note at the next render (AudioUnitReset).
    public func reset() { resetRequested.store(true, ordering: .releasing) }

    public func resetAfterFork() {
        config.reinitializeAfterFork()
        rendering.store(false, ordering: .releasing)
    }

    private func freeRetired(_ c: inout Config) {
        guard !c.retired.isEmpty else { return }
        let named = renderEngine.load(ordering: .acquiring)
        c.retired.removeAll { UInt(bitPattern: Unmanaged.passUnretained($0).toOpaque()) != named }
    }

    // MARK: Render

    public func renderPulled(flags: UnsafeMutablePointer<UInt32>, timeStamp: UnsafeRawPointer, bus: UInt32,
                             frames: UInt32, list: UnsafeMutableRawPointer) throws(UnitError) {
        guard bus == 0 else { throw .invalidElement }
        guard rendering.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            throw .cannotDoInCurrentContext
        }
        defer { rendering.store(false, ordering: .releasing) }
        _ = config.withLockIfAvailable { c in
            renderPlan = c.plan
            let named = c.engine.map { UInt(bitPattern: Unmanaged.passUnretained($0).toOpaque()) } ?? 0
            renderEngine.store(named, ordering: .releasing)
        }
        guard let address = UnsafeRawPointer(bitPattern: renderEngine.load(ordering: .acquiring)) else {
            throw .uninitialized
        }
        let engine = Unmanaged<Engine>.fromOpaque(address).takeUnretainedValue()
        let plan = renderPlan
        guard frames <= plan.maximumFrames else { throw .tooManyFramesToProcess }
        let layout = plan.layout
        let count = try lend(engine.lent, to: list, laidOut: layout, frames: Int(frames))
        plan.notifies.call(RenderAction.preRender, flags: flags.pointee, timeStamp, bus: 0, frames: frames, list)
        let left = (list + 8).load(fromByteOffset: 8, as: UnsafeMutablePointer<Float>.self)
        let right = count > 1 ? (list + 24).load(fromByteOffset: 8, as: UnsafeMutablePointer<Float>.self) : engine.spare

        if resetRequested.exchange(false, ordering: .acquiring) {
            for channel in Int32(0)..<16 { MusicSynthAllSoundsOff(engine.synth, channel) }
        }
        let tuning = (value(1), value(2))
        if tuning != engine.tuning {
            engine.tuning = tuning
            MusicSynthTune(engine.synth, tuning.0, tuning.1)
        }
        // Each event at its offset (the program's, and a player's scheduled by frame): the
        // synthesizer renders up to it, then hears it.
        let start = rendered.load(ordering: .relaxed), current = generation.load(ordering: .acquiring)
        if engine.origin < 0 { engine.origin = start }
        // The synthesizer hears an event at the start of its next 64-frame block: a
        // scheduled event is given at the block boundary nearest its frame (within half a
        // block, early or late) instead of at the one after it.
        let origin = engine.origin
        let place = { (frame: Int64) -> Int64 in origin + ((frame - origin + 32) >> 6) << 6 }
        var done = 0
        func advance(to at: Int) {
            while scheduled.next(before: start + Int64(at), generation: current, place: place, { frame, bytes in
                let offset = max(done, Int(frame - start))
                if offset > done {
                    MusicSynthRender(engine.synth, Int32(offset - done), left + done, right + done)
                    done = offset
                }
                apply(bytes, to: engine)
            }) {}
            if at > done {
                MusicSynthRender(engine.synth, Int32(at - done), left + done, right + done)
                done = at
            }
        }
        events.drain { offset, bytes in
            advance(to: min(Int(offset), Int(frames)))
            apply(bytes, to: engine)
        }
        advance(to: Int(frames))
        rendered.store(start + Int64(frames), ordering: .releasing)

        let gain = Float(pow(10, Double(value(0)) / 20)), pan = value(3)
        if count > 1 {
            let leftGain = gain * min(1, 1 - pan), rightGain = gain * min(1, 1 + pan)
            for i in 0..<Int(frames) {
                left[i] *= leftGain
                right[i] *= rightGain
            }
        } else {
            for i in 0..<Int(frames) { left[i] = (left[i] + right[i]) * 0.5 * gain }
        }
        plan.notifies.call(RenderAction.postRender, flags: flags.pointee, timeStamp, bus: 0, frames: frames, list)
    }
}
