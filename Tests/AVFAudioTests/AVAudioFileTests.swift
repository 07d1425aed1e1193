import AVFAudio
import CAudioToolbox
import Foundation
import Testing

// AVAudioPCMBuffer and AVAudioFile as engine code uses them (Apple's samples write a
// microphone tap's buffers to a file, and read a file a buffer at a time into a player):
// a buffer's capacity, length, stride and channel pointers against what the words mean;
// files written from buffers and read back into buffers, checked against the sine that
// was written (not against our own reader's idea of it) and, for WAV, against the bytes
// of the header; seeking; AAC in M4A; and the codes bad calls give.

private let rate = 44100.0

/// A sine at `hz` and `level`, frame `i` of a channel whose phase starts at `phase`.
private func sine(_ i: Int, hz: Double, level: Double = 0.5, phase: Double = 0) -> Float {
    Float(level * sin(2 * Double.pi * hz * Double(i) / rate + phase))
}

/// A stereo buffer of `frames` frames: 440 Hz on the left, 660 Hz on the right, starting
/// at frame `from` of the tones.
private func toneBuffer(_ format: AVAudioFormat, frames: Int, from: Int = 0) throws -> AVAudioPCMBuffer {
    let buffer = try #require(AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(frames)))
    let data = try #require(buffer.floatChannelData)
    for i in 0..<frames {
        data[0][i * buffer.stride] = sine(from + i, hz: 440)
        data[1][i * buffer.stride] = sine(from + i, hz: 660)
    }
    buffer.frameLength = AVAudioFrameCount(frames)
    return buffer
}

private func temporary(_ name: String) -> URL {
    URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("avaudiofile-\(getpid())-\(name)")
}

/// The level of `hz` in `x` (one Goertzel bin over the whole run).
private func level(_ x: [Float], hz: Double) -> Double {
    var re = 0.0, im = 0.0
    for (i, v) in x.enumerated() {
        let angle = 2 * Double.pi * hz * Double(i) / rate
        re += Double(v) * cos(angle)
        im -= Double(v) * sin(angle)
    }
    return 2 * (re * re + im * im).squareRoot() / Double(x.count)
}

