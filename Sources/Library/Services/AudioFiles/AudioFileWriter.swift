import CMediaCodecs
import Glibc

/// An audio file being written: linear PCM in WAVE or AIFF, and AAC or Apple Lossless in M4A, through
/// FFmpeg's multiplexers (so other tools read what we write), and any of our formats in
/// CAF through our own CAFWriter (FFmpeg 5's refuses AAC). Packets are appended in order;
/// the container's sizes are written when the file is closed.
public final class AudioFileWriter {
    public let path: String
    public let fileType: UInt32
    public let format: StreamDescription
    public var magicCookie: [UInt8] = []
    /// Priming and remainder recorded for AAC (set by ExtAudioFile or the program).
    public var packetTable: PacketTable?
    public private(set) var packetCount: Int64 = 0
    public private(set) var byteCount: Int64 = 0
    public private(set) var maximumPacketSize: UInt32 = 0
    /// User data, markers and regions, written after the audio at close: CAF only (the
    /// other containers' headers are FFmpeg's, written before we could add to them).
    public var annotations = FileAnnotations()
    public var keepsAnnotations: Bool { caf != nil }
    private var muxer: OpaquePointer?
    /// An M4A's packets until close (see PacketSpool), and the encoder's bit rate.
    private var spool: PacketSpool?
    private var bitRate: Int64 = 0
    private var caf: CAFWriter?
    private var closed = false
    /// The file, open from creation to close; FFmpeg writes it through /proc/self/fd
    /// (-1 when the program's callbacks are written instead).
    private let descriptor: Int32

    /// What the container is called to FFmpeg, if we write `format` into `type`.
    package static func container(type: UInt32, format: StreamDescription) -> String? {
        let pcm = format.isLinearPCM
        let flags = format.formatFlags
        let float = flags & Flags.float != 0, big = flags & Flags.bigEndian != 0
        let interleaved = flags & Flags.nonInterleaved == 0 || format.channelsPerFrame == 1
        let bits = format.bitsPerChannel
        let packedBytes = bits / 8 * format.channelsPerFrame
        let packed = pcm && interleaved && format.bytesPerFrame == packedBytes && format.framesPerPacket == 1
            && [8, 16, 24, 32, 64].contains(bits) && bits % 8 == 0
        switch type {
        case FileType.wave where packed && !big && (float ? bits >= 32 : bits <= 32):
            // WAVE's 8-bit PCM is unsigned; the others are signed.
            return bits == 8 && flags & Flags.signedInteger != 0 ? nil : "wav"
        case FileType.aiff where packed && big && !float && bits <= 32:
            return "aiff"
        case FileType.caf where packed || !pcm && format.framesPerPacket > 0 && FileType.cafFormats.contains(format.formatID):
            return "caf"
        case FileType.m4a where format.formatID == FormatID.mpeg4AAC || format.formatID == FormatID.appleLossless:
            return "ipod"
        default:
            return nil
        }
    }

