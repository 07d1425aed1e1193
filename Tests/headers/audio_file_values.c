/* The file, stream, format and converter headers (<AudioToolbox/AudioFile.h>,
 * AudioFileStream.h, ExtendedAudioFile.h, AudioConverter.h, AudioFormat.h) and the channel
 * layout additions to <CoreAudio/CoreAudioTypes.h>, all through <AudioToolbox/AudioToolbox.h>
 * as on the phone, against the iPhone SDK (iOS 7): every value written here as a number
 * taken from docs/notes/ios7-audiofile-facts.md, struct layouts (LP64), callback types,
 * what exists only under AudioToolbox-ios (EXPECT_IPHONE) and what must not exist at all
 * (the Mac's names and later SDKs'), and every function with its exact type, taken into
 * a table so that the program does not link if the library lacks one. Prints
 * "audio-file-values ok". */
#include <AudioToolbox/AudioToolbox.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
#define STATIC_ASSERT(c, m) static_assert(c, m)
#else
#define STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif

/* One constant and its value. */
#define VALUE(name, value) STATIC_ASSERT((name) == (value), #name)

/* AudioFile.h: file types. */
VALUE(kAudioFileAIFFType, 1095321158);
VALUE(kAudioFileAIFCType, 1095321155);
VALUE(kAudioFileWAVEType, 1463899717);
VALUE(kAudioFileSoundDesigner2Type, 1399075430);
VALUE(kAudioFileNextType, 1315264596);
VALUE(kAudioFileMP3Type, 1297106739);
VALUE(kAudioFileMP2Type, 1297106738);
VALUE(kAudioFileMP1Type, 1297106737);
VALUE(kAudioFileAC3Type, 1633889587);
VALUE(kAudioFileAAC_ADTSType, 1633973363);
VALUE(kAudioFileMPEG4Type, 1836069990);
VALUE(kAudioFileM4AType, 1832149350);
VALUE(kAudioFileM4BType, 1832149606);
VALUE(kAudioFileCAFType, 1667327590);
VALUE(kAudioFile3GPType, 862417008);
VALUE(kAudioFile3GP2Type, 862416946);
VALUE(kAudioFileAMRType, 1634562662);
VALUE(kAudioFileGlobalInfo_ExtensionsForType, 1717926004);
VALUE(kAudioFileGlobalInfo_HFSTypeCodesForType, 1718118003);
VALUE(kAudioFileGlobalInfo_UTIsForType, 1718973545);
VALUE(kAudioFileGlobalInfo_MIMETypesForType, 1718446445);
VALUE(kAudioFileGlobalInfo_TypesForMIMEType, 1953327469);

/* AudioFile.h: result codes. */
VALUE(kAudioFileUnspecifiedError, 2003334207);
VALUE(kAudioFileUnsupportedFileTypeError, 1954115647);
VALUE(kAudioFileUnsupportedDataFormatError, 1718449215);
VALUE(kAudioFileUnsupportedPropertyError, 1886681407);
VALUE(kAudioFileBadPropertySizeError, 561211770);
VALUE(kAudioFilePermissionsError, 1886547263);
VALUE(kAudioFileNotOptimizedError, 1869640813);
VALUE(kAudioFileInvalidChunkError, 1667787583);
VALUE(kAudioFileDoesNotAllow64BitDataSizeError, 1868981823);
VALUE(kAudioFileInvalidPacketOffsetError, 1885563711);
VALUE(kAudioFileInvalidFileError, 1685348671);
VALUE(kAudioFileOperationNotSupportedError, 1869627199);
VALUE(kAudioFileNotOpenError, -38);
VALUE(kAudioFileEndOfFileError, -39);
VALUE(kAudioFilePositionError, -40);
VALUE(kAudioFileFileNotFoundError, -43);

/* AudioFile.h: flags, permissions, loop directions, marker types, region flags. */
VALUE(kAudioFileFlags_EraseFile, 1);
VALUE(kAudioFileFlags_DontPageAlignAudioData, 2);
VALUE(kAudioFileReadPermission, 0x01);
VALUE(kAudioFileWritePermission, 0x02);
VALUE(kAudioFileReadWritePermission, 0x03);
VALUE(kAudioFileLoopDirection_NoLooping, 0);
VALUE(kAudioFileLoopDirection_Forward, 1);
VALUE(kAudioFileLoopDirection_ForwardAndBackward, 2);
VALUE(kAudioFileLoopDirection_Backward, 3);
VALUE(kAudioFileMarkerType_Generic, 0);
VALUE(kAudioFileRegionFlag_LoopEnable, 1);
VALUE(kAudioFileRegionFlag_PlayForward, 2);
VALUE(kAudioFileRegionFlag_PlayBackward, 4);
VALUE(kBytePacketTranslationFlag_IsEstimate, 1);

/* AudioFile.h: properties. */
VALUE(kAudioFilePropertyFileFormat, 1717988724);
VALUE(kAudioFilePropertyDataFormat, 1684434292);
VALUE(kAudioFilePropertyIsOptimized, 1869640813);
VALUE(kAudioFilePropertyMagicCookieData, 1835493731);
VALUE(kAudioFilePropertyAudioDataByteCount, 1650683508);
VALUE(kAudioFilePropertyAudioDataPacketCount, 1885564532);
VALUE(kAudioFilePropertyMaximumPacketSize, 1886616165);
VALUE(kAudioFilePropertyDataOffset, 1685022310);
VALUE(kAudioFilePropertyChannelLayout, 1668112752);
VALUE(kAudioFilePropertyDeferSizeUpdates, 1685289589);
VALUE(kAudioFilePropertyDataFormatName, 1718512997);
VALUE(kAudioFilePropertyMarkerList, 1835756659);
VALUE(kAudioFilePropertyRegionList, 1919380595);
VALUE(kAudioFilePropertyPacketToFrame, 1886086770);
VALUE(kAudioFilePropertyFrameToPacket, 1718775915);
VALUE(kAudioFilePropertyPacketToByte, 1886085753);
VALUE(kAudioFilePropertyByteToPacket, 1652125803);
VALUE(kAudioFilePropertyChunkIDs, 1667787108);
VALUE(kAudioFilePropertyInfoDictionary, 1768842863);
VALUE(kAudioFilePropertyPacketTableInfo, 1886283375);
VALUE(kAudioFilePropertyFormatList, 1718383476);
VALUE(kAudioFilePropertyPacketSizeUpperBound, 1886090594);
VALUE(kAudioFilePropertyReserveDuration, 1920168566);
VALUE(kAudioFilePropertyEstimatedDuration, 1701082482);
VALUE(kAudioFilePropertyBitRate, 1651663220);
VALUE(kAudioFilePropertyID3Tag, 1768174452);
VALUE(kAudioFilePropertySourceBitDepth, 1935832164);
VALUE(kAudioFilePropertyAlbumArtwork, 1633776244);
VALUE(kAudioFilePropertyAudioTrackCount, 1635017588);
VALUE(kAudioFilePropertyUseAudioTrack, 1969321067);

/* AudioFile.h: global info. */
VALUE(kAudioFileGlobalInfo_ReadableTypes, 1634103910);
VALUE(kAudioFileGlobalInfo_WritableTypes, 1634105190);
VALUE(kAudioFileGlobalInfo_FileTypeName, 1718906477);
VALUE(kAudioFileGlobalInfo_AvailableStreamDescriptionsForFormat, 1935960420);
VALUE(kAudioFileGlobalInfo_AvailableFormatIDs, 1718446436);
VALUE(kAudioFileGlobalInfo_AllExtensions, 1634498676);
VALUE(kAudioFileGlobalInfo_AllHFSTypeCodes, 1634231923);
VALUE(kAudioFileGlobalInfo_AllUTIs, 1635087465);
VALUE(kAudioFileGlobalInfo_AllMIMETypes, 1634560365);
VALUE(kAudioFileGlobalInfo_TypesForUTI, 1953854569);
VALUE(kAudioFileGlobalInfo_TypesForHFSTypeCode, 1952999027);
VALUE(kAudioFileGlobalInfo_TypesForExtension, 1952807028);

