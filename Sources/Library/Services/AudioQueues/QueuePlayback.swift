import AudioFiles
import AudioStreams
import Glibc
import Synchronization

/// What AudioQueueEnqueueBufferWithParameters adds to a plain enqueue.
public struct EnqueueOptions: Sendable {
    public var trimAtStart = 0
    public var trimAtEnd = 0
    /// kAudioQueueParam_Volume for this buffer alone.
    public var volume: Float?
    /// A sample time on the queue's timeline; silence is played until then.
    public var startTime: Double?
    public init() {}
}

extension AudioQueue {
    // MARK: Enqueue (the program's threads)

    /// AudioQueueEnqueueBuffer(WithParameters). `descriptions` are the call's own packet
    /// descriptions (16 bytes each), or nil for the buffer's. Returns the sample time at
    /// which the buffer will start.
    @discardableResult
    public func enqueue(_ buffer: QueueBuffer, descriptions: UnsafeRawPointer?, descriptionCount: Int,
                        options: EnqueueOptions = EnqueueOptions()) throws(QueueError) -> Double {
        try state.withLock { s throws(QueueError) in
            guard !s.disposing, !s.handingBack else { throw .enqueueDuringReset }
            guard s.buffers.contains(buffer.key) else { throw .invalidBuffer }
            guard !s.enqueued.contains(buffer.key) else { throw .invalidBuffer }
        }
        guard direction == .output else {
            try state.withLock { s throws(QueueError) in
                guard !s.enqueued.contains(buffer.key) else { throw .invalidBuffer }
                s.enqueued.insert(buffer.key)
                s.recordQueue.append(buffer)
            }
            thread.wake()
            return 0
        }
        guard buffer.byteSize > 0, buffer.byteSize <= buffer.capacity else { throw .bufferEmpty }
        guard options.trimAtStart >= 0, options.trimAtEnd >= 0 else { throw .invalidParameter }
        if let volume = options.volume, !(volume.isFinite && volume >= 0 && volume <= 1) { throw .invalidParameter }
        var (samples, frames) = try decode(buffer, descriptions: descriptions, count: descriptionCount)
        // Trimming drops frames at either end (priming, padding: gapless playback).
        let start = min(frames, options.trimAtStart)
        let kept = max(0, frames - start - options.trimAtEnd)
        if start > 0, let all = samples {
            let trimmed = UnsafeMutablePointer<Float>.allocate(capacity: max(1, kept * channels))
            trimmed.update(from: all + start * channels, count: kept * channels)
            all.deallocate()
            samples = trimmed
        }
        frames = kept
        return try state.withLock { s throws(QueueError) -> Double in
            guard !s.enqueued.contains(buffer.key) else {
                samples?.deallocate()
                throw .invalidBuffer
            }
            let base = max(s.scheduledEnd, Double(playedFrames.load(ordering: .acquiring)))
            var silence = 0
            if let at = options.startTime, at.isFinite, at > base { silence = Int((at - base).rounded()) }
            let chunk = PlayChunk(samples: samples, frames: frames, buffer: buffer.pointer, gain: options.volume ?? 1,
                                  silenceBefore: silence)
            guard playRing.push(chunk) else {
                samples?.deallocate()
                throw .invalidParameter
            }
            s.enqueued.insert(buffer.key)
            let begins = base + Double(silence)
            s.scheduledEnd = begins + Double(frames)
            return begins
        }
    }

