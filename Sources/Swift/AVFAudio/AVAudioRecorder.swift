internal import AudioFiles
internal import AudioQueues
internal import AudioSessionCore
internal import CAudioToolbox
public import Foundation
internal import Runtime

/// What a recorder tells its delegate, on the main thread.
public protocol AVAudioRecorderDelegate: AnyObject {
    func audioRecorderDidFinishRecording(_ recorder: AVAudioRecorder, successfully flag: Bool)
    func audioRecorderEncodeErrorDidOccur(_ recorder: AVAudioRecorder, error: Error?)
}

extension AVAudioRecorderDelegate {
    public func audioRecorderDidFinishRecording(_ recorder: AVAudioRecorder, successfully flag: Bool) {}
    public func audioRecorderEncodeErrorDidOccur(_ recorder: AVAudioRecorder, error: Error?) {}
}

/// Records the session's input into a file, as iOS's AVAudioRecorder does: an input
/// audio queue of the session's own (so only a recording category may record, and an
/// interruption stops it), written through the file API's writers: linear PCM in CAF,
/// WAV or AIFF, AAC in M4A or CAF.
open class AVAudioRecorder: NSObject, @unchecked Sendable {
    public let url: URL
    public let settings: [String: Any]
    public weak var delegate: AVAudioRecorderDelegate?

    private let fileType: UInt32
    private let fileFormat: StreamDescription

    /// The format the file is written in.
    open var format: AVAudioFormat {
        var description = AudioStreamBasicDescription(fileFormat)
        return AVAudioFormat(streamDescription: &description)!
    }
    private let bitRate: Int64
    private let lock = NSLock()
    private var queue: AudioQueue?
    private var writer: ExtendedAudioFileWriter?
    private var recording = false
    private var framesWritten: Int64 = 0
    /// Frames after which `record(forDuration:)` ends; nil: until stop.
    private var frameLimit: Int64?
    private var meteringEnabled = false
    private var lastLevels: [(average: Float, peak: Float)] = []
    private var meters: [(average: Float, peak: Float)] = []

    /// Checks the settings and the file type the URL's extension names; the file itself
    /// is made by `prepareToRecord` (or `record`). A format or container the writers do
    /// not write throws the file API's code.
    public init(url: URL, settings: [String: Any]) throws {
        self.url = url
        self.settings = settings
        let type = AVAudioFile.fileType(of: url)
        let formatID = (settings[AVFormatIDKey] as? NSNumber)?.uint32Value
            ?? (settings[AVFormatIDKey] as? Int).map { UInt32($0) } ?? FormatID.linearPCM
        let rate = AVAudioRecorder.number(settings[AVSampleRateKey])?.doubleValue ?? 44_100
        let channels = AVAudioRecorder.number(settings[AVNumberOfChannelsKey])?.uint32Value ?? 1
        guard rate >= 8_000, rate <= 192_000, (1...2).contains(channels) else {
            throw AVAudioSession.error(AudioFileStatus.unsupportedDataFormat.code)
        }
        switch formatID {
        case FormatID.linearPCM:
            let bits = AVAudioRecorder.number(settings[AVLinearPCMBitDepthKey])?.uint32Value ?? 16
            let float = AVAudioRecorder.number(settings[AVLinearPCMIsFloatKey])?.boolValue ?? false
            guard float ? (bits == 32 || bits == 64) : [8, 16, 24, 32].contains(bits) else {
                throw AVAudioSession.error(AudioFileStatus.unsupportedDataFormat.code)
            }
            // The container decides the byte order (AIFF is big-endian, WAV little); CAF
            // takes the settings'.
            let bigEndian = type == FileType.aiff
                || (type == FileType.caf && (AVAudioRecorder.number(settings[AVLinearPCMIsBigEndianKey])?.boolValue ?? false))
            fileFormat = .linearPCM(rate: rate, channels: channels, bits: bits, float: float,
                                    bigEndian: bigEndian && bits > 8, signed: !(type == FileType.wave && bits == 8))
        case FormatID.mpeg4AAC, FormatID.appleLossless, FormatID.appleIMA4:
            // Apple Lossless from a 16-bit source unless the bit depth hint asks for 24
            // (flags 1 and 3 say which). The container must hold the format, as the file
            // writer judges it: M4A holds AAC and Apple Lossless, CAF all three.
            let depth = AVAudioRecorder.number(settings[AVEncoderBitDepthHintKey])?.intValue ?? 16
            let lossless = formatID == FormatID.appleLossless
            fileFormat = StreamDescription(coded: formatID, sampleRate: rate, channels: channels,
                                           flags: lossless ? (depth == 24 ? 3 : 1) : 0)
            guard !lossless || depth == 16 || depth == 24, AudioFileWriter.container(type: type, format: fileFormat) != nil else {
                throw AVAudioSession.error(AudioFileStatus.unsupportedDataFormat.code)
            }
        default:
            throw AVAudioSession.error(AudioFileStatus.unsupportedDataFormat.code)
        }
        fileType = type
        bitRate = AVAudioRecorder.number(settings[AVEncoderBitRateKey])?.int64Value ?? 0
        super.init()
    }

