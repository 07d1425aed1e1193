import CMediaCodecs

/// The compressed formats we encode to, through FFmpeg's native encoders: AAC-LC, Apple
/// Lossless (16 or 24-bit source) and IMA4; and the magic cookie each one's stream needs.
/// The converter and the file writer both open their encoder here.
public enum PacketEncoding {
    /// Whether a format of `formatID` can be encoded to.
    public static func encodes(_ formatID: UInt32) -> Bool {
        formatID != FormatID.linearPCM && FormatFacts.of(formatID)?.encodes == true
    }

    /// The source bit depth an Apple Lossless description's flags name (the flags are 1
    /// for 16-bit, 3 for 24-bit; none means 16); nil for one we do not encode (20, 32).
    public static func losslessBits(_ flags: UInt32) -> Int32? {
        switch flags {
        case 0, 1: 16
        case 3: 24
        default: nil
        }
    }

    /// A new encoder for `format`; AAC at `bitRate` (0: 64 kbit/s a channel). Nil for a
    /// format not encoded, or one the encoder refuses.
    static func open(_ format: StreamDescription, bitRate: Int64) -> OpaquePointer? {
        let rate = Int32(format.sampleRate), channels = Int32(format.channelsPerFrame)
        switch format.formatID {
        case FormatID.mpeg4AAC: return AACEncoding.openEncoder(format, bitRate: bitRate)
        case FormatID.appleLossless:
            guard let bits = losslessBits(format.formatFlags) else { return nil }
            return MediaEncoderOpen(MediaCodecALAC, rate, channels, 0, bits)
        case FormatID.appleIMA4: return MediaEncoderOpen(MediaCodecIMA4, rate, channels, 0, 0)
        default: return nil
        }
    }

    /// The magic cookie of what `encoder` makes: AAC's esds, Apple Lossless's
    /// ALACSpecificConfig (as CAF files carry it); none for IMA4.
    static func cookie(_ format: StreamDescription, _ encoder: OpaquePointer) -> [UInt8] {
        var size: Int32 = 0
        let config = MediaEncoderConfig(encoder, &size)
        let bytes = config.map { Array(UnsafeBufferPointer(start: $0, count: Int(size))) } ?? []
        switch format.formatID {
        case FormatID.mpeg4AAC:
            return MagicCookie.esds(audioSpecificConfig: bytes, bitRate: UInt32(clamping: MediaEncoderBitRate(encoder)))
        case FormatID.appleLossless:
            return MagicCookie.alacConfig(bytes) ?? []
        default:
            return []
        }
    }

    /// Bytes of the largest packet the encoder of `format` makes.
    static func maximumPacketSize(_ format: StreamDescription) -> Int {
        let channels = Int(format.channelsPerFrame)
        switch format.formatID {
        case FormatID.appleIMA4: return Int(FormatFacts.of(FormatID.appleIMA4)!.bytesPerPacket(format.channelsPerFrame))
        case FormatID.appleLossless:
            // A frame that does not compress is stored verbatim, plus a small header.
            let bytes = losslessBits(format.formatFlags) == 24 ? 3 : 2
            return Int(max(4096, format.framesPerPacket)) * channels * bytes + 64
        default: return 6144 / 8 * channels + 64
        }
    }
}
