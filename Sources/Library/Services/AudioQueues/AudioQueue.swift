import AudioFiles
import AudioSessionCore
import AudioStreams
import AudioUnits
import Glibc
import Locking
import Synchronization

/// One audio queue (Audio Queue Services): the program's buffers played or recorded in
/// order on an I/O unit's stream, so that the session governs a queue exactly as it
/// governs a unit (its interruptions, ducking, silent switch, device and rate).
///
/// Output: each enqueued buffer is turned into Float frames at once, on the caller's
/// thread (linear PCM converted, compressed packets decoded by AudioFiles' converter),
/// and handed to the real-time thread through a lock-free ring. The real-time thread
/// plays them and hands each finished one back through a second ring; the queue's own
/// thread frees it and reports the buffer. Input: the real-time thread writes what the
/// microphone gave into a sample ring; the queue's thread fills the program's buffers
/// (linear PCM, or AAC through the converter's encoder) and reports each when full.
public final class AudioQueue: @unchecked Sendable {
    public enum Direction: Sendable { case output, input }

    public let direction: Direction
    public let format: StreamDescription
    let channels: Int
    let rate: Double
    /// The queue's format when it is linear PCM.
    let pcm: LinearPCM?
    /// The I/O unit the queue streams through: the service the session feeds.
    public let unit: OutputUnit
    /// Called on the queue's thread with each event, in order. Set once by the ABI layer
    /// before the queue is used.
    public var deliver: ((QueueEvent) -> Void)?
    /// Calls the program for one event on the caller's thread, whatever run loop the
    /// queue was given: the header has Stop(true), Reset, Dispose(true) and offline
    /// rendering call back *during* the call. Set once by the ABI layer.
    public var deliverNow: ((QueueEvent) -> Void)?

    /// Buffers a queue may have at once (each enqueued buffer is one chunk in flight).
    static let maximumBuffers = 1024

    struct State {
        var buffers: Set<UInt> = []
        var enqueued: Set<UInt> = []
        /// Start was called and no stop (the program's or the session's) since.
        var started = false
        var paused = false
        /// Stop(false): the queue ends once what is enqueued has played. Also before
        /// Start (a short file wholly primed): the Start then plays it all and stops.
        var stopping = false
        /// Stop(true), Reset or Dispose(true) is handing the pending buffers back: an
        /// enqueue from those callbacks is refused (kAudioQueueErr_EnqueueDuringReset).
        var handingBack = false
        var disposing = false
        var disposed = false
        /// AudioQueueSetOfflineRenderFormat: rendered by AudioQueueOfflineRender, no device.
        var offline: LinearPCM?
        var offlineDescription: StreamDescription?
        /// The sample time at which everything enqueued ends.
        var scheduledEnd = 0.0
        var cookie: [UInt8] = []
        var metering = false
        var volumeRampTime: Float = 0
        var parameters = QueueParameters()
        var events: [QueueEvent] = []
        /// Input: the program's buffers waiting to be filled, oldest first.
        var recordQueue: [QueueBuffer] = []
    }
    let state = Locked(State())
    let thread = QueueThread()

    // Playback: the rings, what the real-time thread alone touches, what it publishes.
    let playRing: SPSCRing<PlayChunk>
    let doneRing: SPSCRing<PlayChunk>
    var current: PlayChunk?
    var position = 0
    var leadIn = 0
    var gainNow: Float = 1
    /// Frames played (or recorded) since the start: the queue's sample time.
    let playedFrames = Atomic<Int>(0)
    /// Frames of silence before the first buffer (a start at a later time).
    let startDelay = Atomic<Int>(0)
    let drainRequested = Atomic<Bool>(false)
    let drained = Atomic<Bool>(false)
    let discontinuity = Atomic<Bool>(false)
    /// The program's parameters as Float bits, read by the real-time thread.
    let volumeBits = Atomic<UInt32>(Float(1).bitPattern)
    let panBits = Atomic<UInt32>(Float(0).bitPattern)
    let rampFrames = Atomic<Int>(0)
    let meteringOn = Atomic<Bool>(false)
    /// Per channel: average (RMS) and peak of the last period, linear.
    let meterAverage: UnsafeMutablePointer<Float>
    let meterPeak: UnsafeMutablePointer<Float>

