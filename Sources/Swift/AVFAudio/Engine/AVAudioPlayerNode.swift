internal import AudioUnits
internal import CAudioToolbox
public import Foundation

/// How a scheduled buffer plays (iOS's AVAudioPlayerNodeBufferOptions).
public struct AVAudioPlayerNodeBufferOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// Again and again, until the player stops or another buffer interrupts it.
    public static let loops = AVAudioPlayerNodeBufferOptions(rawValue: 1)
    /// At once: whatever was scheduled before is dropped.
    public static let interrupts = AVAudioPlayerNodeBufferOptions(rawValue: 2)
    /// At the end of the looping buffer's pass now playing.
    public static let interruptsAtLoop = AVAudioPlayerNodeBufferOptions(rawValue: 4)
}

/// iOS's AVAudioPlayerNode over AUScheduledSoundPlayer (the unit a C program schedules
/// slices on): each buffer becomes a ScheduledAudioSlice at the player's next free time,
/// its completion handler called on the unit's worker thread once it has played (or when
/// the player stops). A new player is stopped; `play()` starts its timeline at the next
/// render. Buffers must be in the player's output format (Float32, deinterleaved: a
/// connection made with another format refuses them).
open class AVAudioPlayerNode: AVAudioNode, AVAudioMixing, @unchecked Sendable {
    /// One scheduled buffer: the slice the unit reads (stable memory), the buffer it points
    /// into, the handler and whether it loops (the unit plays a looping slice again and
    /// again itself). The node holds it strongly until it is done; the unit's completion
    /// procedure gets it unretained.
    final class Scheduled: @unchecked Sendable {
        let slice = UnsafeMutablePointer<ScheduledAudioSlice>.allocate(capacity: 1)
        let buffer: AVAudioPCMBuffer
        let handler: AVAudioNodeCompletionHandler?
        let loops: Bool
        weak var owner: AVAudioPlayerNode?
        /// Set once the handler has run (by the unit's completion, or by a stop).
        var finished = false
        init(buffer: AVAudioPCMBuffer, handler: AVAudioNodeCompletionHandler?, loops: Bool, owner: AVAudioPlayerNode) {
            self.buffer = buffer
            self.handler = handler
            self.loops = loops
            self.owner = owner
            slice.initialize(to: ScheduledAudioSlice())
        }
        deinit { slice.deallocate() }
    }

    private let lock = NSLock()
    /// The player's timeline: where the next buffer goes.
    private var nextSampleTime = 0.0
    /// Buffers scheduled and not yet done; buffers a stop dropped (the unit may name their
    /// slices until its next render, so they are kept with the node).
    private var pending: [Scheduled] = []
    private var dropped: [Scheduled] = []
    private var playing = false
    private var mixingVolume: Float = 1, mixingPan: Float = 0

    public init() { super.init(kind: .scheduledSoundPlayer) }

    open var volume: Float {
        get { lock.withLock { mixingVolume } }
        set {
            lock.withLock { mixingVolume = min(1, max(0, newValue)) }
            attachedEngine?.applyMixing(of: self)
        }
    }

    open var pan: Float {
        get { lock.withLock { mixingPan } }
        set {
            lock.withLock { mixingPan = min(1, max(-1, newValue)) }
            attachedEngine?.applyMixing(of: self)
        }
    }

    open var isPlaying: Bool { lock.withLock { playing } }

    // MARK: Scheduling

    open func scheduleBuffer(_ buffer: AVAudioPCMBuffer, completionHandler: AVAudioNodeCompletionHandler? = nil) {
        scheduleBuffer(buffer, at: nil, options: [], completionHandler: completionHandler)
    }

    /// After what is scheduled (at `when`'s sample time if it has one); `.interrupts`
    /// drops what was scheduled first; `.loops` plays it until the player stops.
    open func scheduleBuffer(_ buffer: AVAudioPCMBuffer, at when: AVAudioTime?, options: AVAudioPlayerNodeBufferOptions = [],
                             completionHandler: AVAudioNodeCompletionHandler? = nil) {
        guard let player = unit as? ScheduledPlayerUnit else {
            // Not attached: nothing can play it; the handler says it is done with it.
            completionHandler?()
            return
        }
        if options.contains(.interrupts) || options.contains(.interruptsAtLoop) { dropScheduled(player) }
        let item = Scheduled(buffer: buffer, handler: completionHandler, loops: options.contains(.loops), owner: self)
        lock.withLock {
            if let when, when.isSampleTimeValid { nextSampleTime = Double(when.sampleTime) }
            pending.append(item)
        }
        enqueue(item, player)
    }

