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

/// When a completion handler is called (iOS's AVAudioPlayerNodeCompletionCallbackType):
/// once the player has taken the data, once it has rendered it (the same moment here: the
/// unit renders what it takes), or once the device has played it (after the output's
/// presentation latency).
public enum AVAudioPlayerNodeCompletionCallbackType: Int, Sendable {
    case dataConsumed = 0
    case dataRendered = 1
    case dataPlayedBack = 2
}

public typealias AVAudioPlayerNodeCompletionHandler = @Sendable (AVAudioPlayerNodeCompletionCallbackType) -> Void

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
        let handler: AVAudioPlayerNodeCompletionHandler?
        let callbackType: AVAudioPlayerNodeCompletionCallbackType
        let loops: Bool
        weak var owner: AVAudioPlayerNode?
        /// Set once the handler has run (by the unit's completion, or by a stop).
        var finished = false
        init(buffer: AVAudioPCMBuffer, handler: AVAudioPlayerNodeCompletionHandler?,
             callbackType: AVAudioPlayerNodeCompletionCallbackType, loops: Bool, owner: AVAudioPlayerNode) {
            self.buffer = buffer
            self.handler = handler
            self.callbackType = callbackType
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
    /// Paused: the timeline stands where it was, to go on at the next `play`.
    private var paused = false

    public init() { super.init(kind: .scheduledSoundPlayer) }

    open var volume: Float {
        get { mixing.withLock { $0.volume } }
        set { setMixing(volume: newValue) }
    }

    open var pan: Float {
        get { mixing.withLock { $0.pan } }
        set { setMixing(pan: newValue) }
    }

    open var isPlaying: Bool { lock.withLock { playing } }

    // MARK: Scheduling

    open func scheduleBuffer(_ buffer: AVAudioPCMBuffer, completionHandler: AVAudioNodeCompletionHandler? = nil) {
        scheduleBuffer(buffer, at: nil, options: [], completionHandler: completionHandler)
    }

    open func scheduleBuffer(_ buffer: AVAudioPCMBuffer, completionCallbackType callbackType: AVAudioPlayerNodeCompletionCallbackType,
                             completionHandler: AVAudioPlayerNodeCompletionHandler? = nil) {
        scheduleBuffer(buffer, at: nil, options: [], completionCallbackType: callbackType, completionHandler: completionHandler)
    }

    /// After what is scheduled (at `when`'s sample time if it has one); `.interrupts`
    /// drops what was scheduled first; `.loops` plays it until the player stops.
    open func scheduleBuffer(_ buffer: AVAudioPCMBuffer, at when: AVAudioTime?, options: AVAudioPlayerNodeBufferOptions = [],
                             completionHandler: AVAudioNodeCompletionHandler? = nil) {
        scheduleBuffer(buffer, at: when, options: options, completionCallbackType: .dataConsumed,
                       completionHandler: completionHandler.map { handler in { _ in handler() } })
    }

    /// As above, the handler told which moment it is called at. `.interruptsAtLoop`: a
    /// looping buffer playing now finishes its pass, and this one follows it (with no
    /// loop playing, it interrupts at once).
    open func scheduleBuffer(_ buffer: AVAudioPCMBuffer, at when: AVAudioTime?, options: AVAudioPlayerNodeBufferOptions = [],
                             completionCallbackType callbackType: AVAudioPlayerNodeCompletionCallbackType,
                             completionHandler: AVAudioPlayerNodeCompletionHandler? = nil) {
        guard let player = unit as? ScheduledPlayerUnit else {
            // Not attached: nothing can play it; the handler says it is done with it.
            completionHandler?(callbackType)
            return
        }
        if options.contains(.interruptsAtLoop), let end = loopPassEnd(player) {
            player.setLoopEnd(end)
            lock.withLock { nextSampleTime = Double(end) }
        } else if options.contains(.interrupts) || options.contains(.interruptsAtLoop) {
            dropScheduled(player)
        }
        let item = Scheduled(buffer: buffer, handler: completionHandler, callbackType: callbackType,
                             loops: options.contains(.loops), owner: self)
        lock.withLock {
            if let when, when.isSampleTimeValid { nextSampleTime = Double(when.sampleTime) }
            pending.append(item)
        }
        enqueue(item, player)
    }

    /// Where the pass under way of the looping buffer scheduled last ends, as a player
    /// time at least one render ahead (so the unit sees the end before it comes); nil if
    /// none loops.
    private func loopPassEnd(_ player: ScheduledPlayerUnit) -> Int64? {
        lock.withLock {
            guard let loop = pending.last(where: { $0.loops && !$0.finished }) else { return nil }
            let start = Int64(loop.slice.pointee.mTimeStamp.mSampleTime), frames = Int64(loop.buffer.frameLength)
            guard frames > 0 else { return nil }
            let now = max(0, Int64(player.currentPlayTime)) + player.renderQuantum
            return now <= start ? start + frames : start + ((now - start) / frames + 1) * frames
        }
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
    private func finish(_ item: Scheduled, dropped: Bool = false) {
        let run = lock.withLock { () -> Bool in
            guard !item.finished else { return false }
            item.finished = true
            pending.removeAll { $0 === item }
            return true
        }
        guard run, let handler = item.handler else { return }
        let latency = (attachedEngine?.outputNode.presentationLatency ?? 0)
        if item.callbackType == .dataPlayedBack && !dropped && latency > 0 {
            // Played back: once what was rendered last has left the device's buffer.
            DispatchQueue.global().asyncAfter(deadline: .now() + latency) { handler(.dataPlayedBack) }
        } else {
            handler(item.callbackType)
        }
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
        for item in gone { finish(item, dropped: true) }
    }

    /// The whole file, from its start, after what is scheduled.
    open func scheduleFile(_ file: AVAudioFile, at when: AVAudioTime?, completionHandler: AVAudioNodeCompletionHandler? = nil) {
        scheduleFile(file, at: when, completionCallbackType: .dataConsumed,
                     completionHandler: completionHandler.map { handler in { _ in handler() } })
    }

    open func scheduleFile(_ file: AVAudioFile, at when: AVAudioTime?,
                           completionCallbackType callbackType: AVAudioPlayerNodeCompletionCallbackType,
                           completionHandler: AVAudioPlayerNodeCompletionHandler? = nil) {
        scheduleSegment(file, startingFrame: 0, frameCount: AVAudioFrameCount(clamping: max(0, file.length)), at: when,
                        completionCallbackType: callbackType, completionHandler: completionHandler)
    }

    open func scheduleSegment(_ file: AVAudioFile, startingFrame startFrame: AVAudioFramePosition,
                              frameCount numberFrames: AVAudioFrameCount, at when: AVAudioTime?,
                              completionHandler: AVAudioNodeCompletionHandler? = nil) {
        scheduleSegment(file, startingFrame: startFrame, frameCount: numberFrames, at: when, completionCallbackType: .dataConsumed,
                        completionHandler: completionHandler.map { handler in { _ in handler() } })
    }

    /// `numberFrames` frames of the file from `startFrame` (fewer at its end), decoded now
    /// into a buffer in the file's processing format (which must be the player's) and
    /// scheduled as one. The file's own read position does not move. A start before 0 or
    /// past the end, or a file that cannot be read again, schedules nothing: the handler
    /// runs at once.
    open func scheduleSegment(_ file: AVAudioFile, startingFrame startFrame: AVAudioFramePosition,
                              frameCount numberFrames: AVAudioFrameCount, at when: AVAudioTime?,
                              completionCallbackType callbackType: AVAudioPlayerNodeCompletionCallbackType,
                              completionHandler: AVAudioPlayerNodeCompletionHandler? = nil) {
        let length = file.length
        guard startFrame >= 0, startFrame < length, numberFrames > 0,
              let reader = try? AVAudioFile(forReading: file.url, commonFormat: file.processingFormat.commonFormat,
                                            interleaved: file.processingFormat.isInterleaved),
              let buffer = AVAudioPCMBuffer(pcmFormat: reader.processingFormat,
                                            frameCapacity: AVAudioFrameCount(min(Int64(numberFrames), length - startFrame)))
        else {
            completionHandler?(callbackType)
            return
        }
        reader.framePosition = startFrame
        guard (try? reader.read(into: buffer)) != nil, buffer.frameLength > 0 else {
            completionHandler?(callbackType)
            return
        }
        scheduleBuffer(buffer, at: when, options: [], completionCallbackType: callbackType, completionHandler: completionHandler)
    }

    // MARK: Playing

    /// Starts the player's timeline at the next render, or goes on after a pause.
    open func play() { play(at: nil) }

    /// The same at `when` (a sample time on the node's timeline, or a host time while
    /// the engine renders); nil: at the next render.
    open func play(at when: AVAudioTime?) {
        guard let player = unit as? ScheduledPlayerUnit else { return }
        let at = renderSampleTime(when)
        let (start, resume) = lock.withLock { () -> (Bool, Bool) in
            defer {
                playing = true
                paused = false
            }
            return (!playing && !paused, paused)
        }
        if resume { player.resume(at: at) } else if start { try? player.setStart(at) }
    }

    /// Stops the timeline where it is; what is scheduled stays, and `play` goes on from
    /// there.
    open func pause() {
        guard let player = unit as? ScheduledPlayerUnit else { return }
        let pause = lock.withLock { () -> Bool in
            guard playing else { return false }
            playing = false
            paused = true
            return true
        }
        if pause { player.pause() }
    }

    /// Drops everything scheduled (each handler runs) and puts the timeline back to 0.
    open func stop() {
        guard let player = unit as? ScheduledPlayerUnit else { return }
        lock.withLock {
            playing = false
            paused = false
        }
        dropScheduled(player)
    }

    /// A time as a render sample time (-1: the next render): its sample time, else its host
    /// time against the engine's last render.
    private func renderSampleTime(_ when: AVAudioTime?) -> Double {
        guard let when else { return -1 }
        if when.isSampleTimeValid { return Double(when.sampleTime) }
        guard when.isHostTimeValid, let last = lastRenderTime, last.isHostTimeValid, last.isSampleTimeValid else { return -1 }
        let seconds = (Double(when.hostTime) - Double(last.hostTime)) / 1e9
        return max(0, Double(last.sampleTime) + seconds * last.sampleRate)
    }

    // MARK: Times

    /// The node's time (the engine's render timeline) of a time of the player's own;
    /// nil while the player is not playing.
    open func nodeTime(forPlayerTime playerTime: AVAudioTime) -> AVAudioTime? {
        guard isPlaying, let start = (unit as? ScheduledPlayerUnit)?.startedSampleTime, playerTime.isSampleTimeValid else {
            return nil
        }
        return AVAudioTime(sampleTime: playerTime.sampleTime + start, atRate: outputFormat(forBus: 0).sampleRate)
    }

    /// The player's own time (0 where `play` started it, not counting pauses) of a node
    /// time; nil while the player is not playing.
    open func playerTime(forNodeTime nodeTime: AVAudioTime) -> AVAudioTime? {
        guard isPlaying, let start = (unit as? ScheduledPlayerUnit)?.startedSampleTime, nodeTime.isSampleTimeValid else {
            return nil
        }
        return AVAudioTime(sampleTime: nodeTime.sampleTime - start, atRate: outputFormat(forBus: 0).sampleRate)
    }
}