    /// The buffer's audio as interleaved Float at the queue's rate and channels.
    private func decode(_ buffer: QueueBuffer, descriptions: UnsafeRawPointer?, count: Int) throws(QueueError)
        -> (UnsafeMutablePointer<Float>?, Int) {
        if let pcm {
            let frames = buffer.byteSize / pcm.bytesPerFrame
            guard frames > 0 else { throw .bufferEmpty }
            let out = UnsafeMutablePointer<Float>.allocate(capacity: frames * channels)
            pcm.decode([UnsafeRawPointer(buffer.data)], from: 0, frames: frames, into: out)
            return (out, frames)
        }
        // Packets: the call's descriptions, or the buffer's own; none for constant-rate
        // formats (IMA4, µ-law), where the packet size says where each starts.
        var list: [PacketDescription]?
        let source = count > 0 ? descriptions : (buffer.descriptionCount > 0 ? UnsafeRawPointer(buffer.descriptions) : nil)
        let number = count > 0 ? count : buffer.descriptionCount
        if let source, number > 0 {
            list = (0..<number).map { i in
                let entry = source + i * QueueBuffer.descriptionBytes
                return PacketDescription(startOffset: entry.load(as: Int64.self),
                                         variableFrames: entry.load(fromByteOffset: 8, as: UInt32.self),
                                         byteSize: entry.load(fromByteOffset: 12, as: UInt32.self))
            }
        } else if !format.isConstantBitRate {
            throw .invalidParameter
        }
        let packets = list?.count ?? buffer.byteSize / Int(max(1, format.bytesPerPacket))
        let data = UnsafeRawPointer(buffer.data)
        let size = buffer.byteSize
        var output: [Float] = []
        var failed: Int32 = 0
        codec.withLock { converter in
            guard let converter else { return }
            var given = false
            let chunkFrames = 4096
            var piece = [Float](repeating: 0, count: chunkFrames * channels)
            while true {
                let result = piece.withUnsafeMutableBytes { bytes in
                    try? converter.fill(packets: chunkFrames, into: [(bytes.baseAddress!, bytes.count)], descriptions: nil) { _ in
                        if given { return .failed(1) }
                        given = true
                        return .packets(buffers: [data], byteSizes: [size], count: packets, descriptions: list)
                    }
                }
                guard let result else { failed = -1; break }
                if let failure = result.failure, failure != 1 { failed = failure }
                if result.packets > 0 { output += piece.prefix(result.packets * channels) }
                if result.packets < chunkFrames { break }
            }
        }
        if failed != 0 {
            state.withLock { $0.parameters.converterError = failed }
            post(.property(QueueProperty.converterError))
        }
        let frames = output.count / channels
        guard frames > 0 else { return (nil, 0) }
        let out = UnsafeMutablePointer<Float>.allocate(capacity: frames * channels)
        output.withUnsafeBufferPointer { out.update(from: $0.baseAddress!, count: frames * channels) }
        return (out, frames)
    }

    /// AudioQueuePrime: the enqueued buffers are decoded when enqueued, so everything
    /// enqueued is ready; returns the frames ready to play.
    public func prime() throws(QueueError) -> Int {
        guard direction == .output else { throw .invalidQueueType }
        return try state.withLock { s throws(QueueError) -> Int in
            guard !s.disposing else { throw .disposalPending }
            return max(0, Int(s.scheduledEnd) - playedFrames.load(ordering: .acquiring))
        }
    }

    // MARK: The real-time thread

    /// The unit's render callback: `frames` interleaved Float frames into the list's one
    /// buffer.
    func render(frames: Int, list: UnsafeMutableRawPointer) {
        guard let data = list.load(fromByteOffset: 8 + 8, as: UnsafeMutableRawPointer?.self) else { return }
        if renderFloats(data.assumingMemoryBound(to: Float.self), frames: frames) { thread.wake() }
    }

    /// Plays `frames` frames: scheduled silence, then the enqueued chunks in order, each
    /// handed back once played; silence when none waits. Allocates nothing, takes no lock.
    /// Returns whether a buffer was handed back or a drain ended (the caller wakes whoever
    /// reports them).
    func renderFloats(_ out: UnsafeMutablePointer<Float>, frames: Int) -> Bool {
        if let tap = activeTap { return tap.processOutput(out, frames: frames) }
        let (done, handedBack) = renderEnqueued(out, frames: frames)
        return finishPeriod(out, frames: frames, rendered: done) || handedBack
    }