    /// Creates `path`: an existing file is replaced only with `erase`.
    public init(path: String, fileType: UInt32, format: StreamDescription, erase: Bool) throws(AudioFileStatus) {
        guard format.sampleRate.isFinite, format.sampleRate >= 1, format.sampleRate <= 768_000,
              format.channelsPerFrame >= 1, format.channelsPerFrame <= 8 else { throw .unsupportedDataFormat }
        guard FileType.entry(fileType)?.writableFormats.isEmpty == false else { throw .unsupportedFileType }
        guard Self.container(type: fileType, format: format) != nil else { throw .unsupportedDataFormat }
        if format.isLinearPCM { _ = try LinearPCM(format) }
        // Refuses an existing file unless told to erase it, anything not a regular file,
        // and a symbolic link (one another user planted in a shared folder would send our
        // write to their target). The file is written through this descriptor, never
        // opened by its name again.
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW | (erase ? 0 : O_EXCL), 0o644)
        guard fd >= 0 else {
            switch errno {
            case EEXIST, ELOOP: throw .permissions
            case ENOENT, ENOTDIR: throw .fileNotFound
            case EACCES, EPERM, EROFS: throw .permissions
            default: throw .invalidFile
            }
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            Glibc.close(fd)
            throw .invalidFile
        }
        // A file someone else owns (left world-writable in a shared folder) would let them
        // read what we record: not ours to erase.
        guard info.st_uid == geteuid(), ftruncate(fd, 0) == 0 else {
            Glibc.close(fd)
            throw .permissions
        }
        descriptor = fd
        self.path = path
        self.fileType = fileType
        self.format = format
        if fileType == FileType.caf { caf = CAFWriter(sink: DescriptorSink(fd), format: format) }
    }

    /// A file written through the program's callbacks: CAF only (our own writer; FFmpeg's
    /// multiplexers write by name).
    public init(sink: ByteSink, fileType: UInt32, format: StreamDescription) throws(AudioFileStatus) {
        guard format.sampleRate.isFinite, format.sampleRate >= 1, format.sampleRate <= 768_000,
              format.channelsPerFrame >= 1, format.channelsPerFrame <= 8 else { throw .unsupportedDataFormat }
        guard FileType.entry(fileType)?.writableFormats.isEmpty == false else { throw .unsupportedFileType }
        guard fileType == FileType.caf else { throw .operationNotSupported }
        guard Self.container(type: fileType, format: format) != nil else { throw .unsupportedDataFormat }
        if format.isLinearPCM { _ = try LinearPCM(format) }
        guard sink.setSize(0) else { throw .invalidFile }
        descriptor = -1
        path = ""
        self.fileType = fileType
        self.format = format
        caf = CAFWriter(sink: sink, format: format)
    }

    deinit {
        if !closed, let muxer { MediaMuxerAbandon(muxer) }
        if descriptor >= 0 { Glibc.close(descriptor) }
    }

    private func openMuxer(frameSize: Int32, priming: Int32, bitRate: Int64) throws(AudioFileStatus) -> OpaquePointer {
        if let muxer { return muxer }
        guard let container = Self.container(type: fileType, format: format) else { throw .unsupportedDataFormat }
        var stream = MediaMuxerStream()
        stream.sampleRate = Int32(format.sampleRate)
        stream.channels = Int32(format.channelsPerFrame)
        stream.bitRate = bitRate
        var config: [UInt8] = []
        if format.isLinearPCM {
            stream.codec = MediaCodecPCM
            stream.pcmBits = Int32(format.bitsPerChannel)
            stream.pcmFloat = format.formatFlags & Flags.float != 0 ? 1 : 0
            stream.pcmBigEndian = format.formatFlags & Flags.bigEndian != 0 ? 1 : 0
        } else {
            stream.codec = FormatFacts.of(format.formatID)?.codec ?? MediaCodecUnknown
            stream.frameSize = frameSize
            if stream.codec == MediaCodecAAC { stream.priming = priming }
            config = try containerConfig()
        }
        var made: OpaquePointer?
        let result = config.withUnsafeBufferPointer { buffer in
            stream.config = buffer.baseAddress
            stream.configSize = Int32(buffer.count)
            return container.withCString { name in "/proc/self/fd/\(descriptor)".withCString { MediaMuxerCreate($0, name, &stream, &made) } }
        }
        // -4: FFmpeg is not installed.
        guard result == 0, let made else { throw result == -2 ? .permissions : result == -4 ? .unspecified : .unsupportedDataFormat }
        muxer = made
        return made
    }

    /// The codec's configuration as the container stores it, from the magic cookie: an
    /// 'alac' atom, or AAC's AudioSpecificConfig. A cookie that holds none cannot be
    /// multiplexed (unsupportedDataFormat).
    private func containerConfig() throws(AudioFileStatus) -> [UInt8] {
        if format.formatID == FormatID.appleLossless {
            guard let alac = MagicCookie.alacConfig(magicCookie) else { throw .unsupportedDataFormat }
            return MagicCookie.alacAtom(alac)
        }
        let config = MagicCookie.audioSpecificConfig(fromCookie: magicCookie)
        guard !config.isEmpty else { throw .unsupportedDataFormat }
        return config
    }

    /// Each description within the `byteCount` bytes given, and not empty.
    private static func check(_ descriptions: [PacketDescription]?, packets: Int, byteCount: Int) throws(AudioFileStatus) {
        guard let descriptions, descriptions.count >= packets else { throw .parameter }
        for d in descriptions.prefix(packets) {
            guard d.startOffset >= 0, Int(d.startOffset) + Int(d.byteSize) <= byteCount, d.byteSize > 0 else { throw .parameter }
        }
    }

    /// An M4A's packets into the container, with the packet table as it is now: the
    /// first packet starts `primingFrames` before the file's time zero, and the last ones
    /// end `validFrames` after it (the remainder cut off), which FFmpeg records as the
    /// track's edit list. No table, or one without valid frames: every frame plays.
    private func multiplex(_ spool: PacketSpool) throws(AudioFileStatus) {
        self.spool = nil
        let priming = max(0, packetTable?.primingFrames ?? 0)
        let valid = packetTable?.validFrames ?? 0
        let trim = valid > 0 ? spool.totalFrames - Int64(priming) - valid : 0
        let frameSize = format.framesPerPacket != 0 ? format.framesPerPacket
            : (try? format.completed(cookie: magicCookie))?.framesPerPacket ?? 0
        let muxer = try openMuxer(frameSize: Int32(frameSize), priming: priming, bitRate: bitRate)
        try spool.replay(trimmingEnd: trim) { (packet, frames) throws(AudioFileStatus) in
            guard MediaMuxerWrite(muxer, packet.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(packet.count), frames) == 0 else {
                throw .invalidFile
            }
        }
    }

    /// Appends packets (descriptions required for AAC; LPCM is bytes of whole frames).
    public func writePackets(_ data: UnsafeRawPointer, byteCount: Int, descriptions: [PacketDescription]?,
                             packets: Int, startingPacket: Int64, bitRate: Int64 = 0) throws(AudioFileStatus) {
        guard !closed else { throw .notOpen }
        guard startingPacket == packetCount else { throw .operationNotSupported }
        guard packets > 0 else { return }
        if let caf { return try writeCAF(caf, data, byteCount: byteCount, descriptions: descriptions, packets: packets) }
        if format.isLinearPCM {
            let size = Int(format.bytesPerPacket)
            guard byteCount >= packets * size else { throw .parameter }
            let muxer = try openMuxer(frameSize: 0, priming: 0, bitRate: 0)
            guard MediaMuxerWrite(muxer, data.assumingMemoryBound(to: UInt8.self), Int32(packets * size), Int64(packets)) == 0 else {
                throw .invalidFile
            }
            packetCount += Int64(packets)
            self.byteCount += Int64(packets * size)
            maximumPacketSize = UInt32(size)
            return
        }
        try Self.check(descriptions, packets: packets, byteCount: byteCount)
        guard let descriptions else { throw .parameter }
        // Checked before the first packet, as the muxer would be: a format FFmpeg cannot
        // take is refused now, not at close.
        if spool == nil {
            _ = try containerConfig()
            spool = try PacketSpool(besides: path)
        }
        if bitRate > 0 { self.bitRate = bitRate }
        for d in descriptions.prefix(packets) {
            let frames = Int64(d.variableFrames > 0 ? d.variableFrames : max(1, format.framesPerPacket))
            try spool!.append(UnsafeRawBufferPointer(start: data + Int(d.startOffset), count: Int(d.byteSize)), frames: frames)
            packetCount += 1
            self.byteCount += Int64(d.byteSize)
            maximumPacketSize = max(maximumPacketSize, d.byteSize)
        }
    }

    private func writeCAF(_ caf: CAFWriter, _ data: UnsafeRawPointer, byteCount: Int, descriptions: [PacketDescription]?,
                          packets: Int) throws(AudioFileStatus) {
        try caf.start(cookie: magicCookie)
        if format.isConstantBitRate {
            let size = Int(format.bytesPerPacket)
            guard byteCount >= packets * size else { throw .parameter }
            try caf.append(UnsafeRawBufferPointer(start: data, count: packets * size), packetSizes: [])
            packetCount += Int64(packets)
            self.byteCount += Int64(packets * size)
            maximumPacketSize = UInt32(size)
            return
        }
        try Self.check(descriptions, packets: packets, byteCount: byteCount)
        guard let descriptions else { throw .parameter }
        for d in descriptions.prefix(packets) {
            try caf.append(UnsafeRawBufferPointer(start: data + Int(d.startOffset), count: Int(d.byteSize)), packetSizes: [d.byteSize])
            packetCount += 1
            self.byteCount += Int64(d.byteSize)
            maximumPacketSize = max(maximumPacketSize, d.byteSize)
        }
    }

    /// kAudioFilePropertyMagicCookieData. Before the first packet: used when the header is
    /// written. After: the same cookie again is fine (SpeakHere's recorder sets it at its
    /// start and again at its stop); a new one is rewritten in a CAF, refused elsewhere
    /// (the other containers' headers are already FFmpeg's).
    public func setMagicCookie(_ cookie: [UInt8]) throws(AudioFileStatus) {
        if packetCount == 0 || cookie == magicCookie {
            magicCookie = cookie
            return
        }
        guard let caf else { throw .operationNotSupported }
        try caf.replaceCookie(cookie)
        magicCookie = cookie
    }

    /// Appends bytes of linear PCM (at the end of what is written).
    public func writeBytes(_ data: UnsafeRawPointer, count: Int, at start: Int64) throws(AudioFileStatus) {
        guard format.isLinearPCM else { throw .operationNotSupported }
        guard start == byteCount else { throw .operationNotSupported }
        let size = Int(format.bytesPerPacket)
        guard count % size == 0 else { throw .operationNotSupported }
        try writePackets(data, byteCount: count, descriptions: nil, packets: count / size, startingPacket: packetCount)
    }

    /// Writes the container's sizes and closes the file. A file nothing was written to
    /// still gets its header.
    public func close() throws(AudioFileStatus) {
        guard !closed else { return }
        if let caf {
            closed = true
            try caf.finish(cookie: magicCookie, table: packetTable, chunks: annotations.cafChunks())
            return
        }
        if muxer == nil && format.isLinearPCM { _ = try? openMuxer(frameSize: 0, priming: 0, bitRate: 0) }
        closed = true
        if let spool { try multiplex(spool) }
        guard let muxer else { return }
        self.muxer = nil
        guard MediaMuxerFinish(muxer) == 0 else { throw .invalidFile }
    }
}

