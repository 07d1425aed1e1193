/// Audio File's and Audio File Stream's properties as data: the two share their IDs
/// ('dfmt' is the data format to both), so one table answers for a file being read, a
/// file being written and a stream being parsed, each described by its `Facts`. A row
/// reads its value from the facts as the C API's bytes; a fact not known (yet) is the
/// caller's "unknown" code (Audio File: unsupported; a stream: not known yet).
public enum FileProperties {
    /// What one file or stream can say about itself; nil where it cannot (yet).
    public struct Facts {
        public var fileType: UInt32?
        public var format: StreamDescription?
        public var magicCookie: [UInt8] = []
        public var dataByteCount: Int64?
        public var packetCount: Int64?
        public var maximumPacketSize: UInt32?
        public var packetSizeUpperBound: UInt32?
        public var dataOffset: Int64?
        public var packetTable: PacketTable?
        public var estimatedDuration: Double?
        public var bitRate: UInt32?
        public var sourceBitDepth: Int32?
        public var averageBytesPerPacket: Double?
        /// A stream's: whether it has read enough to produce packets.
        public var readyToProducePackets = false
        public let kind: Kind
        public init(_ kind: Kind) { self.kind = kind }
    }

    /// Which object the facts describe: a property is one some kinds have.
    public enum Kind: Sendable { case read, written, stream }

    // The IDs, as AudioFile.h and AudioFileStream.h give them (checked against the
    // headers by AudioToolboxTests.PropertyIDTests).
    public static let fileFormat: UInt32 = 0x6666_6D74              // 'ffmt'
    /// A CFDictionary the ABI makes (FileAnnotations' info), not a row here.
    public static let infoDictionary: UInt32 = 0x696E_666F          // 'info'
    public static let dataFormat: UInt32 = 0x6466_6D74              // 'dfmt'
    public static let isOptimized: UInt32 = 0x6F70_746D             // 'optm'
    public static let magicCookieData: UInt32 = 0x6D67_6963         // 'mgic'
    public static let audioDataByteCount: UInt32 = 0x6263_6E74      // 'bcnt'
    public static let audioDataPacketCount: UInt32 = 0x7063_6E74    // 'pcnt'
    public static let maximumPacketSize: UInt32 = 0x7073_7A65       // 'psze'
    public static let dataOffset: UInt32 = 0x646F_6666              // 'doff'
    public static let channelLayout: UInt32 = 0x636D_6170           // 'cmap'
    public static let deferSizeUpdates: UInt32 = 0x6473_7A75        // 'dszu'
    public static let packetTableInfo: UInt32 = 0x706E_666F         // 'pnfo'
    public static let formatList: UInt32 = 0x666C_7374              // 'flst'
    public static let packetSizeUpperBound: UInt32 = 0x706B_7562    // 'pkub'
    public static let estimatedDuration: UInt32 = 0x6564_7572       // 'edur'
    public static let bitRate: UInt32 = 0x6272_6174                 // 'brat'
    public static let sourceBitDepth: UInt32 = 0x7362_7464          // 'sbtd'
    public static let audioTrackCount: UInt32 = 0x6174_6374         // 'atct'
    public static let readyToProducePackets: UInt32 = 0x7265_6479   // 'redy' (streams)
    public static let averageBytesPerPacket: UInt32 = 0x6162_7070   // 'abpp' (streams)

    struct Row {
        let id: UInt32
        let kinds: Set<Kind>
        /// The value, or nil when the facts do not hold it (yet).
        let read: (Facts) -> [UInt8]?
    }

    static let all: Set<Kind> = [.read, .written, .stream]

