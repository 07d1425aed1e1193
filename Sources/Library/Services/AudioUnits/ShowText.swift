/// The pieces of CAShow's lines for units and graphs: a handle as C prints a pointer, and
/// a unit format as channels, rate, sample type and interleaving.
public enum ShowText {
    public static func handle(_ handle: UInt) -> String { "0x" + String(handle, radix: 16) }

    public static func format(_ layout: PCMLayout) -> String {
        let sample: String
        switch layout.encoding {
        case .float32: sample = "32-bit float"
        case .int16: sample = "16-bit integer"
        case .int32: sample = "32-bit integer"
        case .fixed824: sample = "8.24 fixed point"
        }
        return "\(layout.channels) ch, \(Int(layout.sampleRate)) Hz, 'lpcm' \(sample), "
            + (layout.interleaved || layout.channels == 1 ? "interleaved" : "non-interleaved")
    }
}
