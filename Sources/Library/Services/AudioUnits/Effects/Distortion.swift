import Glibc

/// AUDistortion: five stages in a row, each joined to what it was given by its own mix
/// (in percent), then the whole joined to the input by the final mix:
/// 1. a short echo (the delay in ms; each repeat is 2^−decay of the one before);
/// 2. a sample-and-hold at a lower rate (decimation: at 100 % a sample is held for about
///    a hundred), rounded to fewer bits (rounding: 16 bits at 0 %, 1 at 100 %);
/// 3. a polynomial: linear·x + squared·x² + cubic·x³;
/// 4. a ring modulator: x times a blend (the balance) of two sines;
/// 5. a soft clip: tanh of x times the soft-clip gain.
final class Distortion: EffectKernel {
    static let delay = 0, decay = 1, delayMix = 2, decimation = 3, rounding = 4, decimationMix = 5, linear = 6,
               squared = 7, cubic = 8, polynomialMix = 9, ringFrequency1 = 10, ringFrequency2 = 11, ringBalance = 12,
               ringMix = 13, softClipGain = 14, finalMix = 15
    private let rate: Double
    private let channels: Int
    private let length: Int
    private let lines: UnsafeMutablePointer<Float>
    /// Per channel: the held sample and the hold's phase.
    private let held: UnsafeMutablePointer<Float>
    private let holdPhase: UnsafeMutablePointer<Float>
    private var write = 0
    private var phase1 = 0.0, phase2 = 0.0

    init(_ setup: EffectSetup) {
        rate = setup.sampleRate
        channels = max(1, setup.channels)
        length = Int(0.5 * setup.sampleRate) + 4
        lines = .allocate(capacity: length * channels)
        lines.initialize(repeating: 0, count: length * channels)
        held = .allocate(capacity: channels)
        held.initialize(repeating: 0, count: channels)
        holdPhase = .allocate(capacity: channels)
        holdPhase.initialize(repeating: 1, count: channels)
    }

    deinit {
        lines.deallocate()
        held.deallocate()
        holdPhase.deallocate()
    }

    func reset() {
        lines.update(repeating: 0, count: length * channels)
        held.update(repeating: 0, count: channels)
        holdPhase.update(repeating: 1, count: channels)
    }

    func process(_ buffers: UnsafePointer<UnsafeMutablePointer<Float>>, count: Int, frames: Int,
                 parameters: UnsafeMutablePointer<Float>) {
        let p = parameters
        func mix(_ i: Int) -> Float { p[i] / 100 }
        let delay = min(length - 2, max(1, Int(Double(p[Distortion.delay]) / 1000 * rate)))
        let feedback = Float(pow(2, -Double(p[Distortion.decay])))
        let step = 1 - 0.99 * mix(Distortion.decimation)
        let levels = Float(pow(2, 15 - 15 * Double(mix(Distortion.rounding))))
        let (a, b, c) = (p[Distortion.linear], p[Distortion.squared], p[Distortion.cubic])
        let balance = mix(Distortion.ringBalance)
        let drive = Float(pow(10, Double(p[Distortion.softClipGain]) / 20))
        let increment1 = 2 * Double.pi * Double(p[Distortion.ringFrequency1]) / rate
        let increment2 = 2 * Double.pi * Double(p[Distortion.ringFrequency2]) / rate
        let (m1, m2, m3, m4, m5) = (mix(Distortion.delayMix), mix(Distortion.decimationMix), mix(Distortion.polynomialMix),
                                    mix(Distortion.ringMix), mix(Distortion.finalMix))
        for channel in 0..<min(count, channels) {
            let line = lines + channel * length, samples = buffers[channel]
            var at = write, hold = held[channel], holding = holdPhase[channel]
            for i in 0..<frames {
                let x = samples[i]
                var back = at - delay
                if back < 0 { back += length }
                let echo = line[back]
                line[at] = x + feedback * echo
                at += 1
                if at == length { at = 0 }
                let s1 = x + (echo - x) * m1
                holding += step
                if holding >= 1 {
                    holding -= 1
                    hold = (s1 * levels).rounded() / levels
                }
                let s2 = s1 + (hold - s1) * m2
                let s3 = s2 + (s2 * (a + s2 * (b + s2 * c)) - s2) * m3
                var s4 = s3
                if m4 > 0 {
                    let carrier = Float(Double(balance) * sin(phase1 + Double(i) * increment1)
                                        + Double(1 - balance) * sin(phase2 + Double(i) * increment2))
                    s4 += (s3 * carrier - s3) * m4
                }
                let s5 = tanh(s4 * drive)
                samples[i] = x + (s5 - x) * m5
            }
            held[channel] = hold
            holdPhase[channel] = holding
        }
        write = (write + frames) % length
        phase1 = (phase1 + Double(frames) * increment1).truncatingRemainder(dividingBy: 2 * Double.pi)
        phase2 = (phase2 + Double(frames) * increment2).truncatingRemainder(dividingBy: 2 * Double.pi)
    }
}

