import AudioFiles
import AudioQueues
import AudioUnits
import CAudioToolbox
import Testing

// The services' property tables name their IDs by number (the services layer sees no
// C header): each number against the header's constant, as the C compiler sees it, and
// the C layouts the tables read and write against the C compiler's.

private func bits<T: BinaryInteger>(_ value: T) -> UInt32 { UInt32(truncatingIfNeeded: value) }

@Suite("The property tables' IDs and layouts equal the C headers'")
struct PropertyIDTests {
    static let units: [(String, UInt32, UInt32)] = [
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
        ("kAudioUnitProperty_ParameterList", UnitProperties.parameterList, bits(kAudioUnitProperty_ParameterList)),
        ("kAudioUnitProperty_ParameterInfo", UnitProperties.parameterInfo, bits(kAudioUnitProperty_ParameterInfo)),
        ("kAudioUnitProperty_BypassEffect", UnitProperties.bypassEffect, bits(kAudioUnitProperty_BypassEffect)),
        ("kAudioUnitProperty_MatrixLevels", UnitProperties.matrixLevels, bits(kAudioUnitProperty_MatrixLevels)),
        ("kAudioUnitProperty_MatrixDimensions", UnitProperties.matrixDimensions, bits(kAudioUnitProperty_MatrixDimensions)),
        ("kAudioUnitProperty_SpatializationAlgorithm", UnitProperties.spatializationAlgorithm,
         bits(kAudioUnitProperty_SpatializationAlgorithm)),
        ("kAudioUnitProperty_3DMixerRenderingFlags", UnitProperties.renderingFlags3D, bits(kAudioUnitProperty_3DMixerRenderingFlags)),
        ("kAudioUnitProperty_3DMixerDistanceParams", UnitProperties.distanceParams3D, bits(kAudioUnitProperty_3DMixerDistanceParams)),
        ("kAudioUnitProperty_3DMixerAttenuationCurve", UnitProperties.attenuationCurve3D,
         bits(kAudioUnitProperty_3DMixerAttenuationCurve)),
        ("kAudioUnitProperty_ClassInfo", UnitProperties.classInfo, bits(kAudioUnitProperty_ClassInfo)),
        ("kAudioUnitProperty_FactoryPresets", UnitProperties.factoryPresets, bits(kAudioUnitProperty_FactoryPresets)),
        ("kAudioUnitProperty_PresentPreset", UnitProperties.presentPreset, bits(kAudioUnitProperty_PresentPreset)),
        ("kAUNBandEQProperty_NumberOfBands", UnitProperties.numberOfBands, bits(kAUNBandEQProperty_NumberOfBands)),
        ("kAUNBandEQProperty_MaxNumberOfBands", UnitProperties.maximumNumberOfBands, bits(kAUNBandEQProperty_MaxNumberOfBands)),
        ("kAUNBandEQProperty_BiquadCoefficients", UnitProperties.biquadCoefficients,
         bits(kAUNBandEQProperty_BiquadCoefficients)),
        ("kAUSamplerProperty_LoadPresetFromBank", UnitProperties.loadPresetFromBank, bits(kAUSamplerProperty_LoadPresetFromBank)),
        ("kAUSamplerProperty_LoadAudioFiles", UnitProperties.loadAudioFiles, bits(kAUSamplerProperty_LoadAudioFiles)),
        ("kAUSamplerProperty_LoadInstrument", UnitProperties.loadInstrument, bits(kAUSamplerProperty_LoadInstrument)),
        ("kAudioUnitProperty_OfflineRender", UnitProperties.offlineRender, bits(kAudioUnitProperty_OfflineRender)),
        ("kAudioUnitProperty_ScheduleAudioSlice", UnitProperties.scheduleAudioSlice, bits(kAudioUnitProperty_ScheduleAudioSlice)),
        ("kAudioUnitProperty_ScheduleStartTimeStamp", UnitProperties.scheduleStartTimeStamp,
         bits(kAudioUnitProperty_ScheduleStartTimeStamp)),
        ("kAudioUnitProperty_CurrentPlayTime", UnitProperties.currentPlayTime, bits(kAudioUnitProperty_CurrentPlayTime)),
        ("kAudioUnitProperty_ScheduledFileIDs", UnitProperties.scheduledFileIDs, bits(kAudioUnitProperty_ScheduledFileIDs)),
        ("kAudioUnitProperty_ScheduledFileRegion", UnitProperties.scheduledFileRegion, bits(kAudioUnitProperty_ScheduledFileRegion)),
        ("kAudioUnitProperty_ScheduledFilePrime", UnitProperties.scheduledFilePrime, bits(kAudioUnitProperty_ScheduledFilePrime)),
    ]

