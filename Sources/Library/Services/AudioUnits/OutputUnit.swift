import Locking

/// The audio unit result codes (AUComponent.h) this layer answers with.
public enum UnitError: Int32, Error, Sendable {
    case invalidProperty = -10879
    case invalidParameter = -10878
    case invalidElement = -10877
    case tooManyFramesToProcess = -10874
    case formatNotSupported = -10868
    case uninitialized = -10867
    case invalidScope = -10866
    case propertyNotWritable = -10865
    case cannotDoInCurrentContext = -10863
    case invalidPropertyValue = -10851
    case initialized = -10849
    /// kAudio_ParamError: a NULL or unknown argument.
    case parameter = -50
    /// kAudio_UnimplementedError: a call this unit has no meaning for.
    case unimplemented = -4
}

/// The components this library provides. Only GenericOutput so far: an output unit with
/// no device, pulled by AudioUnitRender (offline rendering, tests, processing).
public enum UnitKind: CaseIterable, Sendable {
    case genericOutput

    public var type: UInt32 { 0x6175_6F75 }               // 'auou'
    public var subtype: UInt32 { 0x6765_6E72 }            // 'genr'
    public var manufacturer: UInt32 { 0x6170_706C }       // 'appl'
    public var name: String { "Apple: AUGenericOutput" }
    /// 0xMMMMmmDD: 1.0.0.
    public var version: UInt32 { 0x0001_0000 }
}

/// Scopes and the properties and parameter the units answer (AudioUnitProperties.h).
public enum Scope: UInt32, Sendable { case global = 0, input = 1, output = 2 }

/// One unit instance. Its configuration changes only from the program's calls; rendering
/// reads a copy taken under the lock and runs the program's callbacks with no lock held.
public final class OutputUnit: @unchecked Sendable {
    public let kind: UnitKind

    /// A render source: the program's render callback, called through the ABI layer (which
    /// knows its C type). Arguments: action flags, time stamp, bus, frames, buffer list.
    public typealias RenderProc = (UnsafeMutablePointer<UInt32>, UnsafeRawPointer, UInt32, UInt32,
                                   UnsafeMutableRawPointer) -> Int32

    struct Config {
        var initialized = false
        var running = false
        var maximumFrames: UInt32 = 4096
        /// Element 0: what the program gives (input scope) and what comes out (output scope).
        var programSide = PCMLayout(sampleRate: 44100, encoding: .float32, channels: 2, interleaved: false)
        var outputSide = PCMLayout(sampleRate: 44100, encoding: .float32, channels: 2, interleaved: false)
        var render: RenderProc?
        /// The program side's buffers, made at Initialize; a render holds its own
        /// reference, so buffers remade meanwhile by another thread stay valid under it.
        var scratch: Scratch?
        var notifies: [(key: UInt, call: RenderProc)] = []
        var volume: Float = 1
        var shouldAllocate = [true, true]
        var lastRenderError: Int32 = 0
    }
    private let config = Locked(Config())

    /// Buffers for the program's side and the AudioBufferList that describes them
    /// (UInt32 count, padding, then 16-byte AudioBuffers: LP64), freed with the last
    /// reference.
    final class Scratch {
        let buffers: [UnsafeMutableRawPointer]
        let list: UnsafeMutableRawPointer

        init(count: Int, bytes: Int) {
            buffers = (0..<count).map { _ in UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 16) }
            list = UnsafeMutableRawPointer.allocate(byteCount: 8 + 16 * count, alignment: 8)
            list.storeBytes(of: UInt32(count), as: UInt32.self)
        }

