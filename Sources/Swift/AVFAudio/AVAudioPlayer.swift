internal import AudioFiles
internal import AudioQueues
internal import AudioSessionCore
internal import CAudioToolbox
public import Foundation
internal import Glibc
internal import Resampling
internal import Synchronization
internal import Runtime

/// What a player tells its delegate, on the main thread.
public protocol AVAudioPlayerDelegate: AnyObject {
    func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool)
    func audioPlayerDecodeErrorDidOccur(_ player: AVAudioPlayer, error: Error?)
}

extension AVAudioPlayerDelegate {
    public func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool) {}
    public func audioPlayerDecodeErrorDidOccur(_ player: AVAudioPlayer, error: Error?) {}
}

/// Plays a sound file or sound data, as iOS's AVAudioPlayer does: decoded once when it is
/// made (any format the file API or FFmpeg reads), then heard as a voice of the players'
/// mix (PlayerMixer: one stream for all the program's players), or, for a player whose
/// rate changes, through an audio queue with a time-stretch of its own. Either way the
/// session governs it as it governs a C program's unit or queue (play activates the
/// session; an interruption stops it before the notification).
open class AVAudioPlayer: NSObject, @unchecked Sendable {
    public let url: URL?
    public let data: Data?
    public weak var delegate: AVAudioPlayerDelegate?

    private let sound: WholeFileDecoder.Sound
    private let lock = NSLock()
    /// Guarded by `lock`: where the next buffer reads from, loops left, and the queue.
    private var position = 0
    private var loopsLeft = 0
    private var queue: AudioQueue?
    /// The player's voice in the players' mix, when it plays there (made at the first
    /// prepareToPlay or play; a player with `enableRate` has a queue instead).
    private var voice: MixVoice?
    private var buffers: [QueueBuffer] = []
    private var playing = false
    /// Buffers handed to the queue and not yet given back: the end is heard when the
    /// last one returns with nothing left to read.
    private var inFlight = 0
    /// The last buffer came back and the queue was told to stop once all has played.
    private var finishing = false
    private var settingsVolume: Float = 1
    private var settingsPan: Float = 0
    private var meteringEnabled = false

    private static let bufferFrames = 4096

    public convenience init(contentsOf url: URL) throws {
        try self.init(contentsOf: url, fileTypeHint: nil)
    }

    public init(contentsOf url: URL, fileTypeHint utiString: String?) throws {
        let source: DescriptorSource
        do throws(AudioFileStatus) {
            source = try DescriptorSource.open(path: url.path)
        } catch {
            throw AVAudioSession.error(error.code)
        }
        sound = try AVAudioPlayer.decode(source)
        self.url = url
        data = nil
        super.init()
    }

    public convenience init(data: Data) throws {
        try self.init(data: data, fileTypeHint: nil)
    }

    public init(data: Data, fileTypeHint utiString: String?) throws {
        let bytes = data
        let source = CallbackSource(read: { offset, buffer, count in
            guard offset >= 0, offset <= Int64(bytes.count) else { return nil }
            let available = min(count, bytes.count - Int(offset))
            bytes.withUnsafeBytes { raw in
                buffer.copyMemory(from: raw.baseAddress!.advanced(by: Int(offset)), byteCount: available)
            }
            return available
        }, size: { Int64(bytes.count) })
        sound = try AVAudioPlayer.decode(source)
        url = nil
        self.data = data
        super.init()
    }