/* AudioFileStream.h: flags. */
VALUE(kAudioFileStreamPropertyFlag_PropertyIsCached, 1);
VALUE(kAudioFileStreamPropertyFlag_CacheProperty, 2);
VALUE(kAudioFileStreamParseFlag_Discontinuity, 1);
VALUE(kAudioFileStreamSeekFlag_OffsetIsEstimated, 1);

/* AudioFileStream.h: result codes. */
VALUE(kAudioFileStreamError_UnsupportedFileType, 1954115647);
VALUE(kAudioFileStreamError_UnsupportedDataFormat, 1718449215);
VALUE(kAudioFileStreamError_UnsupportedProperty, 1886681407);
VALUE(kAudioFileStreamError_BadPropertySize, 561211770);
VALUE(kAudioFileStreamError_NotOptimized, 1869640813);
VALUE(kAudioFileStreamError_InvalidPacketOffset, 1885563711);
VALUE(kAudioFileStreamError_InvalidFile, 1685348671);
VALUE(kAudioFileStreamError_ValueUnknown, 1970170687);
VALUE(kAudioFileStreamError_DataUnavailable, 1836020325);
VALUE(kAudioFileStreamError_IllegalOperation, 1852797029);
VALUE(kAudioFileStreamError_UnspecifiedError, 2003334207);
VALUE(kAudioFileStreamError_DiscontinuityCantRecover, 1685283617);

/* AudioFileStream.h: properties. */
VALUE(kAudioFileStreamProperty_ReadyToProducePackets, 1919247481);
VALUE(kAudioFileStreamProperty_FileFormat, 1717988724);
VALUE(kAudioFileStreamProperty_DataFormat, 1684434292);
VALUE(kAudioFileStreamProperty_FormatList, 1718383476);
VALUE(kAudioFileStreamProperty_MagicCookieData, 1835493731);
VALUE(kAudioFileStreamProperty_AudioDataByteCount, 1650683508);
VALUE(kAudioFileStreamProperty_AudioDataPacketCount, 1885564532);
VALUE(kAudioFileStreamProperty_MaximumPacketSize, 1886616165);
VALUE(kAudioFileStreamProperty_DataOffset, 1685022310);
VALUE(kAudioFileStreamProperty_ChannelLayout, 1668112752);
VALUE(kAudioFileStreamProperty_PacketToFrame, 1886086770);
VALUE(kAudioFileStreamProperty_FrameToPacket, 1718775915);
VALUE(kAudioFileStreamProperty_PacketToByte, 1886085753);
VALUE(kAudioFileStreamProperty_ByteToPacket, 1652125803);
VALUE(kAudioFileStreamProperty_PacketTableInfo, 1886283375);
VALUE(kAudioFileStreamProperty_PacketSizeUpperBound, 1886090594);
VALUE(kAudioFileStreamProperty_AverageBytesPerPacket, 1633841264);
VALUE(kAudioFileStreamProperty_BitRate, 1651663220);

/* ExtendedAudioFile.h: properties. */
VALUE(kExtAudioFileProperty_FileDataFormat, 1717988724);
VALUE(kExtAudioFileProperty_FileChannelLayout, 1717791855);
VALUE(kExtAudioFileProperty_ClientDataFormat, 1667657076);
VALUE(kExtAudioFileProperty_ClientChannelLayout, 1667460207);
VALUE(kExtAudioFileProperty_CodecManufacturer, 1668112750);
VALUE(kExtAudioFileProperty_AudioConverter, 1633906294);
VALUE(kExtAudioFileProperty_AudioFile, 1634101612);
VALUE(kExtAudioFileProperty_FileMaxPacketSize, 1718448243);
VALUE(kExtAudioFileProperty_ClientMaxPacketSize, 1668116595);
VALUE(kExtAudioFileProperty_FileLengthFrames, 593916525);
VALUE(kExtAudioFileProperty_ConverterConfig, 1633903462);
VALUE(kExtAudioFileProperty_IOBufferSizeBytes, 1768907379);
VALUE(kExtAudioFileProperty_IOBuffer, 1768907366);
VALUE(kExtAudioFileProperty_PacketTable, 2020635753);

/* ExtendedAudioFile.h: result codes. */
VALUE(kExtAudioFileError_InvalidProperty, -66561);
VALUE(kExtAudioFileError_InvalidPropertySize, -66562);
VALUE(kExtAudioFileError_NonPCMClientFormat, -66563);
VALUE(kExtAudioFileError_InvalidChannelMap, -66564);
VALUE(kExtAudioFileError_InvalidOperationOrder, -66565);
VALUE(kExtAudioFileError_InvalidDataFormat, -66566);
VALUE(kExtAudioFileError_MaxPacketSizeUnknown, -66567);
VALUE(kExtAudioFileError_InvalidSeek, -66568);
VALUE(kExtAudioFileError_AsyncWriteTooLarge, -66569);
VALUE(kExtAudioFileError_AsyncWriteBufferOverflow, -66570);

/* AudioConverter.h: properties. */
VALUE(kAudioConverterPropertyMinimumInputBufferSize, 1835623027);
VALUE(kAudioConverterPropertyMinimumOutputBufferSize, 1836016243);
VALUE(kAudioConverterPropertyMaximumInputBufferSize, 2020172403);
VALUE(kAudioConverterPropertyMaximumInputPacketSize, 2020175987);
VALUE(kAudioConverterPropertyMaximumOutputPacketSize, 2020569203);
VALUE(kAudioConverterPropertyCalculateInputBufferSize, 1667850867);
VALUE(kAudioConverterPropertyCalculateOutputBufferSize, 1668244083);
VALUE(kAudioConverterPropertyInputCodecParameters, 1768121456);
VALUE(kAudioConverterPropertyOutputCodecParameters, 1868784752);
VALUE(kAudioConverterSampleRateConverterAlgorithm, 1936876393);
VALUE(kAudioConverterSampleRateConverterComplexity, 1936876385);
VALUE(kAudioConverterSampleRateConverterQuality, 1936876401);
VALUE(kAudioConverterSampleRateConverterInitialPhase, 1936876400);
VALUE(kAudioConverterCodecQuality, 1667527029);
VALUE(kAudioConverterPrimeMethod, 1886547309);
VALUE(kAudioConverterPrimeInfo, 1886546285);
VALUE(kAudioConverterChannelMap, 1667788144);
VALUE(kAudioConverterDecompressionMagicCookie, 1684891491);
VALUE(kAudioConverterCompressionMagicCookie, 1668114275);
VALUE(kAudioConverterEncodeBitRate, 1651663220);
VALUE(kAudioConverterEncodeAdjustableSampleRate, 1634366322);
VALUE(kAudioConverterInputChannelLayout, 1768123424);
VALUE(kAudioConverterOutputChannelLayout, 1868786720);
VALUE(kAudioConverterApplicableEncodeBitRates, 1634034290);
VALUE(kAudioConverterAvailableEncodeBitRates, 1986355826);
VALUE(kAudioConverterApplicableEncodeSampleRates, 1634038642);
VALUE(kAudioConverterAvailableEncodeSampleRates, 1986360178);
VALUE(kAudioConverterAvailableEncodeChannelLayoutTags, 1634034540);
VALUE(kAudioConverterCurrentOutputStreamDescription, 1633906532);
VALUE(kAudioConverterCurrentInputStreamDescription, 1633904996);
VALUE(kAudioConverterPropertySettings, 1633906803);
VALUE(kAudioConverterPropertyBitDepthHint, 1633903204);
VALUE(kAudioConverterPropertyFormatList, 1718383476);

