import Glibc

/// The resonant two-pole filters (AULowPass, AUHipass): a biquad per channel whose
/// response at the cutoff is the resonance, in dB (so 0 dB passes the cutoff at unity and
/// a positive resonance peaks there by that much), falling 12 dB an octave beyond it.
/// Coefficients are the bilinear transform of the analogue prototype, recomputed on the
/// render thread when a parameter moves (no allocation).
final class ResonantFilter: EffectKernel {
    enum Shape { case lowPass, highPass }

    private let shape: Shape
    private let sampleRate: Double
    /// Per channel: the transposed direct form's two state values.
    private let state: UnsafeMutablePointer<Double>
    private let channels: Int
    private var b0 = 1.0, b1 = 0.0, b2 = 0.0, a1 = 0.0, a2 = 0.0
    private var designed: (Float, Float) = (.nan, .nan)

    init(_ shape: Shape, sampleRate: Double, channels: Int) {
        self.shape = shape
        self.sampleRate = sampleRate
        self.channels = channels
        state = .allocate(capacity: 2 * max(1, channels))
        state.initialize(repeating: 0, count: 2 * max(1, channels))
    }

    deinit { state.deallocate() }

    func reset() { state.update(repeating: 0, count: 2 * max(1, channels)) }

    /// parameters[0]: cutoff in Hz; parameters[1]: resonance in dB.
    func process(_ buffers: UnsafePointer<UnsafeMutablePointer<Float>>, count: Int, frames: Int,
                 parameters: UnsafePointer<Float>) {
        if designed != (parameters[0], parameters[1]) { design(cutoff: parameters[0], resonance: parameters[1]) }
        for c in 0..<min(count, channels) {
            let samples = buffers[c]
            var z1 = state[2 * c], z2 = state[2 * c + 1]
            for i in 0..<frames {
                let x = Double(samples[i])
                let y = b0 * x + z1
                z1 = b1 * x - a1 * y + z2
                z2 = b2 * x - a2 * y
                samples[i] = Float(y)
            }
            // A denormal tail costs more than silence: flush it.
            state[2 * c] = abs(z1) < 1e-30 ? 0 : z1
            state[2 * c + 1] = abs(z2) < 1e-30 ? 0 : z2
        }
    }

    private func design(cutoff: Float, resonance: Float) {
        designed = (cutoff, resonance)
        let f0 = min(max(Double(cutoff), 10), 0.49 * sampleRate)
        let q = pow(10, Double(resonance) / 20)
        let w0 = 2 * Double.pi * f0 / sampleRate
        let cosine = cos(w0), alpha = sin(w0) / (2 * q)
        let a0 = 1 + alpha
        switch shape {
        case .lowPass:
            b0 = (1 - cosine) / 2 / a0
            b1 = (1 - cosine) / a0
        case .highPass:
            b0 = (1 + cosine) / 2 / a0
            b1 = -(1 + cosine) / a0
        }
        b2 = b0
        a1 = -2 * cosine / a0
        a2 = (1 - alpha) / a0
    }
}

extension EffectDefinition {
    /// The cutoff (kLowPassParam_CutoffFrequency, kHipassParam_CutoffFrequency: 10 Hz to
    /// half the rate, 6900 by default) and the resonance (_Resonance: -20 to 40 dB, 0).
    private static func resonantParameters() -> [ParameterSpec] {
        [ParameterSpec(id: 0, name: "Cutoff Frequency", unit: ParameterSpec.hertz, minimum: 10,
                       maximum: { Float($0 / 2) }, defaultValue: 6900),
         ParameterSpec(id: 1, name: "Resonance", unit: ParameterSpec.decibels, minimum: -20, maximum: { _ in 40 },
                       defaultValue: 0)]
    }

    public static let lowPass = EffectDefinition(parameters: resonantParameters()) {
        ResonantFilter(.lowPass, sampleRate: $0, channels: $1)
    }
    public static let highPass = EffectDefinition(parameters: resonantParameters()) {
        ResonantFilter(.highPass, sampleRate: $0, channels: $1)
    }
}
