import Resampling

/// Audio Converter Services' properties as data: for each ID, how its value reads (in
/// bytes, as the C API passes them), whether and how a value is taken, and when it is
/// writable. The ABI's four property calls go through this table and add only C buffers.
public enum ConverterProperties {
    struct Row {
        let id: UInt32
        let get: (Converter) throws(AudioFileStatus) -> [UInt8]
        /// nil: read-only.
        let set: ((Converter, UnsafeRawBufferPointer) throws(AudioFileStatus) -> Void)?
        /// Writable only on a converter that encodes (the encoder's properties).
        var encoderOnly = false
    }

    // The IDs, as AudioConverter.h and AudioCodec.h give them.
    static let minimumInputBufferSize: UInt32 = 0x6D69_6273        // 'mibs'
    static let minimumOutputBufferSize: UInt32 = 0x6D6F_6273       // 'mobs'
    static let maximumInputPacketSize: UInt32 = 0x7869_7073        // 'xips'
    static let maximumOutputPacketSize: UInt32 = 0x786F_7073       // 'xops'
    static let complexity: UInt32 = 0x7372_6361                    // 'srca'
    static let quality: UInt32 = 0x7372_6371                       // 'srcq'
    static let codecQuality: UInt32 = 0x6364_7175                  // 'cdqu'
    static let primeMethod: UInt32 = 0x7072_6D6D                   // 'prmm'
    static let primeInfo: UInt32 = 0x7072_696D                     // 'prim'
    static let channelMap: UInt32 = 0x6368_6D70                    // 'chmp'
    static let decompressionCookie: UInt32 = 0x646D_6763           // 'dmgc'
    static let compressionCookie: UInt32 = 0x636D_6763             // 'cmgc'
    static let encodeBitRate: UInt32 = 0x6272_6174                 // 'brat'
    static let inputLayout: UInt32 = 0x6963_6C20                   // 'icl '
    static let outputLayout: UInt32 = 0x6F63_6C20                  // 'ocl '
    static let applicableBitRates: UInt32 = 0x6165_6272            // 'aebr'
    static let availableBitRates: UInt32 = 0x7665_6272             // 'vebr'
    static let applicableSampleRates: UInt32 = 0x6165_7372         // 'aesr'
    static let availableSampleRates: UInt32 = 0x7665_7372          // 'vesr'
    static let currentOutput: UInt32 = 0x6163_6F64                 // 'acod'
    static let currentInput: UInt32 = 0x6163_6964                  // 'acid'
    static let canResume: UInt32 = 0x6372_6669                     // 'crfi' (iPhone code only)
    static let bitRateControlMode: UInt32 = 0x6163_6266            // 'acbf'
    static let soundQualityForVBR: UInt32 = 0x7662_7271            // 'vbrq'

    static let qualityHigh: UInt32 = 0x60, qualityMedium: UInt32 = 0x40

