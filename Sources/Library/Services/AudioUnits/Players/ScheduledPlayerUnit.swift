import AudioFiles
import AudioStreams
import Glibc
import Locking
import Synchronization

/// AUScheduledSoundPlayer ('sspl') and AUAudioFilePlayer ('afpl'), generators
/// (kAudioUnitType_Generator): no input, one output bus (Float32, non-interleaved, one to
/// eight channels), on a timeline of their own that starts at kAudioUnitProperty_
/// ScheduleStartTimeStamp (a sample time of the renders that pull the unit, or -1: the
/// next render).
///
/// The scheduled sound player plays the program's ScheduledAudioSlices at their times on
/// that timeline; the file player plays regions of the files named by ScheduledFileIDs
/// (ScheduledAudioFileRegion: a start frame, a length, a loop count). A slice's flags
/// are set as it begins and when it completes; completion procedures are called on the
/// player's worker thread, which also decodes the regions ahead. The render takes slices
/// and decoded frames without waiting for either side and allocates nothing.
public final class ScheduledPlayerUnit: AudioUnitInstance, @unchecked Sendable {
    public let kind: UnitKind
    public var handle: UInt = 0

    struct Plan {
        var layout = PCMLayout(sampleRate: 44100, encoding: .float32, channels: 2, interleaved: false)
        var maximumFrames: UInt32 = 4096
        var notifies = RenderNotifies()
    }

    struct Config {
        var plan = Plan()
        var initialized = false
        var renderQuality: UInt32 = 0x7F
        var lastRenderError: Int32 = 0
        /// ScheduledFileIDs: the program's handles and the files they name.
        var files: [(handle: UInt, file: AudioFileReader)] = []
        var lent: Scratch?
    }
    let config = Locked(Config())
    private var renderPlan = Plan()
    private let rendering = Atomic<Bool>(false)
    private let lentAddress = Atomic<UInt>(0)

    /// The start asked for (`notStarted`, `nextRender`, or a render sample time), and the
    /// render sample time it became.
    static let notStarted = Int64.min, nextRender: Int64 = -1
    private let startRequest = Atomic<Int64>(ScheduledPlayerUnit.notStarted)
    private let startedAt = Atomic<Int64>(ScheduledPlayerUnit.notStarted)
    /// A start at the next render begins the timeline at this player time (a resume after
    /// a pause goes on where it was), 0 otherwise.
    private let resumeAt = Atomic<Int64>(0)
    /// Where looping slices stop looping, as a player time (Int64.max: never): a buffer
    /// that interrupts at the loop's end (AVAudioPlayerNode's `.interruptsAtLoop`).
    private let loopEnd = Atomic<Int64>(Int64.max)
    /// Frames of the last render: how far a render under way may reach past the play time.
    private let lastFrames = Atomic<Int64>(0)
    /// The player's time at the end of the last render (CurrentPlayTime).
    private let playTime = Atomic<Int64>(-1)
    /// kAudioUnitProperty_OfflineRender: a region the worker has not kept up with is
    /// decoded by the render itself (a program rendering faster than real time).
    private let offline = Atomic<Bool>(false)
    public var isOffline: Bool { offline.load(ordering: .relaxed) }
    public func setOffline(_ on: Bool) { offline.store(on, ordering: .relaxed) }
    /// Render thread only: frames rendered (the timeline when a render has no sample time).
    private var rendered: Int64 = 0

    /// Slices and regions on their way in (the program's side takes turns), and out.
    private let incoming = SPSCRing<UInt>(frames: 1024, channels: 2, filler: 0)
    private let producers = Locked(())
    private let worker = PlayerWorker()
    /// Render thread only: what plays, by the pointer of the program's slice (kind 1) or a
    /// retained RegionReader (kind 2).
    private let active = UnsafeMutablePointer<(kind: UInt, item: UInt)>.allocate(capacity: 512)
    private var activeCount = 0

    let disposed = Atomic<Bool>(false)
    public var isDisposed: Bool { disposed.load(ordering: .acquiring) }
    public func markDisposed() { disposed.store(true, ordering: .releasing) }
    let kept = Locked<[AnyObject]>([])
    public func keepAlive(_ object: AnyObject) { kept.withLock { $0.append(object) } }
    public var keptObjects: [AnyObject] { kept.withLock { $0 } }