    /// Compressed playback: the decoder; recording AAC: the encoder. Used by one thread
    /// at a time, under this lock.
    let codec: Locked<Converter?>

    // Recording.
    var samples: SampleRing?
    let captureList: UnsafeMutableRawPointer
    let captureFloats: UnsafeMutablePointer<Float>
    let captureCapacity: Int
    var recordScratch: [Float] = []
    /// On the queue's thread: the buffer being filled and how far.
    var filling: (buffer: QueueBuffer, frames: Int, bytes: Int, packets: Int, start: Double)?
    var recordedFrames = 0.0
    /// Recording a packetized format: the frames of the packets handed to the program.
    var encodedFrames = 0.0

    /// Time/pitch: the stage (made at a Start with EnableTimePitch set), and as the
    /// real-time thread sees it.
    var stage: TimePitchStage?
    let stageForRealTime = RealTimeReference<TimePitchStage>()
    var activeStage: TimePitchStage? { stageForRealTime.current }

    /// At a Start: the stage made or dropped as EnableTimePitch says, and filled.
    private func prepareTimePitch() {
        let enabled = state.withLock { $0.parameters.timePitchEnabled != 0 } && direction == .output
        if enabled && stage == nil {
            stage = TimePitchStage(rate: rate, channels: channels)
            stageForRealTime.publish(stage)
        } else if !enabled && stage != nil {
            stageForRealTime.publish(nil)
            if let chunk = stage?.clear() { doneRing.push(chunk) }
            stage = nil
        }
        stage?.fill(from: self)
    }

    /// The processing tap, if any, and as the real-time thread sees it.
    var tap: ProcessingTap?
    let tapForRealTime = RealTimeReference<ProcessingTap>()
    var activeTap: ProcessingTap? { tapForRealTime.current }

    /// AudioQueueProcessingTapNew: one tap a queue, put on while it is not running
    /// (offline queues render on the caller's thread: any time).
    public func addTap(handle: UInt, callback: @escaping ProcessingTap.Callback, clientData: UnsafeMutableRawPointer?,
                       flags: UInt32) throws(QueueError) -> ProcessingTap {
        let kind = flags & (ProcessingTap.preEffects | ProcessingTap.postEffects)
        guard kind == ProcessingTap.preEffects || kind == ProcessingTap.postEffects,
              flags & ~(ProcessingTap.preEffects | ProcessingTap.postEffects | ProcessingTap.siphon) == 0 else {
            throw .invalidParameter
        }
        return try state.withLock { s throws(QueueError) -> ProcessingTap in
            guard !s.disposing else { throw .disposalPending }
            guard tap == nil else { throw .tooManyTaps }
            guard s.offline != nil || !(s.started && unit.isRunning) else { throw .invalidRunState }
            let made = ProcessingTap(queue: self, handle: handle, callback: callback, clientData: clientData, flags: flags)
            tap = made
            tapForRealTime.publish(made)
            return made
        }
    }

    /// AudioQueueProcessingTapDispose: while the queue is not running.
    public func removeTap(_ which: ProcessingTap) throws(QueueError) {
        try state.withLock { s throws(QueueError) in
            guard tap === which else { throw .invalidTapContext }
            guard s.offline != nil || s.disposed || !(s.started && unit.isRunning) else { throw .invalidRunState }
            tapForRealTime.publish(nil)
            tap = nil
        }
    }
    let recordedFramesAtomic = Atomic<Int>(0)

