import Glibc

/// Where a file being written goes: a descriptor we opened, or the program's own write
/// callbacks (AudioFileInitializeWithCallbacks).
public protocol ByteSink: AnyObject {
    /// Writes all of `bytes` at `position`; false when it could not.
    func write(at position: Int64, _ bytes: UnsafeRawBufferPointer) -> Bool
    /// Sets the file's size (after a rewrite that made it shorter).
    func setSize(_ size: Int64) -> Bool
}

/// A descriptor written with pwrite.
final class DescriptorSink: ByteSink {
    let descriptor: Int32
    init(_ descriptor: Int32) { self.descriptor = descriptor }

    func write(at position: Int64, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var done = 0
        while done < bytes.count {
            let n = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(position) + off_t(done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        return true
    }
    func setSize(_ size: Int64) -> Bool { ftruncate(descriptor, off_t(size)) == 0 }
}

/// The program's callbacks as a sink.
public final class CallbackSink: ByteSink {
    private let writeProc: (Int64, UnsafeRawBufferPointer) -> Bool
    private let sizeProc: (Int64) -> Bool
    public init(write: @escaping (Int64, UnsafeRawBufferPointer) -> Bool, setSize: @escaping (Int64) -> Bool) {
        writeProc = write
        sizeProc = setSize
    }
    public func write(at position: Int64, _ bytes: UnsafeRawBufferPointer) -> Bool { writeProc(position, bytes) }
    public func setSize(_ size: Int64) -> Bool { sizeProc(size) }
}

/// A CAF file written by us (FFmpeg 5's CAF multiplexer refuses AAC): the header with
/// 'desc' and the cookie, then the packets in 'data' as they come, and at the end the
/// data's size and, for variable-rate data, a 'pakt' chunk with every packet's size and
/// the exact priming and remainder.
final class CAFWriter {
    private let sink: ByteSink
    private let format: StreamDescription
    private var sizes: [UInt32] = []
    private var dataStart: Int64 = 0
    private var position: Int64 = 0
    private var started = false
    /// Where the cookie's room starts (its 'kuki' chunk, then a 'free' one), up to the
    /// data chunk: a cookie set after packets are written is rewritten there.
    private var cookieRoomStart: Int64 = 0
    /// A cookie too large for that room: written after the data, at the end.
    private var lateCookie: [UInt8]?
    /// Room left after the cookie for a later one (encoders' cookies are some tens of
    /// bytes; PCM has none).
    private var reserve: Int { format.isLinearPCM ? 0 : 128 }

    init(sink: ByteSink, format: StreamDescription) {
        self.sink = sink
        self.format = format
    }

    private func write(_ bytes: [UInt8]) throws(AudioFileStatus) {
        let ok = bytes.withUnsafeBytes { sink.write(at: position, $0) }
        guard ok else { throw .invalidFile }
        position += Int64(bytes.count)
    }

    private static func be(_ v: UInt64, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64(n - 1 - $0))) } }

    private func chunk(_ tag: String, size: Int64) -> [UInt8] { Array(tag.utf8) + Self.be(UInt64(bitPattern: size), 8) }

    /// The header, once the cookie is known (it is set after creation).
    func start(cookie: [UInt8]) throws(AudioFileStatus) {
        guard !started else { return }
        started = true
        var header: [UInt8] = Array("caff".utf8) + [0, 1, 0, 0]
        var flags = format.formatFlags
        if format.isLinearPCM {
            // CAF's own PCM flags: 1 float, 2 little-endian.
            flags = (format.formatFlags & Flags.float != 0 ? 1 : 0) | (format.formatFlags & Flags.bigEndian == 0 ? 2 : 0)
        }
        header += chunk("desc", size: 32) + Self.be(format.sampleRate.bitPattern, 8) + Self.be(UInt64(format.formatID), 4)
            + Self.be(UInt64(flags), 4) + Self.be(UInt64(format.bytesPerPacket), 4) + Self.be(UInt64(format.framesPerPacket), 4)
            + Self.be(UInt64(format.channelsPerFrame), 4) + Self.be(UInt64(format.bitsPerChannel), 4)
        cookieRoomStart = Int64(header.count)
        if !cookie.isEmpty { header += chunk("kuki", size: Int64(cookie.count)) + cookie }
        if reserve > 0 { header += chunk("free", size: Int64(reserve)) + [UInt8](repeating: 0, count: reserve) }
        // The data's size is unknown (-1) until the end; an edit count of 0 leads the data.
        header += chunk("data", size: -1) + [0, 0, 0, 0]
        try write(header)
        dataStart = position
    }

    /// A new cookie once packets are written (a recorder sets it again at its end): in
    /// its room before the data when it fits, else after the data at the end, its old
    /// room marked free.
    func replaceCookie(_ cookie: [UInt8]) throws(AudioFileStatus) {
        guard started else { return }
        let room = Int(dataStart - 16 - cookieRoomStart)
        var region: [UInt8]
        if cookie.count + 12 == room || cookie.count + 24 <= room {
            region = chunk("kuki", size: Int64(cookie.count)) + cookie
            lateCookie = nil
        } else {
            region = []
            lateCookie = cookie
        }
        let left = room - region.count
        if left >= 12 { region += chunk("free", size: Int64(left - 12)) + [UInt8](repeating: 0, count: left - 12) }
        guard region.count == room else { return }
        let end = position
        position = cookieRoomStart
        try write(region)
        position = end
    }

    func append(_ bytes: UnsafeRawBufferPointer, packetSizes: [UInt32]) throws(AudioFileStatus) {
        guard started else { throw .invalidFile }
        guard bytes.count == 0 || sink.write(at: position, bytes) else { throw .invalidFile }
        position += Int64(bytes.count)
        if !format.isConstantBitRate { sizes += packetSizes }
    }

    /// The data's size, then the packet table (variable-rate data), then `chunks` (the
    /// file's user data, markers and regions).
    func finish(cookie: [UInt8], table: PacketTable?, chunks: [(type: UInt32, bytes: [UInt8])] = []) throws(AudioFileStatus) {
        try finishAudio(cookie: cookie, table: table)
        for (type, bytes) in chunks {
            try write(Self.be(UInt64(type), 4) + Self.be(UInt64(bytes.count), 8) + bytes)
        }
    }

    private func finishAudio(cookie: [UInt8], table: PacketTable?) throws(AudioFileStatus) {
        try start(cookie: cookie)
        let end = position
        position = dataStart - 16
        try write(chunk("data", size: end - dataStart + 4))
        position = end
        if let lateCookie { try write(chunk("kuki", size: Int64(lateCookie.count)) + lateCookie) }
        // Fixed-size packets need a table only to say their last one was padded (IMA4
        // encoded from a length that is not a whole number of packets): it then lists
        // no packet sizes, only the counts.
        let padded = (table?.remainderFrames ?? 0) > 0 || (table?.primingFrames ?? 0) > 0
        guard !format.isConstantBitRate || padded else { return }
        var body: [UInt8] = []
        let perPacket = Int64(format.framesPerPacket)
        let packets = format.isConstantBitRate ? (end - dataStart) / Int64(format.bytesPerPacket) : Int64(sizes.count)
        let total = packets * perPacket
        let priming = Int64(table?.primingFrames ?? 0)
        let valid = table.map { $0.validFrames > 0 ? $0.validFrames : total - priming - Int64($0.remainderFrames) } ?? total
        let remainder = max(0, total - priming - valid)
        body += Self.be(UInt64(packets), 8) + Self.be(UInt64(max(0, valid)), 8) + Self.be(UInt64(priming), 4)
            + Self.be(UInt64(remainder), 4)
        for size in sizes {
            // Seven bits a byte, most significant first, the high bit saying more follow.
            var groups: [UInt8] = [UInt8(size & 0x7F)]
            var rest = size >> 7
            while rest > 0 { groups.insert(UInt8(rest & 0x7F) | 0x80, at: 0); rest >>= 7 }
            body += groups
        }
        try write(chunk("pakt", size: Int64(body.count)) + body)
    }
}
