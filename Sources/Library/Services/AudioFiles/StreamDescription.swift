/// An AudioStreamBasicDescription as the file services see it: the same nine fields, in
/// Swift, so the services are tested without the C headers (the ABI layer copies them).
public struct StreamDescription: Equatable, Sendable {
    public var sampleRate: Double
    public var formatID: UInt32
    public var formatFlags: UInt32
    public var bytesPerPacket: UInt32
    public var framesPerPacket: UInt32
    public var bytesPerFrame: UInt32
    public var channelsPerFrame: UInt32
    public var bitsPerChannel: UInt32

    public init(sampleRate: Double, formatID: UInt32, formatFlags: UInt32, bytesPerPacket: UInt32,
                framesPerPacket: UInt32, bytesPerFrame: UInt32, channelsPerFrame: UInt32, bitsPerChannel: UInt32) {
        self.sampleRate = sampleRate
        self.formatID = formatID
        self.formatFlags = formatFlags
        self.bytesPerPacket = bytesPerPacket
        self.framesPerPacket = framesPerPacket
        self.bytesPerFrame = bytesPerFrame
        self.channelsPerFrame = channelsPerFrame
        self.bitsPerChannel = bitsPerChannel
    }

    /// Packed interleaved (or not) linear PCM: the description iPhone code writes by hand.
    public static func linearPCM(rate: Double, channels: UInt32, bits: UInt32, float: Bool = false,
                                 bigEndian: Bool = false, interleaved: Bool = true, signed: Bool = true) -> StreamDescription {
        var flags = Flags.packed
        if float { flags |= Flags.float } else if signed { flags |= Flags.signedInteger }
        if bigEndian { flags |= Flags.bigEndian }
        if !interleaved { flags |= Flags.nonInterleaved }
        let frame = interleaved ? bits / 8 * channels : bits / 8
        return StreamDescription(sampleRate: rate, formatID: FormatID.linearPCM, formatFlags: flags, bytesPerPacket: frame,
                                 framesPerPacket: 1, bytesPerFrame: frame, channelsPerFrame: channels, bitsPerChannel: bits)
    }

    public var isLinearPCM: Bool { formatID == FormatID.linearPCM }
    /// Every packet the same size and the same number of frames: no packet descriptions.
    public var isConstantBitRate: Bool { bytesPerPacket > 0 && framesPerPacket > 0 }
}

/// Format IDs (CoreAudioTypes.h).
public enum FormatID {
    public static let linearPCM: UInt32 = 0x6C70_636D        // 'lpcm'
    public static let appleIMA4: UInt32 = 0x696D_6134        // 'ima4'
    public static let mpeg4AAC: UInt32 = 0x6161_6320         // 'aac '
    public static let appleLossless: UInt32 = 0x616C_6163    // 'alac'
    public static let mpegLayer1: UInt32 = 0x2E6D_7031       // '.mp1'
    public static let mpegLayer2: UInt32 = 0x2E6D_7032       // '.mp2'
    public static let mpegLayer3: UInt32 = 0x2E6D_7033       // '.mp3'
    public static let uLaw: UInt32 = 0x756C_6177             // 'ulaw'
    public static let aLaw: UInt32 = 0x616C_6177             // 'alaw'
}

/// Format flag bits (CoreAudioTypes.h).
public enum Flags {
    public static let float: UInt32 = 1 << 0
    public static let bigEndian: UInt32 = 1 << 1
    public static let signedInteger: UInt32 = 1 << 2
    public static let packed: UInt32 = 1 << 3
    public static let alignedHigh: UInt32 = 1 << 4
    public static let nonInterleaved: UInt32 = 1 << 5
    public static let fractionShift: UInt32 = 7
    public static let fractionMask: UInt32 = 0x3F << 7
}

/// File type codes (AudioFile.h).
public enum FileType {
    public static let aiff: UInt32 = 0x4149_4646      // 'AIFF'
    public static let aifc: UInt32 = 0x4149_4643      // 'AIFC'
    public static let wave: UInt32 = 0x5741_5645      // 'WAVE'
    public static let next: UInt32 = 0x4E65_5854      // 'NeXT'
    public static let mp3: UInt32 = 0x4D50_4733       // 'MPG3'
    public static let mp2: UInt32 = 0x4D50_4732       // 'MPG2'
    public static let mp1: UInt32 = 0x4D50_4731       // 'MPG1'
    public static let adts: UInt32 = 0x6164_7473      // 'adts'
    public static let mpeg4: UInt32 = 0x6D70_3466     // 'mp4f'
    public static let m4a: UInt32 = 0x6D34_6166       // 'm4af'
    public static let caf: UInt32 = 0x6361_6666       // 'caff'

