import AudioSessionCore
import AudioStreams
import Dispatch
import Glibc
import Locking
import Resampling
import Synchronization

/// The audio unit result codes (AUComponent.h) this layer answers with.
public enum UnitError: Int32, Error, Sendable {
    case invalidProperty = -10879
    case invalidParameter = -10878
    case invalidElement = -10877
    /// kAudioUnitErr_NoConnection: an effect pulled with nothing feeding its input.
    case noConnection = -10876
    case tooManyFramesToProcess = -10874
    case formatNotSupported = -10868
    case uninitialized = -10867
    case invalidScope = -10866
    case propertyNotWritable = -10865
    case cannotDoInCurrentContext = -10863
    /// kAudioUnitErr_FailedInitialization: what the unit needs is not installed (the
    /// WebRTC audio processing library, for VoiceProcessingIO).
    case failedInitialization = -10875
    case invalidPropertyValue = -10851
    /// kAudioUnitErr_InvalidFile: an instrument file that is not one the sampler reads.
    case invalidFile = -10871
    /// kAudioUnitErr_InstrumentTypeNotFound: an instrument type the sampler does not load.
    case instrumentTypeNotFound = -10872
    /// fnfErr: an instrument or sample file that is not there (what the phone answers).
    case fileNotFound = -43
    case initialized = -10849
    /// kAudio_ParamError: a NULL or unknown argument.
    case parameter = -50
    /// kAudio_UnimplementedError: a call this unit has no meaning for.
    case unimplemented = -4
    /// '!pla': the device would not open (busy, unplugged): the unit did not start.
    case cannotStartPlaying = 0x2170_6C61
}

public enum Scope: UInt32, Sendable { case global = 0, input = 1, output = 2 }

/// A C render callback (AURenderCallback) and its reference: plain values, so copying
/// one on the real-time path retains nothing.
public struct RenderCallback: Sendable {
    public typealias Procedure = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt32>,
                                                 UnsafeRawPointer, UInt32, UInt32, UnsafeMutableRawPointer?) -> Int32
    public let procedure: Procedure
    public nonisolated(unsafe) let refCon: UnsafeMutableRawPointer?

    public init(procedure: Procedure, refCon: UnsafeMutableRawPointer?) {
        self.procedure = procedure
        self.refCon = refCon
    }

    @inline(__always)
    func call(_ flags: UnsafeMutablePointer<UInt32>, _ timeStamp: UnsafeRawPointer, _ bus: UInt32, _ frames: UInt32,
              _ list: UnsafeMutableRawPointer?) -> Int32 {
        procedure(refCon, flags, timeStamp, bus, frames, list)
    }

    public func same(_ other: RenderCallback) -> Bool {
        unsafeBitCast(procedure, to: UInt.self) == unsafeBitCast(other.procedure, to: UInt.self)
            && refCon == other.refCon
    }
}

/// What a render reads of the unit's configuration: trivial values only, copied whole
/// from under the lock (by the real-time thread only when the lock is free).
struct RenderPlan {
    /// Element 0's input scope: what the program gives.
    var programOut = PCMLayout(sampleRate: 44100, encoding: .float32, channels: 2, interleaved: false)
    /// Element 1's output scope: what the program gets from the microphone.
    var programIn = PCMLayout(sampleRate: 44100, encoding: .float32, channels: 1, interleaved: false)
    /// GenericOutput's element 0 output scope: what AudioUnitRender fills.
    var pulled = PCMLayout(sampleRate: 44100, encoding: .float32, channels: 2, interleaved: false)
    var render: RenderCallback?
    var input: RenderCallback?
    var notifies = RenderNotifies()
    var maximumFrames: UInt32 = 4096
    var volume: Float = 1
    /// Varispeed's rate (1: as recorded).
    var playbackRate = 1.0
    var outputEnabled = true
    var inputEnabled = false
    var bypassVoiceProcessing = false
    var automaticGain = true
    var muteOutput = false
}

/// One unit instance. Its configuration changes only from the program's calls, under a
/// lock; the I/O thread copies it only when the lock is free (see RenderPlan), and runs
/// the program's callbacks with no lock held.
///
/// The I/O units are audio services (AudioSessionCore.AudioService): the session feeds
/// them its state, and an interruption stops them before its Begin is delivered.
public final class OutputUnit: AudioService, @unchecked Sendable {
    public let kind: UnitKind

