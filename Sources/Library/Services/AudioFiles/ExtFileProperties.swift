/// Extended Audio File's properties as data: for each ID, how its value reads from a file
/// being read or written (as the C API's bytes), whether it may be set, and how a value
/// is taken. The ABI passes C buffers through `value`, `isWritable` and `set`; what only
/// the runtime knows (the AudioFileID, the converter made on demand) comes in `Handles`.
public enum ExtFileProperties {
    /// The Extended Audio File a property is asked of.
    public enum Side {
        case reading(ExtendedAudioFileReader)
        case writing(ExtendedAudioFileWriter)

        var fileFormat: StreamDescription {
            switch self {
            case .reading(let r): r.file.format
            case .writing(let w): w.file.format
            }
        }
        var clientFormat: StreamDescription {
            switch self {
            case .reading(let r): r.clientFormat
            case .writing(let w): w.clientFormat
            }
        }
    }

    /// The runtime's part: the file's AudioFileID, and its AudioConverterRef (made on the
    /// first ask) with the step that gives the program's converter settings to the file.
    public struct Handles {
        let audioFile: UInt
        let converter: () throws(AudioFileStatus) -> UInt
        let applyConverterSettings: () throws(AudioFileStatus) -> Void
        public init(audioFile: UInt, converter: @escaping () throws(AudioFileStatus) -> UInt,
                    applyConverterSettings: @escaping () throws(AudioFileStatus) -> Void) {
            self.audioFile = audioFile
            self.converter = converter
            self.applyConverterSettings = applyConverterSettings
        }
    }

    // The IDs, as ExtendedAudioFile.h gives them (checked against the header by
    // AudioToolboxTests.PropertyIDTests).
    public static let fileDataFormat: UInt32 = 0x6666_6D74       // 'ffmt'
    public static let fileChannelLayout: UInt32 = 0x6663_6C6F    // 'fclo'
    public static let clientDataFormat: UInt32 = 0x6366_6D74     // 'cfmt'
    public static let clientChannelLayout: UInt32 = 0x6363_6C6F  // 'cclo'
    public static let codecManufacturer: UInt32 = 0x636D_616E    // 'cman'
    public static let audioConverter: UInt32 = 0x6163_6E76       // 'acnv'
    public static let audioFile: UInt32 = 0x6166_696C            // 'afil'
    public static let fileMaxPacketSize: UInt32 = 0x666D_7073    // 'fmps'
    public static let clientMaxPacketSize: UInt32 = 0x636D_7073  // 'cmps'
    public static let fileLengthFrames: UInt32 = 0x2366_726D     // '#frm'
    public static let converterConfig: UInt32 = 0x6163_6366      // 'accf'
    public static let ioBufferSizeBytes: UInt32 = 0x696F_6273    // 'iobs'
    public static let ioBuffer: UInt32 = 0x696F_6266             // 'iobf'
    public static let packetTable: UInt32 = 0x7870_7469          // 'xpti'

    static let descriptionSize = 40

    struct Row {
        let id: UInt32
        /// nil: the property cannot be read.
        var get: ((Side, Handles) throws(AudioFileStatus) -> [UInt8])?
        /// nil: read-only (setting it is an operation out of order, as on the phone).
        var set: ((Side, Handles, UnsafeRawBufferPointer) throws(AudioFileStatus) -> Void)?
        /// Whether GetPropertyInfo says writable (the ones the program configures).
        var writable = false
    }

