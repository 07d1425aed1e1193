/// Audio File Stream's parser: a file that arrives in pieces of any size (a network
/// stream, a download) becomes its properties, then its packets, as the bytes come.
/// It reads WAVE, AIFF/AIFC and CAF headers, MPEG-4 whose 'moov' comes first, and bare
/// MPEG audio and ADTS AAC (found by frame headers, so a radio stream joined mid-frame
/// works). It is our own code, not FFmpeg's: FFmpeg's demuxers pull bytes, and a parser
/// that is pushed bytes must stop between any two of them.
public final class AudioFileStreamParser {
    /// The property IDs the parser announces (AudioFileStream.h).
    public enum Property {
        public static let readyToProducePackets: UInt32 = 0x7265_6479  // 'redy'
        public static let fileFormat: UInt32 = 0x6666_6D74             // 'ffmt'
        public static let dataFormat: UInt32 = 0x6466_6D74             // 'dfmt'
        public static let formatList: UInt32 = 0x666C_7374             // 'flst'
        public static let magicCookieData: UInt32 = 0x6D67_6963        // 'mgic'
        public static let audioDataByteCount: UInt32 = 0x6263_6E74     // 'bcnt'
        public static let audioDataPacketCount: UInt32 = 0x7063_6E74   // 'pcnt'
        public static let maximumPacketSize: UInt32 = 0x7073_7A65      // 'psze'
        public static let dataOffset: UInt32 = 0x646F_6666             // 'doff'
        public static let packetTableInfo: UInt32 = 0x706E_666F        // 'pnfo'
        public static let bitRate: UInt32 = 0x6272_6174                // 'brat'
    }

    /// What the stream's header said: nil until every property is known.
    public struct Info {
        public let fileType: UInt32
        public let format: StreamDescription
        public let magicCookie: [UInt8]
        public let dataOffset: Int64
        public let dataByteCount: Int64?
        public let packetCount: Int64?
        public let packetTable: PacketTable?
        public let maximumPacketSize: UInt32
        public let packetSizeUpperBound: UInt32
    }

    private enum Stage {
        case detecting
        case header(any ContainerHeaderReader)
        case data(FileStreamHeader)
        case failed(AudioFileStatus)
    }

    private let bytes = FileStreamBytes()
    private var stage = Stage.detecting
    private var skipRemaining: Int64 = 0
    public private(set) var fileType: UInt32?
    public private(set) var info: Info?
    /// The next packet of an indexed stream; whether a framed stream is in step.
    private var nextPacket = 0
    private var inStep = false
    /// Frames parsed so far (for the bit rate and seeking in framed streams).
    private var framedPackets: Int64 = 0
    private var framedBytes: Int64 = 0
    private var parsing = false
    private var seekedSinceParse = false
    private var pendingSeek: (packet: Int64, position: Int64)?
    /// Set when the program closes the stream from inside a callback: parsing stops.
    public var cancelled = false
    private var descriptions: UnsafeMutablePointer<PacketDescription>
    private var descriptionCapacity = 256

    public init() {
        descriptions = .allocate(capacity: descriptionCapacity)
    }
    deinit { descriptions.deallocate() }

    public var isReady: Bool { info != nil }

    /// The bit rate the header states, or the average of the frames parsed so far.
    public var bitRate: UInt32? {
        guard case .data(let h) = stage else { return nil }
        // In Double, checked: a header (a fuzzed one too) may state any rate and sizes.
        func rate(_ bits: Double, _ seconds: Double) -> UInt32? {
            let value = bits / seconds
            return value.isFinite && value >= 0 ? UInt32(clamping: Int64(min(value, Double(UInt32.max)))) : nil
        }
        if case .frames = h.framing, framedPackets > 0, h.format.sampleRate > 0, h.format.framesPerPacket > 0 {
            let seconds = Double(framedPackets) * Double(h.format.framesPerPacket) / h.format.sampleRate
            return rate(Double(framedBytes) * 8, seconds)
        }
        if h.format.isConstantBitRate {
            guard h.format.sampleRate > 0, h.format.framesPerPacket > 0 else { return nil }
            return rate(Double(h.format.bytesPerPacket) * 8, Double(h.format.framesPerPacket) / h.format.sampleRate)
        }
        return h.bitRate
    }