    public init(kind: UnitKind) { self.kind = kind }

    deinit {
        worker.stop()
        for i in 0..<activeCount where active[i].kind == 2 { Unmanaged<RegionReader>.fromOpaque(UnsafeRawPointer(bitPattern: active[i].item)!).release() }
        active.deallocate()
    }

    // MARK: Format and the unit's usual properties

    public func elementCount(_ scope: Scope) -> UInt32 { scope == .input ? 0 : 1 }

    public func format(scope: Scope, element: UInt32) throws(UnitError) -> PCMLayout {
        guard scope == .output else { throw scope == .input ? .invalidElement : .invalidScope }
        guard element == 0 else { throw .invalidElement }
        return config.withLock { $0.plan.layout }
    }

    public func setFormat(_ layout: PCMLayout, scope: Scope, element: UInt32) throws(UnitError) {
        guard scope == .output else { throw scope == .input ? .invalidElement : .invalidScope }
        guard element == 0 else { throw .invalidElement }
        guard layout.encoding == .float32, !layout.interleaved || layout.channels == 1, (1...8).contains(layout.channels)
        else { throw .formatNotSupported }
        try config.withLock { c throws(UnitError) in
            guard c.plan.layout != layout else { return }
            guard !c.initialized else { throw .initialized }
            c.plan.layout = PCMLayout(sampleRate: layout.sampleRate, encoding: .float32, channels: layout.channels,
                                      interleaved: false)
        }
    }