    static let rows: [Row] = [
        Row(id: fileDataFormat, get: { side, _ in side.fileFormat.cBytes }),
        Row(id: clientDataFormat, get: { side, _ in side.clientFormat.cBytes }, set: { side, _, bytes throws(AudioFileStatus) in
            guard bytes.count >= descriptionSize else { throw .extInvalidPropertySize }
            let format = FormatProperties.description(bytes)
            switch side {
            case .reading(let r): try r.setClientFormat(format)
            case .writing(let w): try w.setClientFormat(format)
            }
        }, writable: true),
        layoutRow(fileChannelLayout) { $0.fileFormat },
        layoutRow(clientChannelLayout) { $0.clientFormat },
        Row(id: audioFile, get: { _, handles in bytes(handles.audioFile) }),
        Row(id: fileMaxPacketSize, get: { side, _ in
            switch side {
            case .reading(let r): bytes(r.file.maximumPacketSize)
            case .writing(let w): bytes(max(w.file.maximumPacketSize, w.file.format.bytesPerPacket))
            }
        }),
        Row(id: clientMaxPacketSize, get: { side, _ in bytes(side.clientFormat.bytesPerPacket) }),
        Row(id: fileLengthFrames, get: { side, _ in
            switch side {
            case .reading(let r): bytes(r.fileLengthFrames)
            case .writing(let w): bytes(w.framesWritten)
            }
        }),
        Row(id: packetTable, get: { side, _ throws(AudioFileStatus) in
            guard case .reading(let r) = side, let table = r.file.packetTable else { throw .extInvalidProperty }
            return FileProperties.packetTableBytes(table)
        }),
        // Our codecs are the one maker's: 'appl', kAppleSoftwareAudioCodecManufacturer.
        Row(id: codecManufacturer, get: { _, _ in bytes(UInt32(0x6170_706C)) }, set: { _, _, bytes throws(AudioFileStatus) in
            guard bytes.count == 4 else { throw .extInvalidPropertySize }
        }, writable: true),
        Row(id: audioConverter, get: { _, handles throws(AudioFileStatus) in bytes(try handles.converter()) }),
        Row(id: converterConfig, set: { _, handles, _ throws(AudioFileStatus) in try handles.applyConverterSettings() }),
        // Our reads and writes need no buffer of the program's: taken and not used.
        Row(id: ioBufferSizeBytes, set: { _, _, _ in }),
        Row(id: ioBuffer, set: { _, _, _ in }),
    ]

    /// A channel layout follows its format's channel count: one naming another count is
    /// refused (kExtAudioFileError_InvalidChannelMap); one given by descriptions or a
    /// bitmap is taken as it is.
    static func layoutRow(_ id: UInt32, _ format: @escaping (Side) -> StreamDescription) -> Row {
        Row(id: id, get: { side, _ in ChannelLayoutData.standard(channels: format(side).channelsPerFrame) },
            set: { side, _, bytes throws(AudioFileStatus) in
                guard bytes.count >= ChannelLayoutData.header else { throw .extInvalidPropertySize }
                let tag = bytes.loadUnaligned(as: UInt32.self)
                let described = tag == ChannelLayoutData.useDescriptions || tag == ChannelLayoutData.useBitmap
                guard described || tag & 0xFFFF == format(side).channelsPerFrame else { throw .extInvalidChannelMap }
            }, writable: true)
    }

    private static func row(_ id: UInt32) throws(AudioFileStatus) -> Row {
        guard let row = rows.first(where: { $0.id == id }) else { throw .extInvalidProperty }
        return row
    }

    /// The value's bytes.
    public static func value(_ side: Side, _ id: UInt32, _ handles: Handles) throws(AudioFileStatus) -> [UInt8] {
        guard let get = try row(id).get else { throw .extInvalidProperty }
        return try get(side, handles)
    }

    public static func isWritable(_ id: UInt32) -> Bool { rows.first { $0.id == id }?.writable ?? false }

    /// Takes `bytes` for property `id`.
    public static func set(_ side: Side, _ id: UInt32, _ bytes: UnsafeRawBufferPointer, _ handles: Handles)
        throws(AudioFileStatus) {
        guard let set = try row(id).set else { throw .extInvalidOperationOrder }
        try set(side, handles, bytes)
    }

    /// Every ID the table has a row for.
    public static var ids: Set<UInt32> { Set(rows.map(\.id)) }

    static func bytes<T>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }
}
