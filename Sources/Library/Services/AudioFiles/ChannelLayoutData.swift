/// An AudioChannelLayout as the C API passes it, in bytes: a tag, a bitmap, a count of
/// channel descriptions (12 bytes), then the descriptions (20 bytes each; the C struct
/// holds one, so it is 32 bytes long however many it names).
public enum ChannelLayoutData {
    static let header = 12
    static let description = 20
    static let useDescriptions: UInt32 = 0
    static let useBitmap: UInt32 = 1 << 16
    static let mono: UInt32 = 100 << 16 | 1
    static let stereo: UInt32 = 101 << 16 | 2
    static let discreteInOrder: UInt32 = 147 << 16

    /// The channels a layout names: by its tag, its bitmap, or its descriptions (which
    /// must all be there). nil for bytes too short for the layout they state.
    public static func channels(_ bytes: UnsafeRawBufferPointer) -> UInt32? {
        guard bytes.count >= header else { return nil }
        let tag = bytes.loadUnaligned(as: UInt32.self)
        switch tag {
        case useDescriptions:
            let count = bytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self)
            guard count <= 64, bytes.count >= header + Int(count) * description else { return nil }
            return count
        case useBitmap:
            return UInt32(bytes.loadUnaligned(fromByteOffset: 4, as: UInt32.self).nonzeroBitCount)
        default:
            return tag & 0xFFFF
        }
    }

    /// The layout a side of `channels` channels has by default: mono, stereo, or that
    /// many channels in order.
    public static func standard(channels: UInt32) -> [UInt8] {
        let tag = standardTag(channels: channels)
        var bytes = [UInt8](repeating: 0, count: header + description)
        withUnsafeBytes(of: tag.littleEndian) { bytes.replaceSubrange(0..<4, with: $0) }
        return bytes
    }

    /// That layout's tag.
    public static func standardTag(channels: UInt32) -> UInt32 {
        channels == 1 ? mono : channels == 2 ? stereo : discreteInOrder | channels
    }
}
