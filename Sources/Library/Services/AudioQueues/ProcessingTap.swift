import AudioFiles
import Glibc
import Synchronization

/// A processing tap (AudioQueueProcessingTapNew, iOS 6): the program's callback on the
/// queue's real-time thread, with the queue's audio as Float32 non-interleaved at the
/// queue's rate and channels. A tap that siphons is shown the audio; any other makes it,
/// fetching the queue's own with AudioQueueProcessingTapGetSourceAudio. Output queues
/// run it before the queue's volume and pan (PreEffects) or after (PostEffects); input
/// queues, on what the microphone gave before it is stored (and encoded).
///
/// All its memory is made here: a turn allocates nothing, takes no lock, and makes no
/// call that blocks.
public final class ProcessingTap: @unchecked Sendable {
    public typealias Callback = @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UInt32, UnsafeMutableRawPointer?,
                                                UnsafeMutablePointer<UInt32>?, UnsafeMutablePointer<UInt32>?,
                                                UnsafeMutableRawPointer?) -> Void

    public static let preEffects: UInt32 = 1 << 0
    public static let postEffects: UInt32 = 1 << 1
    public static let siphon: UInt32 = 1 << 2
    public static let startOfStream: UInt32 = 1 << 8
    public static let endOfStream: UInt32 = 1 << 9

    /// The most frames one turn asks for: longer periods are taken in turns.
    public static let maximumFrames = 4096

    let callback: Callback
    let clientData: UnsafeMutableRawPointer?
    public let flags: UInt32
    unowned(unsafe) let queue: AudioQueue
    let channels: Int
    /// One plane of maximumFrames Floats per channel, the AudioBufferList over them, the
    /// interleaved source, the time stamp given to the callback.
    let planes: UnsafeMutablePointer<Float>
    let list: UnsafeMutableRawPointer
    let interleaved: UnsafeMutablePointer<Float>
    let stamp: UnsafeMutableRawPointer

    // A turn in progress (the real-time thread, or OfflineRender's caller, only).
    var inputSource: UnsafeMutablePointer<Float>?
    var turnFrames = 0
    var fetched = 0
    var turnTime = 0.0
    var fetchedOnce = false
    var drained = false

    /// The processing format: Float32, non-interleaved, at the queue's rate and channels.
    public var format: StreamDescription {
        var d = StreamDescription.linearPCM(rate: queue.rate, channels: UInt32(channels), bits: 32, float: true)
        d.formatFlags |= Flags.nonInterleaved
        d.bytesPerFrame = 4
        d.bytesPerPacket = 4
        return d
    }

    /// The program's name for the tap (its AudioQueueProcessingTapRef), given at making:
    /// the callback may run before the maker returns.
    public let handle: UInt

    init(queue: AudioQueue, handle: UInt, callback: @escaping Callback, clientData: UnsafeMutableRawPointer?, flags: UInt32) {
        self.queue = queue
        self.handle = handle
        self.callback = callback
        self.clientData = clientData
        self.flags = flags
        channels = queue.channels
        planes = .allocate(capacity: Self.maximumFrames * channels)
        planes.initialize(repeating: 0, count: Self.maximumFrames * channels)
        interleaved = .allocate(capacity: Self.maximumFrames * channels)
        interleaved.initialize(repeating: 0, count: Self.maximumFrames * channels)
        list = .allocate(byteCount: 8 + 16 * channels, alignment: 16)
        list.initializeMemory(as: UInt8.self, repeating: 0, count: 8 + 16 * channels)
        stamp = .allocate(byteCount: 64, alignment: 8)
        stamp.initializeMemory(as: UInt8.self, repeating: 0, count: 64)
    }

    deinit {
        planes.deallocate()
        interleaved.deallocate()
        list.deallocate()
        stamp.deallocate()
    }

    var isSiphon: Bool { flags & Self.siphon != 0 }
    var isPostEffects: Bool { flags & Self.postEffects != 0 }

    // MARK: The thread a tap's callback runs on

    /// The tap whose callback runs on this thread now: GetSourceAudio and GetQueueTime are
    /// answered only from inside it.
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    public static func current(_ handle: UInt) -> ProcessingTap? {
        guard handle != 0, let running = pthread_getspecific(key) else { return nil }
        let tap = Unmanaged<ProcessingTap>.fromOpaque(running).takeUnretainedValue()
        return tap.handle == handle ? tap : nil
    }

    /// Points the list at the planes, `frames` frames each.
    private func pointList(frames: Int) {
        list.storeBytes(of: UInt32(channels), as: UInt32.self)
        for c in 0..<channels {
            let entry = list + 8 + 16 * c
            entry.storeBytes(of: UInt32(1), as: UInt32.self)
            entry.storeBytes(of: UInt32(frames * 4), toByteOffset: 4, as: UInt32.self)
            entry.storeBytes(of: UnsafeMutableRawPointer(planes + c * Self.maximumFrames), toByteOffset: 8,
                             as: UnsafeMutableRawPointer?.self)
        }
    }

    /// One turn of the program's callback over `frames` frames; what it made is in the
    /// planes (the source, for a siphon). Returns how many frames it made.
    private func callProgram(frames: Int) -> Int {
        turnFrames = frames
        fetched = 0
        pointList(frames: frames)
        stamp.storeBytes(of: turnTime, as: Double.self)
        stamp.storeBytes(of: UInt32(1), toByteOffset: 56, as: UInt32.self)  // sample time valid
        var flagsInOut = flags & (Self.preEffects | Self.postEffects | Self.siphon)
        var made: UInt32 = UInt32(frames)
        pthread_setspecific(Self.key, Unmanaged.passUnretained(self).toOpaque())
        callback(clientData, OpaquePointer(bitPattern: handle), UInt32(frames), stamp, &flagsInOut, &made, list)
        pthread_setspecific(Self.key, nil)
        let count = isSiphon ? frames : min(frames, Int(made))
        // The callback may have pointed the list elsewhere: read where it says.
        for c in 0..<channels {
            let entry = list + 8 + 16 * c
            guard let data = entry.load(fromByteOffset: 8, as: UnsafeMutableRawPointer?.self) else { continue }
            let plane = planes + c * Self.maximumFrames
            let floats = data.assumingMemoryBound(to: Float.self)
            if floats != plane { plane.update(from: floats, count: count) }
            if count < frames { (plane + count).update(repeating: 0, count: frames - count) }
        }
        return count
    }

    private func deinterleave(_ from: UnsafePointer<Float>, frames: Int, into planes: (Int) -> UnsafeMutablePointer<Float>) {
        for c in 0..<channels {
            let plane = planes(c)
            for f in 0..<frames { plane[f] = from[f * channels + c] }
        }
    }

    private func interleave(frames: Int, into out: UnsafeMutablePointer<Float>) {
        for c in 0..<channels {
            let plane = planes + c * Self.maximumFrames
            for f in 0..<frames { out[f * channels + c] = plane[f] }
        }
    }

    // MARK: Output queues

    /// The period of an output queue, through the tap: `frames` interleaved frames into
    /// `out`. Returns whether a buffer was handed back or a drain ended.
    func processOutput(_ out: UnsafeMutablePointer<Float>, frames: Int) -> Bool {
        var done = 0
        var woke = false
        while done < frames {
            let n = min(Self.maximumFrames, frames - done)
            let target = out + done * channels
            turnTime = Double(queue.playedFrames.load(ordering: .acquiring))
            if isSiphon {
                woke = queue.tapSource(into: target, frames: n, withGain: isPostEffects) || woke
                deinterleave(target, frames: n) { self.planes + $0 * Self.maximumFrames }
                _ = callProgram(frames: n)
            } else {
                drained = false
                _ = callProgram(frames: n)
                // Frames the program did not fetch are the queue's all the same: taken now,
                // so its buffers and time go on at the device's pace.
                if fetched < n { drained = queue.tapSource(into: interleaved, frames: n - fetched, withGain: false) || drained }
                woke = drained || woke
                interleave(frames: n, into: target)
            }
            if !isPostEffects { queue.applyGain(target, frames: n) }
            queue.finishTapPeriod(target, frames: n)
            done += n
        }
        return woke
    }

    // MARK: Input queues

    /// What an input queue recorded this period, through the tap, in place (interleaved).
    func processInput(_ samples: UnsafeMutablePointer<Float>, frames: Int) {
        var done = 0
        while done < frames {
            let n = min(Self.maximumFrames, frames - done)
            let chunk = samples + done * channels
            turnTime = Double(queue.recordedFramesAtomic.load(ordering: .acquiring) + done)
            if isSiphon {
                deinterleave(chunk, frames: n) { self.planes + $0 * Self.maximumFrames }
                _ = callProgram(frames: n)
            } else {
                inputSource = chunk
                _ = callProgram(frames: n)
                inputSource = nil
                interleave(frames: n, into: chunk)
            }
            done += n
        }
    }

    // MARK: Inside the callback

    /// AudioQueueProcessingTapGetSourceAudio: up to the turn's frames of the queue's own
    /// audio into `list` (its NULL data pointers get the tap's planes).
    public func sourceAudio(frames: Int, list given: UnsafeMutableRawPointer, stamp: UnsafeMutableRawPointer?,
                            flags: UnsafeMutablePointer<UInt32>?) -> Int {
        let n = max(0, min(frames, turnFrames - fetched))
        let count = Int(given.load(as: UInt32.self))
        if let inputSource {
            deinterleave(inputSource + fetched * channels, frames: n) { c in self.bufferOf(given, c, count, n) }
        } else {
            drained = queue.tapSource(into: interleaved, frames: n, withGain: isPostEffects) || drained
            deinterleave(interleaved, frames: n) { c in self.bufferOf(given, c, count, n) }
        }
        var said: UInt32 = 0
        if !fetchedOnce { said |= Self.startOfStream }
        fetchedOnce = true
        fetched += n
        flags?.pointee = said
        stamp?.storeBytes(of: turnTime, as: Double.self)
        stamp?.storeBytes(of: UInt32(1), toByteOffset: 56, as: UInt32.self)
        return n
    }

    /// The plane for channel `c` of the caller's list: its own buffer, or one of the
    /// tap's when its pointer is NULL (the list is then pointed at it). A list with fewer
    /// buffers than channels gets the rest written nowhere (a scratch plane).
    private func bufferOf(_ list: UnsafeMutableRawPointer, _ c: Int, _ count: Int, _ frames: Int) -> UnsafeMutablePointer<Float> {
        guard c < count else { return interleaved }
        let entry = list + 8 + 16 * c
        entry.storeBytes(of: UInt32(frames * 4), toByteOffset: 4, as: UInt32.self)
        if let data = entry.load(fromByteOffset: 8, as: UnsafeMutableRawPointer?.self) {
            return data.assumingMemoryBound(to: Float.self)
        }
        let plane = planes + c * Self.maximumFrames
        entry.storeBytes(of: UInt32(1), as: UInt32.self)
        entry.storeBytes(of: UnsafeMutableRawPointer(plane), toByteOffset: 8, as: UnsafeMutableRawPointer?.self)
        return plane
    }

    /// AudioQueueProcessingTapGetQueueTime: where this turn starts on the queue's time
    /// line, and how many frames of it the program fetched.
    public var queueTime: (sampleTime: Double, frames: Int) { (turnTime, fetched) }

    public var isOnInputQueue: Bool { queue.direction == .input }

    /// AudioQueueProcessingTapDispose: off its queue (which must not be running).
    public func dispose() throws(QueueError) { try queue.removeTap(self) }
}