/// Extended Audio File writing: the program's client PCM converted to the file's format
/// (PCM, or encoded to AAC) and appended.
public final class ExtendedAudioFileWriter {
    public let file: AudioFileWriter
    public private(set) var clientFormat: StreamDescription
    private var client: LinearPCM
    private var fileLayout: LinearPCM?
    private var pipeline: FloatPipeline?
    private var encoder: OpaquePointer?
    private var frameSize = 0
    private var pending: [Float] = []       // file-rate frames waiting for a whole AAC packet
    private var floats: [Float] = []
    private var converted: [Float] = []
    private var bytes: [UInt8] = []
    public private(set) var framesWritten: Int64 = 0
    private var inputFrames: Int64 = 0

    public init(file: AudioFileWriter) throws(AudioFileStatus) {
        self.file = file
        let f = file.format
        clientFormat = f.isLinearPCM ? f : .linearPCM(rate: f.sampleRate, channels: f.channelsPerFrame, bits: 32, float: true)
        client = try LinearPCM(clientFormat)
        if f.isLinearPCM {
            fileLayout = try LinearPCM(f)
        } else {
            guard openEncoder(bitRate: 0) else { throw .unsupportedDataFormat }
        }
    }

    /// The encoder made (again; AAC's at `rate`), and the file's cookie with it.
    private func openEncoder(bitRate rate: Int64) -> Bool {
        guard let made = PacketEncoding.open(file.format, bitRate: rate) else { return false }
        MediaEncoderClose(encoder)
        encoder = made
        frameSize = Int(MediaEncoderFrameSize(made))
        file.magicCookie = PacketEncoding.cookie(file.format, made)
        return true
    }

