/* <AudioUnit/AudioUnit.h> (through <AudioToolbox/AudioToolbox.h>, as on the phone)
 * against the iPhone SDK (iOS 7): values written here as numbers taken from the SDK's
 * headers, struct layouts (LP64), and what exists only under AudioToolbox-ios
 * (EXPECT_IPHONE). Prints "audio-unit-values ok". */
#include <AudioToolbox/AudioToolbox.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
#define STATIC_ASSERT(c, m) static_assert(c, m)
#else
#define STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif

STATIC_ASSERT(kAudioUnitType_Output == 0x61756F75, "auou");
STATIC_ASSERT(kAudioUnitSubType_RemoteIO == 0x72696F63, "rioc");
STATIC_ASSERT(kAudioUnitSubType_VoiceProcessingIO == 0x7670696F, "vpio");
STATIC_ASSERT(kAudioUnitSubType_GenericOutput == 0x67656E72, "genr");
STATIC_ASSERT(kAudioUnitManufacturer_Apple == 0x6170706C, "appl");
STATIC_ASSERT(kAudioUnitErr_InvalidProperty == -10879 && kAudioUnitErr_InvalidParameter == -10878, "errors 1");
STATIC_ASSERT(kAudioUnitErr_InvalidElement == -10877 && kAudioUnitErr_FormatNotSupported == -10868, "errors 2");
STATIC_ASSERT(kAudioUnitErr_Uninitialized == -10867 && kAudioUnitErr_InvalidScope == -10866, "errors 3");
STATIC_ASSERT(kAudioUnitErr_PropertyNotWritable == -10865 && kAudioUnitErr_CannotDoInCurrentContext == -10863, "errors 4");
STATIC_ASSERT(kAudioUnitErr_InvalidPropertyValue == -10851 && kAudioUnitErr_Initialized == -10849, "errors 5");
STATIC_ASSERT(kAudioUnitErr_TooManyFramesToProcess == -10874 && kAudioUnitErr_Unauthorized == -10847, "errors 6");
STATIC_ASSERT(kAudioUnitRenderAction_PreRender == 4 && kAudioUnitRenderAction_PostRender == 8, "render actions");
STATIC_ASSERT(kAudioUnitRenderAction_OutputIsSilence == 16 && kAudioUnitRenderAction_PostRenderError == 256, "actions 2");
STATIC_ASSERT(kAudioUnitScope_Global == 0 && kAudioUnitScope_Input == 1 && kAudioUnitScope_Output == 2, "scopes");
STATIC_ASSERT(kAudioUnitProperty_StreamFormat == 8 && kAudioUnitProperty_ElementCount == 11, "properties 1");
STATIC_ASSERT(kAudioUnitProperty_Latency == 12 && kAudioUnitProperty_MaximumFramesPerSlice == 14, "properties 2");
STATIC_ASSERT(kAudioUnitProperty_SetRenderCallback == 23 && kAudioUnitProperty_ShouldAllocateBuffer == 51, "properties 3");
STATIC_ASSERT(kAudioUnitProperty_LastRenderError == 22 && kAudioUnitProperty_SampleRate == 2, "properties 4");
STATIC_ASSERT(kAudioOutputUnitProperty_IsRunning == 2001 && kAudioOutputUnitProperty_EnableIO == 2003, "output 1");
STATIC_ASSERT(kAudioOutputUnitProperty_SetInputCallback == 2005 && kAudioOutputUnitProperty_HasIO == 2006, "output 2");
STATIC_ASSERT(kAUVoiceIOProperty_BypassVoiceProcessing == 2100 && kAUVoiceIOProperty_VoiceProcessingEnableAGC == 2101,
              "voice 1");
STATIC_ASSERT(kAUVoiceIOProperty_MuteOutput == 2104, "voice 2");
STATIC_ASSERT(kHALOutputParam_Volume == 14, "volume parameter");
STATIC_ASSERT(kMultiChannelMixerParam_Volume == 0 && kMultiChannelMixerParam_Enable == 1 &&
              kMultiChannelMixerParam_Pan == 2, "mixer parameters");
STATIC_ASSERT(kMultiChannelMixerParam_PreAveragePower == 1000 && kMultiChannelMixerParam_PrePeakHoldLevel == 2000 &&
              kMultiChannelMixerParam_PostAveragePower == 3000 && kMultiChannelMixerParam_PostPeakHoldLevel == 4000,
              "mixer meters");
STATIC_ASSERT(kVarispeedParam_PlaybackRate == 0 && kVarispeedParam_PlaybackCents == 1, "varispeed parameters");
STATIC_ASSERT(kAudioUnitProperty_MeteringMode == 3007, "metering mode");
STATIC_ASSERT(kAudioUnitType_Mixer == 0x61756D78 && kAudioUnitSubType_MultiChannelMixer == 0x6D636D78, "mixer component");
STATIC_ASSERT(kAudioUnitType_FormatConverter == 0x61756663 && kAudioUnitSubType_Varispeed == 0x76617269, "varispeed component");
STATIC_ASSERT(kAudioOutputUnitStartSelect == 0x0201 && kAudioUnitRenderSelect == 0x000E, "selectors");
STATIC_ASSERT(sizeof(AudioComponentDescription) == 20, "component description");
STATIC_ASSERT(sizeof(AURenderCallbackStruct) == 16 && offsetof(AURenderCallbackStruct, inputProcRefCon) == 8,
              "render callback struct (LP64)");
STATIC_ASSERT(sizeof(AudioUnitParameterEvent) == 32, "parameter event");
STATIC_ASSERT(sizeof(AudioOutputUnitStartAtTimeParams) == 72, "start-at-time params (LP64)");
STATIC_ASSERT((UInt32)kAudioUnitParameterFlag_IsWritable == 0x80000000u && kAudioUnitParameterFlag_IsReadable == 0x40000000,
              "parameter flags");

#if EXPECT_IPHONE
STATIC_ASSERT(kAudioUnitSubType_AUiPodTime == 0x6970746D && kAUVoiceIOProperty_DuckNonVoiceAudio == 2102, "iOS only");
STATIC_ASSERT(kAudioComponentErr_InstanceInvalidated == -66749, "iOS component errors");
#endif

int main(void)
{
    /* The functions are there to take the address of (declared with these types). */
    OSStatus (*render)(AudioUnit, AudioUnitRenderActionFlags *, const AudioTimeStamp *, UInt32, UInt32,
                       AudioBufferList *) = AudioUnitRender;
    AudioComponent (*find)(AudioComponent, const AudioComponentDescription *) = AudioComponentFindNext;
    OSStatus (*start)(AudioUnit) = AudioOutputUnitStart;
    if (!render || !find || !start) return 1;
    printf("audio-unit-values ok\n");
    return 0;
}
