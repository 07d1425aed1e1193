import AVFAudio
import CAudioToolbox
import Foundation
import Testing

// AVAudioConverter as apps call it: convert(to:from:) for a sample format change, and the
// input-block form (a capture at one rate pulled out at another, AAC encoded into
// compressed buffers and decoded back), with the block's three answers. Expected values
// are the signals' own (a sine's samples, its frequency, its length at the other rate).

private func sineBuffer(_ format: AVAudioFormat, frames: Int, hz: Double, from: Int = 0) throws -> AVAudioPCMBuffer {
    let buffer = try #require(AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(frames)))
    for c in 0..<Int(format.channelCount) {
        for i in 0..<frames {
            let x = 0.5 * sin(2 * Double.pi * hz * Double(from + i) / format.sampleRate + Double(c))
            if let f = buffer.floatChannelData { f[c][i * buffer.stride] = Float(x) }
            if let s = buffer.int16ChannelData { s[c][i * buffer.stride] = Int16(x * 32767) }
        }
    }
    buffer.frameLength = AVAudioFrameCount(frames)
    return buffer
}

/// Rising zero crossings a second in x.
private func frequency(_ x: [Float], rate: Double) -> Double {
    var first = -1, last = -1, count = 0
    for i in 1..<x.count where x[i - 1] < 0 && x[i] >= 0 {
        if first < 0 { first = i } else { count += 1 }
        last = i
    }
    return count > 0 ? Double(count) * rate / Double(last - first) : 0
}

/// Pulls `converter` dry: the block gives `source` in chunks of `chunk` frames, then
/// the end; returns the first channel of everything made and the statuses seen.
private func pullAll(_ converter: AVAudioConverter, _ source: AVAudioPCMBuffer, chunk: Int, outFrames: AVAudioFrameCount)
    throws -> (samples: [Float], statuses: [AVAudioConverterOutputStatus]) {
    var offset = 0
    var samples: [Float] = [], statuses: [AVAudioConverterOutputStatus] = []
    let out = try #require(AVAudioPCMBuffer(pcmFormat: converter.outputFormat, frameCapacity: outFrames))
    let piece = try #require(AVAudioPCMBuffer(pcmFormat: source.format, frameCapacity: AVAudioFrameCount(chunk)))
    while statuses.last != .endOfStream && statuses.count < 10000 {
        var error: NSError?
        let status = converter.convert(to: out, error: &error) { _, status in
            guard offset < Int(source.frameLength) else {
                status.pointee = .endOfStream
                return nil
            }
            let n = min(chunk, Int(source.frameLength) - offset)
            for c in 0..<Int(source.format.channelCount) {
                piece.floatChannelData![c].update(from: source.floatChannelData![c] + offset, count: n)
            }
            piece.frameLength = AVAudioFrameCount(n)
            offset += n
            status.pointee = .haveData
            return piece
        }
        #expect(error == nil)
        statuses.append(status)
        samples += UnsafeBufferPointer(start: out.floatChannelData![0], count: Int(out.frameLength))
    }
    return (samples, statuses)
}