    /// A new queue in `format`; nil with the code when no queue takes it.
    public init(direction: Direction, format: StreamDescription, fedWith snapshot: AudioServiceSnapshot) throws(QueueError) {
        self.direction = direction
        self.format = format
        guard format.sampleRate.isFinite, format.sampleRate >= 8000, format.sampleRate <= 192_000,
              format.channelsPerFrame >= 1, format.channelsPerFrame <= 8 else { throw .unsupportedDataFormat }
        rate = format.sampleRate
        channels = Int(format.channelsPerFrame)
        let floatFormat = StreamDescription.linearPCM(rate: format.sampleRate, channels: format.channelsPerFrame,
                                                      bits: 32, float: true)
        if format.isLinearPCM {
            guard let layout = try? LinearPCM(format), layout.interleaved || layout.channels == 1 else {
                throw .unsupportedDataFormat
            }
            pcm = layout
            codec = Locked(nil)
        } else {
            pcm = nil
            let made: Converter
            do {
                made = direction == .output ? try Converter(from: format, to: floatFormat)
                                            : try Converter(from: floatFormat, to: format)
            } catch {
                throw .unsupportedDataFormat
            }
            codec = Locked(made)
        }
        unit = OutputUnit(kind: .remoteIO, fedWith: snapshot)
        playRing = SPSCRing(frames: Self.maximumBuffers, filler: PlayChunk())
        doneRing = SPSCRing(frames: Self.maximumBuffers, filler: PlayChunk())
        meterAverage = .allocate(capacity: 8)
        meterAverage.initialize(repeating: 0, count: 8)
        meterPeak = .allocate(capacity: 8)
        meterPeak.initialize(repeating: 0, count: 8)
        captureCapacity = 4096
        captureFloats = .allocate(capacity: captureCapacity * channels)
        captureFloats.initialize(repeating: 0, count: captureCapacity * channels)
        captureList = .allocate(byteCount: 24, alignment: 16)
        captureList.initializeMemory(as: UInt8.self, repeating: 0, count: 24)
        try configureUnit()
        // The thread holds the queue until it ends (at disposal): a queue disposed of from its
        // own callback is still there when the callback returns.
        guard thread.start(turn: { [self] in turn() }) else { throw .cannotStart }
    }

    deinit {
        meterAverage.deallocate()
        meterPeak.deallocate()
        captureFloats.deallocate()
        captureList.deallocate()
    }

    private func configureUnit() throws(QueueError) {
        let layout = PCMLayout(sampleRate: rate, encoding: .float32, channels: channels, interleaved: true)
        let refCon = Unmanaged.passUnretained(self).toOpaque()
        do throws(UnitError) {
            switch direction {
            case .output:
                try unit.setFormat(layout, scope: .input, element: 0)
                unit.setRenderCallback(RenderCallback(procedure: { refCon, _, _, _, frames, list in
                    Unmanaged<AudioQueue>.fromOpaque(refCon!).takeUnretainedValue().render(frames: Int(frames), list: list!)
                    return 0
                }, refCon: refCon))
            case .input:
                samples = SampleRing(frames: max(Int(rate) * 4, 65536), channels: channels)
                try unit.setEnabled(false, scope: .output, element: 0)
                try unit.setEnabled(true, scope: .input, element: 1)
                try unit.setFormat(layout, scope: .output, element: 1)
                try unit.setInputCallback(RenderCallback(procedure: { refCon, _, _, _, frames, _ in
                    Unmanaged<AudioQueue>.fromOpaque(refCon!).takeUnretainedValue().captured(frames: Int(frames))
                    return 0
                }, refCon: refCon))
            }
            try unit.initialize()
        } catch {
            throw .unsupportedDataFormat
        }
        unit.onStoppedBySystem = { [unowned(unsafe) self] in stoppedBySystem() }
    }

    // MARK: Buffers

    /// A new buffer of `capacity` bytes with room for `descriptions` packet descriptions.
    public func allocateBuffer(capacity: Int, descriptions: Int) throws(QueueError) -> QueueBuffer {
        guard capacity > 0, capacity <= 1 << 28, descriptions >= 0, descriptions <= 1 << 20 else {
            throw .invalidParameter
        }
        // Recording a packetized format needs descriptions even where the program asked
        // for none: they are kept past the visible header and handed to the callback.
        let hidden = direction == .input && pcm == nil ? max(descriptions, capacity / 4 + 1) : 0
        return try state.withLock { s throws(QueueError) -> QueueBuffer in
            guard !s.disposing else { throw .disposalPending }
            guard s.buffers.count < Self.maximumBuffers else { throw .invalidParameter }
            let buffer = QueueBuffer.allocate(capacity: capacity, descriptions: descriptions, hidden: hidden)
            s.buffers.insert(buffer.key)
            return buffer
        }
    }

