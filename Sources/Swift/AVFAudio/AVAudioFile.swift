internal import AudioFiles
internal import CAudioToolbox
public import Foundation

/// The AudioFile type a settings dictionary names (AVAudioFileTypeKey, an AudioFileTypeID).
public let AVAudioFileTypeKey = "AVAudioFileTypeKey"

/// A sound file read or written a PCM buffer at a time, as iOS's AVAudioFile: the file in
/// its own format (`fileFormat`), the buffers in the processing format (deinterleaved
/// Float32 at the file's rate and channel count unless the initializer names another
/// common format). Through the same file services as Extended Audio File in C, so the two
/// agree on a file's frames (no priming, no remainder) and its codes: errors are NSErrors
/// in NSOSStatusErrorDomain carrying the C API's code ('typ?', 'dta?', 'fmt?' ...).
open class AVAudioFile: NSObject, @unchecked Sendable {
    public let url: URL
    public let fileFormat: AVAudioFormat
    public let processingFormat: AVAudioFormat
    private var reader: ExtendedAudioFileReader?
    private var writer: ExtendedAudioFileWriter?
    private var closed = false
    private let lock = NSLock()

    public convenience init(forReading fileURL: URL) throws {
        try self.init(forReading: fileURL, commonFormat: .pcmFormatFloat32, interleaved: false)
    }

    public init(forReading fileURL: URL, commonFormat format: AVAudioCommonFormat, interleaved: Bool) throws {
        let made: ExtendedAudioFileReader
        do throws(AudioFileStatus) {
            let source = try DescriptorSource.open(path: fileURL.path)
            made = try ExtendedAudioFileReader(file: try AudioFileReader(source: source))
        } catch {
            throw AVAudioFile.error(error)
        }
        var stored = AudioStreamBasicDescription(made.file.format)
        guard let onDisk = AVAudioFormat(streamDescription: &stored),
              let processing = AVAudioFormat(commonFormat: format, sampleRate: stored.mSampleRate,
                                             channels: stored.mChannelsPerFrame, interleaved: interleaved)
        else { throw AVAudioFile.error(.unsupportedDataFormat) }
        do throws(AudioFileStatus) {
            try made.setClientFormat(StreamDescription(processing.streamDescription.pointee))
        } catch {
            throw AVAudioFile.error(error)
        }
        url = fileURL
        fileFormat = onDisk
        processingFormat = processing
        reader = made
        super.init()
    }

    public convenience init(forWriting fileURL: URL, settings: [String: Any]) throws {
        try self.init(forWriting: fileURL, settings: settings, commonFormat: .pcmFormatFloat32, interleaved: false)
    }

    /// Makes the file (emptied if it exists) in the format the settings describe (as
    /// AVAudioFormat(settings:) reads them; linear PCM always interleaved), of the type AVAudioFileTypeKey names or else
    /// the extension says (.wav, .aif/.aiff, .m4a/.mp4/.aac, anything else CAF).
    /// AVEncoderBitRateKey sets an AAC file's bit rate.
    public init(forWriting fileURL: URL, settings: [String: Any], commonFormat format: AVAudioCommonFormat,
                interleaved: Bool) throws {
        // Linear PCM files hold their samples interleaved, as iOS writes them whatever
        // the settings say (a format's own settings ask for deinterleaved Float32).
        var wanted = settings
        if (settings[AVLinearPCMIsNonInterleaved] as? Bool) == true { wanted[AVLinearPCMIsNonInterleaved] = false }
        guard let onDisk = AVAudioFormat(settings: wanted),
              let processing = AVAudioFormat(commonFormat: format, sampleRate: onDisk.sampleRate,
                                             channels: onDisk.channelCount, interleaved: interleaved)
        else { throw AVAudioFile.error(.unsupportedDataFormat) }
        let type = (settings[AVAudioFileTypeKey] as? NSNumber)?.uint32Value ?? (settings[AVAudioFileTypeKey] as? UInt32)
            ?? AVAudioFile.fileType(of: fileURL)
        do throws(AudioFileStatus) {
            let file = try AudioFileWriter(path: fileURL.path, fileType: type,
                                           format: StreamDescription(onDisk.streamDescription.pointee), erase: true)
            let made = try ExtendedAudioFileWriter(file: file)
            if let rate = (settings[AVEncoderBitRateKey] as? NSNumber)?.int64Value ?? (settings[AVEncoderBitRateKey] as? Int)
                .map(Int64.init), onDisk.streamDescription.pointee.mFormatID == FormatID.mpeg4AAC {
                try made.setEncodeBitRate(rate)
            }
            try made.setClientFormat(StreamDescription(processing.streamDescription.pointee))
            writer = made
        } catch {
            throw AVAudioFile.error(error)
        }
        url = fileURL
        fileFormat = onDisk
        processingFormat = processing
        super.init()
    }

