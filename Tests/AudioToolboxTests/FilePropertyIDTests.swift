import AudioFiles
import CAudioToolbox
import Testing

// The file and stream property table names its IDs by number (the services layer sees
// no C header): each against both headers' constants, as the C compiler sees them.

private func bits<T: BinaryInteger>(_ value: T) -> UInt32 { UInt32(truncatingIfNeeded: value) }

@Suite("The file and stream property IDs equal the C headers'")
struct FilePropertyIDTests {
    static let ids: [(String, UInt32, UInt32)] = [
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

    @Test("every ID of the file table equals its C constants", arguments: ids)
    func equalsHeader(_ row: (String, UInt32, UInt32)) {
        #expect(row.1 == row.2, "\(row.0): table \(row.1), header \(row.2)")
    }

    @Test("every row of the table is listed here")
    func everyRowListed() {
        #expect(Set(Self.ids.map(\.1)) == FileProperties.ids)
    }

    @Test("a format list item is as long as C's AudioFormatListItem")
    func formatListItemSize() {
        let item = FileProperties.formatListItem(StreamDescription(sampleRate: 44100, formatID: 0x6C70_636D, formatFlags: 12,
                                                                   bytesPerPacket: 4, framesPerPacket: 1, bytesPerFrame: 4,
                                                                   channelsPerFrame: 2, bitsPerChannel: 16))
        #expect(item.count == MemoryLayout<AudioFormatListItem>.stride)
        #expect(MemoryLayout<AudioFilePacketTableInfo>.size == 16)
    }
}

@Suite("The format property IDs equal the C header's")
struct FormatPropertyIDTests {
    static let ids: [(String, UInt32, UInt32)] = [
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

    @Test("every ID of the format table equals its C constant", arguments: ids)
    func equalsHeader(_ row: (String, UInt32, UInt32)) {
        #expect(row.1 == row.2, "\(row.0): table \(row.1), header \(row.2)")
    }

    @Test("every row of the table is listed here")
    func everyRowListed() {
        #expect(Set(Self.ids.map(\.1)) == FormatProperties.ids)
    }

    @Test("the specifier layouts the table reads are C's")
    func layouts() {
        #expect(MemoryLayout<AudioFormatInfo>.offset(of: \.mMagicCookie) == 40)
        #expect(MemoryLayout<AudioFormatInfo>.offset(of: \.mMagicCookieSize) == 48)
        #expect(MemoryLayout<AudioFormatListItem>.stride == 48 && MemoryLayout<AudioClassDescription>.size == 12)
        #expect(MemoryLayout<AudioChannelLayout>.size == 32 && MemoryLayout<AudioValueRange>.size == 16)
    }
}
