import AudioFiles
import Glibc
import Resampling
import POSIXSupport

/// A sound file decoded whole, as 32-bit float frames.
public struct DecodedSound: Sendable {
    public let sampleRate: Int
    public let channels: Int
    /// Interleaved samples, `frameCount * channels` of them.
    public let samples: [Float]
    public var frameCount: Int { samples.count / max(channels, 1) }
    public var duration: Double { Double(frameCount) / Double(sampleRate) }

    public init(sampleRate: Int, channels: Int, samples: [Float]) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.samples = samples
    }

    /// The longest sound the phone accepts.
    public static let maximumDuration: Double = 30

    public enum LoadError: Error, Equatable {
        /// Missing, unreadable, not a sound file, or corrupt.
        case unreadable(String)
        case tooLong(Double)
    }

    /// Decodes the file at `path`: linear PCM in WAVE, AIFF or CAF by its header alone;
    /// else through the library's own audio file services (IMA4, µ-law, A-law, AAC, MP3,
    /// ALAC); else with whatever decoder FFmpeg has (FLAC, Ogg Vorbis, Opus ...).
    /// Longer than 30 s: refused before decoding. Only regular files: a FIFO or a device
    /// could block the caller forever, or worse (SafeFile.openRegular looks before it opens).
    public static func load(path: String) throws(LoadError) -> DecodedSound {
        let fd: Int32
        do throws(FileProblem) {
            fd = try SafeFile.openRegular(path, followSymlinks: true)
        } catch {
            throw .unreadable(error == .notARegularFile ? "not a regular file" : error.description)
        }
        // The source owns the descriptor and closes it when it goes.
        let source = DescriptorSource(descriptor: fd)
        if let sound = try loadPCM(source) { return sound }
        if let sound = try loadWithAudioFiles(source) { return sound }
        // Anything else FFmpeg decodes (FLAC, Ogg Vorbis, Opus ...).
        switch WholeFileDecoder.decode(source, maximumSeconds: maximumDuration, accepting: acceptsFormat) {
        case .success(let sound):
            return DecodedSound(sampleRate: sound.sampleRate, channels: sound.channels, samples: sound.samples)
        case .failure(.tooLong(let seconds)):
            throw .tooLong(seconds)
        case .failure(.unusableFormat):
            throw .unreadable("unusable format")
        case .failure(.empty):
            throw .unreadable("no audio could be decoded")
        case .failure(.unreadable):
            throw .unreadable("not a sound file FFmpeg decodes")
        }
    }

    /// Limits that no short sound exceeds, so that a lying header cannot make us reserve
    /// gigabytes: 1 to 8 channels, 1 to 192 kHz. Every loader checks them before decoding.
    @Sendable private static func acceptsFormat(rate: Double, channels: Int) -> Bool {
        (1...8).contains(channels) && rate >= 1000 && rate <= 192_000
    }

    /// Linear PCM in WAVE, AIFF or CAF, read with Audio File Stream's header readers and
    /// converted directly: no demultiplexer is probed (the system sounds an iPhone program
    /// ships are mostly such files). nil for anything else.
    private static func loadPCM(_ source: DescriptorSource) throws(LoadError) -> DecodedSound? {
        guard let file = PCMFile.read(source) else { return nil }
        let f = file.format
        guard acceptsFormat(rate: f.sampleRate, channels: Int(f.channelsPerFrame)) else { throw .unreadable("unusable format") }
        let frames = file.byteCount / Int64(f.bytesPerFrame)
        let duration = Double(frames) / f.sampleRate
        guard duration <= maximumDuration else { throw .tooLong(duration) }
        guard let samples = file.decode(from: source) else { throw .unreadable("cannot read the samples") }
        return DecodedSound(sampleRate: Int(f.sampleRate), channels: Int(f.channelsPerFrame), samples: samples)
    }

    /// Through AudioFiles: nil when it does not read the container (FFmpeg may still).
    private static func loadWithAudioFiles(_ source: DescriptorSource) throws(LoadError) -> DecodedSound? {
        // A large file, by the header's word first: a reader goes through every packet as
        // it opens, which for a 2 GB file takes seconds. (Below 8 MB the reader's pass is
        // quick, and a second opening would only delay the daemon finishing a sound.)
        if (source.size ?? 0) > 8 << 20, let said = AudioFileReader.headerDuration(of: source), said > maximumDuration + 1 {
            throw .tooLong(said)
        }
        let file: AudioFileReader
        do throws(AudioFileStatus) { file = try AudioFileReader(source: source) } catch { return nil }
        let maximumFrames = Int64(maximumDuration * file.format.sampleRate)
        do throws(WholeFileError) {
            let sound = try ExtendedAudioFileReader.decodeWhole(file, maximumFrames: maximumFrames) { acceptsFormat(rate: $0, channels: $1) }
            return DecodedSound(sampleRate: sound.sampleRate, channels: sound.channels, samples: sound.samples)
        } catch {
            switch error {
            case .unusableFormat: throw .unreadable("unusable format")
            case .tooLong(let seconds): throw .tooLong(seconds)
            case .file(let status): throw .unreadable(status == .invalidFile ? "no audio could be decoded" : "cannot decode: \(status.code)")
            }
        }
    }

    /// The sound as 16-bit stereo at `rate` (see `stereo(atRate:)`).
    public func converted(toRate rate: Int) -> [Int16] {
        // 16-bit samples are read as n / 32768: scaling back by 32768 gives the file's own
        // samples exactly when nothing was converted.
        stereo(atRate: rate).map { sample in
            let scaled = (sample * 32768).rounded()
            return Int16(max(-32768, min(32767, scaled)))
        }
    }

    /// The sound as Float stereo at `rate`, as the mix takes it: channels mapped (mono to
    /// both sides, more than two: the first two), the rate converted by the Resampler.
    public func stereo(atRate rate: Int) -> [Float] {
        var stereo = [Float](repeating: 0, count: frameCount * 2)
        for frame in 0..<frameCount {
            let left = samples[frame * channels]
            stereo[frame * 2] = left
            stereo[frame * 2 + 1] = channels > 1 ? samples[frame * channels + 1] : left
        }
        return rate != sampleRate && frameCount > 0
            ? Resampler.convert(stereo, channels: 2, ratio: Double(rate) / Double(sampleRate))
            : stereo
    }
}
