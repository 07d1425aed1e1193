/// Audio File's and Audio File Stream's four translations (packet to frame, frame to
/// packet, packet to byte, byte to packet): the program writes its question into an
/// AudioFramePacketTranslation or AudioBytePacketTranslation and reads the answer from
/// the same buffer. Both families share the IDs and the arithmetic; each says where
/// its packets lie (`Layout`).
public enum FileTranslations {
    public static let packetToFrame: UInt32 = 0x706B_6672  // 'pkfr'
    public static let frameToPacket: UInt32 = 0x6672_706B  // 'frpk'
    public static let packetToByte: UInt32 = 0x706B_6279   // 'pkby'
    public static let byteToPacket: UInt32 = 0x6279_706B   // 'bypk'

    /// C's sizeof of either structure (what GetPropertyInfo says).
    public static let size = 24
    /// The bytes the frame translation reads and writes (SInt64 frame, SInt64 packet,
    /// UInt32 offset), and the byte translation's (its flags too).
    static let frameFields = 20, byteFields = 24
    /// kBytePacketTranslationFlag_IsEstimate.
    static let isEstimate: UInt32 = 1

    public static func isTranslation(_ id: UInt32) -> Bool {
        [packetToFrame, frameToPacket, packetToByte, byteToPacket].contains(id)
    }

    /// Where a file's or stream's packets lie in its audio data.
    public enum Layout {
        /// Every packet this many bytes.
        case constant(bytesPerPacket: Int64)
        /// Each packet's start known: a file read whole.
        case indexed(count: Int64, start: (Int64) -> Int64?)
        /// Only an average known (a stream): answers are estimates unless `exact`.
        case average(bytesPerPacket: Double, exact: Bool)
    }

    /// Answers translation `id` in `buffer` (`capacity` bytes, the program's). `layout`
    /// is asked only by the byte translations (a file being written has none: it throws).
    public static func translate(_ id: UInt32, in buffer: UnsafeMutableRawPointer, capacity: Int, framesPerPacket: UInt32,
                                 layout: () throws(AudioFileStatus) -> Layout) throws(AudioFileStatus) {
        if id == packetToFrame || id == frameToPacket {
            guard capacity >= frameFields else { throw .badPropertySize }
            try translateFrames(buffer, packetToFrame: id == packetToFrame, framesPerPacket: framesPerPacket)
            return
        }
        guard id == packetToByte || id == byteToPacket else { throw .unsupportedProperty }
        guard capacity >= byteFields else { throw .badPropertySize }
        let where_ = try layout()
        var byte = buffer.loadUnaligned(as: Int64.self)
        var packet = buffer.loadUnaligned(fromByteOffset: 8, as: Int64.self)
        var offset = buffer.loadUnaligned(fromByteOffset: 16, as: UInt32.self)
        var flags: UInt32 = 0
        let toByte = id == packetToByte
        switch where_ {
        case .constant(let size):
            guard size > 0 else { throw .invalidPacketOffset }
            if toByte {
                byte = try start(ofPacket: packet, each: size)
            } else {
                guard byte >= 0 else { throw .parameter }
                packet = byte / size
                offset = UInt32(byte % size)
            }
        case .indexed(let count, let start):
            if toByte {
                guard let first = start(packet) else { throw .invalidPacketOffset }
                byte = first
            } else {
                guard byte >= 0 else { throw .parameter }
                // The last packet that starts at or before the byte.
                var low: Int64 = 0, high = count - 1
                while low < high {
                    let mid = (low + high + 1) / 2
                    if let at = start(mid), at <= byte { low = mid } else { high = mid - 1 }
                }
                guard let first = start(low) else { throw .invalidPacketOffset }
                packet = low
                offset = UInt32(clamping: byte - first)
            }
        case .average(let size, let exact):
            guard size > 0, size.isFinite else { throw .streamValueUnknown }
            // In Double, clamped back: a program may ask of any packet or byte.
            func whole(_ value: Double) -> Int64 { Int64(max(-9.0e18, min(9.0e18, value.rounded()))) }
            if toByte {
                guard packet >= 0 else { throw .invalidPacketOffset }
                byte = whole(Double(packet) * size)
            } else {
                guard byte >= 0 else { throw .parameter }
                packet = whole((Double(byte) / size).rounded(.down))
                offset = UInt32(clamping: byte - whole(Double(packet) * size))
            }
            flags = exact ? 0 : isEstimate
        }
        buffer.storeBytes(of: byte, as: Int64.self)
        buffer.storeBytes(of: packet, toByteOffset: 8, as: Int64.self)
        buffer.storeBytes(of: offset, toByteOffset: 16, as: UInt32.self)
        buffer.storeBytes(of: flags, toByteOffset: 20, as: UInt32.self)
    }

    /// Where packet `packet` starts when each is `each` long: none for a negative packet
    /// or past Int64 (invalidPacketOffset, as for a packet the file does not have).
    private static func start(ofPacket packet: Int64, each: Int64) throws(AudioFileStatus) -> Int64 {
        let (product, overflow) = packet.multipliedReportingOverflow(by: each)
        guard packet >= 0, !overflow else { throw .invalidPacketOffset }
        return product
    }

    static func translateFrames(_ buffer: UnsafeMutableRawPointer, packetToFrame: Bool,
                                framesPerPacket: UInt32) throws(AudioFileStatus) {
        var frame = buffer.loadUnaligned(as: Int64.self)
        var packet = buffer.loadUnaligned(fromByteOffset: 8, as: Int64.self)
        let perPacket = Int64(max(1, framesPerPacket))
        if packetToFrame {
            frame = try start(ofPacket: packet, each: perPacket)
        } else {
            guard frame >= 0 else { throw .parameter }
            packet = frame / perPacket
            buffer.storeBytes(of: UInt32(frame % perPacket), toByteOffset: 16, as: UInt32.self)
        }
        buffer.storeBytes(of: frame, as: Int64.self)
        buffer.storeBytes(of: packet, toByteOffset: 8, as: Int64.self)
    }
}

extension AudioFileReader {
    /// Where this file's packets lie, for the byte translations.
    public var translationLayout: FileTranslations.Layout {
        format.isConstantBitRate ? .constant(bytesPerPacket: Int64(format.bytesPerPacket))
            : .indexed(count: packetCount) { [self] i in packet(i)?.startOffset }
    }
}