/* AudioConverter.h: quality, complexity and prime methods. */
VALUE(kAudioConverterQuality_Max, 127);
VALUE(kAudioConverterQuality_High, 96);
VALUE(kAudioConverterQuality_Medium, 64);
VALUE(kAudioConverterQuality_Low, 32);
VALUE(kAudioConverterQuality_Min, 0);
VALUE(kAudioConverterSampleRateConverterComplexity_Linear, 1818848869);
VALUE(kAudioConverterSampleRateConverterComplexity_Normal, 1852797549);
VALUE(kAudioConverterSampleRateConverterComplexity_Mastering, 1650553971);
VALUE(kConverterPrimeMethod_Pre, 0);
VALUE(kConverterPrimeMethod_Normal, 1);
VALUE(kConverterPrimeMethod_None, 2);

/* AudioConverter.h: result codes. */
VALUE(kAudioConverterErr_FormatNotSupported, 1718449215);
VALUE(kAudioConverterErr_OperationNotSupported, 1869627199);
VALUE(kAudioConverterErr_PropertyNotSupported, 1886547824);
VALUE(kAudioConverterErr_InvalidInputSize, 1768846202);
VALUE(kAudioConverterErr_InvalidOutputSize, 1869902714);
VALUE(kAudioConverterErr_UnspecifiedError, 2003329396);
VALUE(kAudioConverterErr_BadPropertySizeError, 561211770);
VALUE(kAudioConverterErr_RequiresPacketDescriptionsError, 561015652);
VALUE(kAudioConverterErr_InputSampleRateOutOfRange, 560558962);
VALUE(kAudioConverterErr_OutputSampleRateOutOfRange, 560952178);

/* AudioFormat.h: panning and balance. */
VALUE(kPanningMode_SoundField, 3);
VALUE(kPanningMode_VectorBasedPanning, 4);
VALUE(kAudioBalanceFadeType_MaxUnityGain, 0);
VALUE(kAudioBalanceFadeType_EqualPower, 1);

/* AudioFormat.h: properties. */
VALUE(kAudioFormatProperty_FormatInfo, 1718449257);
VALUE(kAudioFormatProperty_FormatName, 1718509933);
VALUE(kAudioFormatProperty_EncodeFormatIDs, 1633906534);
VALUE(kAudioFormatProperty_DecodeFormatIDs, 1633904998);
VALUE(kAudioFormatProperty_FormatList, 1718383476);
VALUE(kAudioFormatProperty_ASBDFromESDS, 1702064996);
VALUE(kAudioFormatProperty_ChannelLayoutFromESDS, 1702060908);
VALUE(kAudioFormatProperty_OutputFormatList, 1868983411);
VALUE(kAudioFormatProperty_FirstPlayableFormatFromList, 1718642284);
VALUE(kAudioFormatProperty_FormatIsVBR, 1719034482);
VALUE(kAudioFormatProperty_FormatIsExternallyFramed, 1717925990);
VALUE(kAudioFormatProperty_FormatIsEncrypted, 1668446576);
VALUE(kAudioFormatProperty_Encoders, 1635149166);
VALUE(kAudioFormatProperty_Decoders, 1635148901);
VALUE(kAudioFormatProperty_AvailableEncodeBitRates, 1634034290);
VALUE(kAudioFormatProperty_AvailableEncodeSampleRates, 1634038642);
VALUE(kAudioFormatProperty_AvailableEncodeChannelLayoutTags, 1634034540);
VALUE(kAudioFormatProperty_AvailableEncodeNumberChannels, 1635151459);
VALUE(kAudioFormatProperty_ASBDFromMPEGPacket, 1633971568);
VALUE(kAudioFormatProperty_BitmapForLayoutTag, 1651340391);
VALUE(kAudioFormatProperty_MatrixMixMap, 1835884912);
VALUE(kAudioFormatProperty_ChannelMap, 1667788144);
VALUE(kAudioFormatProperty_NumberOfChannelsForLayout, 1852008557);
VALUE(kAudioFormatProperty_AreChannelLayoutsEquivalent, 1667786097);
VALUE(kAudioFormatProperty_ValidateChannelLayout, 1986093932);
VALUE(kAudioFormatProperty_ChannelLayoutForTag, 1668116588);
VALUE(kAudioFormatProperty_TagForChannelLayout, 1668116596);
VALUE(kAudioFormatProperty_ChannelLayoutName, 1819242093);
VALUE(kAudioFormatProperty_ChannelLayoutSimpleName, 1819504237);
VALUE(kAudioFormatProperty_ChannelLayoutForBitmap, 1668116578);
VALUE(kAudioFormatProperty_ChannelName, 1668178285);
VALUE(kAudioFormatProperty_ChannelShortName, 1668509293);
VALUE(kAudioFormatProperty_TagsForNumberOfChannels, 1952540515);
VALUE(kAudioFormatProperty_PanningMatrix, 1885433453);
VALUE(kAudioFormatProperty_BalanceFade, 1650551910);
VALUE(kAudioFormatProperty_ID3TagSize, 1768174451);
VALUE(kAudioFormatProperty_ID3TagToDictionary, 1768174436);

/* AudioFormat.h: result codes. */
VALUE(kAudioFormatUnspecifiedError, 2003329396);
VALUE(kAudioFormatUnsupportedPropertyError, 1886547824);
VALUE(kAudioFormatBadPropertySizeError, 561211770);
VALUE(kAudioFormatBadSpecifierSizeError, 561213539);
VALUE(kAudioFormatUnsupportedDataFormatError, 1718449215);
VALUE(kAudioFormatUnknownFormatError, 560360820);

/* CoreAudioTypes.h: channel labels and coordinates. */
VALUE(kAudioChannelLabel_Ambisonic_W, 200);
VALUE(kAudioChannelLabel_Ambisonic_X, 201);
VALUE(kAudioChannelLabel_Ambisonic_Y, 202);
VALUE(kAudioChannelLabel_Ambisonic_Z, 203);
VALUE(kAudioChannelLabel_MS_Mid, 204);
VALUE(kAudioChannelLabel_MS_Side, 205);
VALUE(kAudioChannelLabel_XY_X, 206);
VALUE(kAudioChannelLabel_XY_Y, 207);
VALUE(kAudioChannelLabel_ClickTrack, 304);
VALUE(kAudioChannelLabel_ForeignLanguage, 305);
VALUE(kAudioChannelLabel_Discrete_2, 65538);
VALUE(kAudioChannelLabel_Discrete_3, 65539);
VALUE(kAudioChannelLabel_Discrete_4, 65540);
VALUE(kAudioChannelLabel_Discrete_5, 65541);
VALUE(kAudioChannelLabel_Discrete_6, 65542);
VALUE(kAudioChannelLabel_Discrete_7, 65543);
VALUE(kAudioChannelLabel_Discrete_8, 65544);
VALUE(kAudioChannelLabel_Discrete_9, 65545);
VALUE(kAudioChannelLabel_Discrete_10, 65546);
VALUE(kAudioChannelLabel_Discrete_11, 65547);
VALUE(kAudioChannelLabel_Discrete_12, 65548);
VALUE(kAudioChannelLabel_Discrete_13, 65549);
VALUE(kAudioChannelLabel_Discrete_14, 65550);
VALUE(kAudioChannelLabel_Discrete_15, 65551);
VALUE(kAudioChannelLabel_Discrete_65535, 131071);
VALUE(kAudioChannelCoordinates_LeftRight, 0);
VALUE(kAudioChannelCoordinates_BackFront, 1);
VALUE(kAudioChannelCoordinates_DownUp, 2);
VALUE(kAudioChannelCoordinates_Azimuth, 0);
VALUE(kAudioChannelCoordinates_Elevation, 1);
VALUE(kAudioChannelCoordinates_Distance, 2);