    public var averageBytesPerPacket: Double? {
        guard case .data(let h) = stage else { return nil }
        switch h.framing {
        case .constant: return Double(h.format.bytesPerPacket)
        case .indexed(_, let sizes): return sizes.isEmpty ? nil : Double(h.dataByteCount ?? 0) / Double(sizes.count)
        case .frames(let first):
            if framedPackets > 0 { return Double(framedBytes) / Double(framedPackets) }
            return Double(first.length - first.payloadStart)
        }
    }

    /// Feeds the next bytes of the file. `property` runs for each property as it becomes
    /// known, `packets` for each run of whole packets (with descriptions for
    /// variable-rate data); both run before this returns.
    public func parse(_ data: UnsafeRawBufferPointer, discontinuity: Bool, property: (UInt32) -> Void,
                      packets: (UnsafeRawBufferPointer, Int, UnsafeMutablePointer<PacketDescription>?) -> Void) throws(AudioFileStatus) {
        guard !parsing else { throw .streamIllegalOperation }
        if case .failed(let status) = stage { throw status }
        parsing = true
        defer { parsing = false; seekedSinceParse = false }
        if discontinuity && !seekedSinceParse { lostData() }
        bytes.append(data)
        do throws(AudioFileStatus) {
            try run(property: property, packets: packets)
        } catch {
            stage = .failed(error)
            bytes.reset(to: bytes.position)
            throw error
        }
    }

    private func run(property: (UInt32) -> Void,
                     packets: (UnsafeRawBufferPointer, Int, UnsafeMutablePointer<PacketDescription>?) -> Void) throws(AudioFileStatus) {
        while !cancelled {
            if skipRemaining > 0 {
                let n = Int(min(skipRemaining, Int64(bytes.count)))
                bytes.consume(n)
                skipRemaining -= Int64(n)
                if skipRemaining > 0 { return }
            }
            switch stage {
            case .failed(let status):
                throw status
            case .detecting:
                guard let reader = detect() else { return }
                stage = .header(reader)
            case .header(var reader):
                let step = try reader.step(bytes)
                stage = .header(reader)
                switch step.kind {
                case .needMore: return
                case .skip: skipRemaining = step.bytes
                case .done:
                    let header = step.header!
                    bytes.consume(header.consumed)
                    begin(header)
                    announce(header, property)
                }
            case .data(let header):
                deliver(header, packets)
                return
            }
        }
    }

    /// The container, from the first bytes.
    private func detect() -> (any ContainerHeaderReader)? {
        guard let head = bytes.slice(0, 12) else { return nil }
        switch (head.tag(0), head.tag(4)) {
        case ("RIFF", _): fileType = FileType.wave; return WaveHeaderReader()
        case ("FORM", _): fileType = head.tag(8) == "AIFC" ? FileType.aifc : FileType.aiff; return AIFFHeaderReader()
        case ("caff", _): fileType = FileType.caf; return CAFHeaderReader()
        case (_, "ftyp"), (_, "moov"), (_, "free"), (_, "wide"), (_, "mdat"), (_, "skip"):
            fileType = FileType.m4a
            return MPEG4HeaderReader()
        default: return FramedHeaderReader()
        }
    }

    private func begin(_ header: FileStreamHeader) {
        fileType = header.fileType
        var bound = header.maximumPacketSize
        if case .frames(let first) = header.framing { bound = UInt32(first.upperBound) }
        info = Info(fileType: header.fileType, format: header.format, magicCookie: header.cookie, dataOffset: header.dataOffset,
                    dataByteCount: header.dataByteCount, packetCount: header.packetCount, packetTable: header.packetTable,
                    maximumPacketSize: header.maximumPacketSize, packetSizeUpperBound: bound)
        stage = .data(header)
        nextPacket = 0
        inStep = true
    }

