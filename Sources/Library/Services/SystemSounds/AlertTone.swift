import Glibc

/// The sound of kSystemSoundID_UserPreferredAlert, made by the library: two short
/// tones (880 Hz then 1320 Hz, 0.12 s each, soft edges), mono at 48 kHz.
public enum AlertTone {
    public static let sound: DecodedSound = {
        let rate = 48_000
        var samples: [Float] = []
        for frequency in [880.0, 1320.0] {
            let count = rate * 12 / 100
            for i in 0..<count {
                let t = Double(i) / Double(rate)
                // 5 ms fades: no click at either end.
                let fade = min(1, min(Double(i), Double(count - 1 - i)) / (0.005 * Double(rate)))
                samples.append(Float(0.4 * fade * sin(2 * .pi * frequency * t)))
            }
        }
        return DecodedSound(sampleRate: rate, channels: 1, samples: samples)
    }()
}