/* CoreAudioTypes.h: channel layout tags. */
VALUE(kAudioChannelLayoutTag_MPEG_1_0, 6553601);
VALUE(kAudioChannelLayoutTag_MPEG_2_0, 6619138);
VALUE(kAudioChannelLayoutTag_MPEG_3_0_A, 7405571);
VALUE(kAudioChannelLayoutTag_MPEG_3_0_B, 7471107);
VALUE(kAudioChannelLayoutTag_MPEG_4_0_A, 7536644);
VALUE(kAudioChannelLayoutTag_MPEG_4_0_B, 7602180);
VALUE(kAudioChannelLayoutTag_MPEG_5_0_A, 7667717);
VALUE(kAudioChannelLayoutTag_MPEG_5_0_B, 7733253);
VALUE(kAudioChannelLayoutTag_MPEG_5_0_C, 7798789);
VALUE(kAudioChannelLayoutTag_MPEG_5_0_D, 7864325);
VALUE(kAudioChannelLayoutTag_MPEG_5_1_A, 7929862);
VALUE(kAudioChannelLayoutTag_MPEG_5_1_B, 7995398);
VALUE(kAudioChannelLayoutTag_MPEG_5_1_C, 8060934);
VALUE(kAudioChannelLayoutTag_MPEG_5_1_D, 8126470);
VALUE(kAudioChannelLayoutTag_MPEG_6_1_A, 8192007);
VALUE(kAudioChannelLayoutTag_MPEG_7_1_A, 8257544);
VALUE(kAudioChannelLayoutTag_MPEG_7_1_B, 8323080);
VALUE(kAudioChannelLayoutTag_MPEG_7_1_C, 8388616);
VALUE(kAudioChannelLayoutTag_Emagic_Default_7_1, 8454152);
VALUE(kAudioChannelLayoutTag_SMPTE_DTV, 8519688);
VALUE(kAudioChannelLayoutTag_ITU_1_0, 6553601);
VALUE(kAudioChannelLayoutTag_ITU_2_0, 6619138);
VALUE(kAudioChannelLayoutTag_ITU_2_1, 8585219);
VALUE(kAudioChannelLayoutTag_ITU_2_2, 8650756);
VALUE(kAudioChannelLayoutTag_ITU_3_0, 7405571);
VALUE(kAudioChannelLayoutTag_ITU_3_1, 7536644);
VALUE(kAudioChannelLayoutTag_ITU_3_2, 7667717);
VALUE(kAudioChannelLayoutTag_ITU_3_2_1, 7929862);
VALUE(kAudioChannelLayoutTag_ITU_3_4_1, 8388616);
VALUE(kAudioChannelLayoutTag_DVD_0, 6553601);
VALUE(kAudioChannelLayoutTag_DVD_1, 6619138);
VALUE(kAudioChannelLayoutTag_DVD_2, 8585219);
VALUE(kAudioChannelLayoutTag_DVD_3, 8650756);
VALUE(kAudioChannelLayoutTag_DVD_4, 8716291);
VALUE(kAudioChannelLayoutTag_DVD_5, 8781828);
VALUE(kAudioChannelLayoutTag_DVD_6, 8847365);
VALUE(kAudioChannelLayoutTag_DVD_7, 7405571);
VALUE(kAudioChannelLayoutTag_DVD_8, 7536644);
VALUE(kAudioChannelLayoutTag_DVD_9, 7667717);
VALUE(kAudioChannelLayoutTag_DVD_10, 8912900);
VALUE(kAudioChannelLayoutTag_DVD_11, 8978437);
VALUE(kAudioChannelLayoutTag_DVD_12, 7929862);
VALUE(kAudioChannelLayoutTag_DVD_13, 7536644);
VALUE(kAudioChannelLayoutTag_DVD_14, 7667717);
VALUE(kAudioChannelLayoutTag_DVD_15, 8912900);
VALUE(kAudioChannelLayoutTag_DVD_16, 8978437);
VALUE(kAudioChannelLayoutTag_DVD_17, 7929862);
VALUE(kAudioChannelLayoutTag_DVD_18, 9043973);
VALUE(kAudioChannelLayoutTag_DVD_19, 7733253);
VALUE(kAudioChannelLayoutTag_DVD_20, 7995398);
VALUE(kAudioChannelLayoutTag_AudioUnit_4, 7077892);
VALUE(kAudioChannelLayoutTag_AudioUnit_5, 7143429);
VALUE(kAudioChannelLayoutTag_AudioUnit_6, 7208966);
VALUE(kAudioChannelLayoutTag_AudioUnit_8, 7274504);
VALUE(kAudioChannelLayoutTag_AudioUnit_5_0, 7733253);
VALUE(kAudioChannelLayoutTag_AudioUnit_6_0, 9109510);
VALUE(kAudioChannelLayoutTag_AudioUnit_7_0, 9175047);
VALUE(kAudioChannelLayoutTag_AudioUnit_7_0_Front, 9699335);
VALUE(kAudioChannelLayoutTag_AudioUnit_5_1, 7929862);
VALUE(kAudioChannelLayoutTag_AudioUnit_6_1, 8192007);
VALUE(kAudioChannelLayoutTag_AudioUnit_7_1, 8388616);
VALUE(kAudioChannelLayoutTag_AudioUnit_7_1_Front, 8257544);
VALUE(kAudioChannelLayoutTag_AAC_3_0, 7471107);
VALUE(kAudioChannelLayoutTag_AAC_Quadraphonic, 7077892);
VALUE(kAudioChannelLayoutTag_AAC_4_0, 7602180);
VALUE(kAudioChannelLayoutTag_AAC_5_0, 7864325);
VALUE(kAudioChannelLayoutTag_AAC_5_1, 8126470);
VALUE(kAudioChannelLayoutTag_AAC_6_0, 9240582);
VALUE(kAudioChannelLayoutTag_AAC_6_1, 9306119);
VALUE(kAudioChannelLayoutTag_AAC_7_0, 9371655);
VALUE(kAudioChannelLayoutTag_AAC_7_1, 8323080);
VALUE(kAudioChannelLayoutTag_AAC_7_1_B, 11993096);
VALUE(kAudioChannelLayoutTag_AAC_7_1_C, 12058632);
VALUE(kAudioChannelLayoutTag_AAC_Octagonal, 9437192);
VALUE(kAudioChannelLayoutTag_TMH_10_2_std, 9502736);
VALUE(kAudioChannelLayoutTag_TMH_10_2_full, 9568277);
VALUE(kAudioChannelLayoutTag_AC3_1_0_1, 9764866);
VALUE(kAudioChannelLayoutTag_AC3_3_0, 9830403);
VALUE(kAudioChannelLayoutTag_AC3_3_1, 9895940);
VALUE(kAudioChannelLayoutTag_AC3_3_0_1, 9961476);
VALUE(kAudioChannelLayoutTag_AC3_2_1_1, 10027012);
VALUE(kAudioChannelLayoutTag_AC3_3_1_1, 10092549);
VALUE(kAudioChannelLayoutTag_EAC_6_0_A, 10158086);
VALUE(kAudioChannelLayoutTag_EAC_7_0_A, 10223623);
VALUE(kAudioChannelLayoutTag_EAC3_6_1_A, 10289159);
VALUE(kAudioChannelLayoutTag_EAC3_6_1_B, 10354695);
VALUE(kAudioChannelLayoutTag_EAC3_6_1_C, 10420231);
VALUE(kAudioChannelLayoutTag_EAC3_7_1_A, 10485768);
VALUE(kAudioChannelLayoutTag_EAC3_7_1_B, 10551304);
VALUE(kAudioChannelLayoutTag_EAC3_7_1_C, 10616840);
VALUE(kAudioChannelLayoutTag_EAC3_7_1_D, 10682376);
VALUE(kAudioChannelLayoutTag_EAC3_7_1_E, 10747912);
VALUE(kAudioChannelLayoutTag_EAC3_7_1_F, 10813448);
VALUE(kAudioChannelLayoutTag_EAC3_7_1_G, 10878984);
VALUE(kAudioChannelLayoutTag_EAC3_7_1_H, 10944520);
VALUE(kAudioChannelLayoutTag_DTS_3_1, 11010052);
VALUE(kAudioChannelLayoutTag_DTS_4_1, 11075589);
VALUE(kAudioChannelLayoutTag_DTS_6_0_A, 11141126);
VALUE(kAudioChannelLayoutTag_DTS_6_0_B, 11206662);
VALUE(kAudioChannelLayoutTag_DTS_6_0_C, 11272198);
VALUE(kAudioChannelLayoutTag_DTS_6_1_A, 11337735);
VALUE(kAudioChannelLayoutTag_DTS_6_1_B, 11403271);
VALUE(kAudioChannelLayoutTag_DTS_6_1_C, 11468807);
VALUE(kAudioChannelLayoutTag_DTS_7_0, 11534343);
VALUE(kAudioChannelLayoutTag_DTS_7_1, 11599880);
VALUE(kAudioChannelLayoutTag_DTS_8_0_A, 11665416);
VALUE(kAudioChannelLayoutTag_DTS_8_0_B, 11730952);
VALUE(kAudioChannelLayoutTag_DTS_8_1_A, 11796489);
VALUE(kAudioChannelLayoutTag_DTS_8_1_B, 11862025);
VALUE(kAudioChannelLayoutTag_DTS_6_1_D, 11927559);

