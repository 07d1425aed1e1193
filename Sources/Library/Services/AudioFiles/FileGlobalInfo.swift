/// Audio File's global info (AudioFileGetGlobalInfo) as data: what each ID answers about
/// the file types we know, from `FileType.table`. An answer is either four-byte words
/// (type and format IDs) or text (names, extensions, MIME types), which the ABI hands
/// out as a new CFString or CFArray each call.
public enum FileGlobalInfo {
    public enum Answer: Equatable {
        case words([UInt32])
        case text(String)
        case texts([String])
    }

    // The IDs, as AudioFile.h gives them (checked against the header by
    // AudioToolboxTests.PropertyIDTests).
    public static let readableTypes: UInt32 = 0x6166_7266       // 'afrf'
    public static let writableTypes: UInt32 = 0x6166_7766       // 'afwf'
    public static let fileTypeName: UInt32 = 0x6674_6E6D        // 'ftnm'
    public static let availableFormatIDs: UInt32 = 0x666D_6964  // 'fmid'
    public static let allExtensions: UInt32 = 0x616C_7874       // 'alxt'
    public static let allMIMETypes: UInt32 = 0x616D_696D        // 'amim'
    public static let extensionsForType: UInt32 = 0x6665_7874   // 'fext'
    public static let mimeTypesForType: UInt32 = 0x666D_696D    // 'fmim'

    struct Row {
        let id: UInt32
        let answer: (_ specifier: UnsafeRawBufferPointer?) throws(AudioFileStatus) -> Answer
    }

    static let rows: [Row] = [
        Row(id: readableTypes) { _ in .words(FileType.table.map(\.type)) },
        Row(id: writableTypes) { _ in .words(FileType.table.filter { !$0.writableFormats.isEmpty }.map(\.type)) },
        Row(id: availableFormatIDs) { specifier throws(AudioFileStatus) in
            .words(try entry(specifier).writableFormats)
        },
        Row(id: fileTypeName) { specifier throws(AudioFileStatus) in .text(try entry(specifier).name) },
        Row(id: extensionsForType) { specifier throws(AudioFileStatus) in .texts(try entry(specifier).extensions) },
        Row(id: mimeTypesForType) { specifier throws(AudioFileStatus) in .texts(try entry(specifier).mimeTypes) },
        Row(id: allExtensions) { _ in .texts(Array(Set(FileType.table.flatMap(\.extensions))).sorted()) },
        Row(id: allMIMETypes) { _ in .texts(Array(Set(FileType.table.flatMap(\.mimeTypes))).sorted()) },
    ]

    /// The type a specifier names: a four-byte AudioFileTypeID we know.
    private static func entry(_ specifier: UnsafeRawBufferPointer?) throws(AudioFileStatus) -> FileType.Entry {
        guard let specifier, specifier.count == 4 else { throw .badPropertySize }
        guard let entry = FileType.entry(specifier.loadUnaligned(as: UInt32.self)) else { throw .unsupportedFileType }
        return entry
    }

    /// What `id` answers for `specifier`. An ID we do not answer (HFS codes and UTIs are
    /// the Mac's; the types for an extension or MIME type are not provided) is
    /// kAudioFileUnsupportedPropertyError.
    public static func answer(_ id: UInt32, specifier: UnsafeRawBufferPointer?) throws(AudioFileStatus) -> Answer {
        guard let row = rows.first(where: { $0.id == id }) else { throw .unsupportedProperty }
        return try row.answer(specifier)
    }

    /// Every ID the table has a row for.
    public static var ids: Set<UInt32> { Set(rows.map(\.id)) }
}