    static let rows: [Row] = [
        Row(id: currentInput, get: { $0.source.cBytes }, set: nil),
        Row(id: currentOutput, get: { $0.destination.cBytes }, set: nil),
        Row(id: inputLayout, get: { $0.channelLayout(input: true) }, set: { c, bytes throws(AudioFileStatus) in try c.setChannelLayout(bytes, input: true) }),
        Row(id: outputLayout, get: { $0.channelLayout(input: false) }, set: { c, bytes throws(AudioFileStatus) in try c.setChannelLayout(bytes, input: false) }),
        Row(id: minimumInputBufferSize, get: inputPacketBytes, set: nil),
        Row(id: maximumInputPacketSize, get: inputPacketBytes, set: nil),
        Row(id: minimumOutputBufferSize, get: { word(UInt32($0.maximumOutputPacketSize)) }, set: nil),
        Row(id: maximumOutputPacketSize, get: { word(UInt32($0.maximumOutputPacketSize)) }, set: nil),
        Row(id: compressionCookie, get: cookie, set: nil),
        Row(id: decompressionCookie, get: cookie, set: { c, bytes throws(AudioFileStatus) in
            guard bytes.count > 0, bytes.count <= 1 << 20 else { throw .converterBadPropertySize }
            try c.setDecompressionCookie(Array(bytes))
        }),
        Row(id: primeInfo, get: { word(UInt32($0.priming)) + word(0) }, set: nil),
        Row(id: primeMethod, get: { _ in word(1) }, set: { _, bytes throws(AudioFileStatus) in _ = try wordValue(bytes) }),
        Row(id: quality, get: { _ in word(qualityHigh) }, set: { c, bytes throws(AudioFileStatus) in
            let q = try wordValue(bytes)
            c.quality = q >= qualityHigh ? .best : q >= qualityMedium ? .medium : .fastest
        }),
        Row(id: complexity, get: { word($0.quality.complexity) }, set: { c, bytes throws(AudioFileStatus) in
            guard let quality = Resampler.Quality(complexity: try wordValue(bytes)) else { throw .parameter }
            c.quality = quality
        }),
        Row(id: codecQuality, get: { _ in word(qualityHigh) }, set: { _, bytes throws(AudioFileStatus) in _ = try wordValue(bytes) }),
        Row(id: encodeBitRate, get: encoder { word(UInt32(clamping: $0.bitRate)) },
            set: { c, bytes throws(AudioFileStatus) in try c.setEncodeBitRate(Int64(try wordValue(bytes))) }, encoderOnly: true),
        Row(id: bitRateControlMode, get: encoder { word($0.bitRateControlMode) },
            set: { c, bytes throws(AudioFileStatus) in try c.setBitRateControlMode(try wordValue(bytes)) }, encoderOnly: true),
        Row(id: soundQualityForVBR, get: encoder { word($0.qualityForVBR) },
            set: { c, bytes throws(AudioFileStatus) in try c.setQualityForVBR(try wordValue(bytes)) }, encoderOnly: true),
        Row(id: applicableBitRates, get: encoder(bitRateRanges), set: nil),
        Row(id: availableBitRates, get: encoder(bitRateRanges), set: nil),
        Row(id: applicableSampleRates, get: encoder(sampleRateRanges), set: nil),
        Row(id: availableSampleRates, get: encoder(sampleRateRanges), set: nil),
        Row(id: channelMap, get: { c in
            let map = c.channelMap ?? (0..<Int(c.destination.channelsPerFrame)).map { $0 < Int(c.source.channelsPerFrame) ? $0 : -1 }
            return map.flatMap { word(UInt32(bitPattern: Int32($0))) }
        }, set: { c, bytes throws(AudioFileStatus) in
            let count = Int(c.destination.channelsPerFrame)
            guard bytes.count == count * 4 else { throw .converterBadPropertySize }
            let map = (0..<count).map { Int(bytes.loadUnaligned(fromByteOffset: $0 * 4, as: Int32.self)) }
            guard map.allSatisfy({ $0 >= -1 && $0 < Int(c.source.channelsPerFrame) }) else { throw .parameter }
            c.channelMap = map
        }),
        Row(id: canResume, get: { _ in word(1) }, set: nil),
    ]

    static func row(_ id: UInt32) throws(AudioFileStatus) -> Row {
        guard let row = rows.first(where: { $0.id == id }) else { throw .converterPropertyNotSupported }
        return row
    }

    /// The value of property `id`, as the C API's bytes.
    public static func value(_ c: Converter, _ id: UInt32) throws(AudioFileStatus) -> [UInt8] {
        try row(id).get(c)
    }

    /// Whether property `id` can be set on `c` now.
    public static func isWritable(_ c: Converter, _ id: UInt32) -> Bool {
        guard let row = try? row(id), row.set != nil else { return false }
        return !row.encoderOnly || c.encodes
    }

    /// Takes a value of property `id`; read-only ones are not supported, as the phone says.
    public static func set(_ c: Converter, _ id: UInt32, _ bytes: UnsafeRawBufferPointer) throws(AudioFileStatus) {
        guard let set = try row(id).set else { throw .converterPropertyNotSupported }
        try set(c, bytes)
    }

    // MARK: values as bytes

    static func word(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }

    static func wordValue(_ bytes: UnsafeRawBufferPointer) throws(AudioFileStatus) -> UInt32 {
        guard bytes.count == 4 else { throw .converterBadPropertySize }
        return bytes.loadUnaligned(as: UInt32.self)
    }

    /// AudioValueRange pairs of Float64.
    static func ranges(_ values: [Double]) -> [UInt8] {
        values.flatMap { v in withUnsafeBytes(of: v) { Array($0) } + withUnsafeBytes(of: v) { Array($0) } }
    }

    static func inputPacketBytes(_ c: Converter) -> [UInt8] {
        word(c.source.bytesPerPacket > 0 ? c.source.bytesPerPacket : 6144 * c.source.channelsPerFrame / 8 + 64)
    }

    static func cookie(_ c: Converter) throws(AudioFileStatus) -> [UInt8] {
        guard !c.magicCookie.isEmpty else { throw .converterPropertyNotSupported }
        return c.magicCookie
    }

    static func bitRateRanges(_ c: Converter) -> [UInt8] {
        ranges(AACEncoding.bitRates(channels: Int(c.destination.channelsPerFrame)).map(Double.init))
    }

    static func sampleRateRanges(_ c: Converter) -> [UInt8] { ranges(AACEncoding.sampleRates) }

    /// A getter for the encoder's properties: a converter that does not encode has none.
    static func encoder(_ get: @escaping (Converter) -> [UInt8]) -> (Converter) throws(AudioFileStatus) -> [UInt8] {
        { c throws(AudioFileStatus) in
            guard c.encodes else { throw .converterPropertyNotSupported }
            return get(c)
        }
    }
}
