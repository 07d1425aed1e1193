/// Magic cookies as iPhone code passes them around: AAC's is an MPEG-4 elementary stream
/// descriptor (ESDS) wrapping the AudioSpecificConfig, ALAC's the 24-byte ALAC
/// configuration. FFmpeg wants the bare AudioSpecificConfig and the ALAC atom; these
/// turn one into the other.
public enum MagicCookie {
    /// An ES descriptor carrying `config` (what an 'esds' atom holds after its version).
    public static func esds(audioSpecificConfig config: [UInt8], bitRate: UInt32 = 0, bufferSize: UInt32 = 0) -> [UInt8] {
        func descriptor(_ tag: UInt8, _ body: [UInt8]) -> [UInt8] {
            // The length in four 7-bit groups, as Apple writes it.
            let n = body.count
            return [tag, UInt8(0x80 | (n >> 21 & 0x7F)), UInt8(0x80 | (n >> 14 & 0x7F)), UInt8(0x80 | (n >> 7 & 0x7F)),
                    UInt8(n & 0x7F)] + body
        }
        func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        let decoderConfig = descriptor(0x04, [0x40, 0x15, UInt8(bufferSize >> 16 & 0xFF), UInt8(bufferSize >> 8 & 0xFF),
                                              UInt8(bufferSize & 0xFF)] + be32(bitRate) + be32(bitRate)
                                             + descriptor(0x05, config))
        return descriptor(0x03, [0, 0, 0] + decoderConfig + descriptor(0x06, [0x02]))
    }

    /// The AudioSpecificConfig inside an ESDS, or the bytes themselves when they are not
    /// one (a program may pass the bare configuration).
    public static func audioSpecificConfig(fromCookie cookie: [UInt8]) -> [UInt8] {
        var i = 0
        // Skips an optional 4-byte version/flags (an 'esds' atom's body).
        if cookie.count > 4, cookie[0] == 0, cookie[4] == 0x03 { i = 4 }
        func length() -> Int? {
            var n = 0
            for _ in 0..<4 {
                guard i < cookie.count else { return nil }
                let b = cookie[i]; i += 1
                n = n << 7 | Int(b & 0x7F)
                if b & 0x80 == 0 { return n }
            }
            return n
        }
        guard i < cookie.count, cookie[i] == 0x03 else { return cookie }
        i += 1
        guard length() != nil, i + 3 <= cookie.count else { return cookie }
        let flags = cookie[i + 2]
        i += 3
        if flags & 0x80 != 0 { i += 2 }
        if flags & 0x40 != 0, i < cookie.count { i += 1 + Int(cookie[i]) }
        if flags & 0x20 != 0 { i += 2 }
        guard i < cookie.count, cookie[i] == 0x04 else { return cookie }
        i += 1
        guard length() != nil else { return cookie }
        i += 13
        guard i < cookie.count, cookie[i] == 0x05 else { return cookie }
        i += 1
        guard let n = length(), n > 0, i + n <= cookie.count else { return cookie }
        return Array(cookie[i..<i + n])
    }

    /// The AudioSpecificConfig of an ADTS frame header.
    static func audioSpecificConfig(adtsHeader h: [UInt8]) -> [UInt8]? {
        guard h.count >= 7, h[0] == 0xFF, h[1] & 0xF0 == 0xF0 else { return nil }
        let objectType = UInt8((h[2] >> 6) + 1)
        let frequencyIndex = (h[2] >> 2) & 0x0F
        let channels = ((h[2] & 1) << 2) | (h[3] >> 6)
        return [objectType << 3 | frequencyIndex >> 1, (frequencyIndex & 1) << 7 | channels << 3]
    }

    /// The 24-byte ALAC configuration, from FFmpeg's atom (12 bytes of atom header first)
    /// or from an Apple cookie (possibly wrapped in 'frma'/'alac' atoms).
    public static func alacConfig(_ bytes: [UInt8]) -> [UInt8]? {
        if bytes.count == 24 { return bytes }
        // Finds the 'alac' atom and takes the configuration after its version/flags.
        let tag: [UInt8] = [0x61, 0x6C, 0x61, 0x63]
        var i = 0
        while i + 4 <= bytes.count {
            if Array(bytes[i..<i + 4]) == tag, i + 8 + 24 <= bytes.count, i >= 4 {
                let size = Int(bytes[i - 4]) << 24 | Int(bytes[i - 3]) << 16 | Int(bytes[i - 2]) << 8 | Int(bytes[i - 1])
                // The atom's own size (a 'frma' atom's body also reads 'alac': its size field is a tag).
                if size >= 36, i - 4 + size <= bytes.count { return Array(bytes[i + 8..<i + 32]) }
            }
            i += 1
        }
        return nil
    }

    /// FFmpeg's form of an ALAC configuration: a 36-byte 'alac' atom.
    static func alacAtom(_ config: [UInt8]) -> [UInt8] {
        [0, 0, 0, 36, 0x61, 0x6C, 0x61, 0x63, 0, 0, 0, 0] + config
    }
}

/// The fields of an MPEG-4 AudioSpecificConfig a stream description needs.
public struct AudioSpecificConfig {
    public var objectType: UInt32
    public var sampleRate: Double
    public var channels: UInt32

    /// The MPEG-4 sampling frequencies by index (ADTS headers use the same table).
    public static let rates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]

    public init?(_ c: [UInt8]) {
        var bit = 0
        func read(_ n: Int) -> UInt32? {
            var v: UInt32 = 0
            for _ in 0..<n {
                guard bit / 8 < c.count else { return nil }
                v = v << 1 | UInt32(c[bit / 8] >> (7 - bit % 8) & 1)
                bit += 1
            }
            return v
        }
        guard var type = read(5) else { return nil }
        if type == 31 { guard let more = read(6) else { return nil }; type = 32 + more }
        guard let index = read(4) else { return nil }
        var rate: UInt32
        if index == 15 { guard let explicit = read(24) else { return nil }; rate = explicit } else {
            guard Int(index) < Self.rates.count else { return nil }
            rate = UInt32(Self.rates[Int(index)])
        }
        guard let channels = read(4), rate > 0 else { return nil }
        objectType = type
        sampleRate = Double(rate)
        self.channels = channels == 7 ? 8 : channels
    }
}