    /// A processing tap's source: the queue's next `frames` frames (silence past what is
    /// enqueued), with its volume and pan for a PostEffects tap. Returns whether a buffer
    /// was handed back or a drain ended.
    func tapSource(into out: UnsafeMutablePointer<Float>, frames: Int, withGain: Bool) -> Bool {
        guard frames > 0 else { return false }
        let (done, handedBack) = renderEnqueued(out, frames: frames)
        let drained = fillRest(out, frames: frames, rendered: done)
        if withGain { applyGain(out, frames: frames) }
        return handedBack || drained
    }

    /// A tapped period's end: metering and the time line.
    func finishTapPeriod(_ out: UnsafeMutablePointer<Float>, frames: Int) {
        if meteringOn.load(ordering: .relaxed) { meter(out, frames: frames) }
        playedFrames.add(frames, ordering: .releasing)
    }

    /// What is enqueued (and scheduled silence), up to `frames` frames; returns how many
    /// were rendered and whether a buffer was handed back. Stops where the queue runs dry.
    private func renderEnqueued(_ out: UnsafeMutablePointer<Float>, frames: Int) -> (Int, Bool) {
        if let stage = activeStage {
            // Time/pitch: what the stage made; the queue's thread is woken to make more.
            let n = stage.ring.take(into: out, frames: frames)
            let low = stage.ring.available < TimePitchStage.target / 2
            return (n, low && !stage.finished.load(ordering: .acquiring))
        }
        let delay = startDelay.exchange(0, ordering: .acquiringAndReleasing)
        if delay > 0 { leadIn += delay }
        var done = 0
        var handedBack = false
        while done < frames {
            if leadIn > 0 {
                let n = min(frames - done, leadIn)
                (out + done * channels).update(repeating: 0, count: n * channels)
                leadIn -= n
                done += n
                continue
            }
            if current == nil {
                guard let next = playRing.pop() else { break }
                current = next
                position = 0
                if next.silenceBefore > 0 {
                    leadIn = next.silenceBefore
                    current!.silenceBefore = 0
                    continue
                }
            }
            let chunk = current!
            let n = min(frames - done, chunk.frames - position)
            if n > 0, let samples = chunk.samples {
                let from = samples + position * channels
                let to = out + done * channels
                if chunk.gain == 1 {
                    to.update(from: from, count: n * channels)
                } else {
                    for i in 0..<(n * channels) { to[i] = from[i] * chunk.gain }
                }
            }
            position += n
            done += n
            if position >= chunk.frames {
                doneRing.push(chunk)
                current = nil
                handedBack = true
            }
        }
        return (done, handedBack)
    }

    /// The period's end: silence past what was rendered (and a Stop(false)'s drain ended
    /// there), the queue's gain, metering, the time line. Returns whether a drain ended.
    private func finishPeriod(_ out: UnsafeMutablePointer<Float>, frames: Int, rendered done: Int) -> Bool {
        let drained = fillRest(out, frames: frames, rendered: done)
        applyGain(out, frames: frames)
        if meteringOn.load(ordering: .relaxed) { meter(out, frames: frames) }
        playedFrames.add(frames, ordering: .releasing)
        return drained
    }

    /// Silence past what was rendered, and a Stop(false)'s drain ended there. Returns
    /// whether it ended.
    private func fillRest(_ out: UnsafeMutablePointer<Float>, frames: Int, rendered done: Int) -> Bool {
        var ended = false
        if done < frames {
            (out + done * channels).update(repeating: 0, count: (frames - done) * channels)
            let empty = activeStage.map { $0.finished.load(ordering: .acquiring) && $0.ring.available == 0 }
                ?? (current == nil && playRing.isEmpty && leadIn == 0)
            if drainRequested.load(ordering: .acquiring) && empty {
                drainRequested.store(false, ordering: .releasing)
                drained.store(true, ordering: .releasing)
                ended = true
            }
        }
        return ended
    }