@Suite("AVAudioPCMBuffer and AVAudioFile")
struct AVAudioFileTests {
    @Test("a buffer's capacity, length, stride and channel pointers")
    func bufferShape() throws {
        let planar = try #require(AVAudioFormat(standardFormatWithSampleRate: rate, channels: 2))
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: planar, frameCapacity: 1000))
        #expect(buffer.frameCapacity == 1000 && buffer.frameLength == 0 && buffer.stride == 1)
        #expect(buffer.floatChannelData != nil && buffer.int16ChannelData == nil && buffer.int32ChannelData == nil)
        #expect(buffer.audioBufferList.pointee.mNumberBuffers == 2)
        // The length is the list's byte sizes, both ways.
        buffer.frameLength = 300
        let list = UnsafeMutableAudioBufferListPointer(UnsafeMutablePointer(mutating: buffer.audioBufferList))
        #expect(list.map(\.mDataByteSize) == [1200, 1200])
        #expect(list[0].mData == UnsafeMutableRawPointer(buffer.floatChannelData![0]))
        let offered = UnsafeMutableAudioBufferListPointer(buffer.mutableAudioBufferList)
        #expect(offered.map(\.mDataByteSize) == [4000, 4000])
        offered[0].mDataByteSize = 40
        offered[1].mDataByteSize = 40
        #expect(buffer.frameLength == 10)
        // A length past the capacity is held to it.
        buffer.frameLength = 5000
        #expect(buffer.frameLength == 1000)

        // Interleaved 16-bit: one buffer, each channel's pointer one sample along.
        let packed = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: rate, channels: 2, interleaved: true))
        let shorts = try #require(AVAudioPCMBuffer(pcmFormat: packed, frameCapacity: 8))
        let channels = try #require(shorts.int16ChannelData)
        #expect(shorts.stride == 2 && shorts.floatChannelData == nil && shorts.audioBufferList.pointee.mNumberBuffers == 1)
        channels[0][2 * 3] = 111
        channels[1][2 * 3] = 222
        let raw = try #require(shorts.audioBufferList.pointee.mBuffers.mData).assumingMemoryBound(to: Int16.self)
        #expect(raw[6] == 111 && raw[7] == 222)
        let words = try #require(AVAudioFormat(commonFormat: .pcmFormatInt32, sampleRate: rate, channels: 1, interleaved: false))
        #expect(AVAudioPCMBuffer(pcmFormat: words, frameCapacity: 4)?.int32ChannelData != nil)
    }

    @Test("no buffer for a coded format or a capacity past 32 bits of bytes")
    func bufferRefusals() throws {
        let aac = try #require(AVAudioFormat(settings: [AVFormatIDKey: Int(kAudioFormatMPEG4AAC), AVSampleRateKey: rate,
                                                        AVNumberOfChannelsKey: 2]))
        #expect(AVAudioPCMBuffer(pcmFormat: aac, frameCapacity: 1024) == nil)
        let planar = try #require(AVAudioFormat(standardFormatWithSampleRate: rate, channels: 2))
        #expect(AVAudioPCMBuffer(pcmFormat: planar, frameCapacity: UInt32.max) == nil)
    }

    @Test("a WAV written from buffers: its header's bytes, and the tones read back to 16 bits")
    func wavRoundTrip() throws {
        let url = temporary("tones.wav")
        defer { try? FileManager.default.removeItem(at: url) }
        let settings: [String: Any] = [AVFormatIDKey: Int(kAudioFormatLinearPCM), AVSampleRateKey: rate,
                                       AVNumberOfChannelsKey: 2, AVLinearPCMBitDepthKey: 16]
        do {
            let file = try AVAudioFile(forWriting: url, settings: settings)
            #expect(file.processingFormat.isStandard && file.processingFormat.channelCount == 2)
            #expect(file.fileFormat.commonFormat == .pcmFormatInt16)
            // As a tap hands them over: several buffers in a row.
            for part in 0..<4 {
                try file.write(from: try toneBuffer(file.processingFormat, frames: 11025, from: part * 11025))
            }
            #expect(file.length == 44100 && file.framePosition == 44100)
        }
        // The header, read as bytes: RIFF/WAVE, PCM, 2 channels, 44100 Hz, 16 bits.
        let bytes = [UInt8](try Data(contentsOf: url))
        func word(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        #expect(String(decoding: bytes[0..<4], as: UTF8.self) == "RIFF" && String(decoding: bytes[8..<12], as: UTF8.self) == "WAVE")
        let fmt = try #require((12..<(bytes.count - 4)).first { String(decoding: bytes[$0..<$0 + 4], as: UTF8.self) == "fmt " })
        #expect(word(fmt + 8) & 0xFFFF == 1 && word(fmt + 8) >> 16 == 2 && word(fmt + 12) == 44100)
        #expect(word(fmt + 20) >> 16 == 16)

        let file = try AVAudioFile(forReading: url)
        #expect(file.length == 44100 && file.fileFormat.commonFormat == .pcmFormatInt16)
        #expect(file.processingFormat.isStandard && file.processingFormat.sampleRate == rate)
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 4096))
        var left: [Float] = [], right: [Float] = []
        while true {
            try file.read(into: buffer)
            if buffer.frameLength == 0 { break }
            left += UnsafeBufferPointer(start: buffer.floatChannelData![0], count: Int(buffer.frameLength))
            right += UnsafeBufferPointer(start: buffer.floatChannelData![1], count: Int(buffer.frameLength))
        }
        #expect(left.count == 44100 && right.count == 44100)
        let worst = (0..<left.count).map { max(abs(left[$0] - sine($0, hz: 440)), abs(right[$0] - sine($0, hz: 660))) }.max() ?? 1
        #expect(worst <= 1.0 / 32768 + 1e-6, "every sample within 16 bits of the tone (worst \(worst))")

        // Seeking: the read goes on from the frame asked for.
        file.framePosition = 22050
        try file.read(into: buffer, frameCount: 100)
        #expect(buffer.frameLength == 100 && file.framePosition == 22150)
        #expect(abs(buffer.floatChannelData![0][0] - sine(22050, hz: 440)) <= 1.0 / 32768 + 1e-6)
    }

    @Test("CAF in Float32 keeps every sample; M4A in AAC keeps its length and its tones")
    func cafAndAAC() throws {
        let caf = temporary("tones.caf")
        defer { try? FileManager.default.removeItem(at: caf) }
        do {
            let file = try AVAudioFile(forWriting: caf, settings: [AVFormatIDKey: Int(kAudioFormatLinearPCM),
                                                                   AVSampleRateKey: rate, AVNumberOfChannelsKey: 2,
                                                                   AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true])
            try file.write(from: try toneBuffer(file.processingFormat, frames: 10000))
        }
        let read = try AVAudioFile(forReading: caf)
        let all = try #require(AVAudioPCMBuffer(pcmFormat: read.processingFormat, frameCapacity: 20000))
        try read.read(into: all)
        #expect(all.frameLength == 10000)
        #expect((0..<10000).allSatisfy { all.floatChannelData![1][$0] == sine($0, hz: 660) })

        let m4a = temporary("tones.m4a")
        defer { try? FileManager.default.removeItem(at: m4a) }
        do {
            let file = try AVAudioFile(forWriting: m4a, settings: [AVFormatIDKey: Int(kAudioFormatMPEG4AAC),
                                                                   AVSampleRateKey: rate, AVNumberOfChannelsKey: 2,
                                                                   AVEncoderBitRateKey: 128000])
            #expect(file.fileFormat.streamDescription.pointee.mFormatID == kAudioFormatMPEG4AAC)
            try file.write(from: try toneBuffer(file.processingFormat, frames: 44100))
            file.close()
            #expect(!file.isOpen)
            #expect(throws: NSError.self) { try file.write(from: try toneBuffer(file.processingFormat, frames: 10)) }
        }
        let aac = try AVAudioFile(forReading: m4a)
        #expect(aac.length == 44100, "the AAC file's valid frames are those written (\(aac.length))")
        let decoded = try #require(AVAudioPCMBuffer(pcmFormat: aac.processingFormat, frameCapacity: 44100))
        try aac.read(into: decoded)
        let left = Array(UnsafeBufferPointer(start: decoded.floatChannelData![0] + 4410, count: 35280))
        let right = Array(UnsafeBufferPointer(start: decoded.floatChannelData![1] + 4410, count: 35280))
        let l440 = level(left, hz: 440), r660 = level(right, hz: 660), crossed = level(left, hz: 660)
        #expect(abs(20 * log10(l440 / 0.5)) < 0.5 && abs(20 * log10(r660 / 0.5)) < 0.5 && crossed < 0.005,
                "AAC keeps each side's tone at its level (440 Hz \(l440), 660 Hz \(r660); the other side's \(crossed))")
    }

    @Test("bad calls give the C API's codes and change nothing")
    func refusals() throws {
        let missing = URL(fileURLWithPath: "/nonexistent/\(getpid()).wav")
        #expect(throws: NSError.self) { _ = try AVAudioFile(forReading: missing) }
        let garbage = temporary("garbage.wav")
        defer { try? FileManager.default.removeItem(at: garbage) }
        var seed: UInt32 = 7
        try Data((0..<5000).map { _ in seed = seed &* 1_664_525 &+ 1_013_904_223; return UInt8(seed >> 24) }).write(to: garbage)
        do {
            _ = try AVAudioFile(forReading: garbage)
            Issue.record("random bytes opened as a sound")
        } catch let error as NSError {
            #expect(error.domain == NSOSStatusErrorDomain && error.code != 0)
        }
        // A buffer in another format than the processing one: kAudio_ParamError, untouched.
        let url = temporary("short.caf")
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            let file = try AVAudioFile(forWriting: url, settings: [AVFormatIDKey: Int(kAudioFormatLinearPCM),
                                                                   AVSampleRateKey: rate, AVNumberOfChannelsKey: 2])
            try file.write(from: try toneBuffer(file.processingFormat, frames: 1000))
        }
        let file = try AVAudioFile(forReading: url)
        let mono = try #require(AVAudioFormat(standardFormatWithSampleRate: rate, channels: 1))
        let wrong = try #require(AVAudioPCMBuffer(pcmFormat: mono, frameCapacity: 100))
        wrong.frameLength = 7
        do {
            try file.read(into: wrong)
            Issue.record("a buffer of the wrong format was read into")
        } catch let error as NSError {
            #expect(error.code == Int(kAudio_ParamError) && wrong.frameLength == 7 && file.framePosition == 0)
        }
        // Writing to a file opened for reading.
        let right = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 10))
        #expect(throws: NSError.self) { try file.write(from: right) }
        #expect(file.length == 1000)
    }
}

@Suite("AVAudioFile written with a format's own settings")
struct AVAudioFileSettingsTests {
    @Test("a deinterleaved Float32 format's settings write an interleaved file, as iOS does")
    func deinterleavedSettings() throws {
        let format = try #require(AVAudioFormat(standardFormatWithSampleRate: 48000, channels: 2))
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("settings-\(getpid()).caf")
        defer { try? FileManager.default.removeItem(at: url) }
        let file = try AVAudioFile(forWriting: url, settings: format.settings)
        #expect(file.fileFormat.isInterleaved && file.fileFormat.commonFormat == .pcmFormatFloat32)
        #expect(file.processingFormat == format)
    }
}