    deinit {
        if let queue { try? queue.dispose(immediately: true) }
        try? writer?.close()
    }

    private static func number(_ value: Any?) -> NSNumber? {
        if let number = value as? NSNumber { return number }
        if let value = value as? Int { return NSNumber(value: value) }
        if let value = value as? Double { return NSNumber(value: value) }
        if let value = value as? Float { return NSNumber(value: value) }
        if let value = value as? UInt32 { return NSNumber(value: value) }
        if let value = value as? Bool { return NSNumber(value: value) }
        return nil
    }

    // MARK: recording

    /// Makes the file (emptied if it exists) and the input queue.
    @discardableResult
    open func prepareToRecord() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return prepare()
    }

    /// Called with `lock` held.
    private func prepare() -> Bool {
        if queue != nil && writer != nil { return true }
        do throws(AudioFileStatus) {
            let file = try AudioFileWriter(path: url.path, fileType: fileType, format: fileFormat, erase: true)
            let made = try ExtendedAudioFileWriter(file: file)
            if bitRate > 0 && fileFormat.formatID == FormatID.mpeg4AAC { try made.setEncodeBitRate(bitRate) }
            writer = made
        } catch {
            return false
        }
        let client = StreamDescription.linearPCM(rate: fileFormat.sampleRate, channels: fileFormat.channelsPerFrame,
                                                 bits: 32, float: true)
        do throws(AudioFileStatus) {
            try writer?.setClientFormat(client)
        } catch {
            return false
        }
        let made = SessionQueue.make(.input, client) { [weak self] event in
            if case .input(let buffer, _, _, _, _) = event { self?.received(buffer) }
        }
        guard let made else { return false }
        let bytes = Int(fileFormat.sampleRate / 10) * Int(fileFormat.channelsPerFrame) * 4
        for _ in 0..<3 {
            guard let buffer = try? made.allocateBuffer(capacity: bytes, descriptions: 0),
                  (try? made.enqueue(buffer, descriptions: nil, descriptionCount: 0)) != nil else { return false }
        }
        queue = made
        return true
    }

    /// Starts (or resumes) recording. False outside a recording category (the session
    /// refuses the queue with kAudioSessionIncompatibleCategory, as the C API does) or if
    /// the file cannot be made.
    @discardableResult
    open func record() -> Bool {
        lock.lock()
        guard prepare(), let queue else { lock.unlock(); return false }
        if recording { lock.unlock(); return true }
        lock.unlock()
        guard SessionQueue.sessionAllowsStart(queue), (try? queue.start()) != nil else { return false }
        lock.lock()
        recording = true
        lock.unlock()
        return true
    }

    @discardableResult
    open func record(forDuration duration: TimeInterval) -> Bool {
        lock.lock()
        frameLimit = framesWritten + Int64(max(0, duration) * fileFormat.sampleRate)
        lock.unlock()
        return record()
    }

    @discardableResult
    open func record(atTime time: TimeInterval) -> Bool {
        let wait = time - deviceCurrentTime
        guard wait > 0 else { return record() }
        guard prepareToRecord() else { return false }
        DispatchQueue.main.asyncAfter(deadline: .now() + wait) { [weak self] in _ = self?.record() }
        return true
    }

    open func pause() {
        lock.lock()
        let queue = self.queue
        recording = false
        lock.unlock()
        try? queue?.pause()
    }

    /// Ends the recording: the file is closed, and the delegate told on the main thread.
    open func stop() {
        finish(successfully: true, tell: true)
    }

    private func finish(successfully: Bool, tell: Bool) {
        lock.lock()
        let queue = self.queue
        let writer = self.writer
        let was = self.writer != nil
        self.queue = nil
        self.writer = nil
        recording = false
        frameLimit = nil
        lock.unlock()
        try? queue?.dispose(immediately: true)
        var closed = true
        // The writer's own close: the encoder's last frames, then the file.
        do throws(AudioFileStatus) { try writer?.close() } catch { closed = false }
        guard tell, was else { return }
        DispatchQueue.main.async { [weak self] in
            guard let self else { return }
            self.delegate?.audioRecorderDidFinishRecording(self, successfully: successfully && closed)
        }
    }

    open var isRecording: Bool {
        lock.lock()
        defer { lock.unlock() }
        return recording && (queue?.isRunning ?? false)
    }

    /// Seconds recorded into the file so far (0 once stopped, as on iOS).
    open var currentTime: TimeInterval {
        lock.lock()
        defer { lock.unlock() }
        return writer == nil ? 0 : Double(framesWritten) / fileFormat.sampleRate
    }

    open var deviceCurrentTime: TimeInterval { SessionQueue.deviceTime }

    /// Removes the file; only while not recording.
    @discardableResult
    open func deleteRecording() -> Bool {
        lock.lock()
        let busy = recording
        lock.unlock()
        guard !busy else { return false }
        finish(successfully: true, tell: false)
        return unlink(url.path) == 0
    }

    // MARK: metering

    open var isMeteringEnabled: Bool {
        get { lock.lock(); defer { lock.unlock() }; return meteringEnabled }
        set { lock.lock(); meteringEnabled = newValue; lock.unlock() }
    }

    open func updateMeters() {
        lock.lock()
        meters = lastLevels
        lock.unlock()
    }

    open func averagePower(forChannel channel: Int) -> Float { power(channel) { $0.average } }
    open func peakPower(forChannel channel: Int) -> Float { power(channel) { $0.peak } }

    private func power(_ channel: Int, _ pick: ((average: Float, peak: Float)) -> Float) -> Float {
        lock.lock()
        defer { lock.unlock() }
        guard channel >= 0, channel < meters.count else { return -160 }
        return SessionQueue.decibels(pick(meters[channel]))
    }

    // MARK: the queue's buffers

    /// A recorded buffer (on the queue's thread): written to the file, measured, and
    /// handed back; the end of `record(forDuration:)` is reached here.
    private func received(_ buffer: QueueBuffer) {
        lock.lock()
        guard let queue, let writer else { lock.unlock(); return }
        guard recording else {
            // Paused: what was still under way is dropped, and the buffer goes back for
            // the recording to come.
            lock.unlock()
            try? queue.enqueue(buffer, descriptions: nil, descriptionCount: 0)
            return
        }
        let header = buffer.pointer.assumingMemoryBound(to: AudioQueueBuffer.self)
        let channels = Int(fileFormat.channelsPerFrame)
        var frames = Int(header.pointee.mAudioDataByteSize) / (4 * channels)
        if let frameLimit { frames = Int(min(Int64(frames), max(0, frameLimit - framesWritten))) }
        var failed = false
        if frames > 0 {
            do throws(AudioFileStatus) {
                try writer.write(count: frames, from: [UnsafeRawPointer(header.pointee.mAudioData)])
                framesWritten += Int64(frames)
            } catch {
                failed = true
            }
            if meteringEnabled { lastLevels = AVAudioRecorder.levels(header.pointee.mAudioData, frames, channels) }
        }
        let reachedLimit = frameLimit.map { framesWritten >= $0 } ?? false
        lock.unlock()
        if failed {
            DispatchQueue.main.async { [weak self] in
                guard let self else { return }
                self.delegate?.audioRecorderEncodeErrorDidOccur(self, error: AVAudioSession.error(AudioFileStatus.unspecified.code))
            }
        }
        if reachedLimit || failed {
            finish(successfully: !failed, tell: true)
            return
        }
        try? queue.enqueue(buffer, descriptions: nil, descriptionCount: 0)
    }

    private static func levels(_ data: UnsafeMutableRawPointer, _ frames: Int, _ channels: Int) -> [(average: Float, peak: Float)] {
        let samples = data.assumingMemoryBound(to: Float.self)
        return (0..<channels).map { channel in
            var sum: Float = 0
            var peak: Float = 0
            for frame in 0..<frames {
                let value = abs(samples[frame * channels + channel])
                sum += value * value
                peak = max(peak, value)
            }
            return ((sum / Float(max(frames, 1))).squareRoot(), peak)
        }
    }
}