    public func owns(_ buffer: QueueBuffer) -> Bool { state.withLock { $0.buffers.contains(buffer.key) } }

    public func freeBuffer(_ buffer: QueueBuffer) throws(QueueError) {
        try state.withLock { s throws(QueueError) in
            guard s.buffers.contains(buffer.key) else { throw .invalidBuffer }
            guard !s.enqueued.contains(buffer.key) else { throw .bufferInQueue }
            s.buffers.remove(buffer.key)
        }
        buffer.free()
    }

    // MARK: Events

    /// Queues an event for the program and wakes the queue's thread.
    func post(_ event: QueueEvent, wake: Bool = true) {
        state.withLock { $0.events.append(event) }
        if wake { thread.wake() }
    }

    /// The queue's thread, after each wake-up: played buffers returned, a finished drain
    /// ended, recorded buffers filled, then every event reported in order.
    private func turn() {
        // Offline, the program's OfflineRender calls are the queue's clock: they hand
        // back what was played and report every event, on the program's thread.
        guard state.withLock({ $0.offline == nil }) else { return }
        activeStage?.fill(from: self)
        for buffer in takeReturned() { post(.output(buffer), wake: false) }
        if drained.load(ordering: .acquiring) { finishDrain() }
        if direction == .input { fillRecorded() }
        while let event = nextEvent() { deliver?(event) }
    }

    private func nextEvent() -> QueueEvent? {
        state.withLock { s -> QueueEvent? in s.events.isEmpty ? nil : s.events.removeFirst() }
    }

    /// The done ring has two consumers off the real-time thread (the queue's thread and
    /// a program's call handing buffers back now): one at a time.
    let returning = Locked(())

    /// Everything in the done ring, finished with; the buffers to report, in order. No
    /// lock is held once it returns: the program's callbacks may call the queue again.
    private func takeReturned() -> [QueueBuffer] {
        returning.withLock { _ in
            var buffers: [QueueBuffer] = []
            while let chunk = doneRing.pop() { if let buffer = returned(chunk) { buffers.append(buffer) } }
            return buffers
        }
    }

    /// A played or flushed chunk is finished with: its samples freed, its buffer no longer
    /// enqueued. Returns the buffer to report, unless the queue is being disposed of
    /// (no callback after AudioQueueDispose returns).
    private func returned(_ chunk: PlayChunk) -> QueueBuffer? {
        chunk.samples?.deallocate()
        guard let pointer = chunk.buffer else { return nil }
        let buffer = QueueBuffer(pointer: pointer)
        let live = state.withLock { s -> Bool in
            s.enqueued.remove(buffer.key)
            return !s.disposing || s.handingBack
        }
        return live ? buffer : nil
    }

    /// Every buffer played and not yet reported, then the `flushed` ones, handed back
    /// through the output callback on the caller's thread, now; an enqueue from those
    /// callbacks is refused.
    func handBackNow(_ flushed: [PlayChunk]) {
        guard direction == .output else { return }
        state.withLock { $0.handingBack = true }
        let buffers = takeReturned() + flushed.compactMap { returned($0) }
        for buffer in buffers { deliverNow?(.output(buffer)) }
        state.withLock { $0.handingBack = false }
    }

    /// Offline: every event waiting (buffers played, IsRunning) reported on the caller's
    /// thread, inside AudioQueueOfflineRender.
    func reportNow() {
        for buffer in takeReturned() { post(.output(buffer), wake: false) }
        while let event = nextEvent() { deliverNow?(event) }
    }

    // MARK: Running

    /// Whether the queue runs now (kAudioQueueProperty_IsRunning): started, and neither
    /// stopped nor stopped by the session (whose stop is seen at once, before Begin).
    public var isRunning: Bool {
        let (started, paused, offline) = state.withLock { ($0.started, $0.paused, $0.offline != nil) }
        return started && (paused || offline || unit.isRunning)
    }

    /// Whether the session lets this queue record now (a recording category).
    public var mayRecord: Bool { unit.sessionSnapshot.recording }