extension EffectDefinition {
    /// kDistortionParam_...: Delay (0.1 to 500 ms, 0.1), Decay (0.1 to 50, 1), DelayMix
    /// (%, 50), Decimation (%, 50: the header gives no default; this is ours), Rounding
    /// (%, 0), DecimationMix (%, 50), LinearTerm (0 to 1, 1), SquaredTerm and CubicTerm (0
    /// to 20, 0), PolynomialMix (%, 50), RingModFreq1 and 2 (0.5 to 8000 Hz, 100),
    /// RingModBalance (%, 50), RingModMix (%, 0), SoftClipGain (-80 to 20 dB, -6) and
    /// FinalMix (%, 50).
    public static let distortion = EffectDefinition(parameters: [
        ParameterSpec(id: 0, name: "Delay", unit: ParameterSpec.milliseconds, range: 0.1...500, defaultValue: 0.1),
        ParameterSpec(id: 1, name: "Decay", unit: ParameterSpec.rate, range: 0.1...50, defaultValue: 1),
        ParameterSpec(id: 2, name: "Delay Mix", unit: ParameterSpec.percent, range: 0...100, defaultValue: 50),
        ParameterSpec(id: 3, name: "Decimation", unit: ParameterSpec.percent, range: 0...100, defaultValue: 50),
        ParameterSpec(id: 4, name: "Rounding", unit: ParameterSpec.percent, range: 0...100, defaultValue: 0),
        ParameterSpec(id: 5, name: "Decimation Mix", unit: ParameterSpec.percent, range: 0...100, defaultValue: 50),
        ParameterSpec(id: 6, name: "Linear Term", unit: ParameterSpec.linearGain, range: 0...1, defaultValue: 1),
        ParameterSpec(id: 7, name: "Squared Term", unit: ParameterSpec.linearGain, range: 0...20, defaultValue: 0),
        ParameterSpec(id: 8, name: "Cubic Term", unit: ParameterSpec.linearGain, range: 0...20, defaultValue: 0),
        ParameterSpec(id: 9, name: "Polynomial Mix", unit: ParameterSpec.percent, range: 0...100, defaultValue: 50),
        ParameterSpec(id: 10, name: "Ring Mod Freq 1", unit: ParameterSpec.hertz, range: 0.5...8000, defaultValue: 100),
        ParameterSpec(id: 11, name: "Ring Mod Freq 2", unit: ParameterSpec.hertz, range: 0.5...8000, defaultValue: 100),
        ParameterSpec(id: 12, name: "Ring Mod Balance", unit: ParameterSpec.percent, range: 0...100, defaultValue: 50),
        ParameterSpec(id: 13, name: "Ring Mod Mix", unit: ParameterSpec.percent, range: 0...100, defaultValue: 0),
        ParameterSpec(id: 14, name: "Soft Clip Gain", unit: ParameterSpec.decibels, range: -80...20, defaultValue: -6),
        ParameterSpec(id: 15, name: "Final Mix", unit: ParameterSpec.percent, range: 0...100, defaultValue: 50),
    ]) { Distortion($0) }
}
