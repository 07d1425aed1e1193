import Glibc

/// The one mixing engine of the library: how a voice (a mixer unit's bus, an
/// AVAudioPlayer's sound, a system sound) is scaled, ramped, panned, measured and summed
/// into a stereo mix. The multichannel mixer's render, the players' mix and the system
/// sounds' mix all call it, so a gain ramp or a pan law is written once. Everything here
/// runs on real-time threads: no allocation, no lock.
public enum VoiceMix {
    /// A voice's levels over one call: the mean of the squares and the peak of each side.
    public struct Levels {
        public var meanSquare: (left: Float, right: Float) = (0, 0)
        public var peak: (left: Float, right: Float) = (0, 0)
    }

    /// The gains of the two sides for `pan` (-1 left ... 1 right): the far side falls
    /// linearly, the near one stays whole. A mono output has no sides.
    public static func sides(pan: Float, outputChannels: Int = 2) -> (left: Float, right: Float) {
        let p = outputChannels == 1 ? 0 : max(-1, min(1, pan))
        return (min(1, 1 - p), min(1, 1 + p))
    }

    /// Adds `frames` frames of `samples` (one or two channels, interleaved) into the
    /// stereo `sum`: at `gain`, or at `ramp[f]` for each frame when a gain moves, times
    /// the sides of `pan`. A mono voice goes to both sides. With `measure`, returns its
    /// levels before the gain and after it (each frame at its own gain while one moves);
    /// else zeros.
    @discardableResult
    public static func add(_ samples: UnsafePointer<Float>, channels: Int, frames: Int,
                           into sum: UnsafeMutablePointer<Float>, gain: Float, ramp: UnsafePointer<Float>? = nil,
                           sides: (left: Float, right: Float), measure: Bool) -> (before: Levels, after: Levels) {
        var before = Levels(), after = Levels()
        let last = channels - 1
        if measure && frames > 0 {
            var sumL: Float = 0, sumR: Float = 0, peakL: Float = 0, peakR: Float = 0
            var gainedL: Float = 0, gainedR: Float = 0, gainedPeakL: Float = 0, gainedPeakR: Float = 0
            for f in 0..<frames {
                let l = samples[f * channels], r = samples[f * channels + last]
                let g = ramp?[f] ?? gain
                let gl = l * g * sides.left, gr = r * g * sides.right
                sumL += l * l
                sumR += r * r
                peakL = max(peakL, abs(l))
                peakR = max(peakR, abs(r))
                gainedL += gl * gl
                gainedR += gr * gr
                gainedPeakL = max(gainedPeakL, abs(gl))
                gainedPeakR = max(gainedPeakR, abs(gr))
            }
            let n = Float(frames)
            before = Levels(meanSquare: (sumL / n, sumR / n), peak: (peakL, peakR))
            after = Levels(meanSquare: (gainedL / n, gainedR / n), peak: (gainedPeakL, gainedPeakR))
        }
        if let ramp {
            for f in 0..<frames {
                let g = ramp[f]
                sum[2 * f] += samples[f * channels] * g * sides.left
                sum[2 * f + 1] += samples[f * channels + last] * g * sides.right
            }
        } else if gain != 0 {
            let gl = gain * sides.left, gr = gain * sides.right
            for f in 0..<frames {
                sum[2 * f] += samples[f * channels] * gl
                sum[2 * f + 1] += samples[f * channels + last] * gr
            }
        }
        return (before, after)
    }

    /// The stereo `sum` as 16-bit samples at `gain`, saturating as an analogue mix clips
    /// instead of wrapping.
    public static func saturate(_ sum: UnsafePointer<Float>, count: Int, gain: Float, into out: UnsafeMutablePointer<Int16>) {
        for i in 0..<count {
            let scaled = (sum[i] * gain * 32768).rounded()
            out[i] = Int16(max(-32768, min(32767, scaled)))
        }
    }
}

/// A voice's gain as the mix applies it: where it is, and a change under way (a step, or
/// a ramp over some frames, starting some frames into the call that first sees it).
public struct VoiceGain {
    public private(set) var current: Float
    private var target: Float
    private var delay = 0
    private var pending = false
    private var rampFrom: Float?
    private var rampFrames = 0
    private var step: Float = 0
    private var rampLeft = 0

    public init(_ gain: Float) {
        current = gain
        target = gain
    }

    /// A change to `target`: `delay` frames from the next frame, then over `rampFrames`
    /// frames (0: at once), from `rampFrom` if given, else from where it is then.
    public mutating func change(to target: Float, delay: Int = 0, rampFrom: Float? = nil, rampFrames: Int = 0) {
        self.target = target
        self.delay = delay
        self.rampFrom = rampFrom
        self.rampFrames = rampFrames
        pending = true
    }

    /// The gain of each of the next `frames` frames, into `gains`; false (nothing
    /// written) when it is `current` throughout.
    public mutating func advance(frames: Int, into gains: UnsafeMutablePointer<Float>) -> Bool {
        guard pending || rampLeft > 0 else { return false }
        for i in 0..<frames {
            if pending {
                if delay > 0 {
                    delay -= 1
                } else {
                    pending = false
                    if rampFrames > 0 {
                        current = rampFrom ?? current
                        step = (target - current) / Float(rampFrames)
                        rampLeft = rampFrames
                    } else {
                        current = target
                        rampLeft = 0
                    }
                }
            }
            if rampLeft > 0 {
                current += step
                rampLeft -= 1
                if rampLeft == 0 { current = target }
            }
            gains[i] = current
        }
        return true
    }
}

/// A level as a mix keeps it for a meter: the mean square, smoothed over about 50 ms,
/// and the peak, held for half a second.
public struct Meter {
    public private(set) var meanSquare: Float = 0
    public private(set) var peak: Float = 0
    private var heldFrames = 0

    public init() {}

    public mutating func take(meanSquare now: Float, peak framePeak: Float, frames: Int, rate: Double) {
        let alpha = Float(1 - exp(-Double(frames) / (0.05 * rate)))
        meanSquare += (now - meanSquare) * alpha
        if framePeak >= peak || heldFrames > Int(rate / 2) {
            peak = framePeak
            heldFrames = 0
        } else {
            heldFrames += frames
        }
    }
}