    public var maximumFramesPerSlice: UInt32 { config.withLock { $0.plan.maximumFrames } }
    public func setMaximumFramesPerSlice(_ frames: UInt32) throws(UnitError) {
        guard frames >= 1, frames <= 65536 else { throw .invalidPropertyValue }
        try config.withLock { c throws(UnitError) in
            guard !c.initialized else { throw .initialized }
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
    public func removeRenderNotify(_ callback: RenderCallback) { config.withLock { $0.plan.notifies.remove(callback) } }
    public func parameter(_ id: UInt32, scope: Scope, element: UInt32) throws(UnitError) -> Float { throw .invalidParameter }
    public func setParameter(_ id: UInt32, scope: Scope, element: UInt32, value: Float, offset: UInt32) throws(UnitError) {
        throw .invalidParameter
    }

    // MARK: Scheduling

    /// ScheduleStartTimeStamp: a render sample time, or -1 for the next render.
    public func setStart(_ sampleTime: Double) throws(UnitError) {
        guard sampleTime.isFinite, sampleTime >= -1 else { throw .invalidPropertyValue }
        resumeAt.store(0, ordering: .releasing)
        startRequest.store(sampleTime < 0 ? ScheduledPlayerUnit.nextRender : Int64(sampleTime), ordering: .releasing)
        startedAt.store(ScheduledPlayerUnit.notStarted, ordering: .releasing)
    }

    /// Stops the timeline where it is: silence, no slice advances or completes, and the
    /// play time stays, until `resume`.
    public func pause() {
        startRequest.store(ScheduledPlayerUnit.notStarted, ordering: .releasing)
        startedAt.store(ScheduledPlayerUnit.notStarted, ordering: .releasing)
    }

    /// Goes on from the play time a pause kept: at the next render, or (`sampleTime` >= 0)
    /// at that render sample time.
    public func resume(at sampleTime: Double) {
        let kept = max(0, playTime.load(ordering: .acquiring))
        if sampleTime >= 0 && sampleTime.isFinite {
            resumeAt.store(0, ordering: .releasing)
            startRequest.store(Int64(sampleTime) - kept, ordering: .releasing)
        } else {
            resumeAt.store(kept, ordering: .releasing)
            startRequest.store(ScheduledPlayerUnit.nextRender, ordering: .releasing)
        }
        startedAt.store(ScheduledPlayerUnit.notStarted, ordering: .releasing)
    }

    /// Frames the last render asked for (0 before any).
    public var renderQuantum: Int64 { lastFrames.load(ordering: .acquiring) }

    /// The render sample time the timeline's 0 fell at; nil while it does not run.
    public var startedSampleTime: Int64? {
        let at = startedAt.load(ordering: .acquiring)
        return at == ScheduledPlayerUnit.notStarted ? nil : at
    }

    /// Looping slices end their looping at player time `time` (each the pass under way
    /// then completes and its completion runs); nil: they loop on.
    public func setLoopEnd(_ time: Int64?) { loopEnd.store(time ?? Int64.max, ordering: .releasing) }

    public var start: Double {
        let at = startRequest.load(ordering: .acquiring)
        return at == ScheduledPlayerUnit.notStarted ? -1 : Double(at)
    }

    /// CurrentPlayTime: the player's time, -1 before it starts.
    public var currentPlayTime: Double { Double(playTime.load(ordering: .acquiring)) }

    /// ScheduleAudioSlice: the program's structure, which it keeps until the slice
    /// completes. Its buffers must be the player's format for its frames.
    public func schedule(slice: UnsafeMutableRawPointer) throws(UnitError) {
        guard kind == .scheduledSoundPlayer else { throw .invalidProperty }
        let stamp = slice.load(fromByteOffset: 56, as: UInt32.self), frames = slice.load(fromByteOffset: 96, as: UInt32.self)
        guard stamp & 1 != 0, slice.load(as: Double.self).isFinite,
              let list = slice.load(fromByteOffset: 104, as: UnsafeRawPointer?.self) else { throw .invalidPropertyValue }
        let layout = config.withLock { $0.plan.layout }
        let count = Int(list.load(as: UInt32.self))
        guard count == layout.bufferCount else { throw .formatNotSupported }
        for i in 0..<count {
            let entry = list + 8 + 16 * i
            guard entry.load(fromByteOffset: 8, as: UnsafeRawPointer?.self) != nil,
                  Int(entry.load(fromByteOffset: 4, as: UInt32.self)) >= Int(frames) * layout.bytesPerFrame
            else { throw .invalidPropertyValue }
        }
        // The unit's own flags start clear; a loop's mark (AVAudioPlayerNode's) stays.
        slice.storeBytes(of: slice.load(fromByteOffset: 80, as: UInt32.self) & ScheduledPlayerUnit.loopFlag,
                         toByteOffset: 80, as: UInt32.self)
        try push(kind: 1, item: UInt(bitPattern: slice))
    }

    /// ScheduledFileIDs: the files regions may name (handles and the files they are).
    public func setFiles(_ files: [(handle: UInt, file: AudioFileReader)]) throws(UnitError) {
        guard kind == .audioFilePlayer else { throw .invalidProperty }
        config.withLock { $0.files = files }
    }

    public var fileHandles: [UInt] { config.withLock { $0.files.map(\.handle) } }

    /// ScheduledFileRegion: a region of one of the files ScheduledFileIDs named (by its
    /// AudioFileID), at a time of the timeline. The program keeps the structure until the
    /// region completes.
    public func schedule(region: UnsafeMutableRawPointer) throws(UnitError) {
        guard kind == .audioFilePlayer else { throw .invalidProperty }
        let handle = UInt(bitPattern: region.load(fromByteOffset: 80, as: Int.self))
        let (files, layout) = config.withLock { ($0.files, $0.plan.layout) }
        guard let file = files.first(where: { $0.handle == handle })?.file else { throw .invalidPropertyValue }
        let at = region.load(as: Double.self)
        guard at.isFinite else { throw .invalidPropertyValue }
        let loops = Int(region.load(fromByteOffset: 88, as: UInt32.self))
        let first = region.load(fromByteOffset: 96, as: Int64.self)
        let frames = Int64(region.load(fromByteOffset: 104, as: UInt32.self))
        guard let reader = RegionReader(file: file, region: UInt(bitPattern: region), start: max(0, Int64(at)),
                                        startFrame: first, frames: frames, loops: loops, rate: layout.sampleRate,
                                        channels: layout.channels) else { throw .invalidPropertyValue }
        worker.add(reader)
        try push(kind: 2, item: UInt(bitPattern: Unmanaged.passRetained(reader).toOpaque()))
    }

    /// ScheduledFilePrime: the regions scheduled so far decoded ahead now.
    public func prime() { worker.fillAll() }

    private func push(kind: UInt, item: UInt) throws(UnitError) {
        let pushed = producers.withLock { _ in
            withUnsafeTemporaryAllocation(of: UInt.self, capacity: 2) { pair in
                pair[0] = kind
                pair[1] = item
                return incoming.write(pair.baseAddress!, frames: 1) == 1
            }
        }
        guard pushed else {
            if kind == 2 { Unmanaged<RegionReader>.fromOpaque(UnsafeRawPointer(bitPattern: item)!).release() }
            throw .cannotDoInCurrentContext
        }
    }

    // MARK: Life

    public var isInitialized: Bool { config.withLock { $0.initialized } }

    public func initialize() throws(UnitError) {
        try config.withLock { c throws(UnitError) in
            guard !c.initialized else { return }
            guard worker.start() else { throw .failedInitialization }
            let lent = Scratch(count: c.plan.layout.bufferCount, bytes: Int(c.plan.maximumFrames) * c.plan.layout.bytesPerFrame)
            c.lent = lent
            lentAddress.store(UInt(bitPattern: Unmanaged.passUnretained(lent).toOpaque()), ordering: .releasing)
            c.initialized = true
        }
    }

    @discardableResult
    public func uninitialize() -> Bool {
        config.withLock { $0.initialized = false }
        return false
    }

    /// Unschedules everything scheduled so far and forgets the start (AudioUnitReset): a
    /// mark in the queue, so what is scheduled after the reset stays.
    public func reset() {
        _ = try? push(kind: 0, item: 0)
        startRequest.store(ScheduledPlayerUnit.notStarted, ordering: .releasing)
        startedAt.store(ScheduledPlayerUnit.notStarted, ordering: .releasing)
        playTime.store(-1, ordering: .releasing)
        loopEnd.store(Int64.max, ordering: .releasing)
        resumeAt.store(0, ordering: .releasing)
    }

    public func resetAfterFork() {
        config.reinitializeAfterFork()
        producers.reinitializeAfterFork()
        rendering.store(false, ordering: .releasing)
        worker.forked()
    }

    // MARK: Render

    public func renderPulled(flags: UnsafeMutablePointer<UInt32>, timeStamp: UnsafeRawPointer, bus: UInt32,
                             frames: UInt32, list: UnsafeMutableRawPointer) throws(UnitError) {
        guard bus == 0 else { throw .invalidElement }
        guard rendering.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            throw .cannotDoInCurrentContext
        }
        defer { rendering.store(false, ordering: .releasing) }
        _ = config.withLockIfAvailable { c in renderPlan = c.plan }
        guard let lentPointer = UnsafeRawPointer(bitPattern: lentAddress.load(ordering: .acquiring)) else { throw .uninitialized }
        let plan = renderPlan
        guard frames <= plan.maximumFrames else { throw .tooManyFramesToProcess }
        let layout = plan.layout, n = Int(frames)
        let count = try lend(Unmanaged<Scratch>.fromOpaque(lentPointer).takeUnretainedValue(), to: list, laidOut: layout,
                             frames: n)
        plan.notifies.call(RenderAction.preRender, flags: flags.pointee, timeStamp, bus: 0, frames: frames, list)
        for b in 0..<count { (list + 8 + 16 * b).load(fromByteOffset: 8, as: UnsafeMutablePointer<Float>.self).update(repeating: 0, count: n) }

        // New slices and regions join the active list; a reset's mark empties it.
        while activeCount < 512, let entry = incoming.peek() {
            if entry[0] == 0 {
                for i in 0..<activeCount where active[i].kind == 2 { worker.retire(active[i].item) }
                activeCount = 0
            } else {
                active[activeCount] = (entry[0], entry[1])
                activeCount += 1
            }
            incoming.drop()
        }
        // The render's time: its sample time if it has one, else the frames rendered.
        let validSample = timeStamp.load(fromByteOffset: 56, as: UInt32.self) & 1 != 0
        let now = validSample ? Int64(timeStamp.load(as: Double.self)) : rendered
        rendered += Int64(n)
        lastFrames.store(Int64(n), ordering: .relaxed)
        var startedFrame = startedAt.load(ordering: .acquiring)
        if startedFrame == ScheduledPlayerUnit.notStarted {
            let request = startRequest.load(ordering: .acquiring)
            if request == ScheduledPlayerUnit.nextRender { startedFrame = now - resumeAt.load(ordering: .acquiring) }
            else if request != ScheduledPlayerUnit.notStarted { startedFrame = request }
            if startedFrame != ScheduledPlayerUnit.notStarted { startedAt.store(startedFrame, ordering: .releasing) }
        }
        if startedFrame != ScheduledPlayerUnit.notStarted {
            let from = now - startedFrame, to = from + Int64(n)
            var i = 0
            while i < activeCount {
                let done = active[i].kind == 1 ? playSlice(active[i].item, from: from, to: to, list: list, count: count)
                                               : playRegion(active[i].item, from: from, to: to, list: list, count: count)
                if done {
                    worker.complete(kind: active[i].kind, item: active[i].item)
                    active[i] = active[activeCount - 1]
                    activeCount -= 1
                } else {
                    i += 1
                }
            }
            playTime.store(max(0, to), ordering: .releasing)
        }
        plan.notifies.call(RenderAction.postRender, flags: flags.pointee, timeStamp, bus: 0, frames: frames, list)
    }

    /// A slice marked so plays again and again from its time until a reset takes it away
    /// (kScheduledAudioSliceFlag_Loop of later SDKs; AVAudioPlayerNode's `.loops`).
    public static let loopFlag: UInt32 = 0x08

    /// Adds what of the slice falls in [from, to) of the timeline; true when it has all played.
    private func playSlice(_ item: UInt, from: Int64, to: Int64, list: UnsafeMutableRawPointer, count: Int) -> Bool {
        let slice = UnsafeMutableRawPointer(bitPattern: item)!
        let start = Int64(slice.load(as: Double.self)), frames = Int64(slice.load(fromByteOffset: 96, as: UInt32.self))
        let end = start + frames
        guard start < to else { return false }
        var sliceFlags = slice.load(fromByteOffset: 80, as: UInt32.self)
        if sliceFlags & 2 == 0 { sliceFlags |= start < from ? 6 : 2 }
        if sliceFlags & ScheduledPlayerUnit.loopFlag != 0 {
            guard frames > 0, let source = slice.load(fromByteOffset: 104, as: UnsafeRawPointer?.self) else { return false }
            // A loop scheduled to begin at or after the end asked for is not the one ended.
            let asked = loopEnd.load(ordering: .acquiring), stop = start < asked ? asked : Int64.max
            if stop <= to { sliceFlags |= 1 }
            slice.storeBytes(of: sliceFlags, toByteOffset: 80, as: UInt32.self)
            var t = max(start, from)
            while t < min(to, stop) {
                let offset = (t - start) % frames, run = min(frames - offset, min(to, stop) - t)
                for b in 0..<count {
                    let out = (list + 8 + 16 * b).load(fromByteOffset: 8, as: UnsafeMutablePointer<Float>.self)
                    let input = (source + 8 + 16 * b).load(fromByteOffset: 8, as: UnsafePointer<Float>.self)
                    for k in 0..<Int(run) { out[Int(t - from) + k] += input[Int(offset) + k] }
                }
                t += run
            }
            return stop <= to
        }
        let lo = max(start, from), hi = min(end, to)
        if lo < hi, let source = slice.load(fromByteOffset: 104, as: UnsafeRawPointer?.self) {
            for b in 0..<count {
                let out = (list + 8 + 16 * b).load(fromByteOffset: 8, as: UnsafeMutablePointer<Float>.self)
                let input = (source + 8 + 16 * b).load(fromByteOffset: 8, as: UnsafePointer<Float>.self)
                for k in 0..<Int(hi - lo) { out[Int(lo - from) + k] += input[Int(lo - start) + k] }
            }
        }
        let finished = end <= to
        if finished { sliceFlags |= 1 }
        slice.storeBytes(of: sliceFlags, toByteOffset: 80, as: UInt32.self)
        return finished
    }

    /// Adds the region's decoded frames that fall in [from, to); true when it has ended.
    private func playRegion(_ item: UInt, from: Int64, to: Int64, list: UnsafeMutableRawPointer, count: Int) -> Bool {
        let reader = Unmanaged<RegionReader>.fromOpaque(UnsafeRawPointer(bitPattern: item)!).takeUnretainedValue()
        // Its first frame at its start (at once, if that has passed), then one after another.
        guard reader.taken > 0 || reader.start < to else { return false }
        let offset = reader.taken == 0 ? Int(max(0, reader.start - from)) : 0
        let wanted = Int(to - from) - offset
        if reader.ring.available < wanted && offline.load(ordering: .relaxed) { reader.fill() }
        var got = 0
        reader.ring.consume(upTo: wanted) { run, at, frames in
            for frame in 0..<frames {
                for b in 0..<count {
                    let out = (list + 8 + 16 * b).load(fromByteOffset: 8, as: UnsafeMutablePointer<Float>.self)
                    out[offset + at + frame] += run[frame * reader.channels + min(b, reader.channels - 1)]
                }
            }
            got += frames
        }
        reader.taken += Int64(got)
        worker.wake()
        return got < wanted && reader.decoded.load(ordering: .acquiring) && reader.ring.isEmpty
    }
}

/// The player's thread: decodes regions ahead, and calls completion procedures (a
/// slice's with the slice, a region's with the region and noErr) off the render thread.
final class PlayerWorker: @unchecked Sendable {
    private let done = SPSCRing<UInt>(frames: 1024, channels: 2, filler: 0)
    private let regions = Locked<[RegionReader]>([])
    private var semaphore = sem_t()
    private let running = Atomic<Bool>(false)
    private let stopping = Atomic<Bool>(false)