    /// Puts `item`'s slice on the player's timeline, after what is there. What follows a
    /// loop waits for it to be interrupted: it goes where no timeline reaches.
    private func enqueue(_ item: Scheduled, _ player: ScheduledPlayerUnit) {
        let frames = item.buffer.frameLength
        let slice = item.slice
        lock.withLock {
            var stamp = AudioTimeStamp()
            stamp.mSampleTime = nextSampleTime
            stamp.mFlags = AVAudioTime.sampleValid
            nextSampleTime = item.loops ? AVAudioPlayerNode.never : nextSampleTime + Double(frames)
            slice.pointee = ScheduledAudioSlice(
                mTimeStamp: stamp, mCompletionProc: AVAudioPlayerNode.completed,
                mCompletionProcUserData: Unmanaged.passUnretained(item).toOpaque(),
                mFlags: item.loops ? ScheduledPlayerUnit.loopFlag : 0, mReserved: 0,
                mReserved2: nil, mNumberFrames: frames,
                mBufferList: UnsafeMutablePointer(mutating: item.buffer.audioBufferList))
        }
        do throws(UnitError) {
            try player.schedule(slice: UnsafeMutableRawPointer(slice))
        } catch {
            finish(item)
        }
    }

    /// A sample time no timeline reaches (what is scheduled after a loop).
    static let never = 1e15

    /// The unit's worker thread: a slice has played.
    private static let completed: ScheduledAudioSliceCompletionProc = { userData, _ in
        guard let userData else { return }
        let item = Unmanaged<Scheduled>.fromOpaque(userData).takeUnretainedValue()
        item.owner?.finish(item)
    }

    /// Runs the item's handler once, and forgets it (the unit is done with its slices: a
    /// completion is the last it does with one).
    private func finish(_ item: Scheduled) {
        let run = lock.withLock { () -> Bool in
            guard !item.finished else { return false }
            item.finished = true
            pending.removeAll { $0 === item }
            return true
        }
        if run { item.handler?() }
    }

    /// Takes everything scheduled off the unit; their handlers run (as iOS's do on a stop).
    /// A playing player's timeline starts again at the next render; a stopped one stays
    /// at 0 until `play`.
    private func dropScheduled(_ player: ScheduledPlayerUnit) {
        let started = lock.withLock { playing }
        player.reset()
        if started { try? player.setStart(-1) }
        let gone = lock.withLock { () -> [Scheduled] in
            let gone = pending
            dropped += gone
            // The reset starts the timeline again at the next render.
            nextSampleTime = 0
            return gone
        }
        for item in gone { finish(item) }
    }

    /// The whole file, from its start, after what is scheduled.
    open func scheduleFile(_ file: AVAudioFile, at when: AVAudioTime?, completionHandler: AVAudioNodeCompletionHandler? = nil) {
        scheduleSegment(file, startingFrame: 0, frameCount: AVAudioFrameCount(clamping: max(0, file.length)), at: when,
                        completionHandler: completionHandler)
    }

    /// `numberFrames` frames of the file from `startFrame` (fewer at its end), decoded now
    /// into a buffer in the file's processing format (which must be the player's) and
    /// scheduled as one. The file's own read position does not move. A start before 0 or
    /// past the end, or a file that cannot be read again, schedules nothing: the handler
    /// runs at once.
    open func scheduleSegment(_ file: AVAudioFile, startingFrame startFrame: AVAudioFramePosition,
                              frameCount numberFrames: AVAudioFrameCount, at when: AVAudioTime?,
                              completionHandler: AVAudioNodeCompletionHandler? = nil) {
        let length = file.length
        guard startFrame >= 0, startFrame < length, numberFrames > 0,
              let reader = try? AVAudioFile(forReading: file.url, commonFormat: file.processingFormat.commonFormat,
                                            interleaved: file.processingFormat.isInterleaved),
              let buffer = AVAudioPCMBuffer(pcmFormat: reader.processingFormat,
                                            frameCapacity: AVAudioFrameCount(min(Int64(numberFrames), length - startFrame)))
        else {
            completionHandler?()
            return
        }
        reader.framePosition = startFrame
        guard (try? reader.read(into: buffer)) != nil, buffer.frameLength > 0 else {
            completionHandler?()
            return
        }
        scheduleBuffer(buffer, at: when, options: [], completionHandler: completionHandler)
    }

    // MARK: Playing

    /// Starts the player's timeline at the next render (`when` is not used yet: the
    /// timeline starts at once).
    open func play() { play(at: nil) }

    open func play(at when: AVAudioTime?) {
        guard let player = unit as? ScheduledPlayerUnit else { return }
        let start = lock.withLock { () -> Bool in
            defer { playing = true }
            return !playing
        }
        if start { try? player.setStart(-1) }
    }

    /// Drops everything scheduled (each handler runs) and puts the timeline back to 0.
    open func stop() {
        guard let player = unit as? ScheduledPlayerUnit else { return }
        lock.withLock { playing = false }
        dropScheduled(player)
    }
}