    /// The bit rate the file is encoded at (0 for linear PCM).
    public var encodeBitRate: Int64 { encoder.map { MediaEncoderBitRate($0) } ?? 0 }

    /// The encoder's bit rate, as set on the file's converter (kExtAudioFileProperty_AudioConverter):
    /// only before the first frame is written.
    public func setEncodeBitRate(_ rate: Int64) throws(AudioFileStatus) {
        guard encoder != nil, file.format.formatID == FormatID.mpeg4AAC else { throw .converterPropertyNotSupported }
        guard rate != encodeBitRate else { return }
        guard inputFrames == 0 else { throw .extInvalidOperationOrder }
        guard AACEncoding.accepts(bitRate: rate, channels: Int(file.format.channelsPerFrame)), openEncoder(bitRate: rate) else {
            throw .parameter
        }
    }

    deinit { MediaEncoderClose(encoder) }

    public func setClientFormat(_ format: StreamDescription) throws(AudioFileStatus) {
        guard format.isLinearPCM else { throw .extNonPCMClientFormat }
        guard framesWritten == 0 && inputFrames == 0 else { throw .extInvalidOperationOrder }
        do { client = try LinearPCM(format) } catch { throw .extInvalidDataFormat }
        clientFormat = format
        let f = file.format
        pipeline = f.sampleRate == format.sampleRate && Int(f.channelsPerFrame) == client.channels ? nil
            : try FloatPipeline(sourceRate: format.sampleRate, sourceChannels: client.channels, destinationRate: f.sampleRate,
                                destinationChannels: Int(f.channelsPerFrame))
    }