    /// The queue's volume (ramped over VolumeRampTime) and pan.
    func applyGain(_ out: UnsafeMutablePointer<Float>, frames: Int) {
        let target = Float(bitPattern: volumeBits.load(ordering: .relaxed))
        let pan = Float(bitPattern: panBits.load(ordering: .relaxed))
        let ramp = rampFrames.load(ordering: .relaxed)
        let left: Float = channels == 2 ? min(1, 1 - pan) : 1
        let right: Float = channels == 2 ? min(1, 1 + pan) : 1
        if gainNow == target && left == 1 && right == 1 {
            if target != 1 { for i in 0..<(frames * channels) { out[i] *= target } }
            return
        }
        let step = ramp > 0 ? abs(target - gainNow) / Float(ramp) : Float.infinity
        for f in 0..<frames {
            if gainNow != target {
                gainNow = gainNow < target ? min(target, gainNow + step) : max(target, gainNow - step)
            }
            for c in 0..<channels {
                let side: Float = channels == 2 ? (c == 0 ? left : right) : 1
                out[f * channels + c] *= gainNow * side
            }
        }
    }

    /// Level metering: each channel's RMS and peak over the last period.
    func meter(_ samples: UnsafePointer<Float>, frames: Int) {
        guard frames > 0 else { return }
        for c in 0..<min(channels, 8) {
            var sum: Float = 0, peak: Float = 0
            for f in 0..<frames {
                let v = samples[f * channels + c]
                sum += v * v
                peak = max(peak, abs(v))
            }
            meterAverage[c] = (sum / Float(frames)).squareRoot()
            meterPeak[c] = peak
        }
    }

    // MARK: Parameters, time, metering (the program's threads)

    public func setVolume(_ volume: Float) throws(QueueError) {
        guard volume.isFinite, volume >= 0, volume <= 1 else { throw .invalidParameter }
        volumeBits.store(volume.bitPattern, ordering: .relaxed)
    }
    public var volume: Float { Float(bitPattern: volumeBits.load(ordering: .relaxed)) }

    public func setPan(_ pan: Float) throws(QueueError) {
        guard pan.isFinite, pan >= -1, pan <= 1 else { throw .invalidParameter }
        panBits.store(pan.bitPattern, ordering: .relaxed)
    }
    public var pan: Float { Float(bitPattern: panBits.load(ordering: .relaxed)) }

    public func setVolumeRampTime(_ seconds: Float) throws(QueueError) {
        guard seconds.isFinite, seconds >= 0, seconds <= 60 else { throw .invalidParameter }
        state.withLock { $0.volumeRampTime = seconds }
        rampFrames.store(Int(Double(seconds) * rate), ordering: .relaxed)
    }
    public var volumeRampTime: Float { state.withLock { $0.volumeRampTime } }

    /// The time now on the queue's timeline: frames played (or recorded) since the start,
    /// the host time, and whether the timeline broke since the last look (the session
    /// stopped the queue, the device went away).
    public func currentTime(readDiscontinuity: Bool) throws(QueueError) -> (sampleTime: Double, hostTime: UInt64, discontinuity: Bool) {
        let (started, disposing) = state.withLock { ($0.started, $0.disposing) }
        guard !disposing else { throw .disposalPending }
        guard started || isRunning else { throw .invalidRunState }
        let broke = readDiscontinuity ? discontinuity.exchange(false, ordering: .acquiringAndReleasing) : false
        let frames = direction == .output ? playedFrames.load(ordering: .acquiring) : Int(recordedFramesAtomic.load(ordering: .acquiring))
        return (Double(frames), IOThread.hostTime(), broke)
    }

    public func setMetering(_ on: Bool) {
        state.withLock { $0.metering = on }
        meteringOn.store(on, ordering: .releasing)
    }
    public var metering: Bool { state.withLock { $0.metering } }

