import CTimeStretch
import Locking
import Synchronization

/// Time/pitch processing of an output queue (kAudioQueueProperty_EnableTimePitch): the
/// enqueued audio goes through SoundTouch on the queue's own thread (or OfflineRender's
/// caller) into a ring the real-time thread plays from, so the stretcher, which allocates
/// and may take its time, never runs on the real-time thread. The real-time thread wakes
/// the queue's thread when the ring runs low. PlayRate and Pitch are read at every fill:
/// a change is heard within the ring's length (about 46 ms).
final class TimePitchStage: @unchecked Sendable {
    /// Frames the ring is kept filled to, and its room.
    static let target = 2048
    static let capacity = 8192
    /// Frames handed to the stretcher at a time.
    static let step = 1024

    let ring: SampleRing
    let channels: Int
    private let stretcher: OpaquePointer
    private var scratch: [Float]
    /// The chunk being fed in, and how far; whether the stretcher was flushed (the end of
    /// a Stop(false)).
    private var chunk: PlayChunk?
    private var fed = 0
    private var silenceLeft = 0
    private var flushed = false
    /// Set when everything enqueued has been through the stretcher and out into the ring.
    let finished = Atomic<Bool>(false)
    /// One filler at a time: the queue's thread, a Start, OfflineRender, a flush.
    let filling = Locked(())
    private var applied: (tempo: Double, rate: Double, semitones: Double) = (1, 1, 0)

    init?(rate: Double, channels: Int) {
        guard let made = TimeStretchNew(Int32(rate), Int32(channels)) else { return nil }
        stretcher = made
        self.channels = channels
        ring = SampleRing(frames: Self.capacity, channels: channels)
        scratch = [Float](repeating: 0, count: Self.step * channels)
    }

    deinit { TimeStretchFree(stretcher) }

    /// What the settings ask of the stretcher: the algorithms are SoundTouch's tempo
    /// (Spectral, TimeDomain, and the phone's low-latency one keep the pitch) or its rate
    /// (Varispeed: speed and pitch together); bypassed, nothing changes.
    static func settings(_ p: QueueParameters) -> (tempo: Double, rate: Double, semitones: Double) {
        if p.timePitchBypass != 0 { return (1, 1, 0) }
        let rate = Double(max(0.5, min(2, p.playRate)))
        if p.timePitchAlgorithm == QueueParameters.varispeed { return (1, rate, 0) }
        return (rate, 1, Double(max(-2400, min(2400, p.pitch))) / 100)
    }

    /// Fills the ring up to its target from the queue's enqueued chunks; each chunk fully
    /// fed is handed back (pushed to the done ring, which the caller then reports from).
    func fill(from queue: AudioQueue) {
        filling.withLock { _ in fillLocked(queue) }
    }

    private func fillLocked(_ queue: AudioQueue) {
        let wanted = Self.settings(queue.parameters)
        if wanted != applied {
            TimeStretchSet(stretcher, wanted.tempo, wanted.rate, wanted.semitones)
            applied = wanted
        }
        while ring.available < Self.target {
            let ready = Int(TimeStretchAvailable(stretcher))
            if ready > 0 {
                let n = scratch.withUnsafeMutableBufferPointer {
                    Int(TimeStretchReceive(stretcher, $0.baseAddress, Int32(min(ready, Self.step))))
                }
                scratch.withUnsafeBufferPointer { ring.write($0.baseAddress!, frames: n) }
                continue
            }
            if silenceLeft > 0 {
                let n = min(silenceLeft, Self.step)
                scratch.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
                scratch.withUnsafeBufferPointer { TimeStretchPut(stretcher, $0.baseAddress, Int32(n)) }
                silenceLeft -= n
                continue
            }
            if let current = chunk, fed < current.frames {
                let n = min(Self.step, current.frames - fed)
                if let samples = current.samples { TimeStretchPut(stretcher, samples + fed * channels, Int32(n)) }
                fed += n
                continue
            }
            if let done = chunk {
                queue.doneRing.push(done)
                chunk = nil
            }
            if let next = queue.playRing.pop() {
                chunk = next
                fed = 0
                silenceLeft = next.silenceBefore
                flushed = false
                finished.store(false, ordering: .releasing)
                continue
            }
            // Nothing enqueued: at the end of a Stop(false) what the stretcher holds is let
            // out, once; until then it keeps its tail for what comes next.
            if queue.drainRequested.load(ordering: .acquiring) && !flushed {
                TimeStretchFlush(stretcher)
                flushed = true
                continue
            }
            if flushed { finished.store(true, ordering: .releasing) }
            break
        }
    }

    /// Everything in it forgotten (Stop(true), Reset, Dispose): returns the chunk it was
    /// feeding, for the caller to hand back. With the stream stopped.
    func clear() -> PlayChunk? {
        filling.withLock { _ -> PlayChunk? in
            TimeStretchClear(stretcher)
            ring.clear()
            flushed = false
            finished.store(false, ordering: .releasing)
            silenceLeft = 0
            defer { chunk = nil }
            return chunk
        }
    }
}
