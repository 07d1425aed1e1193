import CVoiceProcessing

/// VoiceProcessingIO's processing at the device's rate: what the unit plays is the far
/// end, what it records is cleaned of its echo (and levelled, with gain control on) by
/// the WebRTC audio processing library, 10 ms at a time. Made when the stream opens;
/// a period allocates nothing.
///
/// The near end comes out one 10 ms frame later than it went in: recorded periods rarely
/// hold whole frames, so a frame of silence leads the processed audio.
final class EchoCanceller {
    private let processor: OpaquePointer
    private let frame: Int
    private let delayMilliseconds: Int32
    private var automaticGain: Bool

    private let far: UnsafeMutablePointer<Float>
    private var farFill = 0
    private let near: UnsafeMutablePointer<Float>
    private var nearFill = 0
    /// Processed near-end samples waiting to be handed out (a ring).
    private let processed: UnsafeMutablePointer<Float>
    private let capacity: Int
    private var readAt = 0
    private var count: Int

    /// nil when the library refuses the rate.
    init?(sampleRate: Double, period: Int, outputLatencyFrames: Int, automaticGain: Bool) {
        guard let made = VoiceProcessorCreate(Int32(sampleRate), automaticGain ? 1 : 0) else { return nil }
        processor = made
        self.automaticGain = automaticGain
        frame = Int(VoiceProcessorFrameLength(made))
        // Played frames wait in the device's buffer, and recorded ones in its period,
        // before an echo can be matched; the canceller's own estimator refines this.
        delayMilliseconds = Int32((Double(outputLatencyFrames + period) / sampleRate * 1000).rounded())
        far = .filled(0, count: frame)
        near = .filled(0, count: frame)
        capacity = period + 2 * frame + 16
        processed = .filled(0, count: capacity)
        count = frame
    }

    deinit {
        VoiceProcessorDestroy(processor)
        far.deallocate()
        near.deallocate()
        processed.deallocate()
    }

    /// What is about to be played, as the device takes it (`frames` interleaved 16-bit
    /// frames of `channels`, the program's sound and the system sounds mixed into it),
    /// averaged to mono.
    func farEnd(_ samples: UnsafePointer<Int16>, channels: Int, frames: Int) {
        let scale = 1 / (32768 * Float(channels))
        for i in 0..<frames {
            var sum: Float = 0
            for c in 0..<channels { sum += Float(samples[i * channels + c]) }
            far[farFill] = sum * scale
            farFill += 1
            if farFill == frame {
                _ = VoiceProcessorFarEnd(processor, far)
                farFill = 0
            }
        }
    }

    /// Replaces what was recorded (`frames` interleaved frames of `channels`) by the
    /// processed near end on every channel; with `bypass`, leaves it as recorded (the
    /// processor still learns the echo path, so switching back is seamless).
    func nearEnd(_ samples: UnsafeMutablePointer<Float>, channels: Int, frames: Int, bypass: Bool, gain: Bool) {
        if gain != automaticGain {
            _ = VoiceProcessorSetAutomaticGain(processor, gain ? 1 : 0)
            automaticGain = gain
        }
        for i in 0..<frames {
            var sum: Float = 0
            for c in 0..<channels { sum += samples[i * channels + c] }
            near[nearFill] = sum / Float(channels)
            nearFill += 1
            if nearFill == frame {
                _ = VoiceProcessorNearEnd(processor, near, delayMilliseconds)
                for k in 0..<frame { processed[(readAt + count + k) % capacity] = near[k] }
                count += frame
                nearFill = 0
            }
        }
        // Always enough: a frame of lead plus every whole frame recorded so far.
        for i in 0..<frames {
            let value = processed[readAt]
            readAt = (readAt + 1) % capacity
            if !bypass { for c in 0..<channels { samples[i * channels + c] = value } }
        }
        count -= frames
    }
}