    static let queues: [(String, UInt32, UInt32)] = [
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

    static let queueParameters: [(String, UInt32, UInt32)] = [
        ("kAudioQueueParam_Volume", QueueProperties.volume, bits(kAudioQueueParam_Volume)),
        ("kAudioQueueParam_PlayRate", QueueProperties.playRate, bits(kAudioQueueParam_PlayRate)),
        ("kAudioQueueParam_Pitch", QueueProperties.pitch, bits(kAudioQueueParam_Pitch)),
        ("kAudioQueueParam_VolumeRampTime", QueueProperties.volumeRampTime, bits(kAudioQueueParam_VolumeRampTime)),
        ("kAudioQueueParam_Pan", QueueProperties.pan, bits(kAudioQueueParam_Pan)),
    ]

    /// Audio File's and Audio File Stream's constants: one table serves both.
    static let files: [(String, UInt32, UInt32)] = [
        ("kAudioFilePropertyFileFormat", FileProperties.fileFormat, bits(kAudioFilePropertyFileFormat)),
        ("kAudioFileStreamProperty_FileFormat", FileProperties.fileFormat, bits(kAudioFileStreamProperty_FileFormat)),
        ("kAudioFilePropertyDataFormat", FileProperties.dataFormat, bits(kAudioFilePropertyDataFormat)),
        ("kAudioFileStreamProperty_DataFormat", FileProperties.dataFormat, bits(kAudioFileStreamProperty_DataFormat)),
        ("kAudioFilePropertyIsOptimized", FileProperties.isOptimized, bits(kAudioFilePropertyIsOptimized)),
        ("kAudioFilePropertyMagicCookieData", FileProperties.magicCookieData, bits(kAudioFilePropertyMagicCookieData)),
        ("kAudioFileStreamProperty_MagicCookieData", FileProperties.magicCookieData, bits(kAudioFileStreamProperty_MagicCookieData)),
        ("kAudioFilePropertyAudioDataByteCount", FileProperties.audioDataByteCount, bits(kAudioFilePropertyAudioDataByteCount)),
        ("kAudioFileStreamProperty_AudioDataByteCount", FileProperties.audioDataByteCount,
         bits(kAudioFileStreamProperty_AudioDataByteCount)),
        ("kAudioFilePropertyAudioDataPacketCount", FileProperties.audioDataPacketCount, bits(kAudioFilePropertyAudioDataPacketCount)),
        ("kAudioFileStreamProperty_AudioDataPacketCount", FileProperties.audioDataPacketCount,
         bits(kAudioFileStreamProperty_AudioDataPacketCount)),
        ("kAudioFilePropertyMaximumPacketSize", FileProperties.maximumPacketSize, bits(kAudioFilePropertyMaximumPacketSize)),
        ("kAudioFileStreamProperty_MaximumPacketSize", FileProperties.maximumPacketSize,
         bits(kAudioFileStreamProperty_MaximumPacketSize)),
        ("kAudioFilePropertyDataOffset", FileProperties.dataOffset, bits(kAudioFilePropertyDataOffset)),
        ("kAudioFileStreamProperty_DataOffset", FileProperties.dataOffset, bits(kAudioFileStreamProperty_DataOffset)),
        ("kAudioFilePropertyChannelLayout", FileProperties.channelLayout, bits(kAudioFilePropertyChannelLayout)),
        ("kAudioFileStreamProperty_ChannelLayout", FileProperties.channelLayout, bits(kAudioFileStreamProperty_ChannelLayout)),
        ("kAudioFilePropertyDeferSizeUpdates", FileProperties.deferSizeUpdates, bits(kAudioFilePropertyDeferSizeUpdates)),
        ("kAudioFilePropertyPacketTableInfo", FileProperties.packetTableInfo, bits(kAudioFilePropertyPacketTableInfo)),
        ("kAudioFileStreamProperty_PacketTableInfo", FileProperties.packetTableInfo, bits(kAudioFileStreamProperty_PacketTableInfo)),
        ("kAudioFilePropertyFormatList", FileProperties.formatList, bits(kAudioFilePropertyFormatList)),
        ("kAudioFileStreamProperty_FormatList", FileProperties.formatList, bits(kAudioFileStreamProperty_FormatList)),
        ("kAudioFilePropertyPacketSizeUpperBound", FileProperties.packetSizeUpperBound, bits(kAudioFilePropertyPacketSizeUpperBound)),
        ("kAudioFileStreamProperty_PacketSizeUpperBound", FileProperties.packetSizeUpperBound,
         bits(kAudioFileStreamProperty_PacketSizeUpperBound)),
        ("kAudioFilePropertyEstimatedDuration", FileProperties.estimatedDuration, bits(kAudioFilePropertyEstimatedDuration)),
        ("kAudioFilePropertyBitRate", FileProperties.bitRate, bits(kAudioFilePropertyBitRate)),
        ("kAudioFileStreamProperty_BitRate", FileProperties.bitRate, bits(kAudioFileStreamProperty_BitRate)),
        ("kAudioFilePropertySourceBitDepth", FileProperties.sourceBitDepth, bits(kAudioFilePropertySourceBitDepth)),
        ("kAudioFilePropertyAudioTrackCount", FileProperties.audioTrackCount, bits(kAudioFilePropertyAudioTrackCount)),
        ("kAudioFileStreamProperty_ReadyToProducePackets", FileProperties.readyToProducePackets,
         bits(kAudioFileStreamProperty_ReadyToProducePackets)),
        ("kAudioFileStreamProperty_AverageBytesPerPacket", FileProperties.averageBytesPerPacket,
         bits(kAudioFileStreamProperty_AverageBytesPerPacket)),
    ]

    static let formats: [(String, UInt32, UInt32)] = [
        ("kAudioFormatProperty_FormatInfo", FormatProperties.formatInfo, bits(kAudioFormatProperty_FormatInfo)),
        ("kAudioFormatProperty_FormatName", FormatProperties.formatName, bits(kAudioFormatProperty_FormatName)),
        ("kAudioFormatProperty_EncodeFormatIDs", FormatProperties.encodeFormatIDs, bits(kAudioFormatProperty_EncodeFormatIDs)),
        ("kAudioFormatProperty_DecodeFormatIDs", FormatProperties.decodeFormatIDs, bits(kAudioFormatProperty_DecodeFormatIDs)),
        ("kAudioFormatProperty_FormatList", FormatProperties.formatList, bits(kAudioFormatProperty_FormatList)),
        ("kAudioFormatProperty_OutputFormatList", FormatProperties.outputFormatList, bits(kAudioFormatProperty_OutputFormatList)),
        ("kAudioFormatProperty_FirstPlayableFormatFromList", FormatProperties.firstPlayableFormatFromList,
         bits(kAudioFormatProperty_FirstPlayableFormatFromList)),
        ("kAudioFormatProperty_FormatIsVBR", FormatProperties.formatIsVBR, bits(kAudioFormatProperty_FormatIsVBR)),
        ("kAudioFormatProperty_FormatIsExternallyFramed", FormatProperties.formatIsExternallyFramed,
         bits(kAudioFormatProperty_FormatIsExternallyFramed)),
        ("kAudioFormatProperty_FormatIsEncrypted", FormatProperties.formatIsEncrypted, bits(kAudioFormatProperty_FormatIsEncrypted)),
        ("kAudioFormatProperty_Encoders", FormatProperties.encoders, bits(kAudioFormatProperty_Encoders)),
        ("kAudioFormatProperty_Decoders", FormatProperties.decoders, bits(kAudioFormatProperty_Decoders)),
        ("kAudioFormatProperty_AvailableEncodeSampleRates", FormatProperties.availableEncodeSampleRates,
         bits(kAudioFormatProperty_AvailableEncodeSampleRates)),
        ("kAudioFormatProperty_AvailableEncodeBitRates", FormatProperties.availableEncodeBitRates,
         bits(kAudioFormatProperty_AvailableEncodeBitRates)),
        ("kAudioFormatProperty_NumberOfChannelsForLayout", FormatProperties.numberOfChannelsForLayout,
         bits(kAudioFormatProperty_NumberOfChannelsForLayout)),
        ("kAudioFormatProperty_ChannelLayoutForTag", FormatProperties.channelLayoutForTag,
         bits(kAudioFormatProperty_ChannelLayoutForTag)),
    ]

    static let extendedFiles: [(String, UInt32, UInt32)] = [
        ("kExtAudioFileProperty_FileDataFormat", ExtFileProperties.fileDataFormat, bits(kExtAudioFileProperty_FileDataFormat)),
        ("kExtAudioFileProperty_FileChannelLayout", ExtFileProperties.fileChannelLayout, bits(kExtAudioFileProperty_FileChannelLayout)),
        ("kExtAudioFileProperty_ClientDataFormat", ExtFileProperties.clientDataFormat, bits(kExtAudioFileProperty_ClientDataFormat)),
        ("kExtAudioFileProperty_ClientChannelLayout", ExtFileProperties.clientChannelLayout, bits(kExtAudioFileProperty_ClientChannelLayout)),
        ("kExtAudioFileProperty_CodecManufacturer", ExtFileProperties.codecManufacturer, bits(kExtAudioFileProperty_CodecManufacturer)),
        ("kExtAudioFileProperty_AudioConverter", ExtFileProperties.audioConverter, bits(kExtAudioFileProperty_AudioConverter)),
        ("kExtAudioFileProperty_AudioFile", ExtFileProperties.audioFile, bits(kExtAudioFileProperty_AudioFile)),
        ("kExtAudioFileProperty_FileMaxPacketSize", ExtFileProperties.fileMaxPacketSize, bits(kExtAudioFileProperty_FileMaxPacketSize)),
        ("kExtAudioFileProperty_ClientMaxPacketSize", ExtFileProperties.clientMaxPacketSize, bits(kExtAudioFileProperty_ClientMaxPacketSize)),
        ("kExtAudioFileProperty_FileLengthFrames", ExtFileProperties.fileLengthFrames, bits(kExtAudioFileProperty_FileLengthFrames)),
        ("kExtAudioFileProperty_ConverterConfig", ExtFileProperties.converterConfig, bits(kExtAudioFileProperty_ConverterConfig)),
        ("kExtAudioFileProperty_IOBufferSizeBytes", ExtFileProperties.ioBufferSizeBytes, bits(kExtAudioFileProperty_IOBufferSizeBytes)),
        ("kExtAudioFileProperty_IOBuffer", ExtFileProperties.ioBuffer, bits(kExtAudioFileProperty_IOBuffer)),
        ("kExtAudioFileProperty_PacketTable", ExtFileProperties.packetTable, bits(kExtAudioFileProperty_PacketTable)),
    ]

    static let objects: [(String, UInt32, UInt32)] = [
        ("kAudioFilePropertyInfoDictionary", FileProperties.infoDictionary, bits(kAudioFilePropertyInfoDictionary)),
    ]

    static let globalInfo: [(String, UInt32, UInt32)] = [
        ("kAudioFileGlobalInfo_ReadableTypes", FileGlobalInfo.readableTypes, bits(kAudioFileGlobalInfo_ReadableTypes)),
        ("kAudioFileGlobalInfo_WritableTypes", FileGlobalInfo.writableTypes, bits(kAudioFileGlobalInfo_WritableTypes)),
        ("kAudioFileGlobalInfo_FileTypeName", FileGlobalInfo.fileTypeName, bits(kAudioFileGlobalInfo_FileTypeName)),
        ("kAudioFileGlobalInfo_AvailableFormatIDs", FileGlobalInfo.availableFormatIDs, bits(kAudioFileGlobalInfo_AvailableFormatIDs)),
        ("kAudioFileGlobalInfo_AllExtensions", FileGlobalInfo.allExtensions, bits(kAudioFileGlobalInfo_AllExtensions)),
        ("kAudioFileGlobalInfo_AllMIMETypes", FileGlobalInfo.allMIMETypes, bits(kAudioFileGlobalInfo_AllMIMETypes)),
        ("kAudioFileGlobalInfo_ExtensionsForType", FileGlobalInfo.extensionsForType, bits(kAudioFileGlobalInfo_ExtensionsForType)),
        ("kAudioFileGlobalInfo_MIMETypesForType", FileGlobalInfo.mimeTypesForType, bits(kAudioFileGlobalInfo_MIMETypesForType)),
    ]

    @Test("every ID of a table equals its C constant",
          arguments: units + queues + queueParameters + files + formats + extendedFiles + globalInfo + objects)
    func equalsHeader(_ row: (String, UInt32, UInt32)) {
        #expect(row.1 == row.2, "\(row.0): table \(row.1), header \(row.2)")
    }

    @Test("every row of every table is listed here")
    func everyRowListed() {
        #expect(Set(Self.units.map(\.1)) == UnitProperties.ids)
        #expect(Set(Self.queues.map(\.1)) == QueueProperties.ids)
        #expect(Set(Self.files.map(\.1)) == FileProperties.ids)
        #expect(Set(Self.formats.map(\.1)) == FormatProperties.ids)
        #expect(Set(Self.extendedFiles.map(\.1)) == ExtFileProperties.ids)
        #expect(Set(Self.globalInfo.map(\.1)) == FileGlobalInfo.ids)
    }

    @Test("the C layouts the tables read and write")
    func layouts() {
        #expect(MemoryLayout<AudioStreamBasicDescription>.size == 40)
        #expect(MemoryLayout<AudioStreamBasicDescription>.offset(of: \.mFormatID) == 8)
        #expect(MemoryLayout<AudioStreamBasicDescription>.offset(of: \.mBitsPerChannel) == 32)
        #expect(MemoryLayout<AURenderCallbackStruct>.size == 16 && MemoryLayout<AudioUnitConnection>.size == 16)
        #expect(MemoryLayout<AudioUnitConnection>.offset(of: \.sourceOutputNumber) == 8)
        #expect(MemoryLayout<AudioUnitConnection>.offset(of: \.destInputNumber) == 12)
        // The object-valued rows: an AUPreset's name and the sampler's two structs.
        #expect(MemoryLayout<AUPreset>.size == UnitProperties.presetSize)
        #expect(MemoryLayout<AUPreset>.offset(of: \.presetName) == 8)
        #expect(MemoryLayout<AUSamplerInstrumentData>.size == UnitProperties.presetSize)
        #expect(MemoryLayout<AUSamplerInstrumentData>.offset(of: \.instrumentType) == 8)
        #expect(MemoryLayout<AUSamplerInstrumentData>.offset(of: \.presetID) == 11)
        #expect(MemoryLayout<AUSamplerBankPresetData>.size == UnitProperties.presetSize)
        #expect(MemoryLayout<AUSamplerBankPresetData>.offset(of: \.presetID) == 10)
        // The event structures the ABI reads by size and offset (MusicTrackFunctions).
        #expect(MemoryLayout<MIDINoteMessage>.size == 8 && MemoryLayout<MIDIChannelMessage>.size == 4)
        #expect(MemoryLayout<ParameterEvent>.size == 16 && MemoryLayout<ExtendedTempoEvent>.size == 8)
        #expect(MemoryLayout<AUPresetEvent>.size == 16 && MemoryLayout<AUPresetEvent>.offset(of: \.preset) == 8)
        #expect(MemoryLayout<MIDIRawData>.offset(of: \.data) == 4 && MemoryLayout<MusicEventUserData>.offset(of: \.data) == 4)
        #expect(MemoryLayout<MIDIMetaEvent>.offset(of: \.dataLength) == 4 && MemoryLayout<MIDIMetaEvent>.offset(of: \.data) == 8)
        #expect(MemoryLayout<ExtendedNoteOnEvent>.size == 32)
        #expect(MemoryLayout<ExtendedNoteOnEvent>.offset(of: \.extendedParams) == 12)
        #expect(MemoryLayout<MusicTrackLoopInfo>.size == 16 && MemoryLayout<CABarBeatTime>.size == 12)
        // The scheduled players read the program's structures by these offsets.
        #expect(MemoryLayout<MixerDistanceParams>.size == 12)
        #expect(MemoryLayout<MixerDistanceParams>.offset(of: \.mMaxAttenuation) == 8)
        #expect(MemoryLayout<ScheduledAudioSlice>.size == UnitProperties.scheduledSize)
        #expect(MemoryLayout<ScheduledAudioSlice>.offset(of: \.mCompletionProc) == 64)
        #expect(MemoryLayout<ScheduledAudioSlice>.offset(of: \.mFlags) == 80)
        #expect(MemoryLayout<ScheduledAudioSlice>.offset(of: \.mNumberFrames) == 96)
        #expect(MemoryLayout<ScheduledAudioSlice>.offset(of: \.mBufferList) == 104)
        #expect(MemoryLayout<ScheduledAudioFileRegion>.size == UnitProperties.scheduledSize)
        #expect(MemoryLayout<ScheduledAudioFileRegion>.offset(of: \.mAudioFile) == 80)
        #expect(MemoryLayout<ScheduledAudioFileRegion>.offset(of: \.mLoopCount) == 88)
        #expect(MemoryLayout<ScheduledAudioFileRegion>.offset(of: \.mStartFrame) == 96)
        #expect(MemoryLayout<ScheduledAudioFileRegion>.offset(of: \.mFramesToPlay) == 104)
        #expect(MemoryLayout<AudioTimeStamp>.size == UnitProperties.timeStampSize)
        #expect(MemoryLayout<AudioFilePacketTableInfo>.size == 16)
        #expect(MemoryLayout<AudioFormatInfo>.offset(of: \.mMagicCookie) == 40)
        #expect(MemoryLayout<AudioFormatInfo>.offset(of: \.mMagicCookieSize) == 48)
        #expect(MemoryLayout<AudioFormatListItem>.stride == 48 && MemoryLayout<AudioClassDescription>.size == 12)
        #expect(MemoryLayout<AudioChannelLayout>.size == 32 && MemoryLayout<AudioValueRange>.size == 16)
        let item = FileProperties.formatListItem(StreamDescription(sampleRate: 44100, formatID: 0x6C70_636D, formatFlags: 12,
                                                                   bytesPerPacket: 4, framesPerPacket: 1, bytesPerFrame: 4,
                                                                   channelsPerFrame: 2, bitsPerChannel: 16))
        #expect(item.count == MemoryLayout<AudioFormatListItem>.stride)
        // ParameterInfo's bytes, at the places C reads them.
        typealias Info = AudioUnitParameterInfo
        #expect(MemoryLayout<Info>.size == UnitProperties.parameterInfoSize)
        #expect(MemoryLayout<Info>.offset(of: \.unit) == 80 && MemoryLayout<Info>.offset(of: \.minValue) == 84)
        #expect(MemoryLayout<Info>.offset(of: \.maxValue) == 88 && MemoryLayout<Info>.offset(of: \.defaultValue) == 92)
        #expect(MemoryLayout<Info>.offset(of: \.flags) == 96 && MemoryLayout<Info>.offset(of: \.cfNameString) == 72)
    }
}