    init() { sem_init(&semaphore, 0, 0) }
    deinit { sem_destroy(&semaphore) }

    func start() -> Bool {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return true }
        stopping.store(false, ordering: .releasing)
        return IOThread.spawn(name: "AU file player") { [self] in run() }
    }

    func stop() {
        stopping.store(true, ordering: .releasing)
        sem_post(&semaphore)
    }

    func forked() {
        regions.reinitializeAfterFork()
        running.store(false, ordering: .releasing)
    }

    func add(_ reader: RegionReader) {
        reader.fill()
        regions.withLock { $0.append(reader) }
        sem_post(&semaphore)
    }

    func fillAll() { for reader in regions.withLock({ $0 }) { reader.fill() } }

    /// Render thread: wakes the thread (a semaphore post: no lock, no wait).
    func wake() { sem_post(&semaphore) }

    /// Render thread: a slice or region is done.
    func complete(kind: UInt, item: UInt) {
        withUnsafeTemporaryAllocation(of: UInt.self, capacity: 2) { pair in
            pair[0] = kind
            pair[1] = item
            done.write(pair.baseAddress!, frames: 1)
        }
        sem_post(&semaphore)
    }

    /// Render thread: a region unscheduled by a reset (released on the thread, no completion).
    func retire(_ item: UInt) { complete(kind: 3, item: item) }

