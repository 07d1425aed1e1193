import Glibc

/// AUiPodEQ: the phone's music equalizer, chosen by preset only (it shows no parameters):
/// ten peaking sections an octave apart (31 Hz to 16 kHz, Q 1.4) whose gains each preset
/// sets. The preset names are the phone's; the curves are ours. "Disabled" is flat.
final class IPodEQ: EffectKernel {
    static let centres: [Double] = [31.25, 62.5, 125, 250, 500, 1000, 2000, 4000, 8000, 16000]
    private let sampleRate: Double
    private let channels: Int
    private let sections: UnsafeMutablePointer<BiquadFilter.Coefficients>
    private let state: UnsafeMutablePointer<Double>
    private let designed: UnsafeMutablePointer<Float>

    init(_ setup: EffectSetup) {
        sampleRate = setup.sampleRate
        channels = max(1, setup.channels)
        sections = .allocate(capacity: 10)
        sections.initialize(repeating: BiquadFilter.Coefficients(), count: 10)
        state = .allocate(capacity: 20 * channels)
        state.initialize(repeating: 0, count: 20 * channels)
        designed = .allocate(capacity: 10)
        designed.initialize(repeating: .nan, count: 10)
    }

    deinit {
        sections.deallocate()
        state.deallocate()
        designed.deallocate()
    }

    func reset() { state.update(repeating: 0, count: 20 * channels) }

    func process(_ buffers: UnsafePointer<UnsafeMutablePointer<Float>>, count: Int, frames: Int,
                 parameters: UnsafeMutablePointer<Float>) {
        for band in 0..<10 where parameters[band] != 0 || designed[band] != parameters[band] {
            if designed[band] != parameters[band] {
                designed[band] = parameters[band]
                let w0 = 2 * Double.pi * min(IPodEQ.centres[band], 0.45 * sampleRate) / sampleRate
                sections[band] = BiquadFilter.peak(w0: w0, alpha: sin(w0) / (2 * 1.4), decibels: Double(parameters[band]))
            }
            guard parameters[band] != 0 else { continue }
            for channel in 0..<min(count, channels) {
                BiquadFilter.run(sections[band], buffers[channel], frames: frames, state: state + 2 * (band * channels + channel))
            }
        }
    }
}

extension EffectDefinition {
    /// The ten band gains (presetOnly: presets set them) and the phone's presets.
    public static let iPodEQ = EffectDefinition(
        parameters: (0..<10).map { band in
            var spec = ParameterSpec(id: UInt32(band), name: "Band \(band)", unit: ParameterSpec.decibels, range: -12...12,
                                     defaultValue: 0)
            spec.presetOnly = true
            return spec
        },
        presets: iPodPresets, initialPreset: 0) { IPodEQ($0) }

    /// The phone's names, in its order; the curves (dB at 31 Hz ... 16 kHz) are ours.
    static let iPodPresets: [EffectPreset] = iPodCurves.enumerated().map { number, preset in
        EffectPreset(number: Int32(number), name: preset.name,
                     values: preset.gains.enumerated().map { (UInt32($0.offset), $0.element) })
    }

    private static let iPodCurves: [(name: String, gains: [Float])] = [
        ("Disabled", [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
        ("Acoustic", [4.5, 4.5, 3.5, 1, 1.5, 1.5, 3, 3.5, 3, 2]),
        ("Bass Booster", [5.5, 4.5, 3.5, 2.5, 1, 0, 0, 0, 0, 0]),
        ("Bass Reducer", [-5.5, -4.5, -3.5, -2.5, -1, 0, 0, 0, 0, 0]),
        ("Classical", [4.5, 3.5, 3, 2.5, -1.5, -1.5, 0, 2, 3, 3.5]),
        ("Dance", [3.5, 6.5, 5, 0, 2, 3.5, 5, 4.5, 3.5, 0]),
        ("Deep", [5, 3.5, 1.5, 1, 3, 2.5, 1.5, -2, -3.5, -4.5]),
        ("Electronic", [4.5, 4, 1.5, 0, -2, 2, 1, 1.5, 4, 5]),
        ("Flat", [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
        ("Hip-Hop", [5, 4.5, 1.5, 3, -1, -1, 1.5, -0.5, 2, 3]),
        ("Jazz", [4, 3, 1.5, 2, -1.5, -1.5, 0, 1.5, 3, 3.5]),
        ("Latin", [4.5, 3, 0, 0, -1.5, -1.5, -1.5, 0, 3, 4.5]),
        ("Loudness", [6, 4, 0, 0, -2, 0, -1, -5, 5, 1]),
        ("Lounge", [-3, -1.5, -0.5, 1.5, 4, 2.5, 0, -1.5, 2, 1]),
        ("Piano", [3, 2, 0, 2.5, 3, 1.5, 3.5, 4.5, 3, 3.5]),
        ("Pop", [-1.5, -1, 0, 2, 4, 4, 2, 0, -1, -1.5]),
        ("R&B", [2.5, 7, 5.5, 1.5, -2.5, -1.5, 2.5, 3, 3, 4]),
        ("Rock", [5, 4, 3, 1.5, -0.5, -1, 0.5, 2.5, 3.5, 4.5]),
        ("Small Speakers", [5.5, 4.5, 3.5, 2.5, 1, 0, -1, -2.5, -3.5, -4.5]),
        ("Spoken Word", [-3.5, -0.5, 0, 0.5, 3.5, 4.5, 5, 4.5, 2.5, 0]),
        ("Treble Booster", [0, 0, 0, 0, 0, 1, 2.5, 3.5, 4.5, 5.5]),
        ("Treble Reducer", [0, 0, 0, 0, 0, -1, -2.5, -3.5, -4.5, -5.5]),
        ("Vocal Booster", [-1.5, -3, -3, 1.5, 3.5, 3.5, 3, 1.5, 0, -1.5]),
    ]
}
