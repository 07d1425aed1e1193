/*
 * The exported `const CFStringRef` data symbols of AudioSession.h.
 *
 * Swift cannot export data symbols, and CFSTR() is an expression that is not allowed
 * at file scope with this CoreFoundation, so each constant is a static constant-string
 * object laid out exactly as CFSTR lays one out; its address is the CFStringRef.
 *
 * The texts are those the original implementation uses (known from public sources), so
 * code that logs or compares them by value sees the same strings.
 */
#include <AudioToolbox/AudioSession.h>

#define AT_CONSTANT_STRING(name, text)                                                   \
    static struct __CFConstStr name##_storage = {                                          \
        {(uintptr_t)&_CF_CONSTANT_STRING_SWIFT_CLASS, _CF_CONSTANT_OBJECT_STRONG_RC, 0x07C8}, \
        (uint8_t *)(text), sizeof(text) - 1};                                               \
    const CFStringRef name = (CFStringRef)&name##_storage

#if !__LITTLE_ENDIAN__
#error "constant strings are laid out for little-endian machines only"
#endif

AT_CONSTANT_STRING(kAudioSession_RouteChangeKey_Reason, kAudioSession_AudioRouteChangeKey_Reason);
AT_CONSTANT_STRING(kAudioSession_AudioRouteChangeKey_PreviousRouteDescription,
                   "ActiveAudioRouteDidChange_OldDetailedRoute");
AT_CONSTANT_STRING(kAudioSession_AudioRouteChangeKey_CurrentRouteDescription,
                   "ActiveAudioRouteDidChange_NewDetailedRoute");

AT_CONSTANT_STRING(kAudioSession_AudioRouteKey_Inputs, "RouteDetailedDescription_Inputs");
AT_CONSTANT_STRING(kAudioSession_AudioRouteKey_Outputs, "RouteDetailedDescription_Outputs");
AT_CONSTANT_STRING(kAudioSession_AudioRouteKey_Type, "RouteDetailedDescription_PortType");

AT_CONSTANT_STRING(kAudioSessionInputRoute_LineIn, "LineIn");
AT_CONSTANT_STRING(kAudioSessionInputRoute_BuiltInMic, "MicrophoneBuiltIn");
AT_CONSTANT_STRING(kAudioSessionInputRoute_HeadsetMic, "MicrophoneWired");
AT_CONSTANT_STRING(kAudioSessionInputRoute_BluetoothHFP, "MicrophoneBluetooth");
AT_CONSTANT_STRING(kAudioSessionInputRoute_USBAudio, "USBInput");

AT_CONSTANT_STRING(kAudioSessionOutputRoute_LineOut, "LineOut");
AT_CONSTANT_STRING(kAudioSessionOutputRoute_Headphones, "Headphones");
AT_CONSTANT_STRING(kAudioSessionOutputRoute_BluetoothHFP, "BluetoothHFPOutput");
AT_CONSTANT_STRING(kAudioSessionOutputRoute_BluetoothA2DP, "BluetoothA2DPOutput");
AT_CONSTANT_STRING(kAudioSessionOutputRoute_BuiltInReceiver, "Receiver");
AT_CONSTANT_STRING(kAudioSessionOutputRoute_BuiltInSpeaker, "Speaker");
AT_CONSTANT_STRING(kAudioSessionOutputRoute_USBAudio, "USBOutput");
AT_CONSTANT_STRING(kAudioSessionOutputRoute_HDMI, "HDMIOutput");
AT_CONSTANT_STRING(kAudioSessionOutputRoute_AirPlay, "AirPlay");

AT_CONSTANT_STRING(kAudioSession_InputSourceKey_ID, "input source ID");
AT_CONSTANT_STRING(kAudioSession_InputSourceKey_Description, "input source name");
AT_CONSTANT_STRING(kAudioSession_OutputDestinationKey_ID, "output destination ID");
AT_CONSTANT_STRING(kAudioSession_OutputDestinationKey_Description, "output destination name");