    /// Tells the program each property, in the order iPhone code expects them: ready last.
    private func announce(_ header: FileStreamHeader, _ property: (UInt32) -> Void) {
        var ids = [Property.fileFormat, Property.dataFormat, Property.formatList]
        if !header.cookie.isEmpty { ids.append(Property.magicCookieData) }
        if header.dataByteCount != nil { ids.append(Property.audioDataByteCount) }
        if header.packetCount != nil { ids.append(Property.audioDataPacketCount) }
        if header.packetTable != nil { ids.append(Property.packetTableInfo) }
        ids += [Property.maximumPacketSize, Property.dataOffset, Property.readyToProducePackets]
        for id in ids {
            property(id)
            if cancelled || pendingSeek != nil { break }
        }
        applyPendingSeek()
    }

    // MARK: packets

    private func reserveDescriptions(_ n: Int) {
        guard n > descriptionCapacity else { return }
        descriptions.deallocate()
        descriptionCapacity = max(n, descriptionCapacity * 2)
        descriptions = .allocate(capacity: descriptionCapacity)
    }

    private func deliver(_ h: FileStreamHeader, _ packets: (UnsafeRawBufferPointer, Int, UnsafeMutablePointer<PacketDescription>?) -> Void) {
        switch h.framing {
        case .constant: deliverConstant(h, packets)
        case .indexed(let offsets, let sizes): deliverIndexed(offsets, sizes, packets)
        case .frames(let first): deliverFrames(first, packets)
        }
    }

    private func deliverConstant(_ h: FileStreamHeader, _ packets: (UnsafeRawBufferPointer, Int, UnsafeMutablePointer<PacketDescription>?) -> Void) {
        let size = Int64(h.format.bytesPerPacket)
        let end = h.dataByteCount.map { h.dataOffset + $0 } ?? Int64.max
        // Whatever follows the data (trailing chunks) is not audio.
        guard bytes.position < end else { bytes.consume(bytes.count); return }
        let n = (min(bytes.endPosition, end) - bytes.position) / size
        guard n > 0 else { return }
        packets(UnsafeRawBufferPointer(start: bytes.base, count: Int(n * size)), Int(n), nil)
        if applyPendingSeek() { return }
        bytes.consume(Int(n * size))
        if bytes.position >= end { bytes.consume(bytes.count) }
    }

    private func deliverIndexed(_ offsets: [Int64], _ sizes: [UInt32],
                                _ packets: (UnsafeRawBufferPointer, Int, UnsafeMutablePointer<PacketDescription>?) -> Void) {
        // A packet that began before the bytes we have (after lost data) is gone.
        while nextPacket < offsets.count && offsets[nextPacket] < bytes.position { nextPacket += 1 }
        let first = nextPacket
        var last = first
        while last < offsets.count && offsets[last] + Int64(sizes[last]) <= bytes.endPosition { last += 1 }
        if last > first {
            reserveDescriptions(last - first)
            let base = offsets[first]
            for j in first..<last {
                descriptions[j - first] = PacketDescription(startOffset: offsets[j] - base, variableFrames: 0, byteSize: sizes[j])
            }
            let end = offsets[last - 1] + Int64(sizes[last - 1])
            packets(UnsafeRawBufferPointer(start: bytes.base + Int(base - bytes.position), count: Int(end - base)), last - first,
                    descriptions)
            if applyPendingSeek() { return }
            nextPacket = last
            bytes.consume(Int(end - bytes.position))
        }
        // Bytes up to the next packet (other boxes, other tracks) are passed over.
        let upTo = nextPacket < offsets.count ? offsets[nextPacket] : Int64.max
        bytes.consume(Int(min(Int64(bytes.count), upTo - bytes.position)))
    }

