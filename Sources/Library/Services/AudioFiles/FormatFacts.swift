import CMediaCodecs

/// What a format ID means to everything that handles its packets, written once: Audio
/// Format's answers, the readers and the stream parser describing what they found, the
/// writers and encoders, the converter, seeking, and AVAudioFormat's settings all read
/// this table instead of knowing that IMA4 packs 64 frames in 34 bytes a channel.
public struct FormatFacts: Sendable {
    public let formatID: UInt32
    /// The name Audio Format gives (linear PCM adds its sample format).
    public let name: String
    /// FFmpeg's decoder for it; MediaCodecUnknown for linear PCM, which is our own.
    public let codec: MediaCodec
    /// Frames in a packet at a sample rate (MP3 halves its frame below 32 kHz); for Apple
    /// Lossless the encoder's default, since a stream's cookie states its own.
    public let framesPerPacket: @Sendable (_ sampleRate: Double) -> UInt32
    /// Bytes of a packet of so many channels; 0 when packets vary (or, for linear PCM,
    /// depend on the sample format).
    public let bytesPerPacket: @Sendable (_ channels: UInt32) -> UInt32
    /// Bits of a sample where the format fixes them (8 for the companded ones), 0 for a
    /// coded format, nil where the description's own value stands.
    public let bitsPerChannel: UInt32?
    /// Packets differ in size and need descriptions (kAudioFormatProperty_FormatIsVBR).
    public let variableBitRate: Bool
    /// The codec's configuration travels beside the packets, as a magic cookie
    /// (kAudioFormatProperty_FormatIsExternallyFramed).
    public let externallyFramed: Bool
    /// Packets decoded before a seek target to prime the codec again: AAC's overlap,
    /// MPEG's bit reservoir.
    public let seekPreroll: Int64
    /// Whether the library encodes to it (linear PCM ourselves, the others by FFmpeg).
    public let encodes: Bool

    /// Every format the library decodes, in the order Audio Format lists them.
    public static let all: [FormatFacts] = [
        FormatFacts(FormatID.linearPCM, "Linear PCM", MediaCodecUnknown, frames: 1, bits: nil, encodes: true),
        FormatFacts(FormatID.mpeg4AAC, "MPEG-4 AAC", MediaCodecAAC, frames: 1024, variable: true, framed: true, preroll: 2,
                    encodes: true),
        FormatFacts(FormatID.mpegLayer3, "MPEG Layer 3", MediaCodecMP3, frames: 1152, variable: true, preroll: 10),
        FormatFacts(FormatID.mpegLayer2, "MPEG Layer 2", MediaCodecMP2, frames: 1152, variable: true, preroll: 10),
        FormatFacts(FormatID.mpegLayer1, "MPEG Layer 1", MediaCodecMP1, frames: 384, variable: true, preroll: 10),
        FormatFacts(FormatID.appleLossless, "Apple Lossless", MediaCodecALAC, frames: 4096, bits: nil, variable: true,
                    framed: true, encodes: true),
        FormatFacts(FormatID.appleIMA4, "IMA 4:1", MediaCodecIMA4, frames: 64, bytesPerChannel: 34, encodes: true),
        FormatFacts(FormatID.uLaw, "µLaw 2:1", MediaCodecULaw, frames: 1, bytesPerChannel: 1, bits: 8),
        FormatFacts(FormatID.aLaw, "aLaw 2:1", MediaCodecALaw, frames: 1, bytesPerChannel: 1, bits: 8),
    ]

    /// The facts of `formatID`, nil for one the library does not handle.
    public static func of(_ formatID: UInt32) -> FormatFacts? {
        all.first { $0.formatID == formatID }
    }

    /// The format FFmpeg's `codec` decodes, nil for one the table does not name.
    public static func decoded(by codec: MediaCodec) -> FormatFacts? {
        all.first { $0.codec == codec && $0.formatID != FormatID.linearPCM }
    }

    private init(_ formatID: UInt32, _ name: String, _ codec: MediaCodec, frames: UInt32, bytesPerChannel: UInt32 = 0,
                 bits: UInt32? = 0, variable: Bool = false, framed: Bool = false, preroll: Int64 = 0, encodes: Bool = false) {
        self.formatID = formatID
        self.name = name
        self.codec = codec
        // MPEG-2's and 2.5's layer III frame (below 32 kHz) holds half of MPEG-1's.
        let halvedBelow32k = formatID == FormatID.mpegLayer3
        self.framesPerPacket = { (rate: Double) -> UInt32 in
            halvedBelow32k && rate > 0 && rate < 32000 ? frames / 2 : frames
        }
        self.bytesPerPacket = { (channels: UInt32) -> UInt32 in bytesPerChannel &* channels }
        self.bitsPerChannel = bits
        self.variableBitRate = variable
        self.externallyFramed = framed
        self.seekPreroll = preroll
        self.encodes = encodes
    }
}

extension StreamDescription {
    /// A coded format's description at `sampleRate` and `channels`, with the packet's
    /// fields as the codec fixes them; `framesPerPacket` where the stream states its own.
    public init(coded formatID: UInt32, sampleRate: Double, channels: UInt32, flags: UInt32 = 0,
                framesPerPacket: UInt32? = nil) {
        self.init(sampleRate: sampleRate, formatID: formatID, formatFlags: flags, bytesPerPacket: 0, framesPerPacket: 0,
                  bytesPerFrame: 0, channelsPerFrame: channels, bitsPerChannel: 0)
        if let facts = FormatFacts.of(formatID) { fillPacketFields(facts, framesPerPacket: framesPerPacket) }
    }

    /// Sets the packet's fields of a coded format as `facts` fixes them.
    mutating func fillPacketFields(_ facts: FormatFacts, framesPerPacket stated: UInt32?) {
        framesPerPacket = stated ?? facts.framesPerPacket(sampleRate)
        bytesPerPacket = facts.bytesPerPacket(channelsPerFrame)
        // A format of one frame a packet (the companded ones) has frames of that size.
        bytesPerFrame = framesPerPacket == 1 ? bytesPerPacket : 0
        if let bits = facts.bitsPerChannel { bitsPerChannel = bits }
    }
}
