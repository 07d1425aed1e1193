import Glibc

/// AUDelay: each channel's input comes back after the delay time, through a one-pole
/// low-pass at the cutoff, and is fed back by the feedback (negative inverts each
/// repeat). Dry and delayed signal are joined by an equal-power crossfade. The lines hold
/// the longest delay (2 s) from Initialize on.
final class Delay: EffectKernel {
    static let mix = 0, time = 1, feedback = 2, cutoff = 3
    private let rate: Double
    private let channels: Int
    private let length: Int
    private let lines: UnsafeMutablePointer<Float>
    private let smoothed: UnsafeMutablePointer<Float>
    private var write = 0

    init(_ setup: EffectSetup) {
        rate = setup.sampleRate
        channels = max(1, setup.channels)
        length = Int(2 * setup.sampleRate) + 4
        lines = .allocate(capacity: length * channels)
        lines.initialize(repeating: 0, count: length * channels)
        smoothed = .allocate(capacity: channels)
        smoothed.initialize(repeating: 0, count: channels)
    }

    deinit {
        lines.deallocate()
        smoothed.deallocate()
    }

    func reset() {
        lines.update(repeating: 0, count: length * channels)
        smoothed.update(repeating: 0, count: channels)
    }

    func process(_ buffers: UnsafePointer<UnsafeMutablePointer<Float>>, count: Int, frames: Int,
                 parameters: UnsafeMutablePointer<Float>) {
        let angle = Double.pi / 2 * Double(parameters[Delay.mix]) / 100
        let dry = Float(cos(angle)), wet = Float(sin(angle))
        let delay = min(Double(length - 3), max(1, Double(parameters[Delay.time]) * rate))
        let whole = Int(delay), fraction = Float(delay - Double(whole))
        let feedback = parameters[Delay.feedback] / 100
        let k = Float(1 - exp(-2 * Double.pi * Double(parameters[Delay.cutoff]) / rate))
        let start = write, used = min(count, channels), length = self.length, lines = self.lines
        // Channels two at a time: the smoothing is a chain of dependent operations, and a
        // second line's chain beside it runs in the time of one.
        var c = 0
        while c < used {
            let pair = c + 1 < used
            let one = lines + c * length, other = pair ? one + length : one
            let first = buffers[c], second = pair ? buffers[c + 1] : buffers[c]
            var at = start, low = smoothed[c], low2 = pair ? smoothed[c + 1] : 0
            // low + (back - low)·k as low·(1 - k) + back·k: back·k does not wait for low.
            let keep = 1 - k
            for i in 0..<frames {
                var older = at - whole - 1, newer = at - whole
                if older < 0 { older += length }
                if newer < 0 { newer += length }
                let back = one[newer] + (one[older] - one[newer]) * fraction
                low = low * keep + back * k
                let x = first[i]
                one[at] = x + feedback * low
                first[i] = dry * x + wet * low
                if pair {
                    let back2 = other[newer] + (other[older] - other[newer]) * fraction
                    low2 = low2 * keep + back2 * k
                    let x2 = second[i]
                    other[at] = x2 + feedback * low2
                    second[i] = dry * x2 + wet * low2
                }
                at += 1
                if at == length { at = 0 }
            }
            smoothed[c] = abs(low) < 1e-30 ? 0 : low
            if pair { smoothed[c + 1] = abs(low2) < 1e-30 ? 0 : low2 }
            c += pair ? 2 : 1
        }
        write = (start + frames) % length
    }
}

/// AUReverb2: a feedback delay network of eight lines whose lengths spread from the
/// minimum to the maximum delay time (each moved by up to a tenth by a pseudo-random
/// sequence the randomize-reflections value seeds), mixed by a Householder matrix. Each
/// line's loop gain and one-pole filter make the sound fall by 60 dB in the decay time at
/// 0 Hz for low frequencies and in the decay time at Nyquist for the highest. The wet
/// signal is scaled so its level does not grow with the decay; dry and wet are
/// crossfaded linearly, then the gain applies to both.
final class Reverb: EffectKernel {
    static let mix = 0, gain = 1, minimumDelay = 2, maximumDelay = 3, decayLow = 4, decayHigh = 5, seed = 6
    static let lineCount = 8
    typealias Lines = SIMD8<Float>
    private let rate: Double
    private let channels: Int
    private let length: Int
    private let lines: UnsafeMutablePointer<Float>
    /// Per line: its delay in frames.
    private let delays = UnsafeMutablePointer<Int>.allocate(capacity: Reverb.lineCount)
    /// Per line, one lane each: the loop gain times (1 − pole) (what the filter takes of the
    /// line's output), the filter's pole and its last output. The eight lines are one
    /// vector: the network's arithmetic is eight lanes wide.
    private var loop = Lines(), pole = Lines(), filtered = Lines()
    /// The input's sign into each line, alternating (the Householder mix's other half).
    private let inputSigns: Lines
    /// The output's signs of the lines, for channel c's (c mod 3)th pattern: line k counts
    /// negatively where bit (c mod 3) of k is set, so the channels hear unlike sums.
    private let outputSigns: (Lines, Lines, Lines)
    private var outputScale: Float = 1
    private var write = 0
    private var designed: (Float, Float, Float, Float, Float) = (.nan, .nan, .nan, .nan, .nan)

