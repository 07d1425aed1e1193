/// Extended Audio File reading: a file's audio in the program's client format (any
/// linear PCM, at any rate and channel count), on the trimmed timeline, with seek and tell.
/// Writing goes through `ExtendedAudioFileWriter`.
public final class ExtendedAudioFileReader {
    public let file: AudioFileReader
    private let frames: FileFrameReader
    public private(set) var clientFormat: StreamDescription
    private var client: LinearPCM
    private var pipeline: FloatPipeline?
    private var converted: [Float] = []
    /// Where the last seek went (file frames) and the client frames delivered since.
    private var seekBase: Int64 = 0
    private var delivered: Int64 = 0
    public var channelMap: [Int]? { didSet { try? rebuildPipeline() } }

    public init(file: AudioFileReader) throws(AudioFileStatus) {
        self.file = file
        frames = try FileFrameReader(file)
        // Until the program sets one, the client format is the file's decoded as Float32
        // for compressed data, the file's own for PCM.
        let f = file.format
        clientFormat = f.isLinearPCM ? f : .linearPCM(rate: f.sampleRate, channels: f.channelsPerFrame, bits: 32, float: true)
        client = try LinearPCM(clientFormat)
    }

    /// kExtAudioFileProperty_ClientDataFormat: must be linear PCM.
    public func setClientFormat(_ format: StreamDescription) throws(AudioFileStatus) {
        guard format.isLinearPCM else { throw .extNonPCMClientFormat }
        let layout: LinearPCM
        do { layout = try LinearPCM(format) } catch { throw .extInvalidDataFormat }
        let position = tell()
        clientFormat = format
        client = layout
        try rebuildPipeline()
        try seek(to: position)
    }

    private func rebuildPipeline() throws(AudioFileStatus) {
        let f = file.format
        if f.sampleRate == client.sampleRate && Int(f.channelsPerFrame) == client.channels && channelMap == nil {
            pipeline = nil
        } else {
            let p = try FloatPipeline(sourceRate: f.sampleRate, sourceChannels: Int(f.channelsPerFrame),
                                      destinationRate: client.sampleRate, destinationChannels: client.channels)
            p.channelMap = channelMap
            pipeline = p
        }
    }

    /// Length in frames of the file's rate (kExtAudioFileProperty_FileLengthFrames).
    public var fileLengthFrames: Int64 { frames.length }

    private var ratio: Double { client.sampleRate / file.format.sampleRate }

    /// The read position, in frames of the file's rate (as ExtAudioFileTell reports it).
    public func tell() -> Int64 { seekBase + Int64((Double(delivered) / ratio).rounded()) }

    /// Seeks to a frame of the file's rate (as ExtAudioFileSeek takes it).
    public func seek(to frame: Int64) throws(AudioFileStatus) {
        guard frame >= 0, frame <= frames.length else { throw .extInvalidSeek }
        do { try frames.seek(to: frame) } catch { throw .extInvalidSeek }
        pipeline?.reset()
        seekBase = frame
        delivered = 0
    }

    /// A PCM file read in its own layout is copied, not converted: exact for every PCM
    /// (32-bit integers do not fit a Float32 exactly).
    private var copiesBytes: Bool {
        file.format.isLinearPCM && clientFormat == file.format && channelMap == nil && client.bufferCount == 1
    }

    /// Reads up to `count` client frames into the program's buffers; 0 at the end.
    public func read(count: Int, into buffers: [UnsafeMutableRawPointer]) throws(AudioFileStatus) -> Int {
        guard buffers.count == client.bufferCount else { throw .parameter }
        if copiesBytes {
            let frameBytes = Int64(file.format.bytesPerFrame)
            let at = seekBase + delivered
            let n = Int(max(0, min(Int64(count), fileLengthFrames - at)))
            let got = n == 0 ? 0 : try file.readBytes(at: at * frameBytes, count: n * Int(frameBytes), into: buffers[0])
            let made = got / Int(frameBytes)
            delivered += Int64(made)
            return made
        }
        var made = 0
        var failure: AudioFileStatus?
        while made < count {
            let want = min(count - made, 4096)
            if converted.count < want * client.channels { converted = [Float](repeating: 0, count: want * client.channels) }
            let got: Int
            if let pipeline {
                got = converted.withUnsafeMutableBufferPointer { out in
                    pipeline.read(into: out.baseAddress!, frames: want) { buffer, n in
                        do { return try frames.read(into: buffer, frames: n) } catch let e as AudioFileStatus { failure = e; return 0 } catch { return 0 }
                    }
                }
            } else {
                got = try statusOf { try converted.withUnsafeMutableBufferPointer { out in try frames.read(into: out.baseAddress!, frames: want) } }
            }
            if let failure { throw failure }
            if got == 0 { break }
            converted.withUnsafeBufferPointer { client.encode($0.baseAddress!, frames: got, into: buffers, at: made) }
            made += got
        }
        delivered += Int64(made)
        return made
    }
}

extension ExtendedAudioFileReader {
    /// A file's audio read whole as interleaved Float32 at its own rate and channel count:
    /// its valid frames only (the priming and remainder its packet table states are
    /// trimmed, as ExtAudioFile and AudioFile count them). `accepts` sees the rate and the
    /// channels first; a refusal is `unsupportedDataFormat`, and more than `maximumFrames`
    /// is `tooLong` (nothing decoded in either case).
    public static func decodeWhole(_ file: AudioFileReader, maximumFrames: Int64,
                                   accepts: (Double, Int) -> Bool) throws(WholeFileError) -> WholeFileDecoder.Sound {
        let f = file.format
        let channels = Int(f.channelsPerFrame)
        guard accepts(f.sampleRate, channels) else { throw .unusableFormat }
        let frames = file.packetTable?.validFrames ?? file.totalFrames
        guard frames <= maximumFrames else { throw .tooLong(Double(frames) / f.sampleRate) }
        do throws(AudioFileStatus) {
            let reader = try ExtendedAudioFileReader(file: file)
            try reader.setClientFormat(.linearPCM(rate: f.sampleRate, channels: f.channelsPerFrame, bits: 32, float: true))
            var samples = [Float](repeating: 0, count: Int(frames) * channels)
            var made = 0
            while made < Int(frames) {
                let got = try samples.withUnsafeMutableBufferPointer { (b) throws(AudioFileStatus) -> Int in
                    try reader.read(count: Int(frames) - made, into: [UnsafeMutableRawPointer(b.baseAddress! + made * channels)])
                }
                if got == 0 { break }
                made += got
            }
            samples.removeLast(samples.count - made * channels)
            if samples.isEmpty && frames > 0 { throw AudioFileStatus.invalidFile }
            return WholeFileDecoder.Sound(sampleRate: Int(f.sampleRate), channels: channels, samples: samples)
        } catch {
            throw .file(error)
        }
    }
}

/// Why a file could not be read whole (`ExtendedAudioFileReader.decodeWhole`).
public enum WholeFileError: Error, Equatable {
    case unusableFormat
    case tooLong(Double)
    case file(AudioFileStatus)
}