    /// What each type is called, its extensions, and whether we write it.
    public struct Entry: Sendable {
        public let type: UInt32
        public let name: String
        public let extensions: [String]
        public let mimeTypes: [String]
        public let writableFormats: [UInt32]
    }
    public static let table: [Entry] = [
        Entry(type: aiff, name: "AIFF", extensions: ["aiff", "aif"], mimeTypes: ["audio/aiff", "audio/x-aiff"],
              writableFormats: [FormatID.linearPCM]),
        Entry(type: aifc, name: "AIFC", extensions: ["aifc", "aiff", "aif"], mimeTypes: ["audio/aiff", "audio/x-aiff"],
              writableFormats: []),
        Entry(type: wave, name: "WAVE", extensions: ["wav", "wave"], mimeTypes: ["audio/wav", "audio/x-wav", "audio/vnd.wave"],
              writableFormats: [FormatID.linearPCM]),
        Entry(type: caf, name: "CAF", extensions: ["caf"], mimeTypes: ["audio/x-caf"],
              writableFormats: [FormatID.linearPCM] + cafFormats),
        Entry(type: m4a, name: "Apple MPEG-4 Audio", extensions: ["m4a", "m4r"], mimeTypes: ["audio/mp4", "audio/x-m4a"],
              writableFormats: [FormatID.mpeg4AAC]),
        Entry(type: mpeg4, name: "MPEG-4 Audio", extensions: ["mp4"], mimeTypes: ["audio/mp4"], writableFormats: []),
        Entry(type: adts, name: "AAC ADTS", extensions: ["aac", "adts"], mimeTypes: ["audio/aac", "audio/x-aac"],
              writableFormats: []),
        Entry(type: mp3, name: "MPEG Layer 3", extensions: ["mp3"], mimeTypes: ["audio/mpeg", "audio/mpeg3"],
              writableFormats: []),
        Entry(type: mp2, name: "MPEG Layer 2", extensions: ["mp2"], mimeTypes: ["audio/mpeg"], writableFormats: []),
        Entry(type: mp1, name: "MPEG Layer 1", extensions: ["mp1"], mimeTypes: ["audio/mpeg"], writableFormats: []),
        Entry(type: next, name: "NeXT/Sun", extensions: ["snd", "au"], mimeTypes: ["audio/basic"], writableFormats: []),
    ]
    public static func entry(_ type: UInt32) -> Entry? { table.first { $0.type == type } }
    /// The packets besides linear PCM that our CAF writer stores.
    public static let cafFormats: [UInt32] = [FormatID.mpeg4AAC, FormatID.appleLossless, FormatID.appleIMA4, FormatID.uLaw,
                                              FormatID.aLaw]
}

/// The result codes the file services return, with Apple's values (AudioFile.h,
/// AudioFileStream.h, ExtendedAudioFile.h, AudioConverter.h, AudioFormat.h).
public struct AudioFileStatus: Error, Equatable, Sendable {
    public let code: Int32
    public init(_ code: Int32) { self.code = code }
    init(fourCC: UInt32) { code = Int32(bitPattern: fourCC) }

