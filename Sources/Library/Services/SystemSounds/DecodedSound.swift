import AudioFiles
import CSamplerate
import CSndfile
import Glibc
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
    /// ALAC); else with libsndfile (FLAC, Ogg and whatever else it reads).
    /// Longer than 30 s: refused before decoding. Only regular files: a FIFO or a device
    /// could block the caller forever, or worse (SafeFile.openRegular looks before it opens).
    public static func load(path: String) throws(LoadError) -> DecodedSound {
        let fd: Int32
        do throws(FileProblem) {
            fd = try SafeFile.openRegular(path, followSymlinks: true)
        } catch {
            throw .unreadable(error == .notARegularFile ? "not a regular file" : error.description)
        }
        let copy = dup(fd)
        if copy >= 0 {
            let source = DescriptorSource(descriptor: copy)
            if let sound = try loadPCM(source) { close(fd); return sound }
            if let sound = try loadWithAudioFiles(source) { close(fd); return sound }
        }
        var info = SF_INFO()
        // libsndfile closes the descriptor with the file (close_desc 1), or on failure.
        guard let file = sf_open_fd(fd, Int32(SFM_READ), &info, 1) else {
            throw .unreadable(String(cString: sf_strerror(nil)))
        }
        defer { sf_close(file) }
        // Limits that no short sound exceeds, so that a lying header cannot make us
        // reserve gigabytes: 8 channels, 192 kHz.
        guard info.channels > 0, info.channels <= 8, info.samplerate >= 1000, info.samplerate <= 192_000,
              info.frames >= 0 else { throw .unreadable("unusable format") }
        let duration = Double(info.frames) / Double(info.samplerate)
        guard duration <= maximumDuration else { throw .tooLong(duration) }
        // A damaged file may hold fewer frames than its header promises: keep what
        // decoded, never more than the promise.
        let channels = Int(info.channels)
        let promised = Int(info.frames) * channels
        var samples: [Float]
        if promised <= 1 << 22 {
            // The usual case: one read straight into the array, cut to what decoded.
            samples = [Float](unsafeUninitializedCapacity: promised) { buffer, count in
                let read = sf_readf_float(file, buffer.baseAddress, info.frames)
                count = max(0, Int(read)) * channels
            }
        } else {
            // A large promise is read in chunks, so that a lying header costs nothing.
            samples = []
            let chunk = 16384
            var buffer = [Float](repeating: 0, count: chunk * channels)
            var remaining = Int(info.frames)
            while remaining > 0 {
                let want = min(chunk, remaining)
                let read = buffer.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, sf_count_t(want)) }
                if read <= 0 { break }
                samples += buffer[0..<(Int(read) * channels)]
                remaining -= Int(read)
            }
        }
        if samples.isEmpty && info.frames > 0 { throw .unreadable("no audio could be decoded") }
        return DecodedSound(sampleRate: Int(info.samplerate), channels: Int(info.channels), samples: samples)
    }

    /// Linear PCM in WAVE, AIFF or CAF, read with Audio File Stream's header readers and
    /// converted directly: no demultiplexer is probed (the system sounds an iPhone program
    /// ships are mostly such files). nil for anything else.
    private static func loadPCM(_ source: DescriptorSource) throws(LoadError) -> DecodedSound? {
        guard let file = PCMFile.read(source) else { return nil }
        let f = file.format
        guard f.channelsPerFrame > 0, f.channelsPerFrame <= 8, f.sampleRate >= 1000, f.sampleRate <= 192_000 else {
            throw .unreadable("unusable format")
        }
        let frames = file.byteCount / Int64(f.bytesPerFrame)
        let duration = Double(frames) / f.sampleRate
        guard duration <= maximumDuration else { throw .tooLong(duration) }
        guard let samples = file.decode(from: source) else { throw .unreadable("cannot read the samples") }
        return DecodedSound(sampleRate: Int(f.sampleRate), channels: Int(f.channelsPerFrame), samples: samples)
    }

    /// Through AudioFiles: nil when it does not read the container (libsndfile may).
    private static func loadWithAudioFiles(_ source: DescriptorSource) throws(LoadError) -> DecodedSound? {
        // A large file, by the header's word first: a reader goes through every packet as
        // it opens, which for a 2 GB file takes seconds. (Below 8 MB the reader's pass is
        // quick, and a second opening would only delay the daemon finishing a sound.)
        if (source.size ?? 0) > 8 << 20, let said = AudioFileReader.headerDuration(of: source), said > maximumDuration + 1 {
            throw .tooLong(said)
        }
        let file: AudioFileReader
        do throws(AudioFileStatus) { file = try AudioFileReader(source: source) } catch { return nil }
        let f = file.format
        guard f.channelsPerFrame > 0, f.channelsPerFrame <= 8, f.sampleRate >= 1000, f.sampleRate <= 192_000 else {
            throw .unreadable("unusable format")
        }
        let frames = file.packetTable?.validFrames ?? file.totalFrames
        let duration = Double(frames) / f.sampleRate
        guard duration <= maximumDuration else { throw .tooLong(duration) }
        let channels = Int(f.channelsPerFrame)
        var decoded: [Float] = []
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
            decoded = samples
        } catch {
            throw .unreadable("cannot decode: \(error.code)")
        }
        if decoded.isEmpty && frames > 0 { throw .unreadable("no audio could be decoded") }
        return DecodedSound(sampleRate: Int(f.sampleRate), channels: channels, samples: decoded)
    }

    /// The sound as 16-bit stereo at `rate`: channels mapped (mono to both sides, more
    /// than two: the first two), the rate converted by libsamplerate.
    public func converted(toRate rate: Int) -> [Int16] {
        var stereo = [Float](repeating: 0, count: frameCount * 2)
        for frame in 0..<frameCount {
            let left = samples[frame * channels]
            stereo[frame * 2] = left
            stereo[frame * 2 + 1] = channels > 1 ? samples[frame * channels + 1] : left
        }
        var output = stereo
        if rate != sampleRate && frameCount > 0 {
            let ratio = Double(rate) / Double(sampleRate)
            let capacity = Int((Double(frameCount) * ratio).rounded(.up)) + 16
            output = [Float](repeating: 0, count: capacity * 2)
            var generated = 0
            stereo.withUnsafeBufferPointer { input in
                output.withUnsafeMutableBufferPointer { out in
                    var data = SRC_DATA(data_in: input.baseAddress, data_out: out.baseAddress,
                                        input_frames: frameCount, output_frames: capacity,
                                        input_frames_used: 0, output_frames_gen: 0, end_of_input: 1,
                                        src_ratio: ratio)
                    if src_simple(&data, Int32(SRC_SINC_MEDIUM_QUALITY), 2) == 0 {
                        generated = data.output_frames_gen
                    }
                }
            }
            output.removeLast(output.count - generated * 2)
        }
        // libsndfile reads 16-bit samples as n / 32768: scaling back by 32768 gives the
        // file's own samples exactly when nothing was converted.
        return output.map { sample in
            let scaled = (sample * 32768).rounded()
            return Int16(max(-32768, min(32767, scaled)))
        }
    }
}