    /// The whole sound, decoded. Through the same file services as AudioFileOpenURL and
    /// ExtAudioFile first, so that the player and the C API agree on a file: its valid
    /// frames (no priming, no remainder) and, for a file they refuse, the same code
    /// ('dta?' for an empty or corrupt file of a known type). Only a container they do not
    /// read at all ('typ?': FLAC, Ogg ...) is left to FFmpeg's own demultiplexers.
    private static func decode(_ source: ByteSource) throws -> WholeFileDecoder.Sound {
        let accepts = { (rate: Double, channels: Int) in rate >= 1000 && rate <= 384_000 && (1...8).contains(channels) }
        var file: AudioFileReader?
        do throws(AudioFileStatus) {
            file = try AudioFileReader(source: source)
        } catch {
            if error != .unsupportedFileType { throw AVAudioSession.error(error.code) }
        }
        if let file {
            do throws(WholeFileError) {
                return try ExtendedAudioFileReader.decodeWhole(file, maximumFrames: Int64(3 * 3600 * file.format.sampleRate),
                                                               accepts: accepts)
            } catch {
                switch error {
                case .unusableFormat: throw AVAudioSession.error(AudioFileStatus.unsupportedDataFormat.code)
                case .tooLong: throw AVAudioSession.error(AudioFileStatus.unsupportedFileType.code)
                case .file(let status): throw AVAudioSession.error(status.code)
                }
            }
        }
        switch WholeFileDecoder.decode(source, maximumSeconds: 3 * 3600, accepting: accepts) {
        case .success(let sound): return sound
        case .failure(.unusableFormat): throw AVAudioSession.error(AudioFileStatus.unsupportedDataFormat.code)
        case .failure(.tooLong): throw AVAudioSession.error(AudioFileStatus.unsupportedFileType.code)
        case .failure: throw AVAudioSession.error(AudioFileStatus.unsupportedFileType.code)
        }
    }

    deinit {
        if let queue { try? queue.dispose(immediately: true) }
        if let voice { PlayerMixer.shared?.remove(voice) }
    }

    // MARK: what the sound is

    open var numberOfChannels: Int { sound.channels }
    open var duration: TimeInterval { Double(sound.samples.count / sound.channels) / Double(sound.sampleRate) }
    /// The format of the sound as the player holds it: decoded, deinterleaved Float32
    /// at the file's rate and channel count (not the file's own encoding).
    open var format: AVAudioFormat {
        AVAudioFormat(standardFormatWithSampleRate: Double(sound.sampleRate), channels: AVAudioChannelCount(sound.channels))!
    }

    open var settings: [String: Any] {
        [AVFormatIDKey: Int(kAudioFormatLinearPCM), AVSampleRateKey: Double(sound.sampleRate),
         AVNumberOfChannelsKey: sound.channels, AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true,
         AVLinearPCMIsBigEndianKey: false, AVLinearPCMIsNonInterleaved: false]
    }

    // MARK: playing