    public static let unspecified = AudioFileStatus(fourCC: 0x7768_743F)            // 'wht?'
    public static let unsupportedFileType = AudioFileStatus(fourCC: 0x7479_703F)    // 'typ?'
    public static let unsupportedDataFormat = AudioFileStatus(fourCC: 0x666D_743F)  // 'fmt?'
    public static let unsupportedProperty = AudioFileStatus(fourCC: 0x7074_793F)    // 'pty?'
    public static let badPropertySize = AudioFileStatus(fourCC: 0x2173_697A)        // '!siz'
    public static let permissions = AudioFileStatus(fourCC: 0x7072_6D3F)            // 'prm?'
    public static let notOptimized = AudioFileStatus(fourCC: 0x6F70_746D)           // 'optm'
    public static let invalidChunk = AudioFileStatus(fourCC: 0x6368_6B3F)           // 'chk?'
    public static let invalidPacketOffset = AudioFileStatus(fourCC: 0x7063_6B3F)    // 'pck?'
    public static let invalidFile = AudioFileStatus(fourCC: 0x6474_613F)            // 'dta?'
    public static let operationNotSupported = AudioFileStatus(fourCC: 0x6F70_3F3F)  // 'op??'
    public static let notOpen = AudioFileStatus(-38)
    public static let endOfFile = AudioFileStatus(-39)
    public static let position = AudioFileStatus(-40)
    public static let fileNotFound = AudioFileStatus(-43)
    public static let parameter = AudioFileStatus(-50)                              // kAudio_ParamError
    public static let noMemory = AudioFileStatus(-108)                              // kAudio_MemFullError
    // Audio File Stream
    public static let streamValueUnknown = AudioFileStatus(fourCC: 0x756E_6B3F)     // 'unk?'
    public static let streamDataUnavailable = AudioFileStatus(fourCC: 0x6D6F_7265)  // 'more'
    public static let streamIllegalOperation = AudioFileStatus(fourCC: 0x6E6F_7065) // 'nope'
    public static let streamDiscontinuityCantRecover = AudioFileStatus(fourCC: 0x6473_6321) // 'dsc!'
    // Extended Audio File
    public static let extInvalidProperty = AudioFileStatus(-66561)
    public static let extInvalidPropertySize = AudioFileStatus(-66562)
    public static let extNonPCMClientFormat = AudioFileStatus(-66563)
    public static let extInvalidChannelMap = AudioFileStatus(-66564)
    public static let extInvalidOperationOrder = AudioFileStatus(-66565)
    public static let extInvalidDataFormat = AudioFileStatus(-66566)
    public static let extMaxPacketSizeUnknown = AudioFileStatus(-66567)
    public static let extInvalidSeek = AudioFileStatus(-66568)
    // Audio Converter
    public static let converterFormatNotSupported = AudioFileStatus(fourCC: 0x666D_743F)      // 'fmt?'
    public static let converterOperationNotSupported = AudioFileStatus(fourCC: 0x6F70_3F3F)   // 'op??'
    public static let converterPropertyNotSupported = AudioFileStatus(fourCC: 0x7072_6F70)    // 'prop'
    public static let converterInvalidInputSize = AudioFileStatus(fourCC: 0x696E_737A)        // 'insz'
    public static let converterInvalidOutputSize = AudioFileStatus(fourCC: 0x6F74_737A)       // 'otsz'
    public static let converterUnspecified = AudioFileStatus(fourCC: 0x7768_6174)             // 'what'
    public static let converterBadPropertySize = AudioFileStatus(fourCC: 0x2173_697A)         // '!siz'
    public static let converterRequiresPacketDescriptions = AudioFileStatus(fourCC: 0x2170_6B64) // '!pkd'
    public static let converterInputRateOutOfRange = AudioFileStatus(fourCC: 0x2169_7372)     // '!isr'
    public static let converterOutputRateOutOfRange = AudioFileStatus(fourCC: 0x216F_7372)    // '!osr'
    // Audio Format
    public static let formatUnspecified = AudioFileStatus(fourCC: 0x7768_6174)          // 'what'
    public static let formatUnsupportedProperty = AudioFileStatus(fourCC: 0x7072_6F70)  // 'prop'
    public static let formatBadPropertySize = AudioFileStatus(fourCC: 0x2173_697A)      // '!siz'
    public static let formatBadSpecifierSize = AudioFileStatus(fourCC: 0x2173_7063)     // '!spc'
    public static let formatUnsupportedDataFormat = AudioFileStatus(fourCC: 0x666D_743F) // 'fmt?'
    public static let formatUnknownFormat = AudioFileStatus(fourCC: 0x2166_6D74)        // '!fmt'
}

/// Runs a body whose errors come back untyped (through a standard library `rethrows`
/// closure) and gives them their type again.
@inline(__always)
public func statusOf<R>(_ body: () throws -> R) throws(AudioFileStatus) -> R {
    do { return try body() } catch let status as AudioFileStatus { throw status } catch { throw .unspecified }
}