    /// Each channel's (average, peak) power, linear (0...1), of the last period.
    public func levels() throws(QueueError) -> [(Float, Float)] {
        guard meteringOn.load(ordering: .acquiring) else { throw .invalidPropertyValue }
        return (0..<min(channels, 8)).map { (meterAverage[$0], meterPeak[$0]) }
    }

    // MARK: Offline rendering

    /// AudioQueueSetOfflineRenderFormat: nil leaves offline mode. The format must be
    /// linear PCM at the queue's rate and channel count.
    public func setOfflineFormat(_ description: StreamDescription?) throws(QueueError) {
        guard direction == .output else { throw .invalidQueueType }
        let layout: LinearPCM?
        if let description {
            guard let made = try? LinearPCM(description), made.interleaved || made.channels == 1,
                  description.sampleRate == rate, made.channels == channels else { throw .invalidOfflineMode }
            layout = made
        } else {
            layout = nil
        }
        try state.withLock { s throws(QueueError) in
            guard !s.disposing else { throw .disposalPending }
            guard !(s.started && s.offline == nil) else { throw .invalidRunState }
            s.offline = layout
            s.offlineDescription = description
        }
    }

    public var offlineFormat: StreamDescription? { state.withLock { $0.offlineDescription } }

    /// AudioQueueOfflineRender: the next `frames` frames into the buffer, in the offline
    /// format, on the caller's thread (which is then the only one playing the queue). The
    /// buffers played are handed back, and a Stop(false) ended, inside the call: a program
    /// that never runs its run loop (as Apple's offline-render sample) still gets them.
    public func offlineRender(frames: Int, into buffer: QueueBuffer) throws(QueueError) -> Double {
        // What the Start reported, before the first callback.
        reportNow()
        let layout = try state.withLock { s throws(QueueError) -> LinearPCM in
            guard !s.disposing else { throw .disposalPending }
            guard let offline = s.offline else { throw .invalidOfflineMode }
            guard s.buffers.contains(buffer.key) else { throw .invalidBuffer }
            guard s.started else { throw .invalidRunState }
            return offline
        }
        guard frames >= 0, frames * layout.bytesPerFrame <= buffer.capacity else { throw .invalidParameter }
        let time = Double(playedFrames.load(ordering: .acquiring))
        if frames > 0 {
            let floats = UnsafeMutablePointer<Float>.allocate(capacity: frames * channels)
            defer { floats.deallocate() }
            // Where the queue runs dry inside the request, the buffers played go back to
            // the program now, and what it enqueues from those callbacks is rendered in
            // this same call: the output has no gap at a buffer's end, as on the phone.
            // (Bounded: a program enqueueing buffers trimmed to nothing cannot hold it here.)
            var done = 0
            if activeTap != nil {
                // A tap makes the period itself (and fetches what it wants).
                _ = renderFloats(floats, frames: frames)
                done = frames
            }
            for _ in 0..<256 where done < frames {
                activeStage?.fill(from: self)
                let (rendered, _) = renderEnqueued(floats + done * channels, frames: frames - done)
                done += rendered
                if let stage = activeStage {
                    // Time/pitch: the stage is filled again until it has nothing more.
                    reportNow()
                    guard done < frames, stage.ring.available > 0 || !stage.finished.load(ordering: .acquiring) else { break }
                    if rendered == 0 && playRing.isEmpty && !drainRequested.load(ordering: .acquiring) { break }
                    continue
                }
                guard done < frames, !drainRequested.load(ordering: .acquiring) else { break }
                reportNow()
                guard !playRing.isEmpty else { break }
            }
            if activeTap == nil { _ = finishPeriod(floats, frames: frames, rendered: done) }
            layout.encode(floats, frames: frames, into: [buffer.data], at: 0)
        }
        buffer.byteSize = frames * layout.bytesPerFrame
        reportNow()
        finishOfflineDrain()
        reportNow()
        return time
    }
}
