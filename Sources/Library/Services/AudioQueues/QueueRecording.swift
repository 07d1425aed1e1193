import AudioFiles
import AudioStreams
import Synchronization

extension AudioQueue {
    /// The unit's input callback, on the real-time thread: the period's frames rendered
    /// into the queue's own list and written to the sample ring. Allocates nothing.
    func captured(frames: Int) {
        guard let samples else { return }
        var left = frames
        while left > 0 {
            let n = min(left, captureCapacity)
            captureList.storeBytes(of: UInt32(1), as: UInt32.self)
            captureList.storeBytes(of: UInt32(channels), toByteOffset: 8, as: UInt32.self)
            captureList.storeBytes(of: UInt32(n * channels * 4), toByteOffset: 12, as: UInt32.self)
            captureList.storeBytes(of: UnsafeMutableRawPointer(captureFloats), toByteOffset: 16,
                                   as: UnsafeMutableRawPointer?.self)
            guard (try? unit.renderInput(frames: UInt32(n), list: captureList)) != nil else { return }
            if let tap = activeTap { tap.processInput(captureFloats, frames: n) }
            if meteringOn.load(ordering: .relaxed) { meter(captureFloats, frames: n) }
            samples.write(captureFloats, frames: n)
            left -= n
        }
        thread.wake()
    }

    /// On the queue's thread: the program's buffers filled, oldest first, from what was
    /// recorded; each is reported when full (or, after a stop, with what it holds).
    func fillRecorded() {
        guard let samples else { return }
        let flushing = recordFlushRequested.exchange(false, ordering: .acquiringAndReleasing)
        while true {
            if filling == nil {
                guard let next = state.withLock({ s -> QueueBuffer? in s.recordQueue.first }) else { break }
                // A packetized buffer starts where the packets before it end: the encoder's
                // look-ahead takes frames early, and the times must still run on without a
                // gap (0, 4096, 8192 … for buffers of four AAC packets).
                filling = (next, 0, 0, 0, pcm != nil ? recordedFrames : encodedFrames)
            }
            let full = pcm != nil ? fillPCM(samples) : fillPackets(samples)
            guard full || (flushing && filling!.bytes > 0) else { break }
            complete()
        }
        if flushing {
            // Stopped: what is left of the recording is dropped, and so are any frames
            // the encoder holds; the buffers still enqueued stay for the next start.
            samples.clear()
            codec.withLock { $0?.reset() }
            recordedFrames = 0
            encodedFrames = 0
            recordedFramesAtomic.store(0, ordering: .releasing)
        }
    }

    /// Linear PCM: frames copied until the buffer holds all it can.
    private func fillPCM(_ samples: SampleRing) -> Bool {
        guard let pcm, var f = filling else { return false }
        let fit = f.buffer.capacity / pcm.bytesPerFrame
        guard fit > 0 else { return true }
        var scratch = recordScratch
        if scratch.count < 4096 * channels { scratch = [Float](repeating: 0, count: 4096 * channels) }
        while f.frames < fit {
            let n = scratch.withUnsafeMutableBufferPointer {
                samples.take(into: $0.baseAddress!, frames: min(fit - f.frames, 4096))
            }
            if n == 0 { break }
            scratch.withUnsafeBufferPointer { pcm.encode($0.baseAddress!, frames: n, into: [f.buffer.data], at: f.frames) }
            f.frames += n
            f.packets += n
            f.bytes = f.frames * pcm.bytesPerFrame
            advanceRecorded(n)
        }
        recordScratch = scratch
        filling = f
        return f.frames == fit
    }

