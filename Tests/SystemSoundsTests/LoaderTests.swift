import CSndfile
import Glibc
import SystemSounds
import Testing

/// Writes `samples` (interleaved floats) to a new file in `format`; returns its path.
func writeFile(_ name: String, format: Int32, rate: Int32, channels: Int32, samples: [Float]) -> String {
    let path = "/tmp/at-loader-\(getpid())-\(name)"
    var info = SF_INFO(frames: 0, samplerate: rate, channels: channels, format: format, sections: 0, seekable: 0)
    let file = sf_open(path, Int32(SFM_WRITE), &info)!
    _ = samples.withUnsafeBufferPointer { sf_writef_float(file, $0.baseAddress, sf_count_t(samples.count) / sf_count_t(channels)) }
    sf_close(file)
    return path
}

func sine(frequency: Double, rate: Int, seconds: Double) -> [Float] {
    (0..<Int(Double(rate) * seconds)).map { Float(0.5 * sin(2 * .pi * frequency * Double($0) / Double(rate))) }
}

/// Upward zero crossings of the left channel of 16-bit stereo frames.
func crossings(_ frames: [Int16]) -> Int {
    var count = 0
    for i in stride(from: 2, to: frames.count, by: 2) where frames[i - 2] < 0 && frames[i] >= 0 { count += 1 }
    return count
}

@Suite("System sounds: loading and conversion")
struct LoaderTests {
    @Test("a 22050 Hz mono file becomes 48000 Hz stereo with the same length and pitch")
    func conversionKeepsPitchAndLength() throws {
        let path = writeFile("conv.wav", format: Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16), rate: 22050, channels: 1,
                             samples: sine(frequency: 441, rate: 22050, seconds: 1))
        defer { unlink(path) }
        let sound = try DecodedSound.load(path: path)
        #expect(sound.sampleRate == 22050 && sound.channels == 1 && sound.frameCount == 22050)
        let frames = sound.converted(toRate: 48000)
        // One second at 48 kHz, give or take the converter's edge.
        #expect(abs(frames.count / 2 - 48000) <= 48)
        // 441 Hz for one second: 441 cycles, whatever the rate.
        #expect(abs(crossings(frames) - 441) <= 1)
        // Mono reaches both sides.
        #expect(stride(from: 0, to: frames.count, by: 2).allSatisfy { frames[$0] == frames[$0 + 1] })
    }

    /// libsndfile writes them (an encoder independent of ours); the library decodes them
    /// with FFmpeg, libsndfile being no part of it.
    @Test("FLAC, Ogg Vorbis and Opus sounds decode at their pitch and length", arguments: [
        ("flac", Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_16), Int32(44100)),
        ("ogg", Int32(SF_FORMAT_OGG | SF_FORMAT_VORBIS), Int32(44100)),
        ("opus", Int32(SF_FORMAT_OGG | SF_FORMAT_OPUS), Int32(48000)),
    ])
    func compressedFormats(name: String, format: Int32, rate: Int32) throws {
        let path = writeFile("tone.\(name)", format: format, rate: rate, channels: 1,
                             samples: sine(frequency: 440, rate: Int(rate), seconds: 1))
        defer { unlink(path) }
        let sound = try DecodedSound.load(path: path)
        #expect(sound.channels == 1)
        // One second, give or take a codec's priming and padding (Opus pads up to 20 ms).
        #expect(abs(sound.duration - 1) < 0.03, "\(name): \(sound.duration) s")
        // The pitch, from the middle half second: a lossy codec's noise at the edges
        // (pre-echo, fades) adds crossings that are no part of the tone.
        let frames = Array(sound.converted(toRate: 48000)[(12000 * 2)..<(36000 * 2)])
        #expect(abs(crossings(frames) - 220) <= 1, "\(name): \(crossings(frames)) cycles in 0.5 s")
    }

    @Test("more than 30 s is refused before decoding; 30 s is accepted")
    func durationLimit() throws {
        let long = writeFile("long.wav", format: Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16), rate: 8000, channels: 1,
                             samples: [Float](repeating: 0, count: 8000 * 30 + 1))
        let limit = writeFile("limit.wav", format: Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16), rate: 8000, channels: 1,
                              samples: [Float](repeating: 0, count: 8000 * 30))
        defer { unlink(long); unlink(limit) }
        #expect(throws: DecodedSound.LoadError.self) { _ = try DecodedSound.load(path: long) }
        #expect(try DecodedSound.load(path: limit).frameCount == 8000 * 30)
    }

    /// The fuzzer: valid files of each format, mutated (bytes changed, flipped, cut,
    /// inserted) and loaded. Each load returns a sound or a LoadError — no crash, no
    /// hang, no sound longer than the limit, sample counts that match the frame count.
    @Test("fuzz: 12 500 mutated WAV, AIFF, CAF, FLAC and Ogg Vorbis files")
    func fuzz() throws {
        let formats: [(String, Int32)] = [
            ("wav", Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16)), ("aiff", Int32(SF_FORMAT_AIFF | SF_FORMAT_PCM_16)),
            ("caf", Int32(SF_FORMAT_CAF | SF_FORMAT_PCM_24)), ("flac", Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_16)),
            ("ogg", Int32(SF_FORMAT_OGG | SF_FORMAT_VORBIS)),
        ]
        var seed: UInt64 = 0xF00D
        func next() -> UInt64 {
            seed &+= 0x9E37_79B9_7F4A_7C15
            var z = seed
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var loaded = 0, refused = 0
        let perFormat = 2500
        for (name, format) in formats {
            let original = writeFile("seed.\(name)", format: format, rate: 16000, channels: 2,
                                     samples: sine(frequency: 300, rate: 16000, seconds: 0.05).flatMap { [$0, -$0] })
            let bytes = try #require(readAll(original))
            unlink(original)
            let path = "/tmp/at-loader-\(getpid())-fuzz.\(name)"
            defer { unlink(path) }
            for _ in 0..<perFormat {
                var mutated = bytes
                for _ in 0..<(1 + Int(next() % 6)) {
                    let index = Int(next() % UInt64(max(mutated.count, 1)))
                    switch next() % 5 {
                    case 0: mutated[index] = UInt8(truncatingIfNeeded: next())
                    case 1: mutated[index] ^= UInt8(1) << UInt8(next() % 8)
                    case 2: mutated.removeSubrange(index..<min(mutated.count, index + Int(next() % 64)))
                    case 3: mutated.insert(contentsOf: (0..<Int(next() % 16)).map { _ in UInt8(truncatingIfNeeded: next()) }, at: index)
                    default: mutated = Array(mutated.prefix(index))  // truncated file
                    }
                    if mutated.isEmpty { mutated = [0] }
                }
                writeAll(path, mutated)
                do throws(DecodedSound.LoadError) {
                    let sound = try DecodedSound.load(path: path)
                    #expect(sound.duration <= DecodedSound.maximumDuration)
                    #expect(sound.samples.count == sound.frameCount * sound.channels)
                    _ = sound.converted(toRate: 48000)
                    loaded += 1
                } catch {
                    refused += 1
                }
            }
        }
        print("loader fuzz: \(perFormat * formats.count) mutated files: \(loaded) loaded, \(refused) refused, no crash")
        #expect(loaded + refused == perFormat * formats.count)
    }
}

func readAll(_ path: String) -> [UInt8]? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&buffer, 1, buffer.count, file)
        if n == 0 { break }
        bytes += buffer[0..<n]
    }
    return bytes
}

func writeAll(_ path: String, _ bytes: [UInt8]) {
    guard let file = fopen(path, "wb") else { return }
    _ = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) }
    fclose(file)
}