    deinit { try? writer?.close() }

    /// The frames in the file: a reader's on its trimmed timeline, a writer's written so far.
    open var length: AVAudioFramePosition {
        lock.withLock { reader?.fileLengthFrames ?? writer?.framesWritten ?? 0 }
    }

    /// Where the next read starts (setting it seeks, held to 0...length), or the frames
    /// written so far.
    open var framePosition: AVAudioFramePosition {
        get { lock.withLock { reader?.tell() ?? writer?.framesWritten ?? 0 } }
        set {
            lock.withLock {
                guard let reader else { return }
                try? reader.seek(to: min(max(0, newValue), reader.fileLengthFrames))
            }
        }
    }

    /// Fills the buffer to its capacity from `framePosition`; fewer frames at the end of
    /// the file (none past it). The buffer must be in the processing format.
    open func read(into buffer: AVAudioPCMBuffer) throws {
        try read(into: buffer, frameCount: buffer.frameCapacity)
    }

    /// Reads at most `frames` frames (no more than the buffer holds); `frameLength` says
    /// how many came.
    open func read(into buffer: AVAudioPCMBuffer, frameCount frames: AVAudioFrameCount) throws {
        guard buffer.format.isEqual(processingFormat) else { throw AVAudioFile.error(.parameter) }
        try lock.withLock {
            guard let reader else { throw AVAudioFile.error(closed ? .fileNotFound : .operationNotSupported) }
            let count = Int(min(frames, buffer.frameCapacity))
            let buffers = (0..<buffer.bufferCount).map { buffer.data($0) }
            do throws(AudioFileStatus) {
                buffer.frameLength = AVAudioFrameCount(try reader.read(count: count, into: buffers))
            } catch {
                buffer.frameLength = 0
                throw AVAudioFile.error(error)
            }
        }
    }

    /// Writes the buffer's `frameLength` frames after those written before. The buffer must
    /// be in the processing format.
    open func write(from buffer: AVAudioPCMBuffer) throws {
        guard buffer.format.isEqual(processingFormat) else { throw AVAudioFile.error(.parameter) }
        try lock.withLock {
            guard let writer else { throw AVAudioFile.error(closed ? .fileNotFound : .operationNotSupported) }
            let buffers = (0..<buffer.bufferCount).map { UnsafeRawPointer(buffer.data($0)) }
            do throws(AudioFileStatus) {
                try writer.write(count: Int(buffer.frameLength), from: buffers)
            } catch {
                throw AVAudioFile.error(error)
            }
        }
    }

    /// Whether reads or writes may still be made (iOS 18's): false after `close`.
    open var isOpen: Bool { lock.withLock { reader != nil || writer != nil } }

    /// Finishes a written file now (its header and sizes) rather than when the object goes
    /// (iOS 18's); later reads and writes fail with kAudio_FileNotFoundError's code.
    open func close() {
        lock.withLock {
            try? writer?.close()
            writer = nil
            reader = nil
            closed = true
        }
    }

    static func error(_ status: AudioFileStatus) -> NSError { AVAudioSession.error(status.code) }

    /// The container a file name asks for.
    static func fileType(of url: URL) -> UInt32 {
        switch url.pathExtension.lowercased() {
        case "wav", "wave": return FileType.wave
        case "aif", "aiff": return FileType.aiff
        case "m4a", "mp4", "aac": return FileType.m4a
        default: return FileType.caf
        }
    }
}