    struct Config {
        var initialized = false
        var running = false
        var plan = RenderPlan()
        /// GenericOutput's buffers for the program's side, made at Initialize; a render
        /// holds its own reference, so buffers remade meanwhile stay valid under it.
        var scratch: Scratch?
        /// Rate conversion of a pulled unit whose sides differ in rate, made at Initialize.
        var resampler: PulledResampler?
        /// GenericOutput's own buffers for the pulled side, lent to an AudioUnitRender
        /// whose buffer list has NULL data pointers (offline code relies on it).
        var lent: Scratch?
        /// kAudioUnitProperty_RenderQuality: kept and read back; the conversion is the
        /// same at every quality.
        var renderQuality: UInt32 = 0x7F
        /// kAudioUnitProperty_SampleRateConverterComplexity of a format converter: which
        /// resampler Initialize makes ('line', 'norm', 'bats').
        var converterComplexity: UInt32 = Resampler.Quality.complexityNormal
        var shouldAllocate = [true, true]
        var lastRenderError: Int32 = 0
        /// The I/O thread of a started unit, and one stopped by the session whose thread
        /// may still be finishing its period.
        var run: IORun?
        var retiring: IORun?
        /// What the last stream granted (for Latency).
        var grant: StreamGrant?
    }
    let config = Locked(Config())
    /// What a pull last copied of the configuration (PulledRender): the pulling thread's own.
    struct PulledCopy {
        let plan: RenderPlan
        let scratch: Scratch?
        let lent: Scratch?
        let resampler: PulledResampler?
        let initialized: Bool
    }
    nonisolated(unsafe) var pulledCopy: PulledCopy?
    /// Held (set) by the one thread reading or writing `pulledCopy`.
    let pullingCopy = Atomic<Bool>(false)
    /// The session's latest word; and what the I/O thread reads of it without a lock.
    let fed: Locked<AudioServiceSnapshot>
    /// The output gain the session allows (ducking, silent switch), as Float bits.
    let fedLevel = Atomic<UInt32>(Float(1).bitPattern)
    let fedRecording = Atomic<Bool>(false)
    /// Bumped when where or how the stream plays changes: the I/O thread reopens it.
    let streamGeneration = Atomic<Int>(0)
    /// Called (with no lock held) when the unit stopped without the program asking: an
    /// interruption, a device gone. Set once by the ABI layer before the unit is used.
    public var onStoppedBySystem: (@Sendable () -> Void)?
    /// Called (no lock held, on the thread that opened it) with what each stream the unit
    /// opens was granted: the session then reads it. Set once by the ABI layer.
    public var onGranted: (@Sendable (StreamGrant) -> Void)?
    /// Called (no lock held, on the session's thread) when the hardware's rate changed
    /// under a device unit that runs: its stream is made again at the new rate. What
    /// AVAudioEngine posts its configuration change for. Set once before the unit runs.
    public var onHardwareFormatChange: (@Sendable () -> Void)?
    /// The program's name for the unit (its AudioUnit handle): how AudioUnitRender, called
    /// from the unit's own callbacks, knows it without the handle table's lock. Set once by
    /// the ABI layer before the unit is used.
    public var handle: UInt = 0
    /// Objects the unit's callbacks use that must live as long as it does (a graph's load
    /// meter): its I/O thread may finish a period after their owner let them go.
    let disposed = Atomic<Bool>(false)
    let kept = Locked<[AnyObject]>([])
    public func keepAlive(_ object: AnyObject) { kept.withLock { $0.append(object) } }
    public var keptObjects: [AnyObject] { kept.withLock { $0 } }
    /// The rate and period of the stream running now: a session snapshot that states
    /// them (the session reading back the grant) does not reopen it.
    let runningFormat = Locked<(rate: Double, period: Int)?>(nil)

    public init(kind: UnitKind, fedWith snapshot: AudioServiceSnapshot) {
        self.kind = kind
        fed = Locked(snapshot)
        apply(snapshot)
        if !kind.hasDevice {
            config.withLock { $0.plan.programIn.channels = 2 }
        }
    }

    // MARK: The session

