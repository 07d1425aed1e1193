/// What a stream's header says, once it has all arrived: everything Audio File Stream
/// reports before it produces packets, and how the packets that follow are found.
struct FileStreamHeader {
    enum Framing {
        /// Packets of `bytesPerPacket` bytes back to back (PCM, µ-law, A-law, IMA4).
        case constant
        /// Packets at known positions (a CAF packet table, an MPEG-4 sample table).
        case indexed(offsets: [Int64], sizes: [UInt32])
        /// Self-describing frames found by their headers (MPEG audio, ADTS).
        case frames(FrameHeader)
    }
    var fileType: UInt32
    var format: StreamDescription
    var cookie: [UInt8] = []
    var framing: Framing
    /// File position of the first packet.
    var dataOffset: Int64
    /// nil when the header does not say (the data runs to the end of the stream).
    var dataByteCount: Int64?
    var packetCount: Int64?
    var packetTable: PacketTable?
    var maximumPacketSize: UInt32
    var bitRate: UInt32?
    /// How many bytes of the header the parser consumes before the data starts.
    var consumed = 0

    /// The average bit rate of `packets` packets holding `bytes` bytes.
    static func bitRate(bytes: Int64, packets: Int, format: StreamDescription) -> UInt32? {
        guard packets > 0, format.framesPerPacket > 0, format.sampleRate > 0 else { return nil }
        let seconds = Double(packets) * Double(format.framesPerPacket) / format.sampleRate
        return UInt32(clamping: Int64(Double(bytes * 8) / seconds))
    }
}

/// One step of reading a header: wait, pass over bytes not needed, or done.
///
/// A struct rather than an enum with payloads: every field is always written, so a
/// caller reading which step it is never reads bytes a smaller case left unset (which
/// valgrind reported when a system sound's header was read this way).
struct HeaderStep {
    enum Kind { case needMore, skip, done }
    let kind: Kind
    /// Bytes to pass over (may run past what has arrived), for `.skip`.
    let bytes: Int64
    /// The header, for `.done`.
    let header: FileStreamHeader?

    static let needMore = HeaderStep(kind: .needMore, bytes: 0, header: nil)
    static func skip(_ bytes: Int64) -> HeaderStep { HeaderStep(kind: .skip, bytes: bytes, header: nil) }
    static func done(_ header: FileStreamHeader) -> HeaderStep { HeaderStep(kind: .done, bytes: 0, header: header) }
}

/// Reads one container's header, a step at a time, from the bytes that have arrived.
protocol ContainerHeaderReader {
    mutating func step(_ bytes: FileStreamBytes) throws(AudioFileStatus) -> HeaderStep
}

/// Small chunks the header readers keep whole; anything larger is refused as damage.
private let chunkLimit: Int64 = 64 << 20

// MARK: - MPEG audio and ADTS frames

/// The header of one MPEG audio (layers I-III) or ADTS AAC frame.
struct FrameHeader {
    enum Kind: Equatable { case mpeg(version: Int, layer: Int), adts(profile: Int) }
    let kind: Kind
    let length: Int
    /// Bytes of header before the packet (ADTS only: the packet is the raw AAC frame).
    let payloadStart: Int
    let sampleRate: Int
    let channels: Int
    let framesPerPacket: Int
    let bitRate: Int

    /// Two frames of one stream agree on these.
    func continues(_ other: FrameHeader) -> Bool {
        kind == other.kind && sampleRate == other.sampleRate && channels == other.channels
    }

