import AVFAudio
import CAudioToolbox
import Foundation
import Testing

// AVAudioFormat against the descriptions iOS documents for each common format (the
// expected fields are written out, not computed), its settings round trip, and the
// descriptions it refuses.

private struct Expected: Sendable, CustomStringConvertible {
    let format: AVAudioCommonFormat
    let interleaved: Bool
    let flags: UInt32, bytesPerFrame: UInt32, bits: UInt32
    var description: String { "\(format) interleaved=\(interleaved)" }
}

@Suite("AVAudioFormat")
struct AVAudioFormatTests {
    // Float: 1, big-endian: 2, signed integer: 4, packed: 8, non-interleaved: 32.
    @Test("common formats make the descriptions iOS makes", arguments: [
        Expected(format: .pcmFormatFloat32, interleaved: false, flags: 41, bytesPerFrame: 4, bits: 32),
        Expected(format: .pcmFormatFloat32, interleaved: true, flags: 9, bytesPerFrame: 8, bits: 32),
        Expected(format: .pcmFormatFloat64, interleaved: true, flags: 9, bytesPerFrame: 16, bits: 64),
        Expected(format: .pcmFormatInt16, interleaved: true, flags: 12, bytesPerFrame: 4, bits: 16),
        Expected(format: .pcmFormatInt16, interleaved: false, flags: 44, bytesPerFrame: 2, bits: 16),
        Expected(format: .pcmFormatInt32, interleaved: true, flags: 12, bytesPerFrame: 8, bits: 32),
    ])
    fileprivate func commonFormats(_ expected: Expected) throws {
        let format = try #require(AVAudioFormat(commonFormat: expected.format, sampleRate: 44100, channels: 2,
                                                interleaved: expected.interleaved))
        let d = format.streamDescription.pointee
        #expect(d.mFormatID == 0x6C70_636D && d.mSampleRate == 44100 && d.mChannelsPerFrame == 2)
        #expect(d.mFormatFlags == expected.flags)
        #expect(d.mBytesPerFrame == expected.bytesPerFrame && d.mBytesPerPacket == expected.bytesPerFrame)
        #expect(d.mFramesPerPacket == 1 && d.mBitsPerChannel == expected.bits)
        #expect(format.commonFormat == expected.format && format.isInterleaved == expected.interleaved)
        #expect(format.isStandard == (expected.format == .pcmFormatFloat32 && !expected.interleaved))
        // Its settings make the same format again.
        let again = try #require(AVAudioFormat(settings: format.settings))
        #expect(again == format)
    }

    @Test("the standard format is deinterleaved Float32")
    func standard() throws {
        let format = try #require(AVAudioFormat(standardFormatWithSampleRate: 48000, channels: 1))
        #expect(format.isStandard && format.sampleRate == 48000 && format.channelCount == 1 && format.isInterleaved)
        #expect(format.settings[AVLinearPCMIsFloatKey] as? Bool == true)
    }

    @Test("settings of the recorder's compressed formats")
    func compressed() throws {
        let aac = try #require(AVAudioFormat(settings: [AVFormatIDKey: Int(kAudioFormatMPEG4AAC), AVSampleRateKey: 44100.0,
                                                        AVNumberOfChannelsKey: 2]))
        #expect(aac.commonFormat == .otherFormat && aac.streamDescription.pointee.mFramesPerPacket == 1024)
        let ima4 = try #require(AVAudioFormat(settings: [AVFormatIDKey: Int(kAudioFormatAppleIMA4), AVSampleRateKey: 22050.0,
                                                         AVNumberOfChannelsKey: 1]))
        #expect(ima4.streamDescription.pointee.mBytesPerPacket == 34 && ima4.streamDescription.pointee.mFramesPerPacket == 64)
        let alac = try #require(AVAudioFormat(settings: [AVFormatIDKey: Int(kAudioFormatAppleLossless), AVSampleRateKey: 48000.0,
                                                         AVNumberOfChannelsKey: 2, AVEncoderBitDepthHintKey: 24]))
        #expect(alac.streamDescription.pointee.mFormatFlags == 3 && alac.streamDescription.pointee.mFramesPerPacket == 4096)
    }

    @Test("descriptions that are no format give nil", arguments: [
        AudioStreamBasicDescription(mSampleRate: 0, mFormatID: 0x6C70_636D, mFormatFlags: 12, mBytesPerPacket: 4,
                                    mFramesPerPacket: 1, mBytesPerFrame: 4, mChannelsPerFrame: 2, mBitsPerChannel: 16, mReserved: 0),
        AudioStreamBasicDescription(mSampleRate: .nan, mFormatID: 0x6C70_636D, mFormatFlags: 12, mBytesPerPacket: 4,
                                    mFramesPerPacket: 1, mBytesPerFrame: 4, mChannelsPerFrame: 2, mBitsPerChannel: 16, mReserved: 0),
        AudioStreamBasicDescription(mSampleRate: 44100, mFormatID: 0x6C70_636D, mFormatFlags: 12, mBytesPerPacket: 4,
                                    mFramesPerPacket: 1, mBytesPerFrame: 4, mChannelsPerFrame: 0, mBitsPerChannel: 16, mReserved: 0),
        // Sizes that disagree: 16-bit stereo in 3 bytes.
        AudioStreamBasicDescription(mSampleRate: 44100, mFormatID: 0x6C70_636D, mFormatFlags: 12, mBytesPerPacket: 3,
                                    mFramesPerPacket: 1, mBytesPerFrame: 3, mChannelsPerFrame: 2, mBitsPerChannel: 16, mReserved: 0),
    ])
    func refused(_ description: AudioStreamBasicDescription) {
        var d = description
        #expect(AVAudioFormat(streamDescription: &d) == nil)
    }

    @Test("settings without a rate or a channel count, or of a format we do not know, give nil")
    func refusedSettings() {
        #expect(AVAudioFormat(settings: [AVSampleRateKey: 44100.0]) == nil)
        #expect(AVAudioFormat(settings: [AVNumberOfChannelsKey: 2]) == nil)
        #expect(AVAudioFormat(settings: [AVFormatIDKey: 0x6D70_3320, AVSampleRateKey: 44100.0, AVNumberOfChannelsKey: 2]) == nil)
        #expect(AVAudioFormat(commonFormat: .otherFormat, sampleRate: 44100, channels: 2, interleaved: true) == nil)
    }
}
