import AudioQueues
import CAudioToolbox
import Testing

// The queues' property table names its IDs by number (the services layer sees no C
// header): each number against the header's constant, as the C compiler sees it.

private func bits<T: BinaryInteger>(_ value: T) -> UInt32 { UInt32(truncatingIfNeeded: value) }

@Suite("The queues' property and parameter IDs equal the C headers'")
struct QueuePropertyIDTests {
    static let properties: [(String, UInt32, UInt32)] = [
        ("kAudioQueueProperty_IsRunning", QueueProperties.isRunning, bits(kAudioQueueProperty_IsRunning)),
        ("kAudioQueueDeviceProperty_SampleRate", QueueProperties.deviceSampleRate, bits(kAudioQueueDeviceProperty_SampleRate)),
        ("kAudioQueueDeviceProperty_NumberChannels", QueueProperties.deviceNumberChannels,
         bits(kAudioQueueDeviceProperty_NumberChannels)),
        ("kAudioQueueProperty_CurrentDevice", QueueProperties.currentDevice, bits(kAudioQueueProperty_CurrentDevice)),
        ("kAudioQueueProperty_MagicCookie", QueueProperties.magicCookie, bits(kAudioQueueProperty_MagicCookie)),
        ("kAudioQueueProperty_MaximumOutputPacketSize", QueueProperties.maximumOutputPacketSize,
         bits(kAudioQueueProperty_MaximumOutputPacketSize)),
        ("kAudioQueueProperty_StreamDescription", QueueProperties.streamDescription, bits(kAudioQueueProperty_StreamDescription)),
        ("kAudioQueueProperty_ChannelLayout", QueueProperties.channelLayout, bits(kAudioQueueProperty_ChannelLayout)),
        ("kAudioQueueProperty_EnableLevelMetering", QueueProperties.enableLevelMetering,
         bits(kAudioQueueProperty_EnableLevelMetering)),
        ("kAudioQueueProperty_CurrentLevelMeter", QueueProperties.currentLevelMeter, bits(kAudioQueueProperty_CurrentLevelMeter)),
        ("kAudioQueueProperty_CurrentLevelMeterDB", QueueProperties.currentLevelMeterDB,
         bits(kAudioQueueProperty_CurrentLevelMeterDB)),
        ("kAudioQueueProperty_DecodeBufferSizeFrames", QueueProperties.decodeBufferSizeFrames,
         bits(kAudioQueueProperty_DecodeBufferSizeFrames)),
        ("kAudioQueueProperty_ConverterError", QueueProperties.converterError, bits(kAudioQueueProperty_ConverterError)),
        ("kAudioQueueProperty_EnableTimePitch", QueueProperties.enableTimePitch, bits(kAudioQueueProperty_EnableTimePitch)),
        ("kAudioQueueProperty_TimePitchAlgorithm", QueueProperties.timePitchAlgorithm,
         bits(kAudioQueueProperty_TimePitchAlgorithm)),
        ("kAudioQueueProperty_TimePitchBypass", QueueProperties.timePitchBypass, bits(kAudioQueueProperty_TimePitchBypass)),
        // The phone's own two, spelled here as AudioQueue.h gives them for iPhone code.
        ("kAudioQueueProperty_HardwareCodecPolicy", QueueProperties.hardwareCodecPolicy, 0x6171_6370),
        ("kAudioQueueProperty_ChannelAssignments", QueueProperties.channelAssignments, 0x6171_6361),
    ]

    static let parameters: [(String, UInt32, UInt32)] = [
        ("kAudioQueueParam_Volume", QueueProperties.volume, bits(kAudioQueueParam_Volume)),
        ("kAudioQueueParam_PlayRate", QueueProperties.playRate, bits(kAudioQueueParam_PlayRate)),
        ("kAudioQueueParam_Pitch", QueueProperties.pitch, bits(kAudioQueueParam_Pitch)),
        ("kAudioQueueParam_VolumeRampTime", QueueProperties.volumeRampTime, bits(kAudioQueueParam_VolumeRampTime)),
        ("kAudioQueueParam_Pan", QueueProperties.pan, bits(kAudioQueueParam_Pan)),
    ]

    @Test("every ID of the queues' table equals its C constant", arguments: properties + parameters)
    func equalsHeader(_ row: (String, UInt32, UInt32)) {
        #expect(row.1 == row.2, "\(row.0): table \(row.1), header \(row.2)")
    }

    @Test("every row of the table is listed here")
    func everyRowListed() {
        #expect(Set(Self.properties.map(\.1)) == QueueProperties.ids)
    }
}
