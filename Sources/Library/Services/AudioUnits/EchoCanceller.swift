import CVoiceProcessing

/// VoiceProcessingIO's processing at the device's rate, 10 ms at a time: what the unit
/// plays is the far end; what it records loses the far end's echo (LinearEchoFilter)
/// and is then levelled, with gain control on, and high-passed by the WebRTC audio
/// processing library (CVoiceProcessing). Made when the stream opens; a period
/// allocates nothing.
///
/// The near end comes out one 10 ms frame and one filter block later than it went in:
/// recorded periods rarely hold whole frames, so a frame of silence leads the processed
/// audio, and the filter works in blocks of its own.
///
/// Both ends arrive once per period on the stream's one thread, a period each, capture
/// first; so played sample `m` and recorded sample `n` keep a fixed distance, and the
/// filter is fed, beside each recorded frame, the played frame `lead` samples earlier:
/// early enough that every echo in the recording comes after it.
///
/// That distance holds until the device slips (a late period, an underrun): then the
/// echo arrives a few samples earlier or later, and a filter that has learnt one delay
/// cancels little of the other. Relearning needs the near end quiet, which a call does
/// not promise; so every 100 ms the recording is correlated with the far end around the
/// delay the filter learnt, and when the echo has moved (clearly, or twice running the
/// same way) the far end is moved with it: the filter's model holds again at once,
/// talker or not.
final class EchoCanceller {
    private let processor: OpaquePointer
    private let linear: LinearEchoFilter
    private let frame: Int
    private var automaticGain: Bool

    /// Everything played lately (mono), by sample number modulo `historyCapacity`.
    private let history: UnsafeMutablePointer<Float>
    private let historyCapacity: Int
    private var played = 0
    /// How far before a recorded sample its far-end partner lies.
    private var lead: Int
    private let leastLead: Int
    private let mostLead: Int
    // The slip watch: correlations of the recording with the far end at the filter's
    // delay and `reach` samples either side, over `window` samples.
    private static let reach = 16
    private let correlation: UnsafeMutablePointer<Float>
    private var correlated = 0
    private let window: Int
    private var learntTap = -1
    private var suspectedSlip = 0
    private let aligned: UnsafeMutablePointer<Float>
    private let near: UnsafeMutablePointer<Float>
    private var nearFill = 0
    private var recorded = 0
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
        // The earliest an echo can come back: a played sample waits at least a period in
        // the device's buffer, and a recorded one a period before it reaches us; a lead
        // of one period cannot be too late. The filter then spans the rest of the device
        // buffer, the capture period and the room's own echo, whose strong part is over
        // within about 150 ms. The lead starts a little later than that period, so slips
        // either way can be followed, and never goes below it.
        leastLead = period
        mostLead = period + 4096
        lead = period + 2 * Self.reach
        linear = LinearEchoFilter(tail: outputLatencyFrames + period + Int(sampleRate * 0.15), maximumFrames: frame)
        historyCapacity = mostLead + Self.reach + 2 * period + 2 * frame + 16
        correlation = .filled(0, count: 2 * Self.reach + 1)
        window = Int(sampleRate / 10)
        history = .filled(0, count: historyCapacity)
        aligned = .filled(0, count: frame)
        near = .filled(0, count: frame)
        capacity = period + 2 * frame + 16
        processed = .filled(0, count: capacity)
        count = frame
    }

    deinit {
        VoiceProcessorDestroy(processor)
        history.deallocate()
        correlation.deallocate()
        aligned.deallocate()
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
            history[played % historyCapacity] = sum * scale
            played += 1
        }
    }

    /// Replaces what was recorded (`frames` interleaved frames of `channels`) by the
    /// processed near end on every channel; with `bypass`, leaves it as recorded (the
    /// filter still learns the echo path, so switching back is seamless).
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
            recorded += 1
            if nearFill == frame {
                watchForSlips()
                alignFarEnd(endingAt: recorded - lead)
                linear.process(near, far: aligned, count: frame)
                _ = VoiceProcessorNearEnd(processor, near)
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

    /// The played frame ending just before sample `end`; silence where nothing was
    /// played yet (or, should the two ends ever drift apart, nothing is kept).
    private func alignFarEnd(endingAt end: Int) {
        let start = end - frame
        for k in 0..<frame { aligned[k] = playedSample(start + k) }
    }

    private func playedSample(_ index: Int) -> Float {
        index >= 0 && index < played && played - index <= historyCapacity ? history[index % historyCapacity] : 0
    }

    /// Adds the frame in `near` (as recorded) to the slip watch's correlations; at the end
    /// of a window, moves `lead` when the echo has moved. Once the filter has learnt a
    /// path (before, there is no delay to watch).
    private func watchForSlips() {
        guard linear.adapted else { return }
        if learntTap < 0 || linear.foregroundChanged {
            // The filter's own learning may have followed a slip already.
            let tap = linear.strongestTap()
            if tap != learntTap {
                learntTap = tap
                resetWatch()
                return
            }
        }
        let first = recorded - frame
        let lags = 2 * Self.reach + 1
        for k in 0..<frame {
            let value = near[k]
            let base = first + k - lead - learntTap + Self.reach
            for j in 0..<lags { correlation[j] += value * playedSample(base - j) }
        }
        correlated += frame
        guard correlated >= window else { return }
        var best = Self.reach
        for j in 0..<lags where abs(correlation[j]) > abs(correlation[best]) { best = j }
        let slip = best - Self.reach
        let ratio = abs(correlation[best]) / max(abs(correlation[Self.reach]), .leastNormalMagnitude)
        if slip != 0 && (ratio > 1.5 || (ratio > 1.1 && slip == suspectedSlip)) {
            // Clearly, or twice the same: the echo now comes `slip` samples later than
            // the filter expects; the far end it is given moves by as much.
            lead = min(mostLead, max(leastLead, lead + slip))
            suspectedSlip = 0
        } else {
            suspectedSlip = slip
        }
        resetWatch()
    }

    private func resetWatch() {
        correlation.update(repeating: 0, count: 2 * Self.reach + 1)
        correlated = 0
    }
}
