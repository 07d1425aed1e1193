/// A description completed from its format ID (and the cookie, for AAC and Apple
/// Lossless): what a program may leave 0 and the codec decides. Audio Format's
/// kAudioFormatProperty_FormatInfo answers with it, and an encoding converter's
/// kAudioConverterCurrentOutputStreamDescription is its destination completed so.
extension StreamDescription {
    public func completed(cookie: [UInt8]?) throws(AudioFileStatus) -> StreamDescription {
        var d = self
        switch formatID {
        case FormatID.linearPCM:
            guard bitsPerChannel > 0, channelsPerFrame > 0 else { throw .formatUnsupportedDataFormat }
            let bytes = (bitsPerChannel + 7) / 8
            d.bytesPerFrame = formatFlags & Flags.nonInterleaved != 0 ? bytes : bytes * channelsPerFrame
            d.framesPerPacket = 1
            d.bytesPerPacket = d.bytesPerFrame
        case FormatID.mpeg4AAC:
            if let cookie, !cookie.isEmpty {
                guard let config = AudioSpecificConfig(MagicCookie.audioSpecificConfig(fromCookie: cookie)) else {
                    throw .formatUnsupportedDataFormat
                }
                d.sampleRate = config.sampleRate
                d.channelsPerFrame = config.channels
                d.formatFlags = config.objectType
            }
            d.framesPerPacket = 1024
            d.bytesPerPacket = 0; d.bytesPerFrame = 0; d.bitsPerChannel = 0
        case FormatID.mpegLayer3, FormatID.mpegLayer2:
            d.framesPerPacket = sampleRate > 0 && sampleRate < 32000 && formatID == FormatID.mpegLayer3 ? 576 : 1152
            d.bytesPerPacket = 0; d.bytesPerFrame = 0; d.bitsPerChannel = 0
        case FormatID.mpegLayer1:
            d.framesPerPacket = 384
        case FormatID.appleIMA4:
            d.framesPerPacket = 64
            d.bytesPerPacket = 34 * channelsPerFrame
            d.bytesPerFrame = 0; d.bitsPerChannel = 0
        case FormatID.uLaw, FormatID.aLaw:
            d.framesPerPacket = 1
            d.bitsPerChannel = 8
            d.bytesPerFrame = channelsPerFrame
            d.bytesPerPacket = channelsPerFrame
        case FormatID.appleLossless:
            if let cookie, let config = MagicCookie.alacConfig(cookie) {
                d.framesPerPacket = UInt32(config[0]) << 24 | UInt32(config[1]) << 16 | UInt32(config[2]) << 8 | UInt32(config[3])
                d.channelsPerFrame = UInt32(config[9])
                d.sampleRate = Double(UInt32(config[20]) << 24 | UInt32(config[21]) << 16 | UInt32(config[22]) << 8 | UInt32(config[23]))
            } else if framesPerPacket == 0 {
                d.framesPerPacket = 4096
            }
            d.bytesPerPacket = 0; d.bytesPerFrame = 0
        default:
            throw .formatUnknownFormat
        }
        return d
    }
}

extension StreamDescription {
    /// The description as an AudioStreamBasicDescription's 40 bytes (Float64 rate, seven
    /// UInt32 fields, a reserved 0): what the property tables hand the C API.
    public var cBytes: [UInt8] {
        withUnsafeBytes(of: sampleRate) { Array($0) }
            + [formatID, formatFlags, bytesPerPacket, framesPerPacket, bytesPerFrame, channelsPerFrame, bitsPerChannel, 0]
            .flatMap { value in withUnsafeBytes(of: value) { Array($0) } }
    }
}
