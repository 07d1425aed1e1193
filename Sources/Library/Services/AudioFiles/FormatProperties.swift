import FourCharCodes

/// Audio Format Services' properties as data: for each ID, how its specifier (the
/// program's question, as bytes) is read and what the answer is, from the codecs the
/// library has. The ABI passes C buffers through `value` and makes the CF string of a
/// name; a new property is a row here.
public enum FormatProperties {
    /// An answer: bytes in C's layout, or a name the ABI hands over as a CFString.
    public enum Value {
        case bytes([UInt8])
        case name(String)
    }

    /// What a row is asked: the specifier, and for FormatInfo the output buffer's
    /// content (the description to complete); nil where the program passed NULL.
    public struct Question {
        public let specifier: UnsafeRawBufferPointer?
        public let buffer: UnsafeRawBufferPointer?
        public init(specifier: UnsafeRawBufferPointer?, buffer: UnsafeRawBufferPointer?) {
            self.specifier = specifier
            self.buffer = buffer
        }
    }

    struct Row {
        let id: UInt32
        let answer: (UInt32, Question) throws(AudioFileStatus) -> Value
    }

    // The IDs, as AudioFormat.h gives them (checked against the header by
    // AudioToolboxTests.PropertyIDTests).
    public static let formatInfo: UInt32 = 0x666D_7469                  // 'fmti'
    public static let formatName: UInt32 = 0x666E_616D                  // 'fnam'
    public static let encodeFormatIDs: UInt32 = 0x6163_6F66             // 'acof'
    public static let decodeFormatIDs: UInt32 = 0x6163_6966             // 'acif'
    public static let formatList: UInt32 = 0x666C_7374                  // 'flst'
    public static let outputFormatList: UInt32 = 0x6F66_6C73            // 'ofls'
    public static let firstPlayableFormatFromList: UInt32 = 0x6670_666C // 'fpfl'
    public static let formatIsVBR: UInt32 = 0x6676_6272                 // 'fvbr'
    public static let formatIsExternallyFramed: UInt32 = 0x6665_7866    // 'fexf'
    public static let formatIsEncrypted: UInt32 = 0x6372_7970           // 'cryp'
    public static let encoders: UInt32 = 0x6176_656E                    // 'aven'
    public static let decoders: UInt32 = 0x6176_6465                    // 'avde'
    public static let availableEncodeSampleRates: UInt32 = 0x6165_7372  // 'aesr'
    public static let availableEncodeBitRates: UInt32 = 0x6165_6272     // 'aebr'
    public static let numberOfChannelsForLayout: UInt32 = 0x6E63_686D   // 'nchm'
    public static let channelLayoutForTag: UInt32 = 0x636D_706C         // 'cmpl'

    /// What the library decodes and encodes (FFmpeg's codecs, and ours for PCM).
    public static let decodable: [UInt32] = FormatFacts.all.map(\.formatID)
    public static let encodable: [UInt32] = FormatFacts.all.filter(\.encodes).map(\.formatID)