    public func sessionChanged(_ snapshot: AudioServiceSnapshot) {
        let before = fed.withLock { old -> AudioServiceSnapshot in
            defer { old = snapshot }
            return old
        }
        apply(snapshot)
        var moved = false, reformatted = false
        defer {
            if moved { config.withLock { $0.run }?.wake() }
            if reformatted { onHardwareFormatChange?() }
        }
        if before.device != snapshot.device || before.sampleRate != snapshot.sampleRate
            || before.ioBufferDuration != snapshot.ioBufferDuration {
            let running = runningFormat.withLock { $0 }
            let period = Int((Double(snapshot.ioBufferDuration) * snapshot.sampleRate).rounded())
            let same = before.device == snapshot.device && running.map { $0.rate == snapshot.sampleRate
                && $0.period == period } == true
            if !same {
                streamGeneration.add(1, ordering: .releasing)
                moved = true
                reformatted = kind.hasDevice && running != nil && running?.rate != snapshot.sampleRate
                    && before.sampleRate != snapshot.sampleRate
            }
        }
        // Stopped now, before the session queues Begin: the thread makes no callback
        // after this, and is waited for before Begin is delivered (awaitQuiet).
        if snapshot.interrupted && kind.hasDevice {
            config.withLock { c in
                guard c.running, let run = c.run else { return }
                c.running = false
                c.run = nil
                c.retiring = run
                run.requestStop()
                run.tellOnExit.store(true, ordering: .releasing)
            }
        }
    }

    private func apply(_ snapshot: AudioServiceSnapshot) {
        // A category that does not play (RecordAudio) is not heard, as the silent
        // switch's categories are not while it is on.
        let level = snapshot.outputSilenced || !snapshot.playing ? 0 : max(0, min(1, snapshot.level))
        fedLevel.store(level.bitPattern, ordering: .releasing)
        fedRecording.store(snapshot.recording, ordering: .releasing)
    }

    /// Returns once no I/O thread this unit's session stopped is still in a period
    /// (bounded: a callback that never returns is the program's, and Begin still comes).
    public func awaitQuiet() {
        guard let run = config.withLock({ $0.retiring }) else { return }
        if !run.isCurrentThread { _ = run.finished.wait(timeout: .now() + .seconds(2)) }
        config.withLock { c in if c.retiring === run { c.retiring = nil } }
    }

    /// The hardware rate and period the device side runs at: the session's, or the
    /// device defaults while no session feeds the unit.
    var hardware: (rate: Double, period: Int) {
        let snapshot = fed.withLock { $0 }
        let rate = snapshot.sampleRate > 0 ? snapshot.sampleRate : 44100
        let period = snapshot.ioBufferDuration > 0 ? max(16, Int((Double(snapshot.ioBufferDuration) * rate).rounded()))
                                                   : 1024
        return (rate, period)
    }

    // MARK: Properties

    public func format(scope: Scope, element: UInt32) throws(UnitError) -> PCMLayout {
        guard element < kind.elementCount else { throw .invalidElement }
        let plan = config.withLock { $0.plan }
        switch (scope, element, kind.hasDevice) {
        case (.input, 0, _): return plan.programOut
        case (.output, 0, false): return plan.pulled
        case (.output, 1, true): return plan.programIn
        case (.output, 0, true), (.input, 1, true):
            // The device side: the session's hardware format.
            return PCMLayout(sampleRate: hardware.rate, encoding: .float32, channels: element == 0 ? 2 : 1,
                             interleaved: false)
        default: throw .invalidScope
        }
    }

    /// Sets a side's format. The device side follows the session: a format set there is
    /// accepted and the hardware's is read back (as the phone does).
    public func setFormat(_ layout: PCMLayout, scope: Scope, element: UInt32) throws(UnitError) {
        guard element < kind.elementCount else { throw .invalidElement }
        // A new format while initialized, as programs that shipped on the phone set it
        // (after AudioUnitInitialize): GenericOutput remakes its buffers; a running I/O
        // unit's stream is made again with the new conversion.
        let remade = try config.withLock { c throws(UnitError) -> Bool in
            var plan = c.plan
            switch (scope, element, kind.hasDevice) {
            case (.input, 0, _): plan.programOut = layout
            case (.output, 0, false): plan.pulled = layout
            case (.output, 1, true): plan.programIn = layout
            case (.output, 0, true), (.input, 1, true): return false
            default: throw .invalidScope
            }
            if c.initialized && !kind.hasDevice {
                let old = c.plan
                c.plan = plan
                guard makeBuffers(&c) else {
                    c.plan = old
                    _ = makeBuffers(&c)
                    throw .formatNotSupported
                }
                return false
            }
            c.plan = plan
            return c.initialized && c.running
        }
        if remade {
            streamGeneration.add(1, ordering: .releasing)
            config.withLock { $0.run }?.wake()
        }
    }