    /// Converts and appends `count` client frames.
    public func write(count: Int, from buffers: [UnsafeRawPointer]) throws(AudioFileStatus) {
        guard buffers.count == client.bufferCount else { throw .parameter }
        guard count > 0 else { return }
        let channels = Int(file.format.channelsPerFrame)
        if floats.count < count * client.channels { floats = [Float](repeating: 0, count: count * client.channels) }
        floats.withUnsafeMutableBufferPointer { client.decode(buffers, from: 0, frames: count, into: $0.baseAddress!) }
        inputFrames += Int64(count)
        if let pipeline {
            // Pulls the client frames through the converter; the tail waits for close.
            var given = 0
            let capacity = Int(Double(count) * pipeline.destinationRate / pipeline.sourceRate) + 64
            if converted.count < capacity * channels { converted = [Float](repeating: 0, count: capacity * channels) }
            let made = converted.withUnsafeMutableBufferPointer { out in
                pipeline.read(into: out.baseAddress!, frames: capacity) { buffer, n in
                    // The client's frames, then a pause (not the end: more may be written).
                    if given >= count { return -1 }
                    let take = min(n, count - given)
                    floats.withUnsafeBufferPointer {
                        buffer.update(from: $0.baseAddress! + given * client.channels, count: take * client.channels)
                    }
                    given += take
                    return take
                }
            }
            try append(converted, frames: made)
        } else {
            try append(floats, frames: count)
        }
    }

    private func append(_ samples: [Float], frames: Int) throws(AudioFileStatus) {
        guard frames > 0 else { return }
        let channels = Int(file.format.channelsPerFrame)
        if let fileLayout {
            let size = frames * fileLayout.bytesPerFrame
            if bytes.count < size { bytes = [UInt8](repeating: 0, count: size) }
            bytes.withUnsafeMutableBytes { out in
                samples.withUnsafeBufferPointer { fileLayout.encode($0.baseAddress!, frames: frames, into: [out.baseAddress!], at: 0) }
            }
            let file = self.file
            try statusOf {
                try bytes.withUnsafeBytes { b in
                    try file.writePackets(b.baseAddress!, byteCount: size, descriptions: nil, packets: frames,
                                          startingPacket: file.packetCount)
                }
            }
            framesWritten += Int64(frames)
            return
        }
        pending.append(contentsOf: samples.prefix(frames * channels))
        framesWritten += Int64(frames)
        while pending.count >= frameSize * channels {
            try encode(frames: frameSize)
        }
    }

    private func encode(frames: Int) throws(AudioFileStatus) {
        guard let encoder else { return }
        let channels = Int(file.format.channelsPerFrame)
        let sent = pending.withUnsafeBufferPointer { MediaEncoderSend(encoder, $0.baseAddress, Int32(frames)) }
        guard sent == 0 else { throw .unspecified }
        pending.removeFirst(min(pending.count, frames * channels))
        try drain(encoder)
    }

    private func drain(_ encoder: OpaquePointer) throws(AudioFileStatus) {
        while true {
            var data: UnsafePointer<UInt8>?
            var size: Int32 = 0
            var frames: Int64 = 0
            let got = MediaEncoderReceive(encoder, &data, &size, &frames)
            if got != 1 { return }
            guard let data else { return }
            if file.packetTable == nil && !file.format.isConstantBitRate {
                file.packetTable = PacketTable(validFrames: 0, primingFrames: MediaEncoderPriming(encoder), remainderFrames: 0)
            }
            let d = PacketDescription(startOffset: 0, variableFrames: UInt32(frames), byteSize: UInt32(size))
            try file.writePackets(data, byteCount: Int(size), descriptions: [d], packets: 1, startingPacket: file.packetCount,
                                  bitRate: MediaEncoderBitRate(encoder))
        }
    }

    /// Flushes the converter and the encoder, then closes the file.
    public func close() throws(AudioFileStatus) {
        if let pipeline {
            let channels = Int(file.format.channelsPerFrame)
            if converted.count < 4096 * channels { converted = [Float](repeating: 0, count: 4096 * channels) }
            while true {
                let made = converted.withUnsafeMutableBufferPointer { out in
                    pipeline.read(into: out.baseAddress!, frames: 4096) { _, _ in 0 }
                }
                if made <= 0 { break }
                try append(converted, frames: made)
            }
        }
        if let encoder {
            let channels = Int(file.format.channelsPerFrame)
            if !pending.isEmpty { try encode(frames: pending.count / channels) }
            _ = MediaEncoderSend(encoder, nil, 0)
            try drain(encoder)
            // Every frame given to the encoder is valid: the rest is priming and padding.
            file.packetTable?.validFrames = framesWritten
            // Fixed-size packets (IMA4): the last one was padded to its size.
            let perPacket = Int64(file.format.framesPerPacket)
            if file.format.isConstantBitRate && perPacket > 0 && framesWritten % perPacket != 0 {
                file.packetTable = PacketTable(validFrames: framesWritten, primingFrames: 0,
                                               remainderFrames: Int32(perPacket - framesWritten % perPacket))
            }
        }
        try file.close()
    }
}
