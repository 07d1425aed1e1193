/// A description completed from its format ID (and the cookie, for AAC and Apple
/// Lossless): what a program may leave 0 and the codec decides. Audio Format's
/// kAudioFormatProperty_FormatInfo answers with it, and an encoding converter's
/// kAudioConverterCurrentOutputStreamDescription is its destination completed so.
extension StreamDescription {
    public func completed(cookie: [UInt8]?) throws(AudioFileStatus) -> StreamDescription {
        guard let facts = FormatFacts.of(formatID) else { throw .formatUnknownFormat }
        var d = self
        var stated: UInt32?
        switch formatID {
        case FormatID.linearPCM:
            guard bitsPerChannel > 0, channelsPerFrame > 0 else { throw .formatUnsupportedDataFormat }
            let bytes = (bitsPerChannel + 7) / 8
            d.bytesPerFrame = formatFlags & Flags.nonInterleaved != 0 ? bytes : bytes * channelsPerFrame
            d.framesPerPacket = 1
            d.bytesPerPacket = d.bytesPerFrame
            return d
        case FormatID.mpeg4AAC:
            if let cookie, !cookie.isEmpty {
                guard let config = AudioSpecificConfig(MagicCookie.audioSpecificConfig(fromCookie: cookie)) else {
                    throw .formatUnsupportedDataFormat
                }
                d.sampleRate = config.sampleRate
                d.channelsPerFrame = config.channels
                d.formatFlags = config.objectType
            }
        case FormatID.appleLossless:
            // The cookie states the frame size, channels and rate; else a size the program
            // gave stands, else the encoder's.
            if let cookie, let config = MagicCookie.alacConfig(cookie) {
                stated = UInt32(config[0]) << 24 | UInt32(config[1]) << 16 | UInt32(config[2]) << 8 | UInt32(config[3])
                d.channelsPerFrame = UInt32(config[9])
                d.sampleRate = Double(UInt32(config[20]) << 24 | UInt32(config[21]) << 16 | UInt32(config[22]) << 8 | UInt32(config[23]))
            } else if framesPerPacket != 0 {
                stated = framesPerPacket
            }
        default:
            break
        }
        d.fillPacketFields(facts, framesPerPacket: stated)
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