    /// A pulled unit's buffers for both sides, sized for the largest slice, and its
    /// resampler when the sides' rates differ. False if no resampler could be made.
    private func makeBuffers(_ c: inout Config) -> Bool {
        c.scratch = Scratch(count: c.plan.programOut.bufferCount,
                            bytes: Int(c.plan.maximumFrames) * c.plan.programOut.bytesPerFrame)
        c.lent = Scratch(count: c.plan.pulled.bufferCount, bytes: Int(c.plan.maximumFrames) * c.plan.pulled.bytesPerFrame)
        c.resampler = nil
        // Varispeed always resamples: its ratio follows the playback rate.
        guard c.plan.programOut.sampleRate != c.plan.pulled.sampleRate || kind == .varispeed else { return true }
        c.resampler = PulledResampler(program: c.plan.programOut, output: c.plan.pulled, maximumFrames: Int(c.plan.maximumFrames),
                                      quality: Resampler.Quality(complexity: c.converterComplexity) ?? .medium)
        return c.resampler != nil
    }

    /// kAudioUnitProperty_SampleRateConverterComplexity: format converters only (AUConverter,
    /// Varispeed), set while uninitialized; Initialize makes the resampler it names.
    public var converterComplexity: UInt32 {
        get throws(UnitError) {
            guard kind == .converter || kind == .varispeed else { throw .invalidProperty }
            return config.withLock { $0.converterComplexity }
        }
    }

    public func setConverterComplexity(_ complexity: UInt32) throws(UnitError) {
        guard kind == .converter || kind == .varispeed else { throw .invalidProperty }
        guard Resampler.Quality(complexity: complexity) != nil else { throw .invalidPropertyValue }
        try config.withLock { c throws(UnitError) in
            guard !c.initialized else { throw .initialized }
            c.converterComplexity = complexity
        }
    }

    public var renderQuality: UInt32 { config.withLock { $0.renderQuality } }
    public func setRenderQuality(_ quality: UInt32) throws(UnitError) {
        guard quality <= 0x7F else { throw .invalidPropertyValue }
        config.withLock { $0.renderQuality = quality }
    }

    public var maximumFramesPerSlice: UInt32 { config.withLock { $0.plan.maximumFrames } }

    public func setMaximumFramesPerSlice(_ frames: UInt32) throws(UnitError) {
        guard frames >= 1, frames <= 65536 else { throw .invalidPropertyValue }
        try config.withLock { c throws(UnitError) in
            guard !c.initialized else { throw .initialized }
            c.plan.maximumFrames = frames
        }
    }

    /// Sets (or, with nil, removes) the render callback of element 0's input.
    public func setRenderCallback(_ callback: RenderCallback?) {
        config.withLock { $0.plan.render = callback }
    }

    /// Sets (or removes) the input callback: told when element 1 has frames to render.
    public func setInputCallback(_ callback: RenderCallback?) throws(UnitError) {
        guard kind.hasDevice else { throw .invalidProperty }
        config.withLock { $0.plan.input = callback }
    }

    /// EnableIO: element 0 (output scope) plays, element 1 (input scope) records.
    public func isEnabled(scope: Scope, element: UInt32) throws(UnitError) -> Bool {
        guard kind.hasDevice else { throw .invalidProperty }
        let plan = config.withLock { $0.plan }
        switch (scope, element) {
        case (.output, 0): return plan.outputEnabled
        case (.input, 1): return plan.inputEnabled
        case (.global, _): throw .invalidScope
        default: throw .invalidElement
        }
    }

    public func setEnabled(_ enabled: Bool, scope: Scope, element: UInt32) throws(UnitError) {
        _ = try isEnabled(scope: scope, element: element)
        try config.withLock { c throws(UnitError) in
            guard !c.initialized else { throw .initialized }
            if element == 0 { c.plan.outputEnabled = enabled } else { c.plan.inputEnabled = enabled }
        }
    }

    /// The VoiceProcessingIO switches (kAUVoiceIOProperty_*).
    public enum VoiceSwitch: Sendable { case bypass, automaticGain, muteOutput }