    static let rows: [Row] = [
        // The description to complete is the output buffer's content; the cookie the specifier.
        Row(id: formatInfo) { _, q throws(AudioFileStatus) in
            guard let buffer = q.buffer else { throw .parameter }
            guard buffer.count >= 40 else { throw .formatBadPropertySize }
            return .bytes(try description(buffer).completed(cookie: q.specifier.map { Array($0) }).cBytes)
        },
        Row(id: formatIsVBR) { _, q throws(AudioFileStatus) in
            let d = try specifiedDescription(q)
            guard let facts = FormatFacts.of(d.formatID) else { throw .formatUnknownFormat }
            return .bytes(word(facts.variableBitRate ? 1 : 0))
        },
        Row(id: formatIsExternallyFramed) { _, q throws(AudioFileStatus) in
            let d = try specifiedDescription(q)
            guard let facts = FormatFacts.of(d.formatID) else { throw .formatUnknownFormat }
            return .bytes(word(facts.externallyFramed ? 1 : 0))
        },
        Row(id: formatIsEncrypted) { _, q throws(AudioFileStatus) in
            _ = try specifiedWord(q)
            return .bytes(word(0))
        },
        Row(id: encodeFormatIDs) { _, _ in .bytes(encodable.flatMap(word)) },
        Row(id: decodeFormatIDs) { _, _ in .bytes(decodable.flatMap(word)) },
        Row(id: formatName) { _, q throws(AudioFileStatus) in .name(name(try specifiedDescription(q))) },
        Row(id: formatList, answer: formatListAnswer),
        Row(id: outputFormatList, answer: formatListAnswer),
        Row(id: firstPlayableFormatFromList) { _, q throws(AudioFileStatus) in
            guard let items = q.specifier else { throw .parameter }
            let itemSize = 48
            guard items.count >= itemSize, items.count % itemSize == 0 else { throw .formatBadSpecifierSize }
            for i in 0..<items.count / itemSize where decodable.contains(items.loadUnaligned(fromByteOffset: i * itemSize + 8,
                                                                                             as: UInt32.self)) {
                return .bytes(word(UInt32(i)))
            }
            throw .formatUnsupportedDataFormat
        },
        Row(id: availableEncodeSampleRates) { _, q throws(AudioFileStatus) in
            let id = try specifiedWord(q)
            guard encodable.contains(id) else { throw .formatUnsupportedDataFormat }
            if id == FormatID.linearPCM { return .bytes(range(8000, 192_000)) }
            // Apple Lossless and IMA4 take any rate a stream has.
            if id != FormatID.mpeg4AAC { return .bytes(range(8000, 384_000)) }
            return .bytes(AACEncoding.sampleRates.flatMap { range($0, $0) })
        },
        // Per format ID, as the header has it: the stereo stream's rates (mono takes the
        // lower half of them).
        Row(id: availableEncodeBitRates) { _, q throws(AudioFileStatus) in
            guard try specifiedWord(q) == FormatID.mpeg4AAC else { throw .formatUnsupportedDataFormat }
            return .bytes(AACEncoding.bitRates(channels: 2).flatMap { range(Double($0), Double($0)) })
        },
        Row(id: encoders, answer: codecs),
        Row(id: decoders, answer: codecs),
        Row(id: numberOfChannelsForLayout) { _, q throws(AudioFileStatus) in
            guard let layout = q.specifier else { throw .parameter }
            guard layout.count >= 12 else { throw .formatBadSpecifierSize }
            let tag = layout.loadUnaligned(as: UInt32.self)
            switch tag {
            case ChannelLayoutData.useDescriptions: return .bytes(word(layout.loadUnaligned(fromByteOffset: 8, as: UInt32.self)))
            case ChannelLayoutData.useBitmap:
                return .bytes(word(UInt32(layout.loadUnaligned(fromByteOffset: 4, as: UInt32.self).nonzeroBitCount)))
            default: return .bytes(word(tag & 0xFFFF))
            }
        },
        Row(id: channelLayoutForTag) { _, q throws(AudioFileStatus) in
            let tag = try specifiedWord(q)
            guard tag != ChannelLayoutData.useBitmap, tag != ChannelLayoutData.useDescriptions else { throw .formatUnknownFormat }
            var layout = [UInt8](repeating: 0, count: ChannelLayoutData.header + ChannelLayoutData.description)
            layout.replaceSubrange(0..<4, with: word(tag))
            return .bytes(layout)
        },
    ]

    /// Property `id`'s answer to `question`.
    public static func value(_ id: UInt32, _ question: Question) throws(AudioFileStatus) -> Value {
        guard let row = rows.first(where: { $0.id == id }) else { throw .formatUnsupportedProperty }
        return try row.answer(id, question)
    }