    static let rows: [Row] = [
        Row(id: readyToProducePackets, kinds: [.stream]) { word($0.readyToProducePackets ? 1 : 0) },
        Row(id: fileFormat, kinds: all) { $0.fileType.map(word) },
        Row(id: dataFormat, kinds: all) { $0.format?.cBytes },
        Row(id: formatList, kinds: [.read, .stream]) { $0.format.map(formatListItem) },
        Row(id: magicCookieData, kinds: all) { $0.magicCookie.isEmpty ? nil : $0.magicCookie },
        Row(id: audioDataByteCount, kinds: all) { $0.dataByteCount.map { long(UInt64(bitPattern: $0)) } },
        Row(id: audioDataPacketCount, kinds: all) { $0.packetCount.map { long(UInt64(bitPattern: $0)) } },
        Row(id: maximumPacketSize, kinds: all) { $0.maximumPacketSize.map(word) },
        Row(id: packetSizeUpperBound, kinds: all) { $0.packetSizeUpperBound.map(word) },
        Row(id: dataOffset, kinds: [.read, .stream]) { $0.dataOffset.map { long(UInt64(bitPattern: $0)) } },
        Row(id: channelLayout, kinds: [.read, .stream]) {
            $0.format.map { ChannelLayoutData.standard(channels: $0.channelsPerFrame) }
        },
        Row(id: packetTableInfo, kinds: all) { $0.packetTable.map(packetTableBytes) },
        Row(id: estimatedDuration, kinds: [.read]) { $0.estimatedDuration.map(float64) },
        Row(id: bitRate, kinds: [.read, .stream]) { $0.bitRate.map(word) },
        Row(id: sourceBitDepth, kinds: [.read]) { $0.sourceBitDepth.flatMap { $0 == 0 ? nil : word(UInt32(bitPattern: $0)) } },
        Row(id: averageBytesPerPacket, kinds: [.stream]) { $0.averageBytesPerPacket.map(float64) },
        Row(id: isOptimized, kinds: [.read, .written]) { _ in word(1) },
        Row(id: deferSizeUpdates, kinds: [.read, .written]) { _ in word(0) },
        Row(id: audioTrackCount, kinds: [.read]) { _ in word(1) },
    ]

    /// Property `id`'s value from `facts`; `unknown` when the facts do not hold it, and
    /// unsupported for an ID no file or stream has.
    public static func value(_ id: UInt32, of facts: Facts, unknown: AudioFileStatus) throws(AudioFileStatus) -> [UInt8] {
        guard let row = rows.first(where: { $0.id == id }), row.kinds.contains(facts.kind) else { throw .unsupportedProperty }
        guard let value = row.read(facts) else { throw unknown }
        return value
    }

    /// Every ID the table has a row for.
    public static var ids: Set<UInt32> { Set(rows.map(\.id)) }

    // MARK: what a program sets (on a file it writes)

    /// 'rsrv': the seconds a program means to write, a hint we have no use for.
    public static let reserveDuration: UInt32 = 0x7273_7276

    /// Whether GetPropertyInfo says property `id` is writable on a `kind` of object.
    public static func isWritable(_ id: UInt32, kind: Kind) -> Bool {
        kind == .written && (id == magicCookieData || id == packetTableInfo)
    }

    /// Takes a value of property `id` on the file `w` writes.
    public static func set(_ id: UInt32, _ bytes: UnsafeRawBufferPointer, on w: AudioFileWriter) throws(AudioFileStatus) {
        switch id {
        case magicCookieData:
            guard bytes.count > 0, bytes.count <= 1 << 20 else { throw .badPropertySize }
            try w.setMagicCookie(Array(bytes))
        case packetTableInfo:
            guard bytes.count >= 16 else { throw .badPropertySize }
            let valid = bytes.loadUnaligned(as: Int64.self)
            let priming = bytes.loadUnaligned(fromByteOffset: 8, as: Int32.self)
            let remainder = bytes.loadUnaligned(fromByteOffset: 12, as: Int32.self)
            guard valid >= 0, priming >= 0, remainder >= 0 else { throw .parameter }
            w.packetTable = PacketTable(validFrames: valid, primingFrames: priming, remainderFrames: remainder)
        case deferSizeUpdates, reserveDuration:
            return  // sizes are written at close; nothing is reserved
        default:
            throw .unsupportedProperty
        }
    }

    // MARK: values as bytes

    static func word(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }
    static func long(_ value: UInt64) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }
    static func float64(_ value: Double) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }

    /// An AudioFilePacketTableInfo: SInt64 valid frames, SInt32 priming and remainder.
    public static func packetTableBytes(_ t: PacketTable) -> [UInt8] {
        long(UInt64(bitPattern: t.validFrames)) + word(UInt32(bitPattern: t.primingFrames))
            + word(UInt32(bitPattern: t.remainderFrames))
    }

    /// A one-item format list: an AudioFormatListItem (the description and the layout
    /// tag its channel count implies), 48 bytes as C counts them (sizeof, with the
    /// padding to its 8-byte alignment), so a program's size / sizeof is one item.
    public static func formatListItem(_ format: StreamDescription) -> [UInt8] {
        format.cBytes + word(ChannelLayoutData.standardTag(channels: format.channelsPerFrame)) + word(0)
    }
}