        deinit {
            for buffer in buffers { buffer.deallocate() }
            list.deallocate()
        }
    }

    public init(kind: UnitKind) { self.kind = kind }

    // MARK: Properties

    public func format(scope: Scope, element: UInt32) throws(UnitError) -> PCMLayout {
        guard element == 0 else { throw .invalidElement }
        switch scope {
        case .input: return config.withLock { $0.programSide }
        case .output: return config.withLock { $0.outputSide }
        case .global: throw .invalidScope
        }
    }

    public func setFormat(_ layout: PCMLayout, scope: Scope, element: UInt32) throws(UnitError) {
        guard element == 0 else { throw .invalidElement }
        try config.withLock { c throws(UnitError) in
            guard !c.initialized else { throw .initialized }
            switch scope {
            case .input: c.programSide = layout
            case .output: c.outputSide = layout
            case .global: throw .invalidScope
            }
        }
    }

    public var maximumFramesPerSlice: UInt32 { config.withLock { $0.maximumFrames } }

    public func setMaximumFramesPerSlice(_ frames: UInt32) throws(UnitError) {
        guard frames >= 1, frames <= 65536 else { throw .invalidPropertyValue }
        try config.withLock { c throws(UnitError) in
            guard !c.initialized else { throw .initialized }
            c.maximumFrames = frames
        }
    }

    /// Sets (or, with nil, removes) the render callback of element 0's input.
    public func setRenderCallback(_ proc: RenderProc?) {
        config.withLock { $0.render = proc }
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
    public var lastRenderError: Int32 { config.withLock { $0.lastRenderError } }
    public var isInitialized: Bool { config.withLock { $0.initialized } }

    public var volume: Float { config.withLock { $0.volume } }
    public func setVolume(_ volume: Float) throws(UnitError) {
        guard volume.isFinite, volume >= 0, volume <= 1 else { throw .invalidParameter }
        config.withLock { $0.volume = volume }
    }

    public func addRenderNotify(key: UInt, _ call: @escaping RenderProc) {
        config.withLock { c in
            c.notifies.removeAll { $0.key == key }
            c.notifies.append((key, call))
        }
    }

    public func removeRenderNotify(key: UInt) {
        config.withLock { c in c.notifies.removeAll { $0.key == key } }
    }

    // MARK: Life

    /// Checks the two sides agree (one rate: converting rates comes with the device units)
    /// and makes the program side's buffers.
    public func initialize() throws(UnitError) {
        try config.withLock { c throws(UnitError) in
            guard !c.initialized else { return }
            guard c.programSide.sampleRate == c.outputSide.sampleRate else { throw .formatNotSupported }
            c.scratch = Scratch(count: c.programSide.bufferCount,
                                bytes: Int(c.maximumFrames) * c.programSide.bytesPerFrame)
            c.initialized = true
        }
    }

    public func uninitialize() {
        config.withLock { c in
            c.initialized = false
            c.running = false
            c.scratch = nil
        }
    }

    /// Returns whether the running state changed (IsRunning listeners are then told).
    public func setRunning(_ running: Bool) throws(UnitError) -> Bool {
        try config.withLock { c throws(UnitError) -> Bool in
            guard c.initialized else { throw .uninitialized }
            defer { c.running = running }
            return c.running != running
        }
    }

    /// GenericOutput keeps nothing between renders (no delay line, no resampler state):
    /// there is nothing to clear.
    public func reset() {}

    // MARK: Rendering

    /// Pulls `frames` frames into `output` (laid out as the output side says, `buffers`
    /// pointers to its buffers): render notifies before, the render callback in the
    /// program's layout, conversion, volume, notifies after. Time stamps count frames.
    public func render(flags: UnsafeMutablePointer<UInt32>, timeStamp: UnsafeRawPointer, bus: UInt32, frames: UInt32,
                       outputList: UnsafeMutableRawPointer, buffers: UnsafeMutablePointer<UnsafeMutableRawPointer?>,
                       bufferBytes: [Int]) throws(UnitError) {
        let c = config.withLock { $0 }
        guard c.initialized, let scratch = c.scratch else { throw .uninitialized }
        let list = scratch.list
        guard bus == 0 else { throw .invalidElement }
        guard frames <= c.maximumFrames else { throw .tooManyFramesToProcess }
        guard bufferBytes.count == c.outputSide.bufferCount,
              bufferBytes.allSatisfy({ $0 >= Int(frames) * c.outputSide.bytesPerFrame }) else { throw .parameter }
        guard let render = c.render else {
            config.withLock { $0.lastRenderError = UnitError.invalidProperty.rawValue }
            throw .invalidProperty
        }
        // The program's buffers, re-described for this slice.
        let bytes = UInt32(Int(frames) * c.programSide.bytesPerFrame)
        for (index, buffer) in scratch.buffers.enumerated() {
            let entry = list + 8 + 16 * index
            entry.storeBytes(of: UInt32(c.programSide.channelsPerBuffer), as: UInt32.self)
            entry.storeBytes(of: bytes, toByteOffset: 4, as: UInt32.self)
            entry.storeBytes(of: buffer, toByteOffset: 8, as: UnsafeMutableRawPointer.self)
        }
        for notify in c.notifies {
            var pre = flags.pointee | (1 << 2)
            _ = notify.call(&pre, timeStamp, bus, frames, outputList)
        }
        var renderFlags: UInt32 = 0
        let status = render(&renderFlags, timeStamp, 0, frames, list)
        if status != 0 {
            config.withLock { $0.lastRenderError = status }
            throw UnitError(rawValue: status) ?? .cannotDoInCurrentContext
        }
        // The callback may have pointed a buffer elsewhere: read where it says.
        var sources = [UnsafeMutableRawPointer?](repeating: nil, count: scratch.buffers.count)
        for index in sources.indices {
            sources[index] = (list + 8 + 16 * index).load(fromByteOffset: 8, as: UnsafeMutableRawPointer?.self)
        }
        sources.withUnsafeMutableBufferPointer { source in
            convertPCM(from: c.programSide, source.baseAddress!, to: c.outputSide, buffers, frames: Int(frames),
                       gain: c.volume)
        }
        for notify in c.notifies {
            var post = flags.pointee | (1 << 3)
            _ = notify.call(&post, timeStamp, bus, frames, outputList)
        }
    }
}