    private func run() {
        while !stopping.load(ordering: .acquiring) {
            var deadline = timespec()
            clock_gettime(CLOCK_REALTIME, &deadline)
            deadline.tv_nsec += 10_000_000
            if deadline.tv_nsec >= 1_000_000_000 { deadline.tv_sec += 1; deadline.tv_nsec -= 1_000_000_000 }
            _ = sem_timedwait(&semaphore, &deadline)
            while let entry = done.pop2() {
                switch entry.kind {
                case 1:
                    // ScheduledAudioSliceCompletionProc(userData, slice)
                    let slice = UnsafeMutableRawPointer(bitPattern: entry.item)!
                    typealias Proc = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void
                    if let proc = slice.load(fromByteOffset: 64, as: UnsafeRawPointer?.self) {
                        unsafeBitCast(proc, to: Proc.self)(slice.load(fromByteOffset: 72, as: UnsafeMutableRawPointer?.self), slice)
                    }
                default:
                    let reader = Unmanaged<RegionReader>.fromOpaque(UnsafeRawPointer(bitPattern: entry.item)!).takeRetainedValue()
                    regions.withLock { $0.removeAll { $0 === reader } }
                    // ScheduledAudioFileRegionCompletionProc(userData, region, noErr)
                    typealias Proc = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int32) -> Void
                    let region = UnsafeMutableRawPointer(bitPattern: reader.region)!
                    if entry.kind == 2, let proc = region.load(fromByteOffset: 64, as: UnsafeRawPointer?.self) {
                        unsafeBitCast(proc, to: Proc.self)(region.load(fromByteOffset: 72, as: UnsafeMutableRawPointer?.self),
                                                           region, 0)
                    }
                }
            }
            for reader in regions.withLock({ $0 }) { reader.fill() }
        }
        running.store(false, ordering: .releasing)
    }
}

private extension SPSCRing where Element == UInt {
    /// Consumer only: a (kind, item) pair.
    func pop2() -> (kind: UInt, item: UInt)? {
        guard let head = peek() else { return nil }
        let pair = (head[0], head[1])
        drop()
        return pair
    }
}
