import Glibc

/// The two-pole filters of the phone's effects (AULowpass, AUHipass, AUBandpass, the two
/// shelves, AUParametricEQ): a biquad per channel, each the bilinear transform of an
/// analogue second-order section whose response the unit's parameters name (see each
/// design below and docs/API.md, "Effects"). Coefficients are designed again on the
/// render thread when a parameter moves; nothing is allocated there.
final class BiquadFilter: EffectKernel {
    /// Normalised coefficients (a0 = 1).
    struct Coefficients {
        var b0 = 1.0, b1 = 0.0, b2 = 0.0, a1 = 0.0, a2 = 0.0
    }
    /// Designs the coefficients for a sample rate from the parameters' values.
    typealias Design = @Sendable (_ sampleRate: Double, _ parameters: UnsafePointer<Float>) -> Coefficients

    private let design: Design
    private let parameterCount: Int
    private let sampleRate: Double
    /// Per channel: the transposed direct form's two state values.
    private let state: UnsafeMutablePointer<Double>
    private let channels: Int
    private var c = Coefficients()
    /// The values the coefficients were designed for (NaN: not yet).
    private var designed: (Float, Float, Float) = (.nan, .nan, .nan)

    init(_ design: @escaping Design, parameterCount: Int, sampleRate: Double, channels: Int) {
        self.design = design
        self.parameterCount = parameterCount
        self.sampleRate = sampleRate
        self.channels = channels
        state = .allocate(capacity: 2 * max(1, channels))
        state.initialize(repeating: 0, count: 2 * max(1, channels))
    }

    deinit { state.deallocate() }

    func reset() { state.update(repeating: 0, count: 2 * max(1, channels)) }

    func process(_ buffers: UnsafePointer<UnsafeMutablePointer<Float>>, count: Int, frames: Int,
                 parameters: UnsafeMutablePointer<Float>) {
        let now = (parameters[0], parameterCount > 1 ? parameters[1] : 0, parameterCount > 2 ? parameters[2] : 0)
        if now != designed {
            designed = now
            c = design(sampleRate, UnsafePointer(parameters))
        }
        let used = min(count, channels)
        var channel = 0
        // Two channels a loop: each section is one long chain of dependent operations, and
        // a second independent chain beside it nearly halves the time per sample.
        while channel + 1 < used {
            BiquadFilter.run(c, buffers[channel], buffers[channel + 1], frames: frames, state: state + 2 * channel)
            channel += 2
        }
        if channel < used { BiquadFilter.run(c, buffers[channel], frames: frames, state: state + 2 * channel) }
    }

    /// Two channels through the same section, side by side, their states at `state` (first
    /// the one's two values, then the other's).
    static func run(_ c: Coefficients, _ left: UnsafeMutablePointer<Float>, _ right: UnsafeMutablePointer<Float>,
                    frames: Int, state: UnsafeMutablePointer<Double>) {
        var l1 = state[0], l2 = state[1], r1 = state[2], r2 = state[3]
        for i in 0..<frames {
            let xl = Double(left[i]), xr = Double(right[i])
            let yl = c.b0 * xl + l1, yr = c.b0 * xr + r1
            l1 = (c.b1 * xl + l2) - c.a1 * yl
            r1 = (c.b1 * xr + r2) - c.a1 * yr
            l2 = c.b2 * xl - c.a2 * yl
            r2 = c.b2 * xr - c.a2 * yr
            left[i] = Float(yl)
            right[i] = Float(yr)
        }
        state[0] = flushed(l1)
        state[1] = flushed(l2)
        state[2] = flushed(r1)
        state[3] = flushed(r2)
    }

    /// A denormal tail costs more than silence: a state value that small is zero.
    @inline(__always)
    private static func flushed(_ z: Double) -> Double { abs(z) < 1e-30 ? 0 : z }

    /// One section over `frames` samples in place, in the transposed direct form, its two
    /// state values at `state`.
    static func run(_ c: Coefficients, _ samples: UnsafeMutablePointer<Float>, frames: Int,
                    state: UnsafeMutablePointer<Double>) {
        var z1 = state[0], z2 = state[1]
        for i in 0..<frames {
            let x = Double(samples[i])
            let y = c.b0 * x + z1
            // b1·x + z2 does not wait for y: the chain a sample is an add, a multiply, a subtract.
            z1 = (c.b1 * x + z2) - c.a1 * y
            z2 = c.b2 * x - c.a2 * y
            samples[i] = Float(y)
        }
        state[0] = flushed(z1)
        state[1] = flushed(z2)
    }