    @discardableResult
    open func prepareToPlay() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return makeVoice() != nil || makeQueue() != nil
    }

    /// Whether the player plays as a voice of the players' mix (not through a queue).
    var playsInMix: Bool { lock.lock(); defer { lock.unlock() }; return voice != nil }

    /// The voice, made once: the sound at the mix's rate. None for a player with
    /// `enableRate`, or when the mix is full or cannot be had (then a queue plays it).
    /// Called with `lock` held.
    private func makeVoice() -> MixVoice? {
        if let voice { return voice }
        guard queue == nil, !enableRate, let mixer = PlayerMixer.shared else { return nil }
        let ratio = mixer.rate / Double(sound.sampleRate)
        // The conversion a device stream applies to a unit of another rate (the queue's
        // path), made once here instead of on every play.
        let samples = ratio == 1 ? sound.samples
                                 : Resampler.convert(sound.samples, channels: sound.channels, ratio: ratio,
                                                     quality: .fastest)
        guard !samples.isEmpty else { return nil }
        let made = mixer.makeVoice(samples, channels: sound.channels)
        made.loopsLeft.store(numberOfLoops, ordering: .relaxed)
        made.setGain(settingsVolume, rampFrames: 0)
        made.panBits.store(settingsPan.bitPattern, ordering: .relaxed)
        made.metering.store(meteringEnabled, ordering: .relaxed)
        // The mix tells on its own thread; the delegate hears on the main thread.
        made.onFinished = { [weak self] in
            // Weak on the main queue too: a program that never runs it must not keep its
            // finished players (and their voices' slots) alive.
            DispatchQueue.main.async { [weak self] in
                guard let self else { return }
                self.lock.lock()
                let loops = self.numberOfLoops
                self.lock.unlock()
                self.voice?.loopsLeft.store(loops, ordering: .relaxed)
                self.delegate?.audioPlayerDidFinishPlaying(self, successfully: true)
            }
        }
        guard mixer.add(made) else { return nil }
        voice = made
        return made
    }

    /// The queue, made once: Float32 at the sound's rate and channels, three buffers.
    /// Called with `lock` held.
    private func makeQueue() -> AudioQueue? {
        if let queue { return queue }
        guard voice == nil else { return nil }
        let format = StreamDescription.linearPCM(rate: Double(sound.sampleRate), channels: UInt32(sound.channels),
                                                 bits: 32, float: true)
        let made = SessionQueue.make(.output, format) { [weak self] event in
            switch event {
            case .output(let buffer): self?.refill(buffer)
            case .property(QueueProperty.isRunning): self?.stoppedRunning()
            default: break
            }
        }
        guard let made else { return nil }
        let bytes = AVAudioPlayer.bufferFrames * sound.channels * 4
        for _ in 0..<3 {
            guard let buffer = try? made.allocateBuffer(capacity: bytes, descriptions: 0) else { return nil }
            buffers.append(buffer)
        }
        try? made.setVolume(settingsVolume)
        try? made.setPan(settingsPan)
        made.setMetering(meteringEnabled)
        if enableRate {
            let rate = settingsRate
            made.setParameters {
                $0.timePitchEnabled = 1
                $0.playRate = rate
            }
        }
        queue = made
        return made
    }

    @discardableResult
    open func play() -> Bool {
        lock.lock()
        if let voice = makeVoice() {
            lock.unlock()
            return PlayerMixer.shared?.play(voice) ?? false
        }
        guard let queue = makeQueue() else { lock.unlock(); return false }
        // After an interruption the queue is stopped with its buffers still enqueued:
        // starting it again resumes them.
        if playing && queue.isRunning { lock.unlock(); return true }
        lock.unlock()
        // As a queue's start: the session is activated (or made) first.
        guard SessionQueue.sessionAllowsStart(queue) else { return false }
        lock.lock()
        playing = true
        if inFlight == 0 {
            for buffer in buffers where fill(buffer) { enqueue(buffer, on: queue) }
        }
        let drain = lastEnqueued()
        lock.unlock()
        if drain { try? queue.stop(immediately: false) }
        do throws(QueueError) {
            _ = try queue.start()
        } catch {
            lock.lock()
            playing = false
            lock.unlock()
            return false
        }
        return true
    }

    @discardableResult
    open func play(atTime time: TimeInterval) -> Bool {
        let wait = time - deviceCurrentTime
        guard wait > 0 else { return play() }
        DispatchQueue.main.asyncAfter(deadline: .now() + wait) { [weak self] in _ = self?.play() }
        return true
    }

    open func pause() {
        lock.lock()
        if let voice {
            lock.unlock()
            PlayerMixer.shared?.pause(voice)
            return
        }
        let queue = self.queue
        playing = false
        lock.unlock()
        try? queue?.pause()
    }

    /// Stops, keeps the position (as iOS does: `currentTime` is not reset), and lets the
    /// session go idle.
    open func stop() {
        lock.lock()
        if let voice {
            lock.unlock()
            PlayerMixer.shared?.pause(voice)
            return
        }
        let queue = self.queue
        playing = false
        let played = playedFrames(queue)
        lock.unlock()
        try? queue?.stop(immediately: true)
        lock.lock()
        inFlight = 0
        finishing = false
        position = min(played, frames) * sound.channels
        lock.unlock()
    }

    open var isPlaying: Bool {
        lock.lock()
        defer { lock.unlock() }
        if let voice { return PlayerMixer.shared?.isPlaying(voice) ?? false }
        return playing && (queue?.isRunning ?? false)
    }

    open var numberOfLoops: Int = 0 {
        didSet {
            lock.lock()
            loopsLeft = numberOfLoops
            voice?.loopsLeft.store(numberOfLoops, ordering: .relaxed)
            lock.unlock()
        }
    }

    open var currentTime: TimeInterval {
        get {
            lock.lock()
            defer { lock.unlock() }
            if let voice, let mixer = PlayerMixer.shared {
                let seek = voice.seekRequest.load(ordering: .acquiring)
                return Double(seek >= 0 ? seek : voice.position.load(ordering: .acquiring)) / mixer.rate
            }
            return Double(min(playedFrames(queue), frames)) / Double(sound.sampleRate)
        }
        set {
            lock.lock()
            if let voice, let mixer = PlayerMixer.shared {
                let frame = Int(max(0, min(newValue, duration)) * mixer.rate)
                voice.seekRequest.store(frame, ordering: .releasing)
                if !voice.running.load(ordering: .acquiring) { voice.position.store(frame, ordering: .releasing) }
                lock.unlock()
                return
            }
            let wasPlaying = playing
            let queue = self.queue
            lock.unlock()
            if wasPlaying { try? queue?.stop(immediately: true) }
            lock.lock()
            inFlight = 0
            finishing = false
            playing = false
            position = Int(max(0, min(newValue, duration)) * Double(sound.sampleRate)) * sound.channels
            seekBase = position / sound.channels
            lock.unlock()
            if wasPlaying { _ = play() }
        }
    }

    /// The device's clock, in seconds: for `play(atTime:)`.
    open var deviceCurrentTime: TimeInterval { SessionQueue.deviceTime }

    // MARK: level and place

    open var volume: Float {
        get { lock.lock(); defer { lock.unlock() }; return settingsVolume }
        set {
            lock.lock()
            settingsVolume = max(0, min(1, newValue))
            let queue = self.queue
            voice?.setGain(settingsVolume, rampFrames: fadeFrames)
            fadeFrames = 0
            lock.unlock()
            try? queue?.setVolume(settingsVolume)
        }
    }

    open func setVolume(_ volume: Float, fadeDuration duration: TimeInterval) {
        lock.lock()
        let queue = self.queue
        if voice != nil, let mixer = PlayerMixer.shared { fadeFrames = Int(max(0, duration) * mixer.rate) }
        lock.unlock()
        try? queue?.setVolumeRampTime(Float(max(0, duration)))
        self.volume = volume
    }

    /// Frames the next volume change of a voice takes (setVolume(_:fadeDuration:)).
    private var fadeFrames = 0

    open var pan: Float {
        get { lock.lock(); defer { lock.unlock() }; return settingsPan }
        set {
            lock.lock()
            settingsPan = max(-1, min(1, newValue))
            voice?.panBits.store(settingsPan.bitPattern, ordering: .relaxed)
            let queue = self.queue
            lock.unlock()
            try? queue?.setPan(settingsPan)
        }
    }

    /// Set before `prepareToPlay` (as on iOS): the queue's time-stretch then plays at
    /// `rate` (0.5 to 2) with the pitch kept.
    open var enableRate = false
    open var rate: Float {
        get { lock.lock(); defer { lock.unlock() }; return settingsRate }
        set {
            lock.lock()
            settingsRate = max(0.5, min(2, newValue))
            let queue = self.queue
            let rate = settingsRate
            lock.unlock()
            queue?.setParameters { $0.playRate = rate }
        }
    }
    private var settingsRate: Float = 1

    // MARK: metering

    open var isMeteringEnabled: Bool {
        get { lock.lock(); defer { lock.unlock() }; return meteringEnabled }
        set {
            lock.lock()
            meteringEnabled = newValue
            voice?.metering.store(newValue, ordering: .relaxed)
            let queue = self.queue
            lock.unlock()
            queue?.setMetering(newValue)
        }
    }

    private var meters: [(Float, Float)] = []

    open func updateMeters() {
        lock.lock()
        if let voice {
            meters = meteringEnabled ? Array(voice.levels.prefix(sound.channels == 1 ? 1 : 2)) : []
            lock.unlock()
            return
        }
        let queue = self.queue
        lock.unlock()
        let levels = (try? queue?.levels()) ?? []
        lock.lock()
        meters = levels ?? []
        lock.unlock()
    }

    /// dB full scale: 0 is full scale, -160 silence.
    open func averagePower(forChannel channel: Int) -> Float { power(channel) { $0.0 } }
    open func peakPower(forChannel channel: Int) -> Float { power(channel) { $0.1 } }

    private func power(_ channel: Int, _ pick: ((Float, Float)) -> Float) -> Float {
        lock.lock()
        defer { lock.unlock() }
        guard channel >= 0, channel < meters.count else { return -160 }
        return SessionQueue.decibels(pick(meters[channel]))
    }

    // MARK: feeding the queue

    private var frames: Int { sound.samples.count / sound.channels }
    /// The frame the queue's sample time 0 stands for (after a seek).
    private var seekBase = 0

    private func playedFrames(_ queue: AudioQueue?) -> Int {
        guard let queue, let time = try? queue.currentTime(readDiscontinuity: false) else { return seekBase }
        let played = seekBase + Int(time.sampleTime)
        guard frames > 0 else { return 0 }
        return numberOfLoops == 0 ? played : played % frames
    }

    /// Copies the next frames into `buffer`; false once the sound (and its loops) is
    /// over. Called with `lock` held.
    private func fill(_ buffer: QueueBuffer) -> Bool {
        let header = buffer.pointer.assumingMemoryBound(to: AudioQueueBuffer.self)
        let capacity = Int(header.pointee.mAudioDataBytesCapacity) / 4
        var written = 0
        let target = header.pointee.mAudioData.assumingMemoryBound(to: Float.self)
        while written < capacity {
            if position >= sound.samples.count {
                guard loopsLeft != 0 else { break }
                if loopsLeft > 0 { loopsLeft -= 1 }
                position = 0
            }
            let count = min(capacity - written, sound.samples.count - position)
            sound.samples.withUnsafeBufferPointer { samples in
                (target + written).update(from: samples.baseAddress! + position, count: count)
            }
            written += count
            position += count
        }
        header.pointee.mAudioDataByteSize = UInt32(written * 4)
        return written > 0
    }

    /// The sound's last frames are enqueued: the queue is told now to stop once they have
    /// played (as a queue player does at the end of its file), so a time-stretch lets its
    /// tail out right after them instead of after a period of silence. Called with `lock`
    /// held; the caller stops the queue once it is released.
    private func lastEnqueued() -> Bool {
        guard position >= sound.samples.count, loopsLeft == 0, inFlight > 0, !finishing else { return false }
        finishing = true
        return true
    }

    private func enqueue(_ buffer: QueueBuffer, on queue: AudioQueue) {
        if (try? queue.enqueue(buffer, descriptions: nil, descriptionCount: 0)) != nil { inFlight += 1 }
    }

    /// A buffer came back from the queue: refilled and handed back; when nothing is left
    /// and it was the last, the queue is told to stop once all has played.
    private func refill(_ buffer: QueueBuffer) {
        lock.lock()
        guard let queue, playing else { lock.unlock(); return }
        inFlight = max(0, inFlight - 1)
        if fill(buffer) {
            enqueue(buffer, on: queue)
            let drain = lastEnqueued()
            lock.unlock()
            if drain { try? queue.stop(immediately: false) }
            return
        }
        let last = inFlight == 0 && !finishing
        if last { finishing = true }
        lock.unlock()
        if last { try? queue.stop(immediately: false) }
    }

    /// The queue stopped running: at the end of the sound (everything played, the
    /// time-stretch's tail too), the player is done and its delegate told, on the main
    /// thread. (An interruption stops it too, without a finish.)
    private func stoppedRunning() {
        lock.lock()
        guard finishing, let queue, !queue.isRunning else { lock.unlock(); return }
        finishing = false
        playing = false
        position = 0
        seekBase = 0
        loopsLeft = numberOfLoops
        lock.unlock()
        DispatchQueue.main.async { [weak self] in
            guard let self else { return }
            self.delegate?.audioPlayerDidFinishPlaying(self, successfully: true)
        }
    }
}
