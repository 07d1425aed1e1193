import CVoiceProcessing
import AudioStreams

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
/// The filter is fed, beside each recorded sample, the played sample `lead` samples
/// earlier: the one the speaker was playing when the microphone heard that sample, a
/// little earlier still. Every echo comes after it, by the room's own delay, which the
/// filter learns once and keeps.
///
/// Where played and recorded samples meet is the device's to say, not a count of
/// periods: a late period makes playback run dry and start again later, and from then
/// on every echo comes later by as much. A filter that learnt one delay cancels little
/// of another, and relearning needs the near end quiet, which a call does not promise.
/// So the device is asked how many frames wait in each direction (`align`): the
/// lead, or the silence the device played, follows it at once, talker or not; and the
/// filter's shift watch puts right the sample or two such a count may be off.
public final class EchoCanceller {
    private let processor: OpaquePointer
    private let linear: LinearEchoFilter
    private let frame: Int
    private var automaticGain: Bool

    /// Everything played lately (mono), by sample number modulo `historyCapacity`.
    private let history: UnsafeMutablePointer<Float>
    private let historyCapacity: Int
    private var played = 0
    /// Recorded sample `r`'s far-end partner is played sample `r - lead`. The two are
    /// numbered apart (heard frames skipped, silence the device played put in), so the
    /// lead may even be negative; what holds is that the partner was played.
    private var lead: Int
    private let period: Int
    /// The farthest behind the latest played sample a partner can lie: more than any
    /// device holds in both directions. The history keeps that much.
    private let farthest: Int
    /// Samples by which the far end leads the instant of hearing: the measurement's own
    /// rounding (each direction's clock counts whole frames) must never put it after.
    private static let margin = 8
    /// Whether the device has said where the two ends meet yet.
    private var measured = false
    private let aligned: UnsafeMutablePointer<Float>
    private let near: UnsafeMutablePointer<Float>
    private var nearFill = 0
    private var recorded = 0
    /// Processed near-end samples waiting to be handed out (a ring).
    private let processed: UnsafeMutablePointer<Float>
    private let capacity: Int
    private var readAt = 0
    private var count: Int

    /// Whether the WebRTC audio processing library is installed (loaded on the first call).
    public static var isAvailable: Bool { VoiceProcessingAvailable() != 0 }

    /// nil when the library refuses the rate or is not installed.
    public init?(sampleRate: Double, period: Int, outputLatencyFrames: Int, automaticGain: Bool) {
        guard let made = VoiceProcessorCreate(Int32(sampleRate), automaticGain ? 1 : 0) else { return nil }
        processor = made
        self.automaticGain = automaticGain
        frame = Int(VoiceProcessorFrameLength(made))
        // Until the device says otherwise: a played sample waits at least a period in the
        // device's buffer, and a recorded one a period before it reaches us, so a lead of
        // one period is never too late. The filter then spans the rest of the device's
        // buffer, the capture period and the room's own echo, whose strong part is over
        // within about 150 ms; once the device has said, only the room's echo remains.
        self.period = period
        farthest = period + 4 * outputLatencyFrames + 4 * period + 4096
        lead = period + Self.margin
        linear = LinearEchoFilter(tail: outputLatencyFrames + period + Int(sampleRate * 0.15), maximumFrames: frame)
        historyCapacity = farthest + 2 * period + 2 * frame + 16
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
        aligned.deallocate()
        near.deallocate()
        processed.deallocate()
    }

    /// What is about to be played, as the device takes it (`frames` interleaved 16-bit
    /// frames of `channels`, the program's sound and the system sounds mixed into it),
    /// averaged to mono.
    public func farEnd(_ samples: UnsafePointer<Int16>, channels: Int, frames: Int) {
        let scale = 1 / (32768 * Float(channels))
        for i in 0..<frames {
            var sum: Float = 0
            for c in 0..<channels { sum += Float(samples[i * channels + c]) }
            history[played % historyCapacity] = sum * scale
            played += 1
        }
    }

    /// Where the two ends meet, as the device says just after `frames` recorded frames
    /// were read and before they are given to `nearEnd`: `roundTrip` frames are in the
    /// device, written and not yet played plus heard and not yet read. So the sample
    /// being played now is `played - playbackDelay`, and the one being heard now is
    /// `recorded + frames + captureDelay`.
    ///
    /// Between two slips of the device (`slipped`: it ran dry or over) the two ends keep
    /// their distance, whatever the measurements say (each direction counts whole
    /// frames, and some devices move their pointers a period at a time). So the lead is
    /// taken at the start and after a slip only; the filter's shift watch puts right the
    /// few samples a measurement may be off.
    ///
    /// A slip that makes the echo come later is playback that ran dry: the speaker was
    /// silent for a while, then played the period written after it (the last one given
    /// to `farEnd`). What it played is then what was written with that silence before
    /// the last period: so the silence goes into the far end there, and the lead stays.
    /// Echoes of what was played before the slip keep theirs.
    ///
    /// Heard frames the device skipped unread (`roundTrip.skippedCapture`) bring every
    /// later recorded sample that much nearer its partner. The first measurement waits
    /// for the first period played: the silence the device queues ahead of it counts.
    public func align(_ roundTrip: RoundTrip, frames: Int, slipped: Bool) {
        // Once, after every move below: refilling the filter's span transforms all of it.
        var moved = false
        defer { if moved { reloadFilter() } }
        if measured && roundTrip.skippedCapture > 0 {
            lead -= roundTrip.skippedCapture
            moved = true
        }
        guard slipped || !measured, played > 0 else { return }
        // The partner of the next sample heard lies this far behind the latest played.
        let distance = roundTrip.frames + Self.margin
        guard distance >= 0 && distance <= farthest else { return }
        let measuredLead = recorded + frames + distance - played
        let gap = measuredLead - lead
        if measured && gap > 0 && gap < historyCapacity / 4 && played >= period {
            // The last period moves `gap` samples on; silence where it was.
            for k in stride(from: period - 1, through: 0, by: -1) {
                let from = played - period + k
                history[(from + gap) % historyCapacity] = history[from % historyCapacity]
            }
            for k in 0..<gap { history[(played - period + k) % historyCapacity] = 0 }
            played += gap
        } else {
            lead = measuredLead
        }
        if measured && gap != 0 { moved = true }
        measured = true
    }

    /// After the far end moved against the recording: the filter's span refilled with
    /// what was played before the next far sample it is given.
    private func reloadFilter() {
        let next = recorded - nearFill - lead
        linear.reload { playedSample(next - $0) }
    }

    /// Replaces what was recorded (`frames` interleaved frames of `channels`) by the
    /// processed near end on every channel; with `bypass`, leaves it as recorded (the
    /// filter still learns the echo path, so switching back is seamless).
    public func nearEnd(_ samples: UnsafeMutablePointer<Float>, channels: Int, frames: Int, bypass: Bool, gain: Bool) {
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
                alignFarEnd(endingAt: recorded - lead)
                linear.process(near, far: aligned, count: frame)
                if linear.shift != 0 {
                    lead += linear.shift
                    linear.shift = 0
                    reloadFilter()
                }
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
}
