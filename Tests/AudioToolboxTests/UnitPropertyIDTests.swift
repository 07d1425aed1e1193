import AudioUnits
import CAudioToolbox
import Testing

// The units' property table names its IDs by number (the services layer sees no C
// header): each number against the header's constant, as the C compiler sees it.

private func bits<T: BinaryInteger>(_ value: T) -> UInt32 { UInt32(truncatingIfNeeded: value) }

@Suite("The units' property IDs equal the C headers'")
struct UnitPropertyIDTests {
    static let ids: [(String, UInt32, UInt32)] = [
        ("kAudioUnitProperty_MakeConnection", UnitProperties.makeConnection, bits(kAudioUnitProperty_MakeConnection)),
        ("kAudioUnitProperty_SampleRate", UnitProperties.sampleRate, bits(kAudioUnitProperty_SampleRate)),
        ("kAudioUnitProperty_StreamFormat", UnitProperties.streamFormat, bits(kAudioUnitProperty_StreamFormat)),
        ("kAudioUnitProperty_ElementCount", UnitProperties.elementCount, bits(kAudioUnitProperty_ElementCount)),
        ("kAudioUnitProperty_Latency", UnitProperties.latency, bits(kAudioUnitProperty_Latency)),
        ("kAudioUnitProperty_MaximumFramesPerSlice", UnitProperties.maximumFramesPerSlice, bits(kAudioUnitProperty_MaximumFramesPerSlice)),
        ("kAudioUnitProperty_TailTime", UnitProperties.tailTime, bits(kAudioUnitProperty_TailTime)),
        ("kAudioUnitProperty_LastRenderError", UnitProperties.lastRenderError, bits(kAudioUnitProperty_LastRenderError)),
        ("kAudioUnitProperty_SetRenderCallback", UnitProperties.setRenderCallback, bits(kAudioUnitProperty_SetRenderCallback)),
        ("kAudioUnitProperty_RenderQuality", UnitProperties.renderQuality, bits(kAudioUnitProperty_RenderQuality)),
        ("kAudioUnitProperty_ShouldAllocateBuffer", UnitProperties.shouldAllocateBuffer, bits(kAudioUnitProperty_ShouldAllocateBuffer)),
        ("kAudioOutputUnitProperty_IsRunning", UnitProperties.isRunning, bits(kAudioOutputUnitProperty_IsRunning)),
        ("kAudioOutputUnitProperty_EnableIO", UnitProperties.enableIO, bits(kAudioOutputUnitProperty_EnableIO)),
        ("kAudioOutputUnitProperty_SetInputCallback", UnitProperties.setInputCallback, bits(kAudioOutputUnitProperty_SetInputCallback)),
        ("kAUVoiceIOProperty_BypassVoiceProcessing", UnitProperties.bypassVoiceProcessing, bits(kAUVoiceIOProperty_BypassVoiceProcessing)),
        ("kAUVoiceIOProperty_VoiceProcessingEnableAGC", UnitProperties.voiceProcessingEnableAGC, bits(kAUVoiceIOProperty_VoiceProcessingEnableAGC)),
        ("kAUVoiceIOProperty_MuteOutput", UnitProperties.muteOutput, bits(kAUVoiceIOProperty_MuteOutput)),
        ("kAudioUnitProperty_MeteringMode", UnitProperties.meteringMode, bits(kAudioUnitProperty_MeteringMode)),
        ("kAudioUnitProperty_SampleRateConverterComplexity", UnitProperties.sampleRateConverterComplexity,
         bits(kAudioUnitProperty_SampleRateConverterComplexity)),
    ]

    @Test("every ID of the units' table equals its C constant", arguments: ids)
    func equalsHeader(_ row: (String, UInt32, UInt32)) {
        #expect(row.1 == row.2, "\(row.0): table \(row.1), header \(row.2)")
    }

    @Test("every row of the table is listed here")
    func everyRowListed() {
        #expect(Set(Self.ids.map(\.1)) == UnitProperties.ids)
    }

    @Test("an AudioStreamBasicDescription is the 40 bytes the table reads and writes")
    func descriptionLayout() {
        #expect(MemoryLayout<AudioStreamBasicDescription>.size == 40)
        #expect(MemoryLayout<AURenderCallbackStruct>.size == 16 && MemoryLayout<AudioUnitConnection>.size == 16)
        #expect(MemoryLayout<AudioUnitConnection>.offset(of: \.sourceOutputNumber) == 8)
        #expect(MemoryLayout<AudioUnitConnection>.offset(of: \.destInputNumber) == 12)
        #expect(MemoryLayout<AudioStreamBasicDescription>.offset(of: \.mFormatID) == 8)
        #expect(MemoryLayout<AudioStreamBasicDescription>.offset(of: \.mBitsPerChannel) == 32)
    }
}