    private static let mpegRates = [[11025, 12000, 8000], [], [22050, 24000, 16000], [44100, 48000, 32000]]
    private static let mpeg1Bitrates = [[32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
                                        [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
                                        [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]]
    private static let mpeg2Bitrates = [[32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
                                        [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]]

    /// The header at `at`, or nil when the bytes there are not one (or have not arrived).
    static func read(_ b: FileStreamBytes, at: Int) -> FrameHeader? {
        guard at >= 0, at + 4 <= b.count, b[at] == 0xFF, b[at + 1] & 0xE0 == 0xE0 else { return nil }
        if b[at + 1] & 0x06 == 0 { return adts(b, at) }
        return mpeg(b[at + 1], b[at + 2], b[at + 3], maximumBitRate: false)
    }

    private static func adts(_ b: FileStreamBytes, _ at: Int) -> FrameHeader? {
        guard at + 7 <= b.count, b[at + 1] & 0xF0 == 0xF0 else { return nil }
        let profile = Int(b[at + 2] >> 6)
        let rateIndex = Int(b[at + 2] >> 2 & 0x0F)
        let channels = Int(b[at + 2] & 1) << 2 | Int(b[at + 3] >> 6)
        let length = Int(b[at + 3] & 3) << 11 | Int(b[at + 4]) << 3 | Int(b[at + 5] >> 5)
        let headerLength = b[at + 1] & 1 == 1 ? 7 : 9
        // One raw data block per frame (what encoders write); channel configuration 0
        // (layout in the payload) is not read here.
        guard rateIndex < AudioSpecificConfig.rates.count, channels > 0, b[at + 6] & 3 == 0, length > headerLength else { return nil }
        let rate = AudioSpecificConfig.rates[rateIndex]
        return FrameHeader(kind: .adts(profile: profile), length: length, payloadStart: headerLength, sampleRate: rate,
                           channels: channels == 7 ? 8 : channels, framesPerPacket: Self.aacFrames,
                           bitRate: length * 8 * rate / Self.aacFrames)
    }

    private static let aacFrames = Int(FormatFacts.of(FormatID.mpeg4AAC)!.framesPerPacket(0))
    /// Layers I, II and III, looked up once (every frame header asks).
    private static let mpegFacts = [FormatID.mpegLayer1, FormatID.mpegLayer2, FormatID.mpegLayer3].map { FormatFacts.of($0)! }

    private static func mpeg(_ b1: UInt8, _ b2: UInt8, _ b3: UInt8, maximumBitRate: Bool) -> FrameHeader? {
        let version = Int(b1 >> 3 & 3)    // 0: MPEG 2.5, 2: MPEG 2, 3: MPEG 1
        let layer = 4 - Int(b1 >> 1 & 3)  // 1, 2 or 3
        let bitrateIndex = maximumBitRate ? 14 : Int(b2 >> 4)
        let rateIndex = Int(b2 >> 2 & 3)
        guard version != 1, layer != 4, bitrateIndex != 0, bitrateIndex != 15, rateIndex != 3 else { return nil }
        let rate = mpegRates[version][rateIndex]
        let kbps = version == 3 ? mpeg1Bitrates[layer - 1][bitrateIndex - 1]
            : mpeg2Bitrates[layer == 1 ? 0 : 1][bitrateIndex - 1]
        let padding = maximumBitRate ? 1 : Int(b2 >> 1 & 1)
        let frames = Int(mpegFacts[layer - 1].framesPerPacket(Double(rate)))
        let length = layer == 1 ? (12 * kbps * 1000 / rate + padding) * 4 : frames / 8 * kbps * 1000 / rate + padding
        return FrameHeader(kind: .mpeg(version: version, layer: layer), length: length, payloadStart: 0, sampleRate: rate,
                           channels: b3 >> 6 == 3 ? 1 : 2, framesPerPacket: frames, bitRate: kbps * 1000)
    }

    /// The largest frame this stream's kind of header can announce.
    var upperBound: Int {
        switch kind {
        case .adts: return (1 << 13) - 1 - payloadStart
        case .mpeg(let version, let layer):
            let rateIndex = FrameHeader.mpegRates[version].firstIndex(of: sampleRate) ?? 0
            let b1 = UInt8(0xE0 | version << 3 | (4 - layer) << 1 | 1)
            return FrameHeader.mpeg(b1, UInt8(rateIndex << 2), 0, maximumBitRate: true)?.length ?? 2881
        }
    }

    var formatID: UInt32 {
        switch kind {
        case .adts: return FormatID.mpeg4AAC
        case .mpeg(_, let layer): return [FormatID.mpegLayer1, FormatID.mpegLayer2, FormatID.mpegLayer3][layer - 1]
        }
    }
    var fileType: UInt32 {
        switch kind {
        case .adts: return FileType.adts
        case .mpeg(_, let layer): return [FileType.mp1, FileType.mp2, FileType.mp3][layer - 1]
        }
    }
}

/// MPEG audio or ADTS with no container: tags skipped, the first frame found by its
/// header and confirmed by the next one (a radio stream may start mid-frame), and an
/// MPEG stream's Xing/Info frame read for its packet count and priming.
struct FramedHeaderReader: ContainerHeaderReader {
    /// How far to look for the first frame before saying the stream is not audio.
    static let searchLimit: Int64 = 64 << 10
    private var searched: Int64 = 0

    /// What a search for frames found in the bytes that have arrived.
    enum Search {
        /// A frame at `at` whose next frame agrees.
        case found(at: Int, header: FrameHeader)
        /// A frame at `at` whose next one has not arrived yet.
        case unconfirmed(at: Int)
        case nothing
    }

    /// The first frame (of the same stream as `stream`, when given) that the next one
    /// confirms: one header alone may be noise that looks like a header.
    static func search(_ b: FileStreamBytes, continuing stream: FrameHeader? = nil) -> Search {
        var i = 0
        while i + 4 <= b.count {
            if let h = FrameHeader.read(b, at: i), stream.map(h.continues) ?? true {
                guard i + h.length + 7 <= b.count else { return .unconfirmed(at: i) }
                if let next = FrameHeader.read(b, at: i + h.length), next.continues(h) { return .found(at: i, header: h) }
            }
            i += 1
        }
        return .nothing
    }

    mutating func step(_ b: FileStreamBytes) throws(AudioFileStatus) -> HeaderStep {
        // ID3v2 tags (one or more) come first in many MP3 files.
        if b.count >= 3, b[0] == 0x49, b[1] == 0x44, b[2] == 0x33 {
            guard b.count >= 10 else { return .needMore }
            let size = (6..<10).reduce(0) { $0 << 7 | Int(b[$1] & 0x7F) }
            return .skip(Int64(10 + size + (b[5] & 0x10 != 0 ? 10 : 0)))
        }
        switch Self.search(b) {
        case .nothing:
            // No frame in what arrived: pass over it, keeping a possible header's start.
            let drop = max(0, b.count - 8)
            searched += Int64(drop)
            if searched > Self.searchLimit { throw .unsupportedFileType }
            return drop > 0 ? .skip(Int64(drop)) : .needMore
        case .unconfirmed:
            return .needMore
        case .found(let at, let h):
            if at > 0 {
                searched += Int64(at)
                if searched > Self.searchLimit { throw .unsupportedFileType }
                return .skip(Int64(at))
            }
            return .done(header(b, h))
        }
    }

    private func header(_ b: FileStreamBytes, _ h: FrameHeader) -> FileStreamHeader {
        var format = StreamDescription(sampleRate: Double(h.sampleRate), formatID: h.formatID, formatFlags: 0, bytesPerPacket: 0,
                                       framesPerPacket: UInt32(h.framesPerPacket), bytesPerFrame: 0,
                                       channelsPerFrame: UInt32(h.channels), bitsPerChannel: 0)
        var header = FileStreamHeader(fileType: h.fileType, format: format, framing: .frames(h), dataOffset: b.position,
                                  maximumPacketSize: UInt32(h.upperBound), bitRate: UInt32(h.bitRate))
        if case .adts(let profile) = h.kind, let config = b.slice(0, 7)?.array(0, 7).flatMap(MagicCookie.audioSpecificConfig) {
            format.formatFlags = UInt32(profile + 1)
            header.format = format
            header.cookie = MagicCookie.esds(audioSpecificConfig: config)
        } else if case .mpeg(let version, _) = h.kind, let info = XingInfo(b, h, version: version) {
            // The first frame describes the stream instead of holding audio.
            header.consumed = h.length
            header.dataOffset = b.position + Int64(h.length)
            if let frames = info.frames {
                header.packetCount = Int64(frames)
                if let delay = info.encoderDelay, let padding = info.encoderPadding {
                    // The decoder's own delay of 528 + 1 frames comes on top of the encoder's.
                    let total = Int64(frames) * Int64(h.framesPerPacket)
                    let priming = min(total, Int64(delay) + 529)
                    let remainder = max(0, min(total - priming, Int64(padding) - 529))
                    header.packetTable = PacketTable(validFrames: total - priming - remainder, primingFrames: Int32(priming),
                                                     remainderFrames: Int32(remainder))
                }
            }
        }
        return header
    }
}

/// The Xing or Info frame an encoder writes first in an MPEG audio stream.
private struct XingInfo {
    var frames: UInt32?
    var encoderDelay: Int?
    var encoderPadding: Int?

    init?(_ b: FileStreamBytes, _ h: FrameHeader, version: Int) {
        let mono = b[3] >> 6 == 3
        let at = 4 + (version == 3 ? (mono ? 17 : 32) : (mono ? 9 : 17))
        guard let frame = b.slice(0, h.length), let tag = frame.tag(at), tag == "Xing" || tag == "Info",
              let flags = frame.be32(at + 4) else { return nil }
        var i = at + 8
        if flags & 1 != 0 { frames = frame.be32(i); i += 4 }
        if flags & 2 != 0 { i += 4 }
        if flags & 4 != 0 { i += 100 }
        if flags & 8 != 0 { i += 4 }
        // An encoder tag (LAME's, or FFmpeg's in LAME's layout) carries delay and padding.
        if let name = frame.tag(i), ["LAME", "Lavf", "Lavc"].contains(name), let a = frame.u8(i + 21), let m = frame.u8(i + 22),
           let z = frame.u8(i + 23) {
            encoderDelay = Int(a) << 4 | Int(m) >> 4
            encoderPadding = Int(m & 0x0F) << 8 | Int(z)
        }
    }
}

// MARK: - Chunked containers

/// WAVE: RIFF chunks; 'fmt ' says the format and 'data' holds the packets.
struct WaveHeaderReader: ContainerHeaderReader {
    private var started = false
    private var format: StreamDescription?

    mutating func step(_ b: FileStreamBytes) throws(AudioFileStatus) -> HeaderStep {
        if !started {
            guard let head = b.slice(0, 12) else { return .needMore }
            guard head.tag(0) == "RIFF", head.tag(8) == "WAVE" else { throw .unsupportedFileType }
            started = true
            return .skip(12)
        }
        guard let chunk = b.slice(0, 8), let tag = chunk.tag(0), let size32 = chunk.le32(4) else { return .needMore }
        let size = Int64(size32)
        switch tag {
        case "fmt ":
            guard size >= 16, size < chunkLimit else { throw .invalidFile }
            guard let body = b.slice(8, Int(size)) else { return .needMore }
            format = try Self.format(body)
            return .skip(8 + size + (size & 1))
        case "data":
            guard let format else { throw .invalidFile }
            // A size of 0 or all ones: a live recording whose length was not known.
            let known = size32 != 0 && size32 != 0xFFFF_FFFF
            let count = known ? Int64(size32) / Int64(format.bytesPerPacket) * Int64(format.bytesPerPacket) : nil
            return .done(FileStreamHeader(fileType: FileType.wave, format: format, framing: .constant, dataOffset: b.position + 8,
                                      dataByteCount: count, packetCount: count.map { $0 / Int64(format.bytesPerPacket) },
                                      maximumPacketSize: format.bytesPerPacket, consumed: 8))
        default:
            return .skip(8 + size + (size & 1))
        }
    }

    private static func format(_ v: ByteView) throws(AudioFileStatus) -> StreamDescription {
        guard var tag = v.le16(0), let channels = v.le16(2), let rate = v.le32(4), let align = v.le16(12),
              let bits = v.le16(14) else { throw .invalidFile }
        if tag == 0xFFFE, let sub = v.le16(24) { tag = sub }  // WAVE_FORMAT_EXTENSIBLE: the subformat's tag
        guard channels > 0, rate > 0, align > 0 else { throw .invalidFile }
        let c = UInt32(channels)
        switch tag {
        case 1, 3:
            let container = UInt32(align) / c * 8
            guard container >= 8, container <= 64, UInt32(align) == container / 8 * c else { throw .unsupportedDataFormat }
            var f = StreamDescription.linearPCM(rate: Double(rate), channels: c, bits: container, float: tag == 3,
                                                signed: container > 8)
            if bits > 0, UInt32(bits) < container, tag == 1 {
                // Fewer valid bits than the container holds: high-aligned, not packed.
                f.bitsPerChannel = UInt32(bits)
                f.formatFlags = f.formatFlags & ~Flags.packed | Flags.alignedHigh
            }
            return f
        case 6, 7:
            return StreamDescription(coded: tag == 7 ? FormatID.uLaw : FormatID.aLaw, sampleRate: Double(rate), channels: c)
        default:
            throw .unsupportedDataFormat
        }
    }
}

/// AIFF and AIFC: 'COMM' says the format and compression, 'SSND' holds the packets.
struct AIFFHeaderReader: ContainerHeaderReader {
    private var started = false
    private var fileType = FileType.aiff
    private var format: StreamDescription?

    mutating func step(_ b: FileStreamBytes) throws(AudioFileStatus) -> HeaderStep {
        if !started {
            guard let head = b.slice(0, 12) else { return .needMore }
            guard head.tag(0) == "FORM", let kind = head.tag(8), kind == "AIFF" || kind == "AIFC" else {
                throw .unsupportedFileType
            }
            fileType = kind == "AIFC" ? FileType.aifc : FileType.aiff
            started = true
            return .skip(12)
        }
        guard let chunk = b.slice(0, 8), let tag = chunk.tag(0), let size32 = chunk.be32(4) else { return .needMore }
        let size = Int64(size32)
        switch tag {
        case "COMM":
            guard size >= 18, size < chunkLimit else { throw .invalidFile }
            guard let body = b.slice(8, Int(size)) else { return .needMore }
            format = try Self.format(body, compressed: fileType == FileType.aifc)
            return .skip(8 + size + (size & 1))
        case "SSND":
            guard let format else { throw .invalidFile }
            guard let offset = b.slice(8, 8)?.be32(0) else { return .needMore }
            guard size >= 8 + Int64(offset) else { throw .invalidFile }
            let packet = Int64(format.bytesPerPacket)
            let bytes = (size - 8 - Int64(offset)) / packet * packet
            return .done(FileStreamHeader(fileType: fileType, format: format, framing: .constant,
                                      dataOffset: b.position + 16 + Int64(offset), dataByteCount: bytes,
                                      packetCount: bytes / packet, maximumPacketSize: format.bytesPerPacket,
                                      consumed: 16 + Int(offset)))
        default:
            return .skip(8 + size + (size & 1))
        }
    }

    private static func format(_ v: ByteView, compressed: Bool) throws(AudioFileStatus) -> StreamDescription {
        guard let channels = v.be16(0), let bits = v.be16(6), let rate = v.extended80(8) else { throw .invalidFile }
        guard channels > 0, rate > 0, rate < 10_000_000, bits > 0, bits <= 64 else { throw .invalidFile }
        let c = UInt32(channels)
        let compression = compressed ? (v.tag(18) ?? "NONE") : "NONE"
        let whole = (UInt32(bits) + 7) / 8 * 8
        switch compression {
        case "NONE", "twos", "sowt", "in24", "in32", "42ni", "23ni":
            let width: UInt32 = ["in24": 24, "42ni": 24, "in32": 32, "23ni": 32][compression] ?? whole
            var f = StreamDescription.linearPCM(rate: rate, channels: c, bits: width,
                                                bigEndian: !["sowt", "42ni", "23ni"].contains(compression))
            if width == 8 { f.formatFlags &= ~Flags.bigEndian }
            return f
        case "fl32", "FL32", "fl64", "FL64":
            return .linearPCM(rate: rate, channels: c, bits: compression.hasSuffix("32") ? 32 : 64, float: true, bigEndian: true)
        case "ulaw", "ULAW", "alaw", "ALAW":
            return StreamDescription(coded: compression.lowercased() == "ulaw" ? FormatID.uLaw : FormatID.aLaw, sampleRate: rate,
                                     channels: c)
        case "ima4":
            return StreamDescription(coded: FormatID.appleIMA4, sampleRate: rate, channels: c)
        default:
            throw .unsupportedDataFormat
        }
    }
}

/// CAF: 'desc', 'kuki' and 'pakt' come before 'data' in a file made for streaming.
/// Variable-rate data whose packet table follows the data cannot be streamed.
struct CAFHeaderReader: ContainerHeaderReader {
    private var started = false
    private var format: StreamDescription?
    private var cookie: [UInt8] = []
    private var sizes: [UInt32]?
    private var table: PacketTable?

    mutating func step(_ b: FileStreamBytes) throws(AudioFileStatus) -> HeaderStep {
        if !started {
            guard let head = b.slice(0, 8) else { return .needMore }
            guard head.tag(0) == "caff", head.be16(4) == 1 else { throw .unsupportedFileType }
            started = true
            return .skip(8)
        }
        guard let chunk = b.slice(0, 12), let tag = chunk.tag(0), let size64 = chunk.be64(4) else { return .needMore }
        let size = Int64(bitPattern: size64)
        if tag == "data" { return try data(b, size: size) }
        guard size >= 0 else { throw .invalidFile }
        switch tag {
        case "desc", "kuki", "pakt":
            guard size < chunkLimit else { throw .invalidFile }
            guard let body = b.slice(12, Int(size)) else { return .needMore }
            switch tag {
            case "desc": format = try Self.format(body)
            case "kuki": cookie = body.array(0, body.count) ?? []
            default: try packetTable(body)
            }
            return .skip(12 + size)
        default:
            return .skip(12 + size)
        }
    }

    private mutating func data(_ b: FileStreamBytes, size: Int64) throws(AudioFileStatus) -> HeaderStep {
        guard var format else { throw .invalidFile }
        // The edit count too, before the header is done: fed a few bytes at a time, what
        // follows the chunk header would otherwise pass for audio.
        guard b.slice(0, 16) != nil else { return .needMore }
        let start = b.position + 16  // after the chunk header and its edit count
        let known = size >= 4 ? size - 4 : nil
        guard size >= 4 || size == -1 else { throw .invalidFile }
        if format.formatID == FormatID.appleLossless {
            guard let config = MagicCookie.alacConfig(cookie) else { throw .unsupportedDataFormat }
            cookie = config
            if format.formatFlags == 0 { format.formatFlags = [16: 1, 20: 2, 24: 3, 32: 4][config[5]] ?? 0 }
        }
        // AAC's flags are its MPEG-4 object type, from the cookie, as AudioFile and the
        // MPEG-4 and ADTS readers report them ('desc' may say 0: ours and others' writers
        // store the program's description).
        if format.formatID == FormatID.mpeg4AAC, let config = AudioSpecificConfig(MagicCookie.audioSpecificConfig(fromCookie: cookie)) {
            format.formatFlags = config.objectType
        }
        if format.isConstantBitRate {
            let packet = Int64(format.bytesPerPacket)
            let bytes = known.map { $0 / packet * packet }
            return .done(FileStreamHeader(fileType: FileType.caf, format: format, cookie: cookie, framing: .constant, dataOffset: start,
                                      dataByteCount: bytes, packetCount: bytes.map { $0 / packet },
                                      maximumPacketSize: format.bytesPerPacket, consumed: 16))
        }
        guard let sizes else { throw .notOptimized }
        var offsets: [Int64] = []
        offsets.reserveCapacity(sizes.count)
        var at = start
        for s in sizes { offsets.append(at); at += Int64(s) }
        let bytes = at - start
        if let known, bytes > known { throw .invalidFile }
        return .done(FileStreamHeader(fileType: FileType.caf, format: format, cookie: cookie, framing: .indexed(offsets: offsets, sizes: sizes),
                                  dataOffset: start, dataByteCount: bytes, packetCount: Int64(sizes.count), packetTable: table,
                                  maximumPacketSize: sizes.max() ?? 0,
                                  bitRate: FileStreamHeader.bitRate(bytes: bytes, packets: sizes.count, format: format), consumed: 16))
    }


    private static func format(_ v: ByteView) throws(AudioFileStatus) -> StreamDescription {
        guard let rate = v.float64BE(0), let id = v.be32(8), let flags = v.be32(12), let bytesPerPacket = v.be32(16),
              let framesPerPacket = v.be32(20), let channels = v.be32(24), let bits = v.be32(28) else { throw .invalidFile }
        guard rate > 0, rate < 10_000_000, channels > 0, channels <= 64 else { throw .invalidFile }
        if id == FormatID.linearPCM {
            // CAF's own PCM flags: 1 float, 2 little-endian.
            guard bits > 0, bits <= 64, bytesPerPacket == (bits + 7) / 8 * channels, framesPerPacket == 1 else {
                throw .unsupportedDataFormat
            }
            return .linearPCM(rate: rate, channels: channels, bits: bits, float: flags & 1 != 0, bigEndian: flags & 2 == 0)
        }
        guard framesPerPacket > 0 else { throw .unsupportedDataFormat }
        // IMA4's bits per channel are 0 in Apple's description, whatever a writer stored.
        return StreamDescription(sampleRate: rate, formatID: id, formatFlags: flags, bytesPerPacket: bytesPerPacket,
                                 framesPerPacket: framesPerPacket, bytesPerFrame: framesPerPacket == 1 ? bytesPerPacket : 0,
                                 channelsPerFrame: channels, bitsPerChannel: id == FormatID.appleIMA4 ? 0 : bits)
    }

    /// The packet sizes (variable-length numbers, seven bits a byte) and priming.
    private mutating func packetTable(_ v: ByteView) throws(AudioFileStatus) {
        guard let count = v.be64(0), let valid = v.be64(8), let priming = v.be32(16), let remainder = v.be32(20) else {
            throw .invalidFile
        }
        guard count <= UInt64(v.count) else { throw .invalidFile }
        let framesVary = format?.framesPerPacket == 0
        var sizes: [UInt32] = []
        sizes.reserveCapacity(Int(count))
        var i = 24
        func number() throws(AudioFileStatus) -> UInt32 {
            var n: UInt64 = 0
            for _ in 0..<5 {
                guard let byte = v.u8(i) else { throw .invalidFile }
                i += 1
                n = n << 7 | UInt64(byte & 0x7F)
                if byte & 0x80 == 0 { return UInt32(clamping: n) }
            }
            throw .invalidFile
        }
        for _ in 0..<count {
            let size = try number()
            guard size > 0, size < 16 << 20 else { throw .invalidFile }
            sizes.append(size)
            if framesVary { _ = try number() }
        }
        self.sizes = sizes
        table = PacketTable(validFrames: Int64(bitPattern: valid), primingFrames: Int32(bitPattern: priming),
                            remainderFrames: Int32(bitPattern: remainder))
    }
}

// MARK: - MPEG-4

/// MPEG-4 (M4A): the 'moov' box must come before 'mdat' to be streamed; its sample table
/// gives every packet's position and size.
struct MPEG4HeaderReader: ContainerHeaderReader {
    mutating func step(_ b: FileStreamBytes) throws(AudioFileStatus) -> HeaderStep {
        guard let head = b.slice(0, 8), let size32 = head.be32(0), let tag = head.tag(4) else { return .needMore }
        var size = Int64(size32), headerSize = 8
        if size32 == 1 {
            guard let large = b.slice(8, 8)?.be64(0) else { return .needMore }
            size = Int64(bitPattern: large)
            headerSize = 16
        }
        switch tag {
        case "mdat":
            throw .notOptimized
        case "moov":
            guard size > Int64(headerSize), size < chunkLimit else { throw .invalidFile }
            guard let body = b.slice(headerSize, Int(size) - headerSize) else { return .needMore }
            return .done(try MovieBox(body).header())
        default:
            // A size of 0 (to the end of the file) before 'moov' leaves nothing to stream.
            guard size >= Int64(headerSize) else { throw size == 0 ? .notOptimized : .invalidFile }
            return .skip(size)
        }
    }
}

extension MPEG4HeaderReader {
    /// The cookie a whole MPEG-4 file states for its first sound track (the ES descriptor
    /// of its 'esds', the same bytes Audio File Stream reports), wherever its 'moov' lies;
    /// nil when the file has none to read. Audio File reads the cookie here, so that both
    /// services hand a converter the same bytes.
    static func cookie(of source: ByteSource) -> [UInt8]? {
        var position: Int64 = 0
        for _ in 0..<64 {
            guard let head = source.bytes(at: position, count: 8) else { return nil }
            var size = Int64(UInt32(head[0]) << 24 | UInt32(head[1]) << 16 | UInt32(head[2]) << 8 | UInt32(head[3]))
            var headerSize: Int64 = 8
            if size == 1 {
                guard let large = source.bytes(at: position + 8, count: 8) else { return nil }
                size = Int64(bitPattern: large.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
                headerSize = 16
            }
            guard size >= headerSize else { return nil }
            if head[4...7].elementsEqual("moov".utf8) {
                guard size - headerSize < chunkLimit,
                      let body = source.bytes(at: position + headerSize, count: Int(size - headerSize)) else { return nil }
                return body.withUnsafeBytes { raw -> [UInt8]? in
                    guard let movie = try? MovieBox(ByteView(raw)), !movie.config.isEmpty, movie.entry == "mp4a"
                    else { return nil }
                    return movie.config
                }
            }
            position += size
        }
        return nil
    }
}

/// The parts of a 'moov' box that describe the first sound track.
private struct MovieBox {
    var movieTimescale: Int64 = 0
    var mediaTimescale: Int64 = 0
    var editMediaTime: Int64 = 0
    var editDuration: Int64 = -1
    var entry: String?
    var config: [UInt8] = []
    var stts: [(count: UInt32, delta: UInt32)] = []
    var stsc: [(first: UInt32, perChunk: UInt32)] = []
    var sampleSize: UInt32 = 0
    var sizes: [UInt32] = []
    var chunkOffsets: [Int64] = []
    var channels: UInt32 = 0
    var entryRate: Double = 0

    init(_ moov: ByteView) throws(AudioFileStatus) {
        try walk(moov, depth: 0)
    }

    /// Children of a box: (tag, body) pairs.
    private static func boxes(_ v: ByteView) throws(AudioFileStatus) -> [(String, ByteView)] {
        var out: [(String, ByteView)] = []
        var i = 0
        while i + 8 <= v.count {
            guard let size32 = v.be32(i), let tag = v.tag(i + 4) else { throw .invalidFile }
            var size = Int(size32), header = 8
            if size32 == 1 {
                guard let large = v.be64(i + 8), large < UInt64(v.count) else { throw .invalidFile }
                size = Int(large)
                header = 16
            } else if size32 == 0 {
                size = v.count - i
            }
            guard size >= header, let body = v.sub(i + header, size - header) else { throw .invalidFile }
            out.append((tag, body))
            i += size
        }
        return out
    }

    private mutating func walk(_ v: ByteView, depth: Int) throws(AudioFileStatus) {
        guard depth < 8 else { throw .invalidFile }
        for (tag, body) in try Self.boxes(v) {
            switch tag {
            case "mvhd":
                movieTimescale = Int64(body.u8(0) == 1 ? body.be32(20) ?? 0 : body.be32(12) ?? 0)
            case "trak":
                // The first sound track only.
                guard entry == nil else { continue }
                var track = MovieBox(blank: ())
                track.movieTimescale = movieTimescale
                try track.walk(body, depth: depth + 1)
                if track.entry != nil {
                    let timescale = movieTimescale
                    self = track
                    movieTimescale = timescale
                }
            case "mdia", "minf", "stbl", "edts":
                try walk(body, depth: depth + 1)
            case "mdhd":
                mediaTimescale = Int64(body.u8(0) == 1 ? body.be32(20) ?? 0 : body.be32(12) ?? 0)
            case "hdlr":
                guard body.tag(8) == "soun" else { return }  // not a sound track: stop reading it
            case "elst":
                guard let count = body.be32(4), count >= 1 else { continue }
                if body.u8(0) == 1 {
                    editDuration = Int64(bitPattern: body.be64(8) ?? 0)
                    editMediaTime = Int64(bitPattern: body.be64(16) ?? 0)
                } else {
                    editDuration = Int64(body.be32(8) ?? 0)
                    editMediaTime = Int64(Int32(bitPattern: body.be32(12) ?? 0))
                }
            case "stsd":
                try sampleDescription(body)
            case "stts":
                guard let n = body.be32(4), Int(n) <= body.count / 8 else { throw .invalidFile }
                stts = (0..<Int(n)).map { (body.be32(8 + 8 * $0)!, body.be32(12 + 8 * $0)!) }
            case "stsc":
                guard let n = body.be32(4), Int(n) <= body.count / 12 else { throw .invalidFile }
                stsc = (0..<Int(n)).map { (body.be32(8 + 12 * $0)!, body.be32(12 + 12 * $0)!) }
            case "stsz":
                guard let fixed = body.be32(4), let n = body.be32(8) else { throw .invalidFile }
                sampleSize = fixed
                if fixed == 0 {
                    guard Int(n) <= body.count / 4 else { throw .invalidFile }
                    sizes = (0..<Int(n)).map { body.be32(12 + 4 * $0)! }
                } else {
                    guard n < 1 << 26 else { throw .invalidFile }
                    sizes = [UInt32](repeating: fixed, count: Int(n))
                }
            case "stco":
                guard let n = body.be32(4), Int(n) <= body.count / 4 else { throw .invalidFile }
                chunkOffsets = (0..<Int(n)).map { Int64(body.be32(8 + 4 * $0)!) }
            case "co64":
                guard let n = body.be32(4), Int(n) <= body.count / 8 else { throw .invalidFile }
                chunkOffsets = (0..<Int(n)).map { Int64(bitPattern: body.be64(8 + 8 * $0)!) }
            default:
                continue
            }
        }
    }

    private init(blank: ()) {}

    /// The first sound sample entry: 'mp4a' with its 'esds', or 'alac' with its configuration.
    private mutating func sampleDescription(_ v: ByteView) throws(AudioFileStatus) {
        guard let count = v.be32(4), count >= 1, let size = v.be32(8), let tag = v.tag(12), size >= 36,
              let e = v.sub(8, Int(size)) else { throw .invalidFile }
        guard tag == "mp4a" || tag == "alac" else { throw .unsupportedDataFormat }
        entry = tag
        channels = UInt32(e.be16(24) ?? 0)
        entryRate = Double((e.be32(32) ?? 0) >> 16)
        let version = e.be16(16) ?? 0
        let childrenAt = 36 + (version == 1 ? 16 : version == 2 ? 36 : 0)
        guard let children = e.sub(childrenAt, e.count - childrenAt) else { throw .invalidFile }
        for (child, body) in try Self.boxes(children) {
            if tag == "mp4a", child == "esds", let all = body.array(0, body.count), all.count > 4 {
                config = Array(all[4...])   // the ES descriptor after version and flags: Apple's AAC cookie
            } else if tag == "alac", child == "alac", let c = body.array(4, 24) {
                config = c
            }
        }
        guard !config.isEmpty else { throw .unsupportedDataFormat }
    }

    func header() throws(AudioFileStatus) -> FileStreamHeader {
        guard let entry else { throw .unsupportedDataFormat }
        guard !sizes.isEmpty, !chunkOffsets.isEmpty, !stsc.isEmpty else { throw .invalidFile }
        // Every packet's position: chunks hold runs of consecutive samples.
        var offsets: [Int64] = []
        offsets.reserveCapacity(sizes.count)
        var sample = 0
        for (c, chunkOffset) in chunkOffsets.enumerated() {
            let chunkNumber = UInt32(c + 1)
            let run = stsc.last { $0.first <= chunkNumber }?.perChunk ?? 0
            var at = chunkOffset
            for _ in 0..<Int(run) where sample < sizes.count {
                offsets.append(at)
                at += Int64(sizes[sample])
                sample += 1
            }
            if sample == sizes.count { break }
        }
        guard offsets.count == sizes.count else { throw .invalidFile }
        // Packets are delivered as the file arrives, so they must come in file order.
        for i in 1..<max(1, offsets.count) where offsets[i] < offsets[i - 1] + Int64(sizes[i - 1]) { throw .invalidFile }
        guard sizes.allSatisfy({ $0 > 0 && $0 < 16 << 20 }) else { throw .invalidFile }

        var format: StreamDescription
        var cookie = config
        if entry == "alac" {
            guard config.count == 24 else { throw .unsupportedDataFormat }
            let frameLength = UInt32(config[0]) << 24 | UInt32(config[1]) << 16 | UInt32(config[2]) << 8 | UInt32(config[3])
            let rate = UInt32(config[20]) << 24 | UInt32(config[21]) << 16 | UInt32(config[22]) << 8 | UInt32(config[23])
            guard frameLength > 0, frameLength <= 1 << 16, config[9] > 0, rate > 0,
                  let flag = [16: UInt32(1), 20: 2, 24: 3, 32: 4][config[5]] else { throw .unsupportedDataFormat }
            format = StreamDescription(coded: FormatID.appleLossless, sampleRate: Double(rate), channels: UInt32(config[9]),
                                       flags: flag, framesPerPacket: frameLength)
        } else {
            let asc = MagicCookie.audioSpecificConfig(fromCookie: config)
            guard let parsed = AudioSpecificConfig(asc) else { throw .unsupportedDataFormat }
            cookie = config
            format = StreamDescription(coded: FormatID.mpeg4AAC, sampleRate: parsed.sampleRate,
                                       channels: parsed.channels > 0 ? parsed.channels : channels, flags: parsed.objectType)
        }
        let perPacket = Int64(format.framesPerPacket)
        let total = Int64(sizes.count) * perPacket
        // Frames in the media, from its time-to-sample table.
        let scale = mediaTimescale > 0 ? Double(format.sampleRate) / Double(mediaTimescale) : 1
        let media = Int64((Double(stts.reduce(Int64(0)) { $0 + Int64($1.count) * Int64($1.delta) }) * scale).rounded())
        var priming = Int64((Double(max(0, editMediaTime)) * scale).rounded())
        var valid = media - priming
        if editDuration >= 0, movieTimescale > 0 {
            valid = Int64((Double(editDuration) * format.sampleRate / Double(movieTimescale)).rounded())
        }
        priming = min(priming, total)
        valid = max(0, min(valid, total - priming))
        let packetBytes = sizes.reduce(Int64(0)) { $0 + Int64($1) }
        return FileStreamHeader(fileType: FileType.m4a, format: format, cookie: cookie, framing: .indexed(offsets: offsets, sizes: sizes),
                            dataOffset: offsets[0], dataByteCount: packetBytes,
                            packetCount: Int64(sizes.count),
                            packetTable: PacketTable(validFrames: valid, primingFrames: Int32(clamping: priming),
                                                     remainderFrames: Int32(clamping: total - priming - valid)),
                            maximumPacketSize: sizes.max() ?? 0,
                            bitRate: FileStreamHeader.bitRate(bytes: packetBytes, packets: sizes.count, format: format),
                            consumed: 0)
    }
}
