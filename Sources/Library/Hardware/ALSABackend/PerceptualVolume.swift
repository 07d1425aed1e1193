import Glibc

/// Maps a mixer control's dB value to a 0...1 volume the way alsamixer shows it: ranges
/// of at most 24 dB linearly in dB, wider ones through 10^(dB/60) rescaled so the
/// control's minimum reads 0 — close to how loud the sound seems.
public enum PerceptualVolume {
    static let linearRangeCentibels = 2400

    /// `value`, `minimum`, `maximum` in hundredths of a dB.
    public static func volume(decibels value: Int, minimum: Int, maximum: Int) -> Float {
        guard maximum > minimum else { return 0 }
        if maximum - minimum <= linearRangeCentibels {
            return Float(value - minimum) / Float(maximum - minimum)
        }
        let normalized = pow(10, Double(value - maximum) / 6000)
        let floor = pow(10, Double(minimum - maximum) / 6000)
        return Float((normalized - floor) / (1 - floor))
    }

    /// The dB value (hundredths) whose volume is `volume`.
    public static func decibels(volume: Float, minimum: Int, maximum: Int) -> Double {
        if maximum - minimum <= linearRangeCentibels {
            return Double(minimum) + Double(volume) * Double(maximum - minimum)
        }
        let floor = pow(10, Double(minimum - maximum) / 6000)
        return 6000 * log10(Double(volume) * (1 - floor) + floor) + Double(maximum)
    }
}