/* CoreAudioTypes.h: MPEG-4 object types. */
VALUE(kMPEG4Object_AAC_Main, 1);
VALUE(kMPEG4Object_AAC_LC, 2);
VALUE(kMPEG4Object_AAC_SSR, 3);
VALUE(kMPEG4Object_AAC_LTP, 4);
VALUE(kMPEG4Object_AAC_SBR, 5);
VALUE(kMPEG4Object_AAC_Scalable, 6);
VALUE(kMPEG4Object_TwinVQ, 7);
VALUE(kMPEG4Object_CELP, 8);
VALUE(kMPEG4Object_HVXC, 9);

/* The marker list size macros (a list of N markers takes 8 + 40 N bytes). */
STATIC_ASSERT(NumAudioFileMarkersToNumBytes(0) == 8 && NumAudioFileMarkersToNumBytes(2) == 88, "marker list bytes");
STATIC_ASSERT(NumBytesToNumAudioFileMarkers(88) == 2 && NumBytesToNumAudioFileMarkers(127) == 2, "markers in bytes");
STATIC_ASSERT(NumBytesToNumAudioFileMarkers(4) == 0 && NumBytesToNumAudioFileMarkers(8) == 0, "too short for one");

/* Struct layouts (LP64: 8-byte pointers, 64-bit types 8-aligned). */
#define OFFSET(type, member, value) STATIC_ASSERT(offsetof(type, member) == (value), #type "." #member)
STATIC_ASSERT(sizeof(AudioFile_SMPTE_Time) == 8, "sizeof AudioFile_SMPTE_Time");
OFFSET(AudioFile_SMPTE_Time, mHours, 0);
OFFSET(AudioFile_SMPTE_Time, mMinutes, 1);
OFFSET(AudioFile_SMPTE_Time, mSeconds, 2);
OFFSET(AudioFile_SMPTE_Time, mFrames, 3);
OFFSET(AudioFile_SMPTE_Time, mSubFrameSampleOffset, 4);
STATIC_ASSERT(sizeof(AudioFileMarker) == 40, "sizeof AudioFileMarker");
OFFSET(AudioFileMarker, mFramePosition, 0);
OFFSET(AudioFileMarker, mName, 8);
OFFSET(AudioFileMarker, mMarkerID, 16);
OFFSET(AudioFileMarker, mSMPTETime, 20);
OFFSET(AudioFileMarker, mType, 28);
OFFSET(AudioFileMarker, mReserved, 32);
OFFSET(AudioFileMarker, mChannel, 34);
STATIC_ASSERT(sizeof(AudioFileMarkerList) == 48, "sizeof AudioFileMarkerList");
OFFSET(AudioFileMarkerList, mSMPTE_TimeType, 0);
OFFSET(AudioFileMarkerList, mNumberMarkers, 4);
OFFSET(AudioFileMarkerList, mMarkers, 8);
STATIC_ASSERT(sizeof(AudioFileRegion) == 64, "sizeof AudioFileRegion");
OFFSET(AudioFileRegion, mRegionID, 0);
OFFSET(AudioFileRegion, mName, 8);
OFFSET(AudioFileRegion, mFlags, 16);
OFFSET(AudioFileRegion, mNumberMarkers, 20);
OFFSET(AudioFileRegion, mMarkers, 24);
STATIC_ASSERT(sizeof(AudioFileRegionList) == 72, "sizeof AudioFileRegionList");
OFFSET(AudioFileRegionList, mSMPTE_TimeType, 0);
OFFSET(AudioFileRegionList, mNumberRegions, 4);
OFFSET(AudioFileRegionList, mRegions, 8);
STATIC_ASSERT(sizeof(AudioFramePacketTranslation) == 24, "sizeof AudioFramePacketTranslation");
OFFSET(AudioFramePacketTranslation, mFrame, 0);
OFFSET(AudioFramePacketTranslation, mPacket, 8);
OFFSET(AudioFramePacketTranslation, mFrameOffsetInPacket, 16);
STATIC_ASSERT(sizeof(AudioBytePacketTranslation) == 24, "sizeof AudioBytePacketTranslation");
OFFSET(AudioBytePacketTranslation, mByte, 0);
OFFSET(AudioBytePacketTranslation, mPacket, 8);
OFFSET(AudioBytePacketTranslation, mByteOffsetInPacket, 16);
OFFSET(AudioBytePacketTranslation, mFlags, 20);
STATIC_ASSERT(sizeof(AudioFilePacketTableInfo) == 16, "sizeof AudioFilePacketTableInfo");
OFFSET(AudioFilePacketTableInfo, mNumberValidFrames, 0);
OFFSET(AudioFilePacketTableInfo, mPrimingFrames, 8);
OFFSET(AudioFilePacketTableInfo, mRemainderFrames, 12);
STATIC_ASSERT(sizeof(AudioFileTypeAndFormatID) == 8, "sizeof AudioFileTypeAndFormatID");
OFFSET(AudioFileTypeAndFormatID, mFileType, 0);
OFFSET(AudioFileTypeAndFormatID, mFormatID, 4);
STATIC_ASSERT(sizeof(AudioConverterPrimeInfo) == 8, "sizeof AudioConverterPrimeInfo");
OFFSET(AudioConverterPrimeInfo, leadingFrames, 0);
OFFSET(AudioConverterPrimeInfo, trailingFrames, 4);
STATIC_ASSERT(sizeof(AudioPanningInfo) == 32, "sizeof AudioPanningInfo");
OFFSET(AudioPanningInfo, mPanningMode, 0);
OFFSET(AudioPanningInfo, mCoordinateFlags, 4);
OFFSET(AudioPanningInfo, mCoordinates, 8);
OFFSET(AudioPanningInfo, mGainScale, 20);
OFFSET(AudioPanningInfo, mOutputChannelMap, 24);
STATIC_ASSERT(sizeof(AudioBalanceFade) == 24, "sizeof AudioBalanceFade");
OFFSET(AudioBalanceFade, mLeftRightBalance, 0);
OFFSET(AudioBalanceFade, mBackFrontFade, 4);
OFFSET(AudioBalanceFade, mType, 8);
OFFSET(AudioBalanceFade, mChannelLayout, 16);
STATIC_ASSERT(sizeof(AudioFormatInfo) == 56, "sizeof AudioFormatInfo");
OFFSET(AudioFormatInfo, mASBD, 0);
OFFSET(AudioFormatInfo, mMagicCookie, 40);
OFFSET(AudioFormatInfo, mMagicCookieSize, 48);
STATIC_ASSERT(sizeof(ExtendedAudioFormatInfo) == 64, "sizeof ExtendedAudioFormatInfo");
OFFSET(ExtendedAudioFormatInfo, mASBD, 0);
OFFSET(ExtendedAudioFormatInfo, mMagicCookie, 40);
OFFSET(ExtendedAudioFormatInfo, mMagicCookieSize, 48);
OFFSET(ExtendedAudioFormatInfo, mClassDescription, 52);
STATIC_ASSERT(sizeof(AudioFormatListItem) == 48, "sizeof AudioFormatListItem");
OFFSET(AudioFormatListItem, mASBD, 0);
OFFSET(AudioFormatListItem, mChannelLayoutTag, 40);
/* Member types the layouts alone would not catch. */
STATIC_ASSERT(sizeof(((AudioFile_SMPTE_Time *)0)->mHours) == 1 && sizeof(((AudioFileMarker *)0)->mChannel) == 2,
              "small members");