    /// AudioQueueStart; `startTime` is a sample time on the queue's timeline at which to
    /// begin (silence until then). Returns whether IsRunning changed.
    @discardableResult
    public func start(atSampleTime startTime: Double? = nil) throws(QueueError) -> Bool {
        // Started before but stopped by the session since (its word may still be on the
        // way from the I/O thread): not running.
        let (disposing, offline, wasRunning) = state.withLock {
            ($0.disposing, $0.offline != nil, $0.started && ($0.paused || $0.offline != nil || unit.isRunning))
        }
        guard !disposing else { throw .disposalPending }
        if direction == .input && !offline && !mayRecord { throw .incompatibleCategory }
        if let startTime, startTime.isFinite {
            let ahead = Int(startTime.rounded()) - playedFrames.load(ordering: .acquiring)
            if ahead > 0 { startDelay.store(ahead, ordering: .releasing) }
        }
        if !wasRunning { prepareTimePitch() }
        if !offline {
            do throws(UnitError) {
                _ = try unit.start()
            } catch {
                throw error == .cannotStartPlaying ? .cannotStartPlaying : .cannotStart
            }
        }
        // A Stop(false) made before this Start (or while the session had stopped the
        // queue) still holds: the queue plays what is enqueued, then stops.
        let stopping = state.withLock { s -> Bool in
            s.started = true
            s.paused = false
            return s.stopping
        }
        drainRequested.store(stopping, ordering: .releasing)
        drained.store(false, ordering: .releasing)
        if !wasRunning { post(.property(QueueProperty.isRunning)) }
        return !wasRunning
    }

    /// AudioQueuePause: the stream stops, what is enqueued stays, Start goes on.
    public func pause() throws(QueueError) {
        let running = try state.withLock { s throws(QueueError) -> Bool in
            guard !s.disposing else { throw .disposalPending }
            return s.started && !s.paused
        }
        // Not running, or already stopped by the session (a Begin handler pausing): then
        // the queue is stopped, not paused, and IsRunning reads 0.
        guard running, unit.isRunning else { return }
        unit.stop()
        state.withLock { $0.paused = true }
    }

    /// AudioQueueStop. At once: the stream stops and every enqueued buffer comes back (an
    /// input queue's partly filled one with what it holds). Otherwise an output queue
    /// plays what is enqueued and then stops; an input queue stops after handing over
    /// what was recorded.
    ///
    /// Stop(false) on an output queue that has not started (or that the session stopped)
    /// is remembered: the next Start plays what is enqueued and then stops, as the
    /// classic file player relies on when a short file fits in its primed buffers.
    public func stop(immediately: Bool) throws(QueueError) {
        let (started, paused) = try state.withLock { s throws(QueueError) -> (Bool, Bool) in
            guard !s.disposed else { throw .disposalPending }
            return (s.started, s.paused)
        }
        if !immediately && direction == .output && !paused {
            state.withLock { $0.stopping = true }
            // Running: the real-time thread (or OfflineRender) ends it once all has
            // played. Not running: the Start to come does.
            if started { drainRequested.store(true, ordering: .releasing) }
            return
        }
        handBackNow(halt(tell: started))
    }

    /// Stops the stream and takes back every chunk (returned, for the caller to hand
    /// back); the timeline starts again at 0.
    @discardableResult
    func halt(tell: Bool) -> [PlayChunk] {
        unit.stop()
        if direction == .input { thread.wake() }
        state.withLock { s in
            s.started = false
            s.paused = false
            s.stopping = false
        }
        let flushed = flush(keepTime: false)
        if tell { post(.property(QueueProperty.isRunning)) }
        return flushed
    }

    /// With the stream stopped: every chunk waiting to be played goes back (the done
    /// ring's producer is the real-time thread, which is not running now), and the
    /// decoder forgets its state.
    ///
    /// Returns the output chunks taken back, for the caller to hand back itself: they never
    /// pass through the done ring, where the queue's thread would report them later.
    @discardableResult
    func flush(keepTime: Bool) -> [PlayChunk] {
        // Two threads stopping at once must not both act as the rings' other end.
        flushing.withLock { _ in flushLocked(keepTime: keepTime) }
    }
    let flushing = Locked(())

