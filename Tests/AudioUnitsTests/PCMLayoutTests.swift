import AudioUnits
import Testing

@Suite("SPEC 10: the PCM layouts a unit takes, and conversion between them")
struct PCMLayoutTests {
    static let lpcm: UInt32 = 0x6C70_636D

    @Test("The iPhone's canonical 8.24 non-interleaved stereo reads as fixed824 (flags 0xC2C)")
    func canonical() throws {
        let layout = try PCMLayout(formatID: Self.lpcm, flags: 0xC2C, sampleRate: 44100, bytesPerPacket: 4,
                                   framesPerPacket: 1, bytesPerFrame: 4, channelsPerFrame: 2, bitsPerChannel: 32)
        #expect(layout == PCMLayout(sampleRate: 44100, encoding: .fixed824, channels: 2, interleaved: false))
        #expect(layout.formatFlags == 0xC2C)
    }

    @Test("Descriptions that do not agree with themselves are refused", arguments: [
        (UInt32(0x6161_6320), UInt32(0xC), UInt32(4), UInt32(2), UInt32(16), PCMLayout.Refusal.notLinearPCM),
        (lpcm, UInt32(0xC), UInt32(2), UInt32(2), UInt32(16), .inconsistentSizes),
        (lpcm, UInt32(0xE), UInt32(4), UInt32(2), UInt32(16), .badSample),       // big endian
        (lpcm, UInt32(0x9), UInt32(8), UInt32(2), UInt32(64), .badSample),       // Float64
        (lpcm, UInt32(0xC), UInt32(0), UInt32(0), UInt32(16), .badChannels),
    ])
    func refused(_ id: UInt32, _ flags: UInt32, _ bytesPerFrame: UInt32, _ channels: UInt32, _ bits: UInt32,
                 _ expected: PCMLayout.Refusal) {
        #expect(throws: expected) {
            try PCMLayout(formatID: id, flags: flags, sampleRate: 48000, bytesPerPacket: bytesPerFrame,
                          framesPerPacket: 1, bytesPerFrame: bytesPerFrame, channelsPerFrame: channels,
                          bitsPerChannel: bits)
        }
    }

    @Test("SInt16 interleaved mono to 8.24 non-interleaved stereo and back: the samples survive exactly")
    func roundTrip() {
        let mono = PCMLayout(sampleRate: 48000, encoding: .int16, channels: 1, interleaved: true)
        let canonical = PCMLayout(sampleRate: 48000, encoding: .fixed824, channels: 2, interleaved: false)
        var samples: [Int16] = [0, 1, -1, 16384, -32768, 32767, 1234, -4321]
        var left = [Int32](repeating: 0, count: samples.count), right = left
        var back = [Int16](repeating: 0, count: samples.count)
        samples.withUnsafeMutableBytes { s in
            left.withUnsafeMutableBytes { l in
                right.withUnsafeMutableBytes { r in
                    back.withUnsafeMutableBytes { b in
                        var input: [UnsafeMutableRawPointer?] = [s.baseAddress]
                        var planes: [UnsafeMutableRawPointer?] = [l.baseAddress, r.baseAddress]
                        var output: [UnsafeMutableRawPointer?] = [b.baseAddress]
                        convertPCM(from: mono, &input, to: canonical, &planes, frames: 8, gain: 1)
                        let stereo = PCMLayout(sampleRate: 48000, encoding: .fixed824, channels: 1, interleaved: false)
                        convertPCM(from: stereo, &planes, to: mono, &output, frames: 8, gain: 1)
                    }
                }
            }
        }
        // 8.24 of an SInt16 sample s is s * 2^24 / 2^15 = s * 512, computed here by hand.
        #expect(left == samples.map { Int32($0) * 512 })
        #expect(right == left)
        #expect(back == samples)
    }

    @Test("Float32 above full scale clips in SInt16, and stereo to mono averages")
    func clipAndAverage() {
        let stereo = PCMLayout(sampleRate: 48000, encoding: .float32, channels: 2, interleaved: true)
        let mono = PCMLayout(sampleRate: 48000, encoding: .int16, channels: 1, interleaved: true)
        var input: [Float] = [2.0, 2.0, 0.5, -0.5, 0.25, 0.75]
        var output = [Int16](repeating: 7, count: 3)
        input.withUnsafeMutableBytes { i in
            output.withUnsafeMutableBytes { o in
                var inputs: [UnsafeMutableRawPointer?] = [i.baseAddress]
                var outputs: [UnsafeMutableRawPointer?] = [o.baseAddress]
                convertPCM(from: stereo, &inputs, to: mono, &outputs, frames: 3, gain: 1)
            }
        }
        #expect(output == [32767, 0, 16384])
    }
}