    private func deliverFrames(_ first: FrameHeader, _ packets: (UnsafeRawBufferPointer, Int, UnsafeMutablePointer<PacketDescription>?) -> Void) {
        while !cancelled {
            if !inStep {
                // Find the stream's frames again.
                switch FramedHeaderReader.search(bytes, continuing: first) {
                case .nothing:
                    bytes.consume(max(0, bytes.count - 8))
                    return
                case .unconfirmed(let at):
                    bytes.consume(at)
                    return
                case .found(let at, _):
                    bytes.consume(at)
                    inStep = true
                }
            }
            var i = 0, n = 0
            while let h = FrameHeader.read(bytes, at: i), h.continues(first), i + h.length <= bytes.count {
                reserveDescriptions(n + 1)
                descriptions[n] = PacketDescription(startOffset: Int64(i + h.payloadStart), variableFrames: 0,
                                                    byteSize: UInt32(h.length - h.payloadStart))
                framedBytes += Int64(h.length - h.payloadStart)
                i += h.length
                n += 1
            }
            // Not a frame where one should start (and enough bytes to tell): find step again.
            let lost = bytes.count - i >= 9 && (FrameHeader.read(bytes, at: i).map { !$0.continues(first) } ?? true)
            if n > 0 {
                framedPackets += Int64(n)
                packets(UnsafeRawBufferPointer(start: bytes.base, count: i), n, descriptions)
                if applyPendingSeek() { return }
                bytes.consume(i)
            }
            if lost { inStep = false; continue }
            return
        }
    }

    // MARK: seeking and lost data

    /// Where packet `packet` starts, from the start of the audio data, and whether that
    /// is an estimate. The bytes the program feeds next are taken to start there.
    public func seek(packet: Int64) throws(AudioFileStatus) -> (offset: Int64, estimated: Bool) {
        guard case .data(let h) = stage else {
            if case .failed(let status) = stage { throw status }
            throw .streamDataUnavailable
        }
        guard packet >= 0, h.packetCount.map({ packet < $0 }) ?? true else { throw .invalidPacketOffset }
        let offset: Int64, estimated: Bool
        switch h.framing {
        case .constant:
            offset = packet * Int64(h.format.bytesPerPacket)
            estimated = false
        case .indexed(let offsets, _):
            offset = offsets[Int(packet)] - h.dataOffset
            estimated = false
        case .frames:
            offset = Int64((Double(packet) * (averageBytesPerPacket ?? 0)).rounded())
            estimated = true
        }
        pendingSeek = (packet, h.dataOffset + offset)
        seekedSinceParse = true
        if !parsing { applyPendingSeek() }
        return (offset, estimated)
    }

    /// Applies a seek made (perhaps from inside a callback): what was buffered belongs to
    /// the old position and is dropped.
    @discardableResult
    private func applyPendingSeek() -> Bool {
        guard let seek = pendingSeek else { return false }
        pendingSeek = nil
        bytes.reset(to: seek.position)
        skipRemaining = 0
        nextPacket = Int(clamping: seek.packet)
        if case .data(let h) = stage, case .frames = h.framing { inStep = false }
        return true
    }

    /// Bytes were lost: the partial packet is dropped and the next bytes are taken to
    /// start a packet (framed streams find their frames again).
    private func lostData() {
        guard case .data(let h) = stage else { return }
        switch h.framing {
        case .constant:
            let size = Int64(h.format.bytesPerPacket)
            let into = (bytes.endPosition - h.dataOffset + size - 1) / size * size
            bytes.reset(to: h.dataOffset + max(0, into))
        case .indexed(let offsets, _):
            let next = offsets.firstIndex { $0 >= bytes.endPosition } ?? offsets.count
            nextPacket = next
            bytes.reset(to: next < offsets.count ? offsets[next] : bytes.endPosition)
        case .frames:
            bytes.reset(to: bytes.endPosition)
            inStep = false
        }
    }
}