    private func flushLocked(keepTime: Bool) -> [PlayChunk] {
        var flushed: [PlayChunk] = []
        switch direction {
        case .output:
            if let chunk = current { flushed.append(chunk) }
            if let chunk = stage?.clear() { flushed.append(chunk) }
            current = nil
            position = 0
            leadIn = 0
            state.withLock { _ in while let chunk = playRing.pop() { flushed.append(chunk) } }
        case .input:
            // The queue's thread owns the buffer being filled: it hands it back.
            recordFlushRequested.store(true, ordering: .releasing)
        }
        codec.withLock { $0?.reset() }
        drainRequested.store(false, ordering: .releasing)
        drained.store(false, ordering: .releasing)
        startDelay.store(0, ordering: .releasing)
        if !keepTime {
            playedFrames.store(0, ordering: .releasing)
            state.withLock { $0.scheduledEnd = 0 }
        }
        if direction == .input { thread.wake() }
        return flushed
    }
    let recordFlushRequested = Atomic<Bool>(false)

    /// AudioQueueReset: every enqueued buffer back and the decoder's state forgotten; a
    /// running queue goes on running.
    public func reset() throws(QueueError) {
        let (running, offline) = try state.withLock { s throws(QueueError) -> (Bool, Bool) in
            guard !s.disposing else { throw .disposalPending }
            return (s.started && !s.paused, s.offline != nil)
        }
        let streaming = running && !offline && unit.isRunning
        if streaming { unit.stop() }
        handBackNow(flush(keepTime: true))
        if streaming { _ = try? unit.start() }
    }

    /// The stream ended after a Stop(false): once what was played has left the device.
    private func finishDrain() {
        drained.store(false, ordering: .releasing)
        let (stopping, offline) = state.withLock { ($0.stopping, $0.offline != nil) }
        guard stopping else { return }
        // What was played must leave the device before IsRunning reads 0 (offline there
        // is no device).
        let latency = offline ? 0 : min(0.5, unit.latency)
        if latency > 0 { usleep(UInt32(latency * 1_000_000)) }
        // Nothing is left to take back after a drain, unless a buffer came in its last
        // moment: that one is reported as played ones are.
        for chunk in halt(tell: true) { if let buffer = returned(chunk) { post(.output(buffer), wake: false) } }
        if state.withLock({ $0.disposing }) { finishDisposal() }
    }

    /// Offline: the drain OfflineRender's rendering finished, ended on its thread.
    func finishOfflineDrain() {
        if drained.load(ordering: .acquiring) { finishDrain() }
    }

    /// The session stopped the unit (an interruption, a device gone): the queue is not
    /// running; AudioQueueStart resumes it with what is still enqueued.
    private func stoppedBySystem() {
        let was = state.withLock { s -> Bool in
            // Started again already (the program's Start after End came first): running.
            guard s.started, !s.paused, !unit.isRunning else { return false }
            s.started = false
            return true
        }
        discontinuity.store(true, ordering: .releasing)
        if was { post(.property(QueueProperty.isRunning)) }
    }

    // MARK: Disposal

    /// AudioQueueDispose. At once: stopped, no callback after this returns (except the
    /// one running now, when called from it), buffers freed. Otherwise once what is
    /// enqueued has played.
    public func dispose(immediately: Bool) throws(QueueError) {
        let playing = try state.withLock { s throws(QueueError) -> Bool in
            guard !s.disposing else { throw .disposalPending }
            s.disposing = true
            return s.started && !s.paused && s.offline == nil
        }
        if !immediately && direction == .output && playing && unit.isRunning {
            // Played out, then disposed of; the buffers it plays are not reported (no
            // callback after Dispose returns).
            state.withLock { $0.stopping = true }
            drainRequested.store(true, ordering: .releasing)
            return
        }
        unit.stop()
        if immediately { handBackNow(flush(keepTime: false)) }
        finishDisposal()
    }

    /// Called once the queue will make no more callbacks: set by the ABI layer, which
    /// forgets the handle and the session's hold on the unit.
    public var onDisposed: (() -> Void)?