@Suite("AVAudioConverter")
struct AVAudioConverterTests {
    @Test("convert(to:from:): 16-bit interleaved to Float32 deinterleaved, each sample exact; channelMap swaps; a rate change throws")
    func simple() throws {
        let int16 = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 44100, channels: 2, interleaved: true))
        let float = try #require(AVAudioFormat(standardFormatWithSampleRate: 44100, channels: 2))
        let converter = try #require(AVAudioConverter(from: int16, to: float))
        let input = try sineBuffer(int16, frames: 1000, hz: 441)
        let output = try #require(AVAudioPCMBuffer(pcmFormat: float, frameCapacity: 1000))
        try converter.convert(to: output, from: input)
        #expect(output.frameLength == 1000)
        var worst: Float = 0
        for c in 0..<2 {
            for i in 0..<1000 {
                worst = max(worst, abs(output.floatChannelData![c][i] - Float(input.int16ChannelData![0][i * 2 + c]) / 32768))
            }
        }
        #expect(worst < 1e-6, "every sample is the 16-bit value over 32768")
        converter.channelMap = [1, 0]
        try converter.convert(to: output, from: input)
        #expect(output.floatChannelData![0][10] == Float(input.int16ChannelData![0][10 * 2 + 1]) / 32768, "left takes the right")
        let at48 = try #require(AVAudioFormat(standardFormatWithSampleRate: 48000, channels: 2))
        let resampler = try #require(AVAudioConverter(from: float, to: at48))
        #expect(throws: NSError.self) { try resampler.convert(to: output, from: try sineBuffer(float, frames: 100, hz: 441)) }
        // A buffer too small for the input throws and fills nothing.
        let small = try #require(AVAudioPCMBuffer(pcmFormat: float, frameCapacity: 10))
        #expect(throws: NSError.self) { try converter.convert(to: small, from: input) }
    }

    @Test("the block form resamples 44.1 kHz to 48 kHz: a second of 1 kHz comes out a second long at 1 kHz, then endOfStream")
    func resample() throws {
        let from = try #require(AVAudioFormat(standardFormatWithSampleRate: 44100, channels: 1))
        let to = try #require(AVAudioFormat(standardFormatWithSampleRate: 48000, channels: 1))
        let converter = try #require(AVAudioConverter(from: from, to: to))
        converter.sampleRateConverterQuality = AVAudioQuality.max.rawValue
        #expect(converter.sampleRateConverterQuality == AVAudioQuality.max.rawValue)
        let (samples, statuses) = try pullAll(converter, try sineBuffer(from, frames: 44100, hz: 1000), chunk: 1024, outFrames: 4800)
        #expect(abs(samples.count - 48000) <= 64, "\(samples.count) frames")
        #expect(abs(frequency(Array(samples[4800..<43200]), rate: 48000) - 1000) < 0.5)
        #expect(statuses.last == .endOfStream && statuses.dropLast().allSatisfy { $0 == .haveData })
    }

    @Test("noDataNow: the conversion returns inputRanDry with what it made, and goes on when the block has data again")
    func ranDry() throws {
        let from = try #require(AVAudioFormat(standardFormatWithSampleRate: 44100, channels: 1))
        let to = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 44100, channels: 1, interleaved: false))
        let converter = try #require(AVAudioConverter(from: from, to: to))
        let piece = try sineBuffer(from, frames: 300, hz: 441)
        let out = try #require(AVAudioPCMBuffer(pcmFormat: to, frameCapacity: 1000))
        var calls = 0
        var error: NSError?
        let first = converter.convert(to: out, error: &error) { _, status in
            calls += 1
            if calls > 1 {
                status.pointee = .noDataNow
                return nil
            }
            status.pointee = .haveData
            return piece
        }
        #expect(first == .inputRanDry && out.frameLength == 300, "300 frames made, then dry")
        #expect(out.int16ChannelData![0][100] == Int16((piece.floatChannelData![0][100] * 32768).rounded()))
        let second = converter.convert(to: out, error: &error) { _, status in
            status.pointee = .haveData
            return piece
        }
        #expect(second == .haveData && out.frameLength == 1000, "the block has data again: the buffer is filled")
        // The wrong format: given to the block, or as the output, is an error.
        let stereo = try #require(AVAudioFormat(standardFormatWithSampleRate: 44100, channels: 2))
        let wrong = try sineBuffer(stereo, frames: 10, hz: 441)
        let bad = converter.convert(to: out, error: &error) { _, status in
            status.pointee = .haveData
            return wrong
        }
        #expect(bad == .error && error != nil)
        error = nil
        let badOut = try #require(AVAudioPCMBuffer(pcmFormat: stereo, frameCapacity: 10))
        #expect(converter.convert(to: badOut, error: &error) { _, _ in nil } == .error && error != nil)
    }

    @Test("AAC: encoded at 128 kbit/s into compressed buffers and decoded back: the tone at its frequency and level")
    func aac() throws {
        let pcm = try #require(AVAudioFormat(standardFormatWithSampleRate: 44100, channels: 2))
        let aac = try #require(AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44100,
                                                        AVNumberOfChannelsKey: 2]))
        let encoder = try #require(AVAudioConverter(from: pcm, to: aac))
        encoder.bitRate = 128000
        #expect(encoder.bitRate == 128000)
        #expect(encoder.primeInfo.leadingFrames > 0, "the encoder's priming is told")
        let source = try sineBuffer(pcm, frames: 44100, hz: 1000)
        var offset = 0
        var packets: [(Data, AudioStreamPacketDescription)] = []
        var done = false
        while !done {
            let out = AVAudioCompressedBuffer(format: aac, packetCapacity: 8, maximumPacketSize: encoder.maximumOutputPacketSize)
            var error: NSError?
            let status = encoder.convert(to: out, error: &error) { count, status in
                guard offset < 44100 else {
                    status.pointee = .endOfStream
                    return nil
                }
                let n = min(Int(count), 44100 - offset, 2048)
                let piece = AVAudioPCMBuffer(pcmFormat: pcm, frameCapacity: AVAudioFrameCount(n))!
                for c in 0..<2 { piece.floatChannelData![c].update(from: source.floatChannelData![c] + offset, count: n) }
                piece.frameLength = AVAudioFrameCount(n)
                offset += n
                status.pointee = .haveData
                return piece
            }
            #expect(status != .error, "\(String(describing: error))")
            for i in 0..<Int(out.packetCount) {
                let d = out.packetDescriptions![i]
                packets.append((Data(bytes: out.data + Int(d.mStartOffset), count: Int(d.mDataByteSize)), d))
            }
            done = status == .endOfStream || status == .error
        }
        // 44100 frames and the priming, in 1024-frame packets.
        #expect(packets.count >= 44 && packets.count <= 48, "\(packets.count) packets")
        let bits = Double(packets.reduce(0) { $0 + $1.0.count } * 8) / (Double(packets.count) * 1024 / 44100)
        #expect(bits > 90000 && bits < 170000, "\(Int(bits)) bits a second")

        let decoder = try #require(AVAudioConverter(from: aac, to: pcm))
        var next = 0
        var decoded: [Float] = []
        var status = AVAudioConverterOutputStatus.haveData
        while status == .haveData {
            let out = try #require(AVAudioPCMBuffer(pcmFormat: pcm, frameCapacity: 4096))
            var error: NSError?
            status = decoder.convert(to: out, error: &error) { _, inputStatus in
                guard next < packets.count else {
                    inputStatus.pointee = .endOfStream
                    return nil
                }
                let (bytes, _) = packets[next]
                let one = AVAudioCompressedBuffer(format: aac, packetCapacity: 1, maximumPacketSize: bytes.count)
                bytes.withUnsafeBytes { one.data.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
                one.packetDescriptions![0] = AudioStreamPacketDescription(mStartOffset: 0, mVariableFramesInPacket: 0,
                                                                          mDataByteSize: UInt32(bytes.count))
                one.packetCount = 1
                one.byteLength = UInt32(bytes.count)
                next += 1
                inputStatus.pointee = .haveData
                return one
            }
            #expect(status != .error, "\(String(describing: error))")
            decoded += UnsafeBufferPointer(start: out.floatChannelData![0], count: Int(out.frameLength))
        }
        #expect(decoded.count >= 44100)
        let middle = Array(decoded[11025..<33075])
        #expect(abs(frequency(middle, rate: 44100) - 1000) < 1)
        let peak = middle.map(abs).max() ?? 0
        #expect(abs(20 * log10(Double(peak) / 0.5)) < 0.5, "level within 0.5 dB: peak \(peak)")
    }
}