    init(_ setup: EffectSetup) {
        rate = setup.sampleRate
        channels = max(1, setup.channels)
        length = Int(setup.sampleRate * 1.1) + 4
        lines = .allocate(capacity: length * Reverb.lineCount)
        lines.initialize(repeating: 0, count: length * Reverb.lineCount)
        delays.initialize(repeating: 1, count: Reverb.lineCount)
        func signs(_ bit: Int) -> Lines {
            var v = Lines()
            for k in 0..<Reverb.lineCount { v[k] = (k >> bit) & 1 == 0 ? 1 : -1 }
            return v
        }
        inputSigns = signs(0)
        outputSigns = (signs(0), signs(1), signs(2))
    }

    deinit {
        lines.deallocate()
        delays.deallocate()
    }

    func reset() {
        lines.update(repeating: 0, count: length * Reverb.lineCount)
        filtered = Lines()
    }

    /// The lines' lengths and filters for the parameters' values.
    private func design(_ p: UnsafeMutablePointer<Float>) {
        let low = Double(min(p[Reverb.minimumDelay], p[Reverb.maximumDelay]))
        let high = Double(max(p[Reverb.minimumDelay], p[Reverb.maximumDelay]))
        var state = UInt32(max(1, p[Reverb.seed])) &* 2_654_435_761
        var energy = 0.0
        for i in 0..<Reverb.lineCount {
            state = state &* 1_664_525 &+ 1_013_904_223
            let jitter = 1 + 0.1 * (Double(state >> 8) / Double(1 << 24) - 0.5)
            let seconds = low * pow(high / low, Double(i) / Double(Reverb.lineCount - 1)) * jitter
            delays[i] = min(length - 2, max(1, Int(seconds * rate)))
            let frames = Double(delays[i])
            let g0 = pow(10, -3 * frames / (Double(p[Reverb.decayLow]) * rate))
            let gHigh = pow(10, -3 * frames / (Double(p[Reverb.decayHigh]) * rate))
            let r = gHigh / g0
            pole[i] = Float((1 - r) / (1 + r))
            loop[i] = Float(g0) * (1 - pole[i])
            energy += g0 * g0
        }
        outputScale = Float((1 - energy / Double(Reverb.lineCount)).squareRoot() / Double(Reverb.lineCount).squareRoot() * 2)
    }

    func process(_ buffers: UnsafePointer<UnsafeMutablePointer<Float>>, count: Int, frames: Int,
                 parameters: UnsafeMutablePointer<Float>) {
        let now = (parameters[2], parameters[3], parameters[4], parameters[5], parameters[6])
        if now != designed {
            designed = now
            design(parameters)
        }
        let mix = parameters[Reverb.mix] / 100
        let gain = Float(pow(10, Double(parameters[Reverb.gain]) / 20))
        let used = min(count, channels), n = Reverb.lineCount
        let inputScale = 1 / Float(used) / Float(n).squareRoot()
        // Locals for the loop: a class's stored values are loaded again after every store
        // through a pointer.
        let lines = self.lines, delays = self.delays, length = self.length, outputScale = self.outputScale
        let loop = self.loop, pole = self.pole, inputSigns = self.inputSigns, outputSigns = self.outputSigns
        var filtered = self.filtered, write = self.write
        for i in 0..<frames {
            var input: Float = 0
            for c in 0..<used { input += buffers[c][i] }
            input *= inputScale
            var out = Lines()
            for k in 0..<n {
                var at = write - delays[k]
                if at < 0 { at += length }
                out[k] = lines[k * length + at]
            }
            // loop · (1 − pole) · x + pole · previous: the line's gain at 0 Hz and at Nyquist.
            var y = loop * out + pole * filtered
            // A denormal tail costs more than silence.
            y.replace(with: 0, where: (y .< 1e-30) .& (y .> -1e-30))
            filtered = y
            let fed = y - y.sum() * 2 / Float(n) + inputSigns * input
            for k in 0..<n { lines[k * length + write] = fed[k] }
            for c in 0..<used {
                let signs = c % 3 == 0 ? outputSigns.0 : (c % 3 == 1 ? outputSigns.1 : outputSigns.2)
                let wet = (signs * y).sum()
                let x = buffers[c][i]
                buffers[c][i] = gain * (x + (wet * outputScale - x) * mix)
            }
            write += 1
            if write == length { write = 0 }
        }
        self.filtered = filtered
        self.write = write
    }
}

