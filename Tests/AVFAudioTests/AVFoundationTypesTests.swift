import AVFoundation
import Testing

// `import AVFoundation` alone brings Core Audio's types and constants as on the phone,
// typed as the fields they go in: iPhone Swift code that names them compiles unchanged.

@Suite("import AVFoundation brings CoreAudioTypes")
struct AVFoundationTypesTests {
    @Test("format IDs and flags have the fields' types")
    func typedConstants() {
        let id: AudioFormatID = kAudioFormatMPEG4AAC
        let flags: AudioFormatFlags = kAudioFormatFlagIsFloat | kAudioFormatFlagIsPacked | kAudioFormatFlagIsNonInterleaved
        var description = AudioStreamBasicDescription()
        description.mFormatID = kAudioFormatLinearPCM
        description.mFormatFlags = kAudioFormatFlagsNativeFloatPacked
        description.mSampleRate = 44100
        #expect(id == 0x6161_6320)  // 'aac '
        #expect(flags == 0x29)
        #expect(description.mFormatID == 0x6C70_636D)  // 'lpcm'
        #expect(kAudioFormatFlagsAreAllClear == 0x8000_0000)
        let settings: [String: Any] = [AVFormatIDKey: kAudioFormatAppleLossless, AVNumberOfChannelsKey: 2]
        #expect(settings[AVFormatIDKey] as? AudioFormatID == kAudioFormatAppleLossless)
    }
}