    /// A packetized format (AAC): whole packets from the encoder, each with its
    /// description. A buffer holds as many packets as fit at the largest packet size, so
    /// its duration is the same whatever the sound (silence makes tiny packets).
    private func fillPackets(_ samples: SampleRing) -> Bool {
        guard var f = filling, let store = f.buffer.descriptionStore else { return true }
        let room = f.buffer.storeCapacity
        var full = false
        codec.withLock { converter in
            guard let converter else { full = true; return }
            let largest = converter.maximumOutputPacketSize
            var scratch = recordScratch
            let description = UnsafeMutablePointer<PacketDescription>.allocate(capacity: 1)
            defer { description.deallocate() }
            let packetsPerBuffer = max(1, f.buffer.capacity / max(1, largest))
            while true {
                guard f.packets < packetsPerBuffer, f.buffer.capacity - f.bytes >= largest, f.packets < room else {
                    full = true
                    break
                }
                var took = 0
                let result = try? converter.fill(packets: 1, into: [(f.buffer.data + f.bytes, f.buffer.capacity - f.bytes)],
                                                 descriptions: description) { want in
                    let frames = min(max(want, 1), 4096)
                    if scratch.count < frames * channels { scratch = [Float](repeating: 0, count: frames * channels) }
                    let n = scratch.withUnsafeMutableBufferPointer { samples.take(into: $0.baseAddress!, frames: frames) }
                    if n == 0 { return .failed(1) }
                    took += n
                    return scratch.withUnsafeBytes { bytes in
                        .packets(buffers: [bytes.baseAddress!], byteSizes: [n * channels * 4], count: n, descriptions: nil)
                    }
                }
                advanceRecorded(took)
                guard let result, result.packets > 0 else { break }
                let entry = store + f.packets * QueueBuffer.descriptionBytes
                entry.storeBytes(of: Int64(f.bytes), as: Int64.self)
                entry.storeBytes(of: UInt32(0), toByteOffset: 8, as: UInt32.self)
                entry.storeBytes(of: description.pointee.byteSize, toByteOffset: 12, as: UInt32.self)
                f.bytes += Int(description.pointee.byteSize)
                f.packets += 1
            }
            recordScratch = scratch
        }
        filling = f
        return full
    }

    private func advanceRecorded(_ frames: Int) {
        recordedFrames += Double(frames)
        recordedFramesAtomic.store(Int(recordedFrames), ordering: .releasing)
    }

    /// The buffer being filled goes to the program.
    private func complete() {
        guard let f = filling else { return }
        filling = nil
        f.buffer.byteSize = f.bytes
        let packetized = pcm == nil
        if packetized && f.buffer.descriptionCapacity > 0 { f.buffer.descriptionCount = f.packets }
        if packetized { encodedFrames += Double(f.packets * Int(max(1, format.framesPerPacket))) }
        let live = state.withLock { s -> Bool in
            if let index = s.recordQueue.firstIndex(of: f.buffer) { s.recordQueue.remove(at: index) }
            s.enqueued.remove(f.buffer.key)
            return !s.disposed
        }
        guard live else { return }
        state.withLock {
            $0.events.append(.input(f.buffer, packets: f.packets, descriptions: packetized ? f.buffer.descriptionStore : nil,
                                    sampleTime: f.start, hostTime: IOThread.hostTime()))
        }
    }

    /// AudioQueue's encoder's cookie (recording AAC) or the one the program set (playing).
    public var magicCookie: [UInt8] {
        if direction == .input { return codec.withLock { $0?.magicCookie } ?? [] }
        return state.withLock { $0.cookie }
    }

    public func setMagicCookie(_ cookie: [UInt8]) throws(QueueError) {
        guard direction == .output else { throw .invalidPropertyValue }
        guard pcm == nil else {
            state.withLock { $0.cookie = cookie }
            return
        }
        do throws(AudioFileStatus) {
            try codec.withLock { c throws(AudioFileStatus) in try c?.setDecompressionCookie(cookie) }
        } catch {
            throw .invalidPropertyValue
        }
        state.withLock { $0.cookie = cookie }
    }

    /// The largest packet the queue makes or takes (kAudioQueueProperty_MaximumOutputPacketSize).
    public var maximumPacketSize: Int {
        if let pcm { return pcm.bytesPerFrame }
        if direction == .input { return codec.withLock { $0?.maximumOutputPacketSize } ?? 0 }
        return format.bytesPerPacket > 0 ? Int(format.bytesPerPacket) : 6144 / 8 * channels + 64
    }
}