    public func voiceSwitch(_ which: VoiceSwitch) throws(UnitError) -> Bool {
        guard kind == .voiceProcessingIO else { throw .invalidProperty }
        let plan = config.withLock { $0.plan }
        switch which {
        case .bypass: return plan.bypassVoiceProcessing
        case .automaticGain: return plan.automaticGain
        case .muteOutput: return plan.muteOutput
        }
    }

    public func setVoiceSwitch(_ which: VoiceSwitch, _ on: Bool) throws(UnitError) {
        guard kind == .voiceProcessingIO else { throw .invalidProperty }
        config.withLock { c in
            switch which {
            case .bypass: c.plan.bypassVoiceProcessing = on
            case .automaticGain: c.plan.automaticGain = on
            case .muteOutput: c.plan.muteOutput = on
            }
        }
    }

    public func shouldAllocateBuffer(scope: Scope) throws(UnitError) -> Bool {
        guard scope != .global else { throw .invalidScope }
        return config.withLock { $0.shouldAllocate[scope == .input ? 0 : 1] }
    }

    public func setShouldAllocateBuffer(_ allocate: Bool, scope: Scope) throws(UnitError) {
        guard scope != .global else { throw .invalidScope }
        try config.withLock { c throws(UnitError) in
            guard !c.initialized else { throw .initialized }
            c.shouldAllocate[scope == .input ? 0 : 1] = allocate
        }
    }

    public var isRunning: Bool { config.withLock { $0.running } }
    /// The session's latest word to this unit.
    public var sessionSnapshot: AudioServiceSnapshot { fed.withLock { $0 } }
    public var lastRenderError: Int32 { config.withLock { $0.lastRenderError } }
    public var isInitialized: Bool { config.withLock { $0.initialized } }

    /// Seconds between a frame's render and its sound at the device (the stream's
    /// queued buffer); 0 before a stream ran, and for GenericOutput.
    public var latency: Double {
        config.withLock { c in c.grant.map { Double($0.bufferFrames) / $0.sampleRate } ?? 0 }
    }

    public var volume: Float { config.withLock { $0.plan.volume } }
    public func setVolume(_ volume: Float) throws(UnitError) {
        guard volume.isFinite, volume >= 0, volume <= 1 else { throw .invalidParameter }
        config.withLock { $0.plan.volume = volume }
    }

    public func addRenderNotify(_ callback: RenderCallback) throws(UnitError) {
        try config.withLock { c throws(UnitError) in try c.plan.notifies.add(callback) }
    }

    public func removeRenderNotify(_ callback: RenderCallback) {
        config.withLock { $0.plan.notifies.remove(callback) }
    }

    // MARK: Life

    /// GenericOutput: both sides at one rate, and the program side's buffers made. The
    /// I/O units convert rates and make their buffers when their stream opens.
    public func initialize() throws(UnitError) {
        try config.withLock { c throws(UnitError) in
            guard !c.initialized else { return }
            if !kind.hasDevice {
                guard makeBuffers(&c) else { throw .formatNotSupported }
            }
            c.initialized = true
        }
        // A pulled unit's first pull then needs no lock either.
        if !kind.hasDevice, pullingCopy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
            pulledCopy = config.withLock { c in
                PulledCopy(plan: c.plan, scratch: c.scratch, lent: c.lent, resampler: c.resampler, initialized: c.initialized)
            }
            pullingCopy.store(false, ordering: .releasing)
        }
    }

    /// Stops the unit (waiting for its thread) and forgets its buffers. Returns whether
    /// it was running.
    @discardableResult
    public func uninitialize() -> Bool {
        let wasRunning = stop()
        config.withLock { c in
            c.initialized = false
            c.scratch = nil
            c.lent = nil
            c.resampler = nil
        }
        return wasRunning
    }

    /// Starts the unit; returns whether it was stopped before. An I/O unit opens its
    /// device here, so a device that will not open fails the start.
    public func start() throws(UnitError) -> Bool {
        // A thread the session stopped is let finish first: its device is then free.
        awaitQuiet()
        while true {
            let current = try config.withLock { c throws(UnitError) -> IORun? in
                guard c.initialized else { throw .uninitialized }
                return c.run
            }
            guard let current else { break }
            guard current.stop.load(ordering: .acquiring) else { return false }
            // Started again from its own callback after a stop there: the thread goes on.
            if current.isCurrentThread {
                current.stop.store(false, ordering: .releasing)
                config.withLock { $0.running = true }
                return true
            }
            // Stopped and still finishing: let it close its device first.
            _ = current.finished.wait(timeout: .now() + .seconds(5))
            config.withLock { c in if c.run === current { c.run = nil } }
        }
        guard kind.hasDevice else {
            config.withLock { $0.running = true }
            return true
        }
        return try startStream()
    }

    /// Stops the unit; returns whether it was running. Waits until its thread has made
    /// its last callback, except when called from that callback.
    @discardableResult
    public func stop() -> Bool {
        let (wasRunning, run) = config.withLock { c -> (Bool, IORun?) in
            defer {
                c.running = false
                if c.run?.isCurrentThread != true { c.run = nil }
            }
            return (c.running, c.run)
        }
        if let run {
            run.requestStop()
            if !run.isCurrentThread { _ = run.finished.wait(timeout: .now() + .seconds(5)) }
        }
        awaitQuiet()
        return wasRunning
    }

    /// In the child of a fork: the unit's thread does not exist there and may have held
    /// its locks. The configuration stays (the child may start the unit itself, on a
    /// stream of its own); what was running is the parent's. Call only from a fork handler.
    public func resetAfterFork() {
        config.reinitializeAfterFork()
        fed.reinitializeAfterFork()
        config.withLock { c in
            c.running = false
            c.run = nil
            c.retiring = nil
        }
    }

    /// A pulled unit's resampler forgets what it holds (AudioUnitReset); the I/O units'
    /// converters start again at their next stream.
    public func reset() {
        config.withLock { $0.resampler }?.reset()
    }
}