STATIC_ASSERT(sizeof(((AudioPanningInfo *)0)->mCoordinates) == 12, "three coordinates");
STATIC_ASSERT(sizeof(AudioFileTypeID) == 4 && sizeof(AudioFilePropertyID) == 4
              && sizeof(AudioFileStreamPropertyID) == 4, "property ID types");
STATIC_ASSERT(sizeof(ExtAudioFilePropertyID) == 4 && sizeof(AudioConverterPropertyID) == 4
              && sizeof(AudioFormatPropertyID) == 4, "property ID types 2");

#if EXPECT_IPHONE
/* The phone's only names. */
VALUE(kExtAudioFileError_CodecUnavailableInputConsumed, -66559);
VALUE(kExtAudioFileError_CodecUnavailableInputNotConsumed, -66560);
VALUE(kAudioConverterPropertyCanResumeFromInterruption, 1668441705);
VALUE(kAudioConverterErr_HardwareInUse, 1752656245);
VALUE(kAudioConverterErr_NoHardwarePermission, 1885696621);
VALUE(kAudioFormatProperty_HardwareCodecCapabilities, 1752654691);
VALUE(kAudioDecoderComponentType, 1633969507);
VALUE(kAudioEncoderComponentType, 1634037347);
VALUE(kAppleSoftwareAudioCodecManufacturer, 1634758764);
VALUE(kAppleHardwareAudioCodecManufacturer, 1634756727);
#else
/* The plain module must not declare the phone's only names: these enumerators would
 * collide with them. */
enum {
    kExtAudioFileError_CodecUnavailableInputConsumed = 0,
    kExtAudioFileError_CodecUnavailableInputNotConsumed = 0,
    kAudioConverterPropertyCanResumeFromInterruption = 0,
    kAudioConverterErr_HardwareInUse = 0,
    kAudioConverterErr_NoHardwarePermission = 0,
    kAudioFormatProperty_HardwareCodecCapabilities = 0,
    kAudioDecoderComponentType = 0,
    kAudioEncoderComponentType = 0,
    kAppleSoftwareAudioCodecManufacturer = 0,
    kAppleHardwareAudioCodecManufacturer = 0
};
#endif

/* Neither module declares the Mac's only names nor those of SDKs after iOS 7 (again, these
 * enumerators would collide with them). */
enum {
    kAudioConverterPropertyDithering = 0,
    kAudioConverterPropertyDitherBitDepth = 0,
    kDitherAlgorithm_TPDF = 0,
    kDitherAlgorithm_NoiseShaping = 0,
    kAudioFileStreamProperty_InfoDictionary = 0,
    kAudioFormatProperty_ChannelLayoutHash = 0,
    AudioConverterFillBuffer = 0,
    AudioFileCreate = 0,
    AudioFileInitialize = 0,
    AudioFileOpen = 0,
    ExtAudioFileOpen = 0,
    ExtAudioFileCreateNew = 0
};

/* The callback types, each assigned a pointer of the exact type the SDK gives it (any
 * other type fails to compile). */
static int callback_types_match(void)
{
    AudioFile_ReadProc readProc = (OSStatus (*)(void *, SInt64, UInt32, void *, UInt32 *))NULL;
    AudioFile_WriteProc writeProc = (OSStatus (*)(void *, SInt64, UInt32, const void *, UInt32 *))NULL;
    AudioFile_GetSizeProc getSizeProc = (SInt64 (*)(void *))NULL;
    AudioFile_SetSizeProc setSizeProc = (OSStatus (*)(void *, SInt64))NULL;
    AudioFileStream_PropertyListenerProc listenerProc =
        (void (*)(void *, AudioFileStreamID, AudioFileStreamPropertyID, UInt32 *))NULL;
    AudioFileStream_PacketsProc packetsProc =
        (void (*)(void *, UInt32, UInt32, const void *, AudioStreamPacketDescription *))NULL;
    AudioConverterInputDataProc inputProc = (OSStatus (*)(AudioConverterRef, UInt32 *, void **, void *))NULL;
    AudioConverterComplexInputDataProc complexProc =
        (OSStatus (*)(AudioConverterRef, UInt32 *, AudioBufferList *, AudioStreamPacketDescription **, void *))NULL;
    return readProc == NULL && writeProc == NULL && getSizeProc == NULL && setSizeProc == NULL && listenerProc == NULL
        && packetsProc == NULL && inputProc == NULL && complexProc == NULL;
}

/* The info dictionary keys are C string literals. */
struct key { const char *macro; const char *expected; size_t size; };
static const struct key info_keys[] = {
    {kAFInfoDictionary_Artist, "artist", sizeof(kAFInfoDictionary_Artist)},
    {kAFInfoDictionary_Album, "album", sizeof(kAFInfoDictionary_Album)},
    {kAFInfoDictionary_Tempo, "tempo", sizeof(kAFInfoDictionary_Tempo)},
    {kAFInfoDictionary_KeySignature, "key signature", sizeof(kAFInfoDictionary_KeySignature)},
    {kAFInfoDictionary_TimeSignature, "time signature", sizeof(kAFInfoDictionary_TimeSignature)},
    {kAFInfoDictionary_TrackNumber, "track number", sizeof(kAFInfoDictionary_TrackNumber)},
    {kAFInfoDictionary_Year, "year", sizeof(kAFInfoDictionary_Year)},
    {kAFInfoDictionary_Composer, "composer", sizeof(kAFInfoDictionary_Composer)},
    {kAFInfoDictionary_Lyricist, "lyricist", sizeof(kAFInfoDictionary_Lyricist)},
    {kAFInfoDictionary_Genre, "genre", sizeof(kAFInfoDictionary_Genre)},
    {kAFInfoDictionary_Title, "title", sizeof(kAFInfoDictionary_Title)},
    {kAFInfoDictionary_RecordedDate, "recorded date", sizeof(kAFInfoDictionary_RecordedDate)},
    {kAFInfoDictionary_Comments, "comments", sizeof(kAFInfoDictionary_Comments)},
    {kAFInfoDictionary_Copyright, "copyright", sizeof(kAFInfoDictionary_Copyright)},
    {kAFInfoDictionary_SourceEncoder, "source encoder", sizeof(kAFInfoDictionary_SourceEncoder)},
    {kAFInfoDictionary_EncodingApplication, "encoding application", sizeof(kAFInfoDictionary_EncodingApplication)},
    {kAFInfoDictionary_NominalBitRate, "nominal bit rate", sizeof(kAFInfoDictionary_NominalBitRate)},
    {kAFInfoDictionary_ChannelLayout, "channel layout", sizeof(kAFInfoDictionary_ChannelLayout)},
    {kAFInfoDictionary_ApproximateDurationInSeconds, "approximate duration in seconds",
     sizeof(kAFInfoDictionary_ApproximateDurationInSeconds)},
    {kAFInfoDictionary_SourceBitDepth, "source bit depth", sizeof(kAFInfoDictionary_SourceBitDepth)},
    {kAFInfoDictionary_ISRC, "ISRC", sizeof(kAFInfoDictionary_ISRC)},
    {kAFInfoDictionary_SubTitle, "subtitle", sizeof(kAFInfoDictionary_SubTitle)},
};