    /// The size of property `id`'s answer (AudioFormatGetPropertyInfo); nil for a name
    /// (a CFString's pointer). FormatInfo's is a description's, whatever it completes.
    public static func size(_ id: UInt32, _ question: Question) throws(AudioFileStatus) -> Int? {
        if id == formatInfo { return 40 }
        switch try value(id, question) {
        case .bytes(let bytes): return bytes.count
        case .name: return nil
        }
    }

    /// Every ID the table has a row for.
    public static var ids: Set<UInt32> { Set(rows.map(\.id)) }

    // MARK: answers shared by rows

    /// An AudioFormatInfo (a description, a cookie pointer and its size) as a one-item
    /// format list of the completed description.
    static func formatListAnswer(_ id: UInt32, _ q: Question) throws(AudioFileStatus) -> Value {
        guard let info = q.specifier else { throw .parameter }
        guard info.count >= 52 else { throw .formatBadSpecifierSize }
        let address = info.loadUnaligned(fromByteOffset: 40, as: UInt.self)
        let size = Int(info.loadUnaligned(fromByteOffset: 48, as: UInt32.self))
        let cookie = UnsafeRawPointer(bitPattern: address).map { Array(UnsafeRawBufferPointer(start: $0, count: size)) }
        return .bytes(FileProperties.formatListItem(try description(info).completed(cookie: cookie)))
    }

    /// One codec per format, in software (what AudioConverterNewSpecific is given): an
    /// AudioClassDescription of 'aenc' or 'adec', the format, 'appl'.
    static func codecs(_ id: UInt32, _ q: Question) throws(AudioFileStatus) -> Value {
        let format = try specifiedWord(q)
        let encoding = id == encoders
        guard (encoding ? encodable : decodable).contains(format), format != FormatID.linearPCM else {
            throw .formatUnsupportedDataFormat
        }
        return .bytes(word(encoding ? 0x6165_6E63 : 0x6164_6563) + word(format) + word(0x6170_706C))
    }

    static func name(_ d: StreamDescription) -> String {
        guard let facts = FormatFacts.of(d.formatID) else { return FourCharCode.describe(d.formatID) }
        guard d.isLinearPCM else { return facts.name }
        let float = d.formatFlags & Flags.float != 0
        let endian = d.formatFlags & Flags.bigEndian != 0 ? "big-endian" : "little-endian"
        return "\(facts.name), \(d.bitsPerChannel)-bit \(float ? "float" : "integer") \(endian)"
    }

    // MARK: specifiers and values as bytes

    static func specifiedDescription(_ q: Question) throws(AudioFileStatus) -> StreamDescription {
        guard let specifier = q.specifier else { throw .parameter }
        guard specifier.count >= 40 else { throw .formatBadSpecifierSize }
        return description(specifier)
    }

    /// A UInt32 specifier (a format ID, a layout tag): exactly four bytes.
    static func specifiedWord(_ q: Question) throws(AudioFileStatus) -> UInt32 {
        guard let specifier = q.specifier, specifier.count == 4 else { throw .formatBadSpecifierSize }
        return specifier.loadUnaligned(as: UInt32.self)
    }

    /// An AudioStreamBasicDescription's 40 bytes as a description.
    static func description(_ bytes: UnsafeRawBufferPointer) -> StreamDescription {
        func field(_ index: Int) -> UInt32 { bytes.loadUnaligned(fromByteOffset: 8 + 4 * index, as: UInt32.self) }
        return StreamDescription(sampleRate: bytes.loadUnaligned(as: Float64.self), formatID: field(0), formatFlags: field(1),
                                 bytesPerPacket: field(2), framesPerPacket: field(3), bytesPerFrame: field(4),
                                 channelsPerFrame: field(5), bitsPerChannel: field(6))
    }

    static func word(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }

    /// An AudioValueRange: two Float64.
    static func range(_ minimum: Double, _ maximum: Double) -> [UInt8] {
        withUnsafeBytes(of: minimum) { Array($0) } + withUnsafeBytes(of: maximum) { Array($0) }
    }
}