    private func finishDisposal() {
        state.withLock { $0.disposed = true }
        unit.uninitialize()
        // Its tap and time/pitch stage go with it (the stream is stopped: nothing runs them).
        tapForRealTime.publish(nil)
        stageForRealTime.publish(nil)
        if let chunk = stage?.clear() { chunk.samples?.deallocate() }
        thread.stop()
        // Everything still in flight, then every buffer, is freed.
        while let chunk = doneRing.pop() { chunk.samples?.deallocate() }
        if let chunk = current { chunk.samples?.deallocate() }
        current = nil
        while let chunk = playRing.pop() { chunk.samples?.deallocate() }
        let buffers = state.withLock { s -> Set<UInt> in
            defer { s.buffers = []; s.enqueued = []; s.recordQueue = []; s.events = [] }
            return s.buffers
        }
        for key in buffers { QueueBuffer(pointer: UnsafeMutableRawPointer(bitPattern: key)!).free() }
        onDisposed?()
    }

    /// In the child of a fork: the queue's threads are the parent's. The queue is left
    /// as it is, never to run; the child makes its own.
    public func resetAfterFork() {
        state.reinitializeAfterFork()
        codec.reinitializeAfterFork()
        unit.resetAfterFork()
        state.withLock { s in
            s.disposed = true
            s.disposing = true
        }
    }

    public var isDisposed: Bool { state.withLock { $0.disposing } }

    public var parameters: QueueParameters { state.withLock { $0.parameters } }
    public func setParameters(_ change: (inout QueueParameters) -> Void) { state.withLock { change(&$0.parameters) } }

    /// The rate the device runs at: the session's (or the stream's default without one).
    public var deviceSampleRate: Double {
        let rate = unit.sessionSnapshot.sampleRate
        return rate > 0 ? rate : 44100
    }

    /// The device's name, as the Linux mapping names it.
    public var deviceName: String {
        switch unit.sessionSnapshot.device {
        case .none: return "virtual"
        case .alsa(let name): return name
        case .soundServer: return "pipewire"
        }
    }

    /// The channel layout tag of the queue's channels: mono, stereo, or "N unknown
    /// channels" (kAudioChannelLayoutTag_DiscreteInOrder | N) beyond two.
    public var channelLayoutTag: UInt32 {
        switch channels {
        case 1: return 100 << 16 | 1
        case 2: return 101 << 16 | 2
        default: return 147 << 16 | UInt32(channels)
        }
    }
}

/// A queue's settings: the time/pitch ones (PlayRate and Pitch act only with
/// EnableTimePitch, as on the phone), and some kept and reported that change nothing it
/// plays: the decoder's buffer size (decoding happens whole, at enqueue), the hardware
/// codec policy (there is no hardware codec). The converter's last error is reported.
public struct QueueParameters: Sendable {
    /// kAudioQueueProperty_TimePitchAlgorithm's values (AudioQueue.h).
    public static let spectral: UInt32 = 0x7370_6563               // 'spec'
    public static let timeDomain: UInt32 = 0x7469_646F             // 'tido'
    public static let lowQualityZeroLatency: UInt32 = 0x6C71_7A6C  // 'lqzl'
    public static let varispeed: UInt32 = 0x7673_7064              // 'vspd'
    public static let algorithms: Set<UInt32> = [spectral, timeDomain, lowQualityZeroLatency, varispeed]

    public var playRate: Float = 1
    public var pitch: Float = 0
    public var decodeBufferFrames: UInt32 = 2048
    public var converterError: Int32 = 0
    public var timePitchEnabled: UInt32 = 0
    public var timePitchAlgorithm: UInt32 = 0x7370_6563  // 'spec'
    public var timePitchBypass: UInt32 = 0
    public var codecPolicy: UInt32 = 0
}

/// One enqueued buffer as the real-time thread plays it: its frames as interleaved Float
/// (owned, freed on the queue's thread), the buffer to hand back, its own gain, and the
/// silence scheduled before it. Plain values: moving one retains nothing.
struct PlayChunk {
    var samples: UnsafeMutablePointer<Float>?
    var frames = 0
    var buffer: UnsafeMutableRawPointer?
    var gain: Float = 1
    var silenceBefore = 0
}

/// The queue properties this layer knows by number (AudioQueue.h).
public enum QueueProperty {
    public static let isRunning: UInt32 = 0x6171_726E          // 'aqrn'
    public static let converterError: UInt32 = 0x7163_7665     // 'qcve'
}
