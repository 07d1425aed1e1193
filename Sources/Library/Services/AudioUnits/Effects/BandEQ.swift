import Glibc

/// AUNBandEQ: up to 16 two-pole sections in a row, each with its own filter type, and a
/// gain over them all. Each band's section is the bilinear transform of the analogue
/// prototype its type names (see `coefficients`); a bypassed band (each starts so) is
/// left out. Coefficients are designed again on the render thread when a band's values
/// move; nothing is allocated there.
final class BandEQ: EffectKernel {
    static let maximumBands = 16
    /// The band-0 IDs of a band's parameters (kAUNBandEQParam_...), in spec order.
    static let bypass: UInt32 = 1000, type: UInt32 = 2000, frequency: UInt32 = 3000, gain: UInt32 = 4000,
               bandwidth: UInt32 = 5000

    private let sampleRate: Double
    private let channels: Int
    private let bands: Int
    /// Per band: its coefficients, and the values they were designed for.
    private let sections: UnsafeMutablePointer<BiquadFilter.Coefficients>
    private let designed: UnsafeMutablePointer<(Float, Float, Float, Float)>
    /// Per band and channel: two state values.
    private let state: UnsafeMutablePointer<Double>

    init(_ setup: EffectSetup) {
        sampleRate = setup.sampleRate
        channels = max(1, setup.channels)
        bands = min(max(setup.bands, 1), BandEQ.maximumBands)
        sections = .allocate(capacity: bands)
        sections.initialize(repeating: BiquadFilter.Coefficients(), count: bands)
        designed = .allocate(capacity: bands)
        designed.initialize(repeating: (.nan, .nan, .nan, .nan), count: bands)
        state = .allocate(capacity: 2 * bands * channels)
        state.initialize(repeating: 0, count: 2 * bands * channels)
    }

    deinit {
        state.deallocate()
        sections.deallocate()
        designed.deallocate()
    }

    func reset() { state.update(repeating: 0, count: 2 * bands * channels) }

    func process(_ buffers: UnsafePointer<UnsafeMutablePointer<Float>>, count: Int, frames: Int,
                 parameters: UnsafeMutablePointer<Float>) {
        for band in 0..<bands {
            let base = 1 + 5 * band
            guard parameters[base] < 0.5 else { continue }
            let now = (parameters[base + 1], parameters[base + 2], parameters[base + 3], parameters[base + 4])
            if now != designed[band] {
                designed[band] = now
                sections[band] = BandEQ.coefficients(type: Int(now.0), frequency: now.1, gain: now.2, octaves: now.3,
                                                     sampleRate: sampleRate)
            }
            for channel in 0..<min(count, channels) {
                BiquadFilter.run(sections[band], buffers[channel], frames: frames,
                                 state: state + 2 * (band * channels + channel))
            }
        }
        let gain = Float(pow(10, Double(parameters[0]) / 20))
        guard gain != 1 else { return }
        for channel in 0..<min(count, channels) {
            let samples = buffers[channel]
            for i in 0..<frames { samples[i] *= gain }
        }
    }

    /// A band's section (kAUNBandEQFilterType_...): the peak's and the shelves' gain in
    /// dB; the width in octaves between the band edges (the -3 dB points of the band-pass
    /// and band-stop, the half-gain points of the peak); for the resonant types the same
    /// width sets Q = 1 / (2·sinh(ln 2 / 2 · width)), so a narrower band rings more.
    static func coefficients(type: Int, frequency: Float, gain: Float, octaves: Float, sampleRate: Double)
        -> BiquadFilter.Coefficients {
        let w0 = BiquadFilter.angle(frequency, sampleRate), width = Double(octaves), decibels = Double(gain)
        let butterworth = 0.5.squareRoot(), resonantQ = 1 / (2 * sinh(log(2) / 2 * width))
        switch type {
        case 1: return BiquadFilter.pass(high: false, w0: w0, q: butterworth)
        case 2: return BiquadFilter.pass(high: true, w0: w0, q: butterworth)
        case 3: return BiquadFilter.pass(high: false, w0: w0, q: resonantQ)
        case 4: return BiquadFilter.pass(high: true, w0: w0, q: resonantQ)
        case 5: return BiquadFilter.bandPass(w0: w0, alpha: BiquadFilter.alpha(w0: w0, octaves: width))
        case 6: return BiquadFilter.bandStop(w0: w0, alpha: BiquadFilter.alpha(w0: w0, octaves: width))
        case 7: return BiquadFilter.shelf(high: false, w0: w0, decibels: decibels, q: butterworth)
        case 8: return BiquadFilter.shelf(high: true, w0: w0, decibels: decibels, q: butterworth)
        case 9: return BiquadFilter.shelf(high: false, w0: w0, decibels: decibels, q: resonantQ)
        case 10: return BiquadFilter.shelf(high: true, w0: w0, decibels: decibels, q: resonantQ)
        default: return BiquadFilter.peak(w0: w0, alpha: BiquadFilter.alpha(w0: w0, octaves: width), decibels: decibels)
        }
    }
}

extension EffectDefinition {
    /// kAUNBandEQParam_GlobalGain (-96 to 24 dB, 0); per band: _BypassBand (0 or 1, 1),
    /// _FilterType (0 to 10, 0: parametric), _Frequency (20 Hz to half the rate, 1000),
    /// _Gain (-96 to 24 dB, 0) and _Bandwidth (0.05 to 5 octaves, 0.5). Two bands in use
    /// until kAUNBandEQProperty_NumberOfBands says otherwise, sixteen at most.
    public static let bandEQ: EffectDefinition = {
        var specs = [ParameterSpec(id: 0, name: "Global Gain", unit: ParameterSpec.decibels, range: -96...24,
                                   defaultValue: 0)]
        for band in 0..<UInt32(BandEQ.maximumBands) {
            specs += [
                ParameterSpec(id: BandEQ.bypass + band, name: "Bypass Band \(band)", unit: ParameterSpec.boolean,
                              range: 0...1, defaultValue: 1),
                ParameterSpec(id: BandEQ.type + band, name: "Filter Type \(band)", unit: ParameterSpec.indexed,
                              range: 0...10, defaultValue: 0),
                ParameterSpec(id: BandEQ.frequency + band, name: "Frequency \(band)", unit: ParameterSpec.hertz,
                              minimum: 20, maximum: { Float($0 / 2) }, defaultValue: 1000),
                ParameterSpec(id: BandEQ.gain + band, name: "Gain \(band)", unit: ParameterSpec.decibels, range: -96...24,
                              defaultValue: 0),
                ParameterSpec(id: BandEQ.bandwidth + band, name: "Bandwidth \(band)", unit: ParameterSpec.octaves,
                              range: 0.05...5, defaultValue: 0.5),
            ]
        }
        return EffectDefinition(parameters: specs, bands: EffectBands(initial: 2, maximum: BandEQ.maximumBands)) {
            BandEQ($0)
        }
    }()
}