/// One start of an I/O unit: its thread, told to stop through `stop`.
final class IORun: @unchecked Sendable {
    let stop = Atomic<Bool>(false)
    /// Set when the session stopped the unit: the thread tells IsRunning listeners.
    let tellOnExit = Atomic<Bool>(false)
    let finished = DispatchSemaphore(value: 0)
    let threadID = Atomic<Int>(0)
    /// Wakes the unit's thread where it waits on something other than the device's
    /// clock (a pulled stream's server loop), so a stop or a move is seen at once.
    let waker = Locked<(() -> Void)?>(nil)

    func requestStop() {
        stop.store(true, ordering: .releasing)
        wake()
    }

    func wake() { waker.withLock { $0 }?() }

    var isCurrentThread: Bool { threadID.load(ordering: .acquiring) == Int(bitPattern: UInt(pthread_self())) }
}

/// Buffers for GenericOutput's program side and the AudioBufferList that describes them
/// (UInt32 count, padding, then 16-byte AudioBuffers: LP64), freed with the last reference.
final class Scratch {
    let buffers: [UnsafeMutableRawPointer]
    let list: UnsafeMutableRawPointer
    /// The buffers again as plain memory, for the render path (see `present`).
    private let pointers: UnsafeMutablePointer<UnsafeMutableRawPointer>
    private let count: Int

    init(count: Int, bytes: Int) {
        buffers = (0..<count).map { _ in UnsafeMutableRawPointer.allocate(byteCount: max(16, bytes), alignment: 16) }
        list = UnsafeMutableRawPointer.allocate(byteCount: 8 + 16 * count, alignment: 8)
        list.storeBytes(of: UInt32(count), as: UInt32.self)
        self.count = count
        pointers = .allocate(capacity: max(1, count))
        pointers.initialize(from: buffers, count: count)
    }

    deinit {
        for buffer in buffers { buffer.deallocate() }
        list.deallocate()
        pointers.deallocate()
    }

    /// Points the list's entries at this scratch's buffers, `bytes` long and
    /// `channelsPerBuffer` wide each: what a pull hands its source to fill. Plain loops
    /// over plain memory: a program's debug build compiles this code unoptimized, where an
    /// iterator over the array allocates on the render thread.
    func present(bytes: UInt32, channelsPerBuffer: UInt32) {
        for i in 0..<count {
            let entry = list + 8 + 16 * i
            entry.storeBytes(of: channelsPerBuffer, as: UInt32.self)
            entry.storeBytes(of: bytes, toByteOffset: 4, as: UInt32.self)
            entry.storeBytes(of: pointers[i], toByteOffset: 8, as: UnsafeMutableRawPointer.self)
        }
    }
}
