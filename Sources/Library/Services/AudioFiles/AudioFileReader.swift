import CMediaCodecs

/// A packet description (AudioStreamPacketDescription) in Swift.
public struct PacketDescription: Equatable, Sendable {
    public var startOffset: Int64
    public var variableFrames: UInt32
    public var byteSize: UInt32
    public init(startOffset: Int64, variableFrames: UInt32, byteSize: UInt32) {
        self.startOffset = startOffset
        self.variableFrames = variableFrames
        self.byteSize = byteSize
    }
}

/// The priming and remainder frames of a lossy stream (AudioFilePacketTableInfo).
public struct PacketTable: Equatable, Sendable {
    public var validFrames: Int64
    public var primingFrames: Int32
    public var remainderFrames: Int32
    public init(validFrames: Int64, primingFrames: Int32, remainderFrames: Int32) {
        self.validFrames = validFrames
        self.primingFrames = primingFrames
        self.remainderFrames = remainderFrames
    }
}

/// An audio file opened for reading: its container and data format as Apple's Audio File
/// Services state them, and its packets. Constant-bit-rate data (PCM, µ-law, A-law, IMA4)
/// is read from the file where it lies; the packets of variable-rate data (AAC, MP3, ALAC)
/// are read once, at open, into one buffer with an index, as a packet table.
public final class AudioFileReader: @unchecked Sendable {
    public let source: ByteSource
    public let fileType: UInt32
    public let format: StreamDescription
    public let magicCookie: [UInt8]
    /// What the decoder takes: the codec and its configuration in FFmpeg's form.
    let codec: MediaCodec
    let decoderConfig: [UInt8]
    public let dataOffset: Int64
    public let dataByteCount: Int64
    public let packetCount: Int64
    public let maximumPacketSize: UInt32
    public let packetTable: PacketTable?
    public let bitRate: UInt32
    public let sourceBitDepth: Int32
    private let blob: [UInt8]
    private let index: [PacketDescription]

    /// The most a file may hold in variable-rate packets (bounded memory on any input).
    public static let packetBytesLimit = 512 << 20

    /// The container is found from its content: a program's file-type hint is not needed.
    /// How long the file plays, in seconds, as its container's header says, read without
    /// reading its packets (which opening a reader does, all of them); nil when the
    /// header does not say. What refuses an over-long system sound at once.
    public static func headerDuration(of source: ByteSource) -> Double? {
        let input = DemuxerInput(source)
        var demuxer: OpaquePointer?
        let opened = input.withMediaSource { MediaDemuxerOpen($0, nil, 1 << 20, &demuxer) }
        guard opened == 0, let demuxer else { return nil }
        defer { MediaDemuxerClose(demuxer) }
        guard let info = MediaDemuxerInfo(demuxer)?.pointee, info.durationFrames > 0, info.sampleRate > 0 else { return nil }
        return Double(info.durationFrames) / Double(info.sampleRate)
    }

    /// The file's tags as FFmpeg names them (container first, then the stream), in order:
    /// what kAudioFilePropertyInfoDictionary is made from.
    public let tags: [(key: String, value: String)]
    /// The file's own chunks, markers and regions (CAF, AIFF, WAV).
    public let annotations: FileAnnotations

    private static func tags(of demuxer: OpaquePointer) -> [(key: String, value: String)] {
        var found: [(key: String, value: String)] = []
        var value: UnsafePointer<CChar>?
        var index: Int32 = 0
        while found.count < 256, let key = MediaDemuxerTag(demuxer, index, &value) {
            if let value { found.append((String(cString: key), String(cString: value))) }
            index += 1
        }
        return found
    }