/* NextAudioFileRegion steps over a region and its markers. */
static int next_region_steps(void)
{
    union { AudioFileRegionList list; char bytes[512]; } buffer;
    AudioFileRegion *first, *second;
    memset(&buffer, 0, sizeof buffer);
    buffer.list.mNumberRegions = 2;
    first = &buffer.list.mRegions[0];
    first->mNumberMarkers = 2;
    second = NextAudioFileRegion(first);
    return (char *)second - (char *)first == 104;
}

int main(void)
{
    size_t i;
    /* Every function of the five headers, with its type; the table makes the program
     * need each one from the library. */
    OSStatus (*const typed_AudioFileCreateWithURL)(CFURLRef, AudioFileTypeID, const AudioStreamBasicDescription *,
        UInt32, AudioFileID *) = AudioFileCreateWithURL;
    OSStatus (*const typed_AudioFileOpenURL)(CFURLRef, SInt8, AudioFileTypeID, AudioFileID *) = AudioFileOpenURL;
    OSStatus (*const typed_AudioFileInitializeWithCallbacks)(void *, AudioFile_ReadProc, AudioFile_WriteProc,
        AudioFile_GetSizeProc, AudioFile_SetSizeProc, AudioFileTypeID, const AudioStreamBasicDescription *, UInt32,
        AudioFileID *) = AudioFileInitializeWithCallbacks;
    OSStatus (*const typed_AudioFileOpenWithCallbacks)(void *, AudioFile_ReadProc, AudioFile_WriteProc,
        AudioFile_GetSizeProc, AudioFile_SetSizeProc, AudioFileTypeID, AudioFileID *) = AudioFileOpenWithCallbacks;
    OSStatus (*const typed_AudioFileClose)(AudioFileID) = AudioFileClose;
    OSStatus (*const typed_AudioFileOptimize)(AudioFileID) = AudioFileOptimize;
    OSStatus (*const typed_AudioFileReadBytes)(AudioFileID, Boolean, SInt64, UInt32 *, void *) = AudioFileReadBytes;
    OSStatus (*const typed_AudioFileWriteBytes)(AudioFileID, Boolean, SInt64, UInt32 *,
        const void *) = AudioFileWriteBytes;
    OSStatus (*const typed_AudioFileReadPacketData)(AudioFileID, Boolean, UInt32 *, AudioStreamPacketDescription *,
        SInt64, UInt32 *, void *) = AudioFileReadPacketData;
    OSStatus (*const typed_AudioFileReadPackets)(AudioFileID, Boolean, UInt32 *, AudioStreamPacketDescription *, SInt64,
        UInt32 *, void *) = AudioFileReadPackets;
    OSStatus (*const typed_AudioFileWritePackets)(AudioFileID, Boolean, UInt32, const AudioStreamPacketDescription *,
        SInt64, UInt32 *, const void *) = AudioFileWritePackets;
    OSStatus (*const typed_AudioFileCountUserData)(AudioFileID, UInt32, UInt32 *) = AudioFileCountUserData;
    OSStatus (*const typed_AudioFileGetUserDataSize)(AudioFileID, UInt32, UInt32, UInt32 *) = AudioFileGetUserDataSize;
    OSStatus (*const typed_AudioFileGetUserData)(AudioFileID, UInt32, UInt32, UInt32 *, void *) = AudioFileGetUserData;
    OSStatus (*const typed_AudioFileSetUserData)(AudioFileID, UInt32, UInt32, UInt32,
        const void *) = AudioFileSetUserData;
    OSStatus (*const typed_AudioFileRemoveUserData)(AudioFileID, UInt32, UInt32) = AudioFileRemoveUserData;
    OSStatus (*const typed_AudioFileGetPropertyInfo)(AudioFileID, AudioFilePropertyID, UInt32 *,
        UInt32 *) = AudioFileGetPropertyInfo;
    OSStatus (*const typed_AudioFileGetProperty)(AudioFileID, AudioFilePropertyID, UInt32 *,
        void *) = AudioFileGetProperty;
    OSStatus (*const typed_AudioFileSetProperty)(AudioFileID, AudioFilePropertyID, UInt32,
        const void *) = AudioFileSetProperty;
    OSStatus (*const typed_AudioFileGetGlobalInfoSize)(AudioFilePropertyID, UInt32, void *,
        UInt32 *) = AudioFileGetGlobalInfoSize;
    OSStatus (*const typed_AudioFileGetGlobalInfo)(AudioFilePropertyID, UInt32, void *, UInt32 *,
        void *) = AudioFileGetGlobalInfo;
    OSStatus (*const typed_AudioFileStreamOpen)(void *, AudioFileStream_PropertyListenerProc,
        AudioFileStream_PacketsProc, AudioFileTypeID, AudioFileStreamID *) = AudioFileStreamOpen;
    OSStatus (*const typed_AudioFileStreamParseBytes)(AudioFileStreamID, UInt32, const void *,
        UInt32) = AudioFileStreamParseBytes;
    OSStatus (*const typed_AudioFileStreamSeek)(AudioFileStreamID, SInt64, SInt64 *, UInt32 *) = AudioFileStreamSeek;
    OSStatus (*const typed_AudioFileStreamGetPropertyInfo)(AudioFileStreamID, AudioFileStreamPropertyID, UInt32 *,
        Boolean *) = AudioFileStreamGetPropertyInfo;
    OSStatus (*const typed_AudioFileStreamGetProperty)(AudioFileStreamID, AudioFileStreamPropertyID, UInt32 *,
        void *) = AudioFileStreamGetProperty;
    OSStatus (*const typed_AudioFileStreamSetProperty)(AudioFileStreamID, AudioFileStreamPropertyID, UInt32,
        const void *) = AudioFileStreamSetProperty;
    OSStatus (*const typed_AudioFileStreamClose)(AudioFileStreamID) = AudioFileStreamClose;
    OSStatus (*const typed_ExtAudioFileOpenURL)(CFURLRef, ExtAudioFileRef *) = ExtAudioFileOpenURL;
    OSStatus (*const typed_ExtAudioFileWrapAudioFileID)(AudioFileID, Boolean,
        ExtAudioFileRef *) = ExtAudioFileWrapAudioFileID;
    OSStatus (*const typed_ExtAudioFileCreateWithURL)(CFURLRef, AudioFileTypeID, const AudioStreamBasicDescription *,
        const AudioChannelLayout *, UInt32, ExtAudioFileRef *) = ExtAudioFileCreateWithURL;
    OSStatus (*const typed_ExtAudioFileDispose)(ExtAudioFileRef) = ExtAudioFileDispose;
    OSStatus (*const typed_ExtAudioFileRead)(ExtAudioFileRef, UInt32 *, AudioBufferList *) = ExtAudioFileRead;
    OSStatus (*const typed_ExtAudioFileWrite)(ExtAudioFileRef, UInt32, const AudioBufferList *) = ExtAudioFileWrite;
    OSStatus (*const typed_ExtAudioFileWriteAsync)(ExtAudioFileRef, UInt32,
        const AudioBufferList *) = ExtAudioFileWriteAsync;
    OSStatus (*const typed_ExtAudioFileSeek)(ExtAudioFileRef, SInt64) = ExtAudioFileSeek;
    OSStatus (*const typed_ExtAudioFileTell)(ExtAudioFileRef, SInt64 *) = ExtAudioFileTell;
    OSStatus (*const typed_ExtAudioFileGetPropertyInfo)(ExtAudioFileRef, ExtAudioFilePropertyID, UInt32 *,
        Boolean *) = ExtAudioFileGetPropertyInfo;
    OSStatus (*const typed_ExtAudioFileGetProperty)(ExtAudioFileRef, ExtAudioFilePropertyID, UInt32 *,
        void *) = ExtAudioFileGetProperty;
    OSStatus (*const typed_ExtAudioFileSetProperty)(ExtAudioFileRef, ExtAudioFilePropertyID, UInt32,
        const void *) = ExtAudioFileSetProperty;
    OSStatus (*const typed_AudioConverterNew)(const AudioStreamBasicDescription *, const AudioStreamBasicDescription *,
        AudioConverterRef *) = AudioConverterNew;
    OSStatus (*const typed_AudioConverterNewSpecific)(const AudioStreamBasicDescription *,
        const AudioStreamBasicDescription *, UInt32, const AudioClassDescription *,
        AudioConverterRef *) = AudioConverterNewSpecific;
    OSStatus (*const typed_AudioConverterDispose)(AudioConverterRef) = AudioConverterDispose;
    OSStatus (*const typed_AudioConverterReset)(AudioConverterRef) = AudioConverterReset;
    OSStatus (*const typed_AudioConverterGetPropertyInfo)(AudioConverterRef, AudioConverterPropertyID, UInt32 *,
        Boolean *) = AudioConverterGetPropertyInfo;
    OSStatus (*const typed_AudioConverterGetProperty)(AudioConverterRef, AudioConverterPropertyID, UInt32 *,
        void *) = AudioConverterGetProperty;
    OSStatus (*const typed_AudioConverterSetProperty)(AudioConverterRef, AudioConverterPropertyID, UInt32,
        const void *) = AudioConverterSetProperty;
    OSStatus (*const typed_AudioConverterConvertBuffer)(AudioConverterRef, UInt32, const void *, UInt32 *,
        void *) = AudioConverterConvertBuffer;
    OSStatus (*const typed_AudioConverterFillComplexBuffer)(AudioConverterRef, AudioConverterComplexInputDataProc,
        void *, UInt32 *, AudioBufferList *, AudioStreamPacketDescription *) = AudioConverterFillComplexBuffer;
    OSStatus (*const typed_AudioConverterConvertComplexBuffer)(AudioConverterRef, UInt32, const AudioBufferList *,
        AudioBufferList *) = AudioConverterConvertComplexBuffer;
    OSStatus (*const typed_AudioFormatGetPropertyInfo)(AudioFormatPropertyID, UInt32, const void *,
        UInt32 *) = AudioFormatGetPropertyInfo;
    OSStatus (*const typed_AudioFormatGetProperty)(AudioFormatPropertyID, UInt32, const void *, UInt32 *,
        void *) = AudioFormatGetProperty;
    void (*const functions[])(void) = {
        (void (*)(void))typed_AudioFileCreateWithURL,
        (void (*)(void))typed_AudioFileOpenURL,
        (void (*)(void))typed_AudioFileInitializeWithCallbacks,
        (void (*)(void))typed_AudioFileOpenWithCallbacks,
        (void (*)(void))typed_AudioFileClose,
        (void (*)(void))typed_AudioFileOptimize,
        (void (*)(void))typed_AudioFileReadBytes,
        (void (*)(void))typed_AudioFileWriteBytes,
        (void (*)(void))typed_AudioFileReadPacketData,
        (void (*)(void))typed_AudioFileReadPackets,
        (void (*)(void))typed_AudioFileWritePackets,
        (void (*)(void))typed_AudioFileCountUserData,
        (void (*)(void))typed_AudioFileGetUserDataSize,
        (void (*)(void))typed_AudioFileGetUserData,
        (void (*)(void))typed_AudioFileSetUserData,
        (void (*)(void))typed_AudioFileRemoveUserData,
        (void (*)(void))typed_AudioFileGetPropertyInfo,
        (void (*)(void))typed_AudioFileGetProperty,
        (void (*)(void))typed_AudioFileSetProperty,
        (void (*)(void))typed_AudioFileGetGlobalInfoSize,
        (void (*)(void))typed_AudioFileGetGlobalInfo,
        (void (*)(void))typed_AudioFileStreamOpen,
        (void (*)(void))typed_AudioFileStreamParseBytes,
        (void (*)(void))typed_AudioFileStreamSeek,
        (void (*)(void))typed_AudioFileStreamGetPropertyInfo,
        (void (*)(void))typed_AudioFileStreamGetProperty,
        (void (*)(void))typed_AudioFileStreamSetProperty,
        (void (*)(void))typed_AudioFileStreamClose,
        (void (*)(void))typed_ExtAudioFileOpenURL,
        (void (*)(void))typed_ExtAudioFileWrapAudioFileID,
        (void (*)(void))typed_ExtAudioFileCreateWithURL,
        (void (*)(void))typed_ExtAudioFileDispose,
        (void (*)(void))typed_ExtAudioFileRead,
        (void (*)(void))typed_ExtAudioFileWrite,
        (void (*)(void))typed_ExtAudioFileWriteAsync,
        (void (*)(void))typed_ExtAudioFileSeek,
        (void (*)(void))typed_ExtAudioFileTell,
        (void (*)(void))typed_ExtAudioFileGetPropertyInfo,
        (void (*)(void))typed_ExtAudioFileGetProperty,
        (void (*)(void))typed_ExtAudioFileSetProperty,
        (void (*)(void))typed_AudioConverterNew,
        (void (*)(void))typed_AudioConverterNewSpecific,
        (void (*)(void))typed_AudioConverterDispose,
        (void (*)(void))typed_AudioConverterReset,
        (void (*)(void))typed_AudioConverterGetPropertyInfo,
        (void (*)(void))typed_AudioConverterGetProperty,
        (void (*)(void))typed_AudioConverterSetProperty,
        (void (*)(void))typed_AudioConverterConvertBuffer,
        (void (*)(void))typed_AudioConverterFillComplexBuffer,
        (void (*)(void))typed_AudioConverterConvertComplexBuffer,
        (void (*)(void))typed_AudioFormatGetPropertyInfo,
        (void (*)(void))typed_AudioFormatGetProperty
    };
    STATIC_ASSERT(sizeof functions / sizeof functions[0] == 52, "function count");
    for (i = 0; i < sizeof functions / sizeof functions[0]; i++)
        if (functions[i] == NULL) return 1;
    for (i = 0; i < sizeof info_keys / sizeof info_keys[0]; i++)
        if (strcmp(info_keys[i].macro, info_keys[i].expected) != 0
            || info_keys[i].size != strlen(info_keys[i].expected) + 1)
            return 2;
    if (!callback_types_match()) return 3;
    if (!next_region_steps()) return 4;
    printf("audio-file-values ok\n");
    return 0;
}