    // MARK: Designs

    /// The angle of `hz` at `sampleRate`, kept inside the transform's range.
    static func angle(_ hz: Float, _ sampleRate: Double) -> Double {
        2 * Double.pi * min(max(Double(hz), 10), 0.49 * sampleRate) / sampleRate
    }

    /// b0...b2 over a0...a2, normalised.
    private static func normalised(_ b: (Double, Double, Double), _ a: (Double, Double, Double)) -> Coefficients {
        Coefficients(b0: b.0 / a.0, b1: b.1 / a.0, b2: b.2 / a.0, a1: a.1 / a.0, a2: a.2 / a.0)
    }

    /// The half-width term of a section `octaves` wide between its band edges at `w0`.
    static func alpha(w0: Double, octaves: Double) -> Double {
        sin(w0) * sinh(log(2) / 2 * octaves * w0 / sin(w0))
    }

    /// 1 / (s² + s/Q + 1), or s² over it for the high-pass.
    static func pass(high: Bool, w0: Double, q: Double) -> Coefficients {
        let cosine = cos(w0), alpha = sin(w0) / (2 * q)
        let b = high ? ((1 + cosine) / 2, -(1 + cosine), (1 + cosine) / 2) : ((1 - cosine) / 2, 1 - cosine, (1 - cosine) / 2)
        return normalised(b, (1 + alpha, -2 * cosine, 1 - alpha))
    }

    /// (s/Q) / (s² + s/Q + 1): unity at the centre.
    static func bandPass(w0: Double, alpha: Double) -> Coefficients {
        normalised((alpha, 0, -alpha), (1 + alpha, -2 * cos(w0), 1 - alpha))
    }

    /// (s² + 1) / (s² + s/Q + 1): nothing at the centre.
    static func bandStop(w0: Double, alpha: Double) -> Coefficients {
        let cosine = cos(w0)
        return normalised((1, -2 * cosine, 1), (1 + alpha, -2 * cosine, 1 - alpha))
    }

    /// A shelf of `decibels` far below (low) or far above (high) `w0`, half of it at
    /// `w0`; `q` 1/√2 is the slope-1 shelf, larger values overshoot near the corner.
    static func shelf(high: Bool, w0: Double, decibels: Double, q: Double) -> Coefficients {
        let a = pow(10, decibels / 40)
        let cosine = cos(w0), alpha = sin(w0) / (2 * q), root = 2 * a.squareRoot() * alpha
        if high {
            return normalised((a * ((a + 1) + (a - 1) * cosine + root), -2 * a * ((a - 1) + (a + 1) * cosine),
                               a * ((a + 1) + (a - 1) * cosine - root)),
                              ((a + 1) - (a - 1) * cosine + root, 2 * ((a - 1) - (a + 1) * cosine),
                               (a + 1) - (a - 1) * cosine - root))
        }
        return normalised((a * ((a + 1) - (a - 1) * cosine + root), 2 * a * ((a - 1) - (a + 1) * cosine),
                           a * ((a + 1) - (a - 1) * cosine - root)),
                          ((a + 1) + (a - 1) * cosine + root, -2 * ((a - 1) + (a + 1) * cosine),
                           (a + 1) + (a - 1) * cosine - root))
    }

    /// (s² + s·A/Q + 1) / (s² + s/(A·Q) + 1), A = 10^(dB/40): the gain at the centre,
    /// unity far from it.
    static func peak(w0: Double, alpha: Double, decibels: Double) -> Coefficients {
        let a = pow(10, decibels / 40), cosine = cos(w0)
        return normalised((1 + alpha * a, -2 * cosine, 1 - alpha * a), (1 + alpha / a, -2 * cosine, 1 - alpha / a))
    }

    /// Resonant low-pass or high-pass: Q = 10^(resonance/20), so the gain at the cutoff
    /// is the resonance in dB.
    static func resonant(highPass: Bool) -> Design {
        { rate, p in pass(high: highPass, w0: angle(p[0], rate), q: pow(10, Double(p[1]) / 20)) }
    }

    /// Band-pass, the bandwidth (in cents) between the -3 dB points.
    static let bandPass: Design = { rate, p in
        let w0 = angle(p[0], rate)
        return bandPass(w0: w0, alpha: alpha(w0: w0, octaves: Double(p[1]) / 1200))
    }

