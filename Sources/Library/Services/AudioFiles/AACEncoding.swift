import CMediaCodecs

/// What our AAC encoder (FFmpeg's native one) takes: the answers of the encode-bit-rate
/// and encode-sample-rate properties of Audio Converter and Audio Format, and the check
/// of a bit rate set, kept in one place.
public enum AACEncoding {
    /// Sample rates an AAC-LC stream may have (the MPEG-4 sampling-frequency table).
    public static let sampleRates: [Double] = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 64000, 88200, 96000]

    /// Bit rates offered for `channels` channels: from 16 kbit/s per channel up to 160 per
    /// channel, never above 320 kbit/s in all.
    public static func bitRates(channels: Int) -> [Int64] {
        let each: [Int64] = [16000, 24000, 32000, 40000, 48000, 56000, 64000, 80000, 96000, 112000, 128000, 144000, 160000]
        let count = Int64(max(1, channels))
        var rates: [Int64] = []
        for rate in each.map({ $0 * count }) where rate <= 320_000 * max(1, count / 2) && !rates.contains(rate) {
            rates.append(rate)
        }
        return rates
    }

    /// A bit rate the encoder is made with: within the offered range (FFmpeg's encoder
    /// takes any value there; Apple's rounds to its own steps).
    public static func accepts(bitRate: Int64, channels: Int) -> Bool {
        let offered = bitRates(channels: channels)
        guard let low = offered.first, let high = offered.last else { return false }
        return bitRate >= low && bitRate <= high
    }

    /// A new encoder for `format` at `bitRate` (0: FFmpeg's default, 64 kbit/s a channel).
    static func openEncoder(_ format: StreamDescription, bitRate: Int64) -> OpaquePointer? {
        MediaEncoderOpen(MediaCodecAAC, Int32(format.sampleRate), Int32(format.channelsPerFrame), bitRate, 0)
    }
}