extension EffectDefinition {
    /// kDelayParam_WetDryMix (0 to 100, 50), _DelayTime (0 to 2 s, 1), _Feedback (-100 to
    /// 100 %, 50) and _LopassCutoff (10 Hz to half the rate, 15000).
    public static let delay = EffectDefinition(
        parameters: [
            ParameterSpec(id: 0, name: "Dry Wet Mix", unit: ParameterSpec.crossfade, range: 0...100, defaultValue: 50),
            ParameterSpec(id: 1, name: "Delay Time", unit: ParameterSpec.seconds, range: 0...2, defaultValue: 1),
            ParameterSpec(id: 2, name: "Feedback", unit: ParameterSpec.percent, range: -100...100, defaultValue: 50),
            ParameterSpec(id: 3, name: "Lowpass Cutoff Frequency", unit: ParameterSpec.hertz, minimum: 10,
                          maximum: { Float($0 / 2) }, defaultValue: 15000),
        ],
        tailTime: { value in
            // Until a repeat is 60 dB down.
            let feedback = min(0.999, abs(Double(value(2))) / 100)
            let repeats = feedback > 0 ? 3 / -log10(feedback) : 0
            return Double(value(1)) * (1 + repeats)
        }) { Delay($0) }

    /// kReverb2Param_DryWetMix (0 to 100, 100), _Gain (-20 to 20 dB, 0), _MinDelayTime
    /// and _MaxDelayTime (0.0001 to 1 s, 0.008 and 0.050), _DecayTimeAt0Hz (0.001 to 20 s,
    /// 1) and _DecayTimeAtNyquist (0.001 to 20 s, 0.5), _RandomizeReflections (1 to 1000,
    /// 1). The factory presets set the delays and decay times.
    public static let reverb2 = EffectDefinition(
        parameters: [
            ParameterSpec(id: 0, name: "Dry Wet Mix", unit: ParameterSpec.crossfade, range: 0...100, defaultValue: 100),
            ParameterSpec(id: 1, name: "Gain", unit: ParameterSpec.decibels, range: -20...20, defaultValue: 0),
            ParameterSpec(id: 2, name: "Min Delay Time", unit: ParameterSpec.seconds, range: 0.0001...1, defaultValue: 0.008),
            ParameterSpec(id: 3, name: "Max Delay Time", unit: ParameterSpec.seconds, range: 0.0001...1, defaultValue: 0.050),
            ParameterSpec(id: 4, name: "Decay Time At 0 Hz", unit: ParameterSpec.seconds, range: 0.001...20, defaultValue: 1),
            ParameterSpec(id: 5, name: "Decay Time At Nyquist", unit: ParameterSpec.seconds, range: 0.001...20,
                          defaultValue: 0.5),
            ParameterSpec(id: 6, name: "Randomize Reflections", unit: ParameterSpec.generic, range: 1...1000, defaultValue: 1),
        ],
        presets: reverbPresets,
        tailTime: { value in Double(max(value(4), value(5)) + value(3)) }) { Reverb($0) }

    /// The rooms of AVAudioUnitReverbPreset, in its order: the values are ours.
    static let reverbPresets: [EffectPreset] = reverbRooms.enumerated().map { number, room in
        EffectPreset(number: Int32(number), name: room.name,
                     values: [(2, room.minimum), (3, room.maximum), (4, room.low), (5, room.high)])
    }

    /// Each room's minimum and maximum delay and its decay times at 0 Hz and at Nyquist.
    private static let reverbRooms: [(name: String, minimum: Float, maximum: Float, low: Float, high: Float)] = [
        ("Small Room", 0.003, 0.020, 0.6, 0.3), ("Medium Room", 0.005, 0.030, 0.9, 0.45),
        ("Large Room", 0.008, 0.045, 1.3, 0.6), ("Medium Hall", 0.010, 0.060, 1.8, 1.0),
        ("Large Hall", 0.015, 0.080, 2.6, 1.4), ("Plate", 0.002, 0.025, 1.6, 1.5),
        ("Medium Chamber", 0.006, 0.040, 1.2, 0.9), ("Large Chamber", 0.009, 0.055, 1.8, 1.3),
        ("Cathedral", 0.020, 0.120, 5.0, 2.6), ("Large Room 2", 0.010, 0.050, 1.5, 0.55),
        ("Medium Hall 2", 0.012, 0.065, 2.0, 1.2), ("Medium Hall 3", 0.010, 0.055, 1.6, 0.8),
        ("Large Hall 2", 0.016, 0.090, 3.0, 1.6),
    ]
}