    public init(source: ByteSource) throws(AudioFileStatus) {
        self.source = source
        let input = DemuxerInput(source)
        let head = source.bytes(at: 0, count: 12) ?? []
        guard head.count == 12 else {
            // Too short to be any container we know.
            throw (source.size ?? 0) == 0 ? .invalidFile : .unsupportedFileType
        }
        var demuxer: OpaquePointer?
        let opened = input.withMediaSource { MediaDemuxerOpen($0, nil, 1 << 20, &demuxer) }
        guard opened == 0, let demuxer else {
            // -4: FFmpeg is not installed; the file may be fine.
            throw opened == -3 ? .noMemory : opened == -2 ? .unsupportedDataFormat : opened == -4 ? .unspecified
                : .unsupportedFileType
        }
        defer { MediaDemuxerClose(demuxer) }
        let info = MediaDemuxerInfo(demuxer)!.pointee
        tags = Self.tags(of: demuxer)
        let container = withUnsafeBytes(of: info.container) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        fileType = try Self.fileType(container: container, codec: info.codec, head: head)
        annotations = FileAnnotations.read(source, fileType: fileType)
        guard info.sampleRate > 0, info.channels > 0, info.channels <= 64 else { throw .unsupportedDataFormat }
        codec = info.codec
        let extradata = info.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(info.extradataSize))) } ?? []

        // Every packet, once: the bytes of variable-rate ones, the extent of constant ones.
        var blob: [UInt8] = []
        var index: [PacketDescription] = []
        var firstPosition: Int64 = -1
        var byteCount: Int64 = 0
        var priming: Int64 = 0, remainder: Int64 = 0
        var largest = 0
        var adtsConfig: [UInt8]?
        let constant = [MediaCodecPCM, MediaCodecULaw, MediaCodecALaw, MediaCodecIMA4].contains(info.codec)
        var packet = MediaPacket()
        while true {
            let got = MediaDemuxerRead(demuxer, &packet)
            if got == 0 { break }
            // A damaged stream after some packets ends there (as a truncated file does);
            // one with none is not a file we can read.
            if got < 0 { if byteCount == 0 && index.isEmpty { throw .invalidFile }; break }
            guard packet.size > 0, let data = packet.data else { continue }
            if firstPosition < 0 { firstPosition = packet.position }
            if packet.skipStart > 0 && index.count < 64 { priming += Int64(packet.skipStart) }
            if packet.discardEnd > 0 { remainder = Int64(packet.discardEnd) }
            if constant {
                byteCount += Int64(packet.size)
                continue
            }
            var start = 0
            if container == "aac" {
                // ADTS: the packet is the raw AAC frame; the header becomes the cookie.
                let header = Array(UnsafeBufferPointer(start: data, count: min(9, Int(packet.size))))
                if adtsConfig == nil { adtsConfig = MagicCookie.audioSpecificConfig(adtsHeader: header) }
                start = header.count >= 2 && header[1] & 1 == 0 ? 9 : 7
                if start >= Int(packet.size) { continue }
            }
            let size = Int(packet.size) - start
            guard blob.count + size <= Self.packetBytesLimit else { throw .invalidFile }
            index.append(PacketDescription(startOffset: Int64(blob.count), variableFrames: 0, byteSize: UInt32(size)))
            blob.append(contentsOf: UnsafeBufferPointer(start: data + start, count: size))
            largest = max(largest, size)
        }
        self.blob = blob
        self.index = index

        // The data format and its cookie, as Apple reports them.
        let rate = Double(info.sampleRate), channels = UInt32(info.channels)
        var cookie: [UInt8] = []
        var config: [UInt8] = extradata
        var format: StreamDescription
        var depth: Int32 = 0
        switch info.codec {
        case MediaCodecPCM:
            let bits = UInt32(info.pcmBits)
            format = .linearPCM(rate: rate, channels: channels, bits: bits, float: info.pcmFloat != 0,
                                bigEndian: info.pcmBigEndian != 0, signed: info.pcmSigned != 0)
            depth = info.pcmFloat != 0 ? -Int32(bits) : Int32(bits)
        case MediaCodecULaw, MediaCodecALaw:
            format = StreamDescription(coded: info.codec == MediaCodecULaw ? FormatID.uLaw : FormatID.aLaw, sampleRate: rate,
                                       channels: channels)
            depth = 16
        case MediaCodecIMA4:
            format = StreamDescription(coded: FormatID.appleIMA4, sampleRate: rate, channels: channels)
            depth = 16
        case MediaCodecAAC:
            config = adtsConfig ?? extradata
            guard !config.isEmpty else { throw .unsupportedDataFormat }
            // The cookie as the file states it (an MPEG-4 file's 'esds', a CAF's 'kuki', as
            // Audio File Stream reports them), else made from the configuration: ADTS states
            // no bit rates.
            cookie = Self.statedAACCookie(source, fileType: fileType) ?? MagicCookie.esds(audioSpecificConfig: config)
            format = StreamDescription(coded: FormatID.mpeg4AAC, sampleRate: rate, channels: channels,
                                       flags: UInt32(max(0, info.aacProfile)))
        case MediaCodecMP3, MediaCodecMP2, MediaCodecMP1:
            guard let id = FormatFacts.decoded(by: info.codec)?.formatID else { throw .unsupportedDataFormat }
            // The stream's frame size where the container states it, else the layer's.
            format = StreamDescription(coded: id, sampleRate: rate, channels: channels,
                                       framesPerPacket: info.frameSize > 0 ? UInt32(info.frameSize) : nil)
        case MediaCodecALAC:
            guard let alac = MagicCookie.alacConfig(extradata) else { throw .unsupportedDataFormat }
            cookie = alac
            config = MagicCookie.alacAtom(alac)
            let frameLength = UInt32(alac[0]) << 24 | UInt32(alac[1]) << 16 | UInt32(alac[2]) << 8 | UInt32(alac[3])
            let bitDepth = alac[5]
            let flag: UInt32 = [16: 1, 20: 2, 24: 3, 32: 4][bitDepth] ?? 0
            guard frameLength > 0, frameLength <= 1 << 16, flag != 0 else { throw .unsupportedDataFormat }
            format = StreamDescription(sampleRate: rate, formatID: FormatID.appleLossless, formatFlags: flag, bytesPerPacket: 0,
                                       framesPerPacket: frameLength, bytesPerFrame: 0, channelsPerFrame: channels,
                                       bitsPerChannel: 0)
            depth = Int32(bitDepth)
        default:
            throw .unsupportedDataFormat
        }
        self.format = format
        self.magicCookie = cookie
        self.decoderConfig = config
        self.sourceBitDepth = depth

        if constant {
            guard firstPosition >= 0 || byteCount == 0 else { throw .invalidFile }
            dataOffset = max(0, firstPosition)
            // Whole packets only: a truncated last one is dropped.
            let packetBytes = Int64(format.bytesPerPacket)
            packetCount = byteCount / packetBytes
            dataByteCount = packetCount * packetBytes
            maximumPacketSize = format.bytesPerPacket
            // Packets of many frames (IMA4) in a CAF may state that the last was padded.
            let total = packetCount * Int64(format.framesPerPacket)
            if format.framesPerPacket > 1, fileType == FileType.caf, let stated = Self.cafPacketTable(source),
               stated.validFrames > 0, stated.primingFrames >= 0, stated.remainderFrames >= 0,
               Int64(stated.primingFrames) + stated.validFrames <= total {
                packetTable = PacketTable(validFrames: stated.validFrames, primingFrames: stated.primingFrames,
                                          remainderFrames: Int32(total - stated.validFrames - Int64(stated.primingFrames)))
            } else {
                packetTable = nil
            }
            bitRate = UInt32(clamping: Int64(Double(packetBytes * 8) * rate / Double(format.framesPerPacket)))
        } else {
            dataOffset = max(0, firstPosition)
            dataByteCount = Int64(blob.count)
            packetCount = Int64(index.count)
            maximumPacketSize = UInt32(largest)
            let total = packetCount * Int64(format.framesPerPacket)
            if info.codec == MediaCodecALAC, let last = index.last {
                // ALAC's last packet says how many frames it holds: decode it to know.
                let frames = Self.decodedFrames(codec: codec, format: format, config: config,
                                                packet: Array(blob[Int(last.startOffset)..<Int(last.startOffset) + Int(last.byteSize)]))
                remainder = Int64(format.framesPerPacket) - Int64(frames)
            } else if remainder == 0, info.durationFrames > 0, info.durationFrames < total - priming {
                remainder = total - priming - info.durationFrames
            }
            var valid = total - min(priming, total) - max(0, min(remainder, total - min(priming, total)))
            if fileType == FileType.caf, let stated = Self.cafPacketTable(source) {
                // A CAF states its priming and valid frames (FFmpeg does not pass them on):
                // the stricter of what it states and what decoding found.
                priming = max(priming, Int64(stated.primingFrames))
                valid = min(valid, stated.validFrames > 0 ? stated.validFrames : valid)
                remainder = total - min(priming, total) - max(0, valid)
            }
            priming = min(priming, total)
            remainder = max(0, min(remainder, total - priming))
            packetTable = PacketTable(validFrames: total - priming - remainder, primingFrames: Int32(priming),
                                      remainderFrames: Int32(remainder))
            let seconds = Double(max(1, total)) / rate
            bitRate = info.bitRate > 0 ? UInt32(clamping: info.bitRate) : UInt32(clamping: Int64(Double(blob.count * 8) / seconds))
        }
    }

    private static func decodedFrames(codec: MediaCodec, format: StreamDescription, config: [UInt8], packet: [UInt8]) -> Int {
        var whole = format
        whole.bytesPerPacket = 0
        guard let decoder = PacketDecoder(codec, format: whole, config: config) else { return Int(format.framesPerPacket) }
        var scratch = [Float](repeating: 0, count: 8192 * Int(format.channelsPerFrame))
        var sent = false
        var frames = 0
        while true {
            let got = scratch.withUnsafeMutableBufferPointer { out in
                decoder.read(into: out.baseAddress!, frames: 8192) { decoder in
                    if sent { return false }
                    sent = true
                    packet.withUnsafeBytes { decoder.send($0) }
                    return true
                }
            }
            if got == 0 { return frames }
            frames += got
        }
    }

    /// The priming and valid frames a CAF's 'pakt' chunk states.
    static func cafPacketTable(_ source: ByteSource) -> PacketTable? {
        guard let body = cafChunk(source, "pakt", count: { _ in 24 }) else { return nil }
        func be(_ i: Int, _ n: Int) -> Int64 { body[i..<i + n].reduce(Int64(0)) { $0 << 8 | Int64($1) } }
        return PacketTable(validFrames: be(8, 8), primingFrames: Int32(truncatingIfNeeded: be(16, 4)),
                           remainderFrames: Int32(truncatingIfNeeded: be(20, 4)))
    }

    /// The first `count(size)` bytes of the first CAF chunk tagged `tag` (of `size` bytes),
    /// nil when there is none before the 64th chunk or it is shorter.
    static func cafChunk(_ source: ByteSource, _ tag: String, count: (Int64) -> Int64) -> [UInt8]? {
        var at: Int64 = 8
        for _ in 0..<64 {
            guard let head = source.bytes(at: at, count: 12), head.count == 12 else { return nil }
            let size = head[4..<12].reduce(Int64(0)) { $0 << 8 | Int64($1) }
            if head[0..<4].elementsEqual(tag.utf8) {
                let n = count(size)
                guard n >= 0, n <= size, n < 64 << 20 else { return nil }
                return source.bytes(at: at + 12, count: Int(n))
            }
            guard size >= 0 else { return nil }
            at += 12 + size
        }
        return nil
    }

    /// An AAC file's cookie as the file itself states it: an MPEG-4 file's 'esds', a CAF's
    /// 'kuki' (when it holds an AudioSpecificConfig). Nil for ADTS, which states none.
    static func statedAACCookie(_ source: ByteSource, fileType: UInt32) -> [UInt8]? {
        switch fileType {
        case FileType.m4a, FileType.mpeg4:
            return MPEG4HeaderReader.cookie(of: source)
        case FileType.caf:
            guard let kuki = cafChunk(source, "kuki", count: { $0 }),
                  AudioSpecificConfig(MagicCookie.audioSpecificConfig(fromCookie: kuki)) != nil else { return nil }
            return kuki
        default:
            return nil
        }
    }

    static func fileType(container: String, codec: MediaCodec, head: [UInt8]) throws(AudioFileStatus) -> UInt32 {
        func tag(_ at: Int) -> String { String(decoding: head[at..<at + 4], as: UTF8.self) }
        switch container {
        case "wav", "w64": return FileType.wave
        case "aiff": return tag(8) == "AIFC" ? FileType.aifc : FileType.aiff
        case "caf": return FileType.caf
        case "mov,mp4,m4a,3gp,3g2,mj2": return FileType.m4a
        case "mp3": return codec == MediaCodecMP2 ? FileType.mp2 : codec == MediaCodecMP1 ? FileType.mp1 : FileType.mp3
        case "aac": return FileType.adts
        case "au": return FileType.next
        default: throw .unsupportedFileType
        }
    }

    /// Frames in the file (before trimming, for variable-rate data).
    public var totalFrames: Int64 { packetCount * Int64(format.framesPerPacket) }

    /// The description of packet `i` (variable-rate files).
    public func packet(_ i: Int64) -> PacketDescription? {
        guard i >= 0, i < Int64(index.count) else { return nil }
        return index[Int(i)]
    }

    /// Copies bytes of the audio data (offsets from the start of the audio data).
    public func readBytes(at start: Int64, count: Int, into out: UnsafeMutableRawPointer) throws(AudioFileStatus) -> Int {
        guard start >= 0 else { throw .position }
        guard start < dataByteCount else { return 0 }
        let n = Int(min(Int64(count), dataByteCount - start))
        if format.isConstantBitRate {
            var done = 0
            while done < n {
                guard let got = source.read(at: dataOffset + start + Int64(done), into: out + done, count: n - done) else {
                    throw .invalidFile
                }
                if got == 0 { break }
                done += got
            }
            return done
        }
        blob.withUnsafeBytes { out.copyMemory(from: $0.baseAddress! + Int(start), byteCount: n) }
        return n
    }

    /// Packets from `start`: as many of `count` as fit in `capacity` bytes. Returns the
    /// packets and bytes copied, with a description per packet for variable-rate data.
    public func readPackets(from start: Int64, count: Int, capacity: Int, into out: UnsafeMutableRawPointer?,
                            descriptions: UnsafeMutablePointer<PacketDescription>?) throws(AudioFileStatus) -> (packets: Int, bytes: Int) {
        guard start >= 0 else { throw .invalidPacketOffset }
        guard start < packetCount, count > 0 else { return (0, 0) }
        if format.isConstantBitRate {
            let size = Int(format.bytesPerPacket)
            let packets = min(count, Int(packetCount - start), capacity / size)
            guard packets > 0 else { return (0, 0) }
            guard let out else { return (packets, packets * size) }
            let got = try readBytes(at: start * Int64(size), count: packets * size, into: out)
            return (got / size, got / size * size)
        }
        var packets = 0, bytes = 0
        while packets < count, start + Int64(packets) < packetCount {
            let d = index[Int(start) + packets]
            if bytes + Int(d.byteSize) > capacity { break }
            if let out {
                blob.withUnsafeBytes { out.advanced(by: bytes).copyMemory(from: $0.baseAddress! + Int(d.startOffset), byteCount: Int(d.byteSize)) }
            }
            descriptions?[packets] = PacketDescription(startOffset: Int64(bytes), variableFrames: 0, byteSize: d.byteSize)
            bytes += Int(d.byteSize)
            packets += 1
        }
        return (packets, bytes)
    }

    /// A view of packet `i`'s bytes (variable-rate files), for the decoder.
    func withPacket<R>(_ i: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        let d = index[i]
        return blob.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[Int(d.startOffset)..<Int(d.startOffset) + Int(d.byteSize)])) }
    }

    /// Seconds of audio, after trimming.
    public var estimatedDuration: Double {
        let frames = packetTable?.validFrames ?? totalFrames
        return Double(frames) / format.sampleRate
    }
}