    /// Shelves of slope 1.
    static func shelf(high: Bool) -> Design {
        { rate, p in shelf(high: high, w0: angle(p[0], rate), decibels: Double(p[1]), q: 0.5.squareRoot()) }
    }

    /// Peaking EQ, Q the centre over the bandwidth.
    static let parametric: Design = { rate, p in
        let w0 = angle(p[0], rate)
        return peak(w0: w0, alpha: sin(w0) / (2 * max(0.1, Double(p[1]))), decibels: Double(p[2]))
    }
}

extension EffectDefinition {
    private static func biquad(_ design: @escaping BiquadFilter.Design, _ parameters: [ParameterSpec]) -> EffectDefinition {
        let count = parameters.count
        return EffectDefinition(parameters: parameters) {
            BiquadFilter(design, parameterCount: count, sampleRate: $0.sampleRate, channels: $0.channels)
        }
    }

    private static let halfRate: @Sendable (Double) -> Float = { Float($0 / 2) }

    /// The cutoff (kLowPassParam_CutoffFrequency, kHipassParam_CutoffFrequency: 10 Hz to
    /// half the rate, 6900 by default) and the resonance (_Resonance: -20 to 40 dB, 0).
    private static let resonantParameters = [
        ParameterSpec(id: 0, name: "Cutoff Frequency", unit: ParameterSpec.hertz, minimum: 10, maximum: halfRate,
                      defaultValue: 6900),
        ParameterSpec(id: 1, name: "Resonance", unit: ParameterSpec.decibels, minimum: -20, maximum: { _ in 40 },
                      defaultValue: 0),
    ]

    public static let lowPass = biquad(BiquadFilter.resonant(highPass: false), resonantParameters)
    public static let highPass = biquad(BiquadFilter.resonant(highPass: true), resonantParameters)

    /// kBandpassParam_CenterFrequency (20 Hz to half the rate, 5000) and
    /// kBandpassParam_Bandwidth (100 to 12000 cents, 600).
    public static let bandPass = biquad(BiquadFilter.bandPass, [
        ParameterSpec(id: 0, name: "Center Frequency", unit: ParameterSpec.hertz, minimum: 20, maximum: halfRate,
                      defaultValue: 5000),
        ParameterSpec(id: 1, name: "Bandwidth", unit: ParameterSpec.cents, minimum: 100, maximum: { _ in 12000 },
                      defaultValue: 600),
    ])

    /// kHighShelfParam_CutOffFrequency (10000 Hz to half the rate, 10000) and
    /// kHighShelfParam_Gain (-40 to 40 dB, 0).
    public static let highShelf = biquad(BiquadFilter.shelf(high: true), [
        ParameterSpec(id: 0, name: "Cut Off Frequency", unit: ParameterSpec.hertz, minimum: 10000, maximum: halfRate,
                      defaultValue: 10000),
        ParameterSpec(id: 1, name: "Gain", unit: ParameterSpec.decibels, minimum: -40, maximum: { _ in 40 }, defaultValue: 0),
    ])

    /// kAULowShelfParam_CutoffFrequency (10 to 200 Hz, 80) and kAULowShelfParam_Gain
    /// (-40 to 40 dB, 0).
    public static let lowShelf = biquad(BiquadFilter.shelf(high: false), [
        ParameterSpec(id: 0, name: "Cutoff Frequency", unit: ParameterSpec.hertz, minimum: 10, maximum: { _ in 200 },
                      defaultValue: 80),
        ParameterSpec(id: 1, name: "Gain", unit: ParameterSpec.decibels, minimum: -40, maximum: { _ in 40 }, defaultValue: 0),
    ])

    /// kParametricEQParam_CenterFreq (20 Hz to half the rate, 2000), kParametricEQParam_Q
    /// (0.1 to 20, 1) and kParametricEQParam_Gain (-20 to 20 dB, 0).
    public static let parametricEQ = biquad(BiquadFilter.parametric, [
        ParameterSpec(id: 0, name: "Center Freq", unit: ParameterSpec.hertz, minimum: 20, maximum: halfRate,
                      defaultValue: 2000),
        ParameterSpec(id: 1, name: "Q", unit: ParameterSpec.hertz, minimum: 0.1, maximum: { _ in 20 }, defaultValue: 1),
        ParameterSpec(id: 2, name: "Gain", unit: ParameterSpec.decibels, minimum: -20, maximum: { _ in 20 }, defaultValue: 0),
    ])
}
