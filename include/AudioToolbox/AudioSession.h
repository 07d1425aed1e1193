/*
 * AudioToolbox for Linux — Audio Session Services.
 *
 * The legacy (iOS 7 era) Audio Session C API, implemented over ALSA and a virtual
 * sound device. Names, values and signatures match Apple's API so that ported code
 * compiles unchanged; the behaviour each call promises is described next to it and
 * in audiosession(3) / docs/API.md. Linux-only additions live in
 * <AudioToolbox/AudioSessionLinux.h>.
 *
 * Threading: every function may be called from any thread. Callbacks (interruption
 * listener, property listeners) never run on a library thread: they run on the run
 * loop and mode given to AudioSessionInitialize, or from
 * AudioSessionDispatchPendingCallbacks() for programs without a CFRunLoop.
 */
#ifndef AUDIOTOOLBOX_AUDIOSESSION_H
#define AUDIOTOOLBOX_AUDIOSESSION_H

/* CoreFoundation's headers need the byte order spelled the Apple way; gcc does not
 * define these macros itself. */
#include <AudioToolbox/compat/byte_order.h>

/* Included one by one: the CoreFoundation umbrella header needs clang's blocks. */
#include <CoreFoundation/CFBase.h>
#include <CoreFoundation/CFString.h>
#include <CoreFoundation/CFRunLoop.h>
#include <CoreFoundation/CFDictionary.h>
#include <CoreFoundation/CFArray.h>
#include <CoreFoundation/CFNumber.h>

/* Four-character codes written as their big-endian value, so that no compiler warns
 * about multi-character constants: AT_FOURCC('a','c','a','t') == 0x61636174. */
#define AT_FOURCC(a, b, c, d) \
    ((UInt32)(((UInt32)(a) << 24) | ((UInt32)(b) << 16) | ((UInt32)(c) << 8) | (UInt32)(d)))

/* noErr, declared the way MacTypes.h declares it on Apple systems: an enumerator, not a
 * macro, and not at all where MacTypes (or a stand-in defining __MACTYPES__) already
 * did. The self-referring macro lets code test `#ifndef noErr` before declaring its own;
 * code that declares `enum { noErr = 0 };` unconditionally after this header cannot be
 * accommodated (C allows one declaration) and should guard it with one of those tests. */
#if !defined(__MACTYPES__) && !defined(noErr)
enum { noErr = 0 };
#define noErr noErr
#endif

/* nil, which the phone's MacTypes.h gives C code as the null pointer: programs pass it
 * where a pointer is wanted (AudioSessionInitialize(NULL, NULL, NULL, nil)). Left alone
 * where MacTypes (or a stand-in defining __MACTYPES__) or the program already defined it;
 * not given to Objective-C, whose objc.h has its own, nor to C++, where nil is a name
 * some libraries use for their own things, nor to Swift's importer. */
#if !defined(__MACTYPES__) && !defined(nil) && !defined(__cplusplus) && !defined(__OBJC__) && \
    !defined(__swift__)
#include <stddef.h>
#define nil NULL
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------
 * Result codes. Every function returns one of these as an OSStatus.
 * ------------------------------------------------------------------------------- */
enum {
    /* The call succeeded. */
    kAudioSessionNoError                   = 0,
    /* AudioSessionInitialize has not been called yet in this process. */
    kAudioSessionNotInitialized            = (SInt32)AT_FOURCC('!','i','n','i'),
    /* AudioSessionInitialize was already called once in this process. */
    kAudioSessionAlreadyInitialized        = (SInt32)AT_FOURCC('i','n','i','t'),
    /* The session could not be set up. */
    kAudioSessionInitializationError       = (SInt32)AT_FOURCC('i','n','i','?'),
    /* Unknown property, wrong direction (set a read-only one, read a write-only or
     * listener-only one), no listener on that property, or a value outside the legal set. */
    kAudioSessionUnsupportedPropertyError  = (SInt32)AT_FOURCC('p','t','y','?'),
    /* A size argument is not the property's size (or a buffer is too small). */
    kAudioSessionBadPropertySizeError      = (SInt32)AT_FOURCC('!','s','i','z'),
    /* The operation needs an active session. */
    kAudioSessionNotActiveError            = (SInt32)AT_FOURCC('!','a','c','t'),
    /* The sound hardware the category needs is absent (for example no input). */
    kAudioServicesNoHardwareError          = (SInt32)AT_FOURCC('n','o','h','w'),
    /* No category has been set where one is needed. */
    kAudioSessionNoCategorySet             = (SInt32)AT_FOURCC('?','c','a','t'),
    /* The request is not allowed in the current category (an override or mode the
     * category does not take). */
    kAudioSessionIncompatibleCategory      = (SInt32)AT_FOURCC('!','c','a','t'),
    /* Anything else: NULL pointers where data is required, activation refused while
     * an interruption is in progress, a mode change while active. */
    kAudioSessionUnspecifiedError          = (SInt32)AT_FOURCC('w','h','a','t')
};

/* ---------------------------------------------------------------------------------
 * Interruption states, passed as the second argument of the interruption listener.
 * ------------------------------------------------------------------------------- */
enum {
    kAudioSessionBeginInterruption = 1,
    kAudioSessionEndInterruption   = 0
};

/* ---------------------------------------------------------------------------------
 * Categories: the value of kAudioSessionProperty_AudioCategory.
 * ------------------------------------------------------------------------------- */
enum {
    /* Plays, mixes with other programs, silenced by the silent switch. */
    kAudioSessionCategory_AmbientSound      = AT_FOURCC('a','m','b','i'),
    /* The default: plays alone, silenced by the silent switch. */
    kAudioSessionCategory_SoloAmbientSound  = AT_FOURCC('s','o','l','o'),
    /* Plays alone (unless MixWithOthers), not silenced. */
    kAudioSessionCategory_MediaPlayback     = AT_FOURCC('m','e','d','i'),
    /* Records only. */
    kAudioSessionCategory_RecordAudio       = AT_FOURCC('r','e','c','a'),
    /* Plays and records (voice chat, effects processing). */
    kAudioSessionCategory_PlayAndRecord     = AT_FOURCC('p','l','a','r'),
    /* Neither plays nor records: offline processing. */
    kAudioSessionCategory_AudioProcessing   = AT_FOURCC('p','r','o','c')
};

/* Deprecated spellings, accepted and read back as they were set. */
enum {
    /* Behaves as kAudioSessionCategory_AmbientSound. */
    kAudioSessionCategory_UserInterfaceSoundEffects = AT_FOURCC('u','i','f','x'),
    /* Behaves as kAudioSessionCategory_MediaPlayback. */
    kAudioSessionCategory_LiveAudio                 = AT_FOURCC('l','i','v','e')
};

/* ---------------------------------------------------------------------------------
 * Modes: the value of kAudioSessionProperty_Mode.
 * ------------------------------------------------------------------------------- */
enum {
    kAudioSessionMode_Default        = AT_FOURCC('d','f','l','t'),
    /* PlayAndRecord only; turns on EnableBluetoothInput. */
    kAudioSessionMode_VoiceChat      = AT_FOURCC('v','c','c','t'),
    /* RecordAudio or PlayAndRecord only. */
    kAudioSessionMode_VideoRecording = AT_FOURCC('v','r','c','d'),
    /* Any category. */
    kAudioSessionMode_Measurement    = AT_FOURCC('m','s','m','t'),
    /* PlayAndRecord only. */
    kAudioSessionMode_GameChat       = AT_FOURCC('g','m','c','t')
};

/* ---------------------------------------------------------------------------------
 * Values of kAudioSessionProperty_OverrideAudioRoute.
 * ------------------------------------------------------------------------------- */
enum {
    kAudioSessionOverrideAudioRoute_None    = 0,
    kAudioSessionOverrideAudioRoute_Speaker = AT_FOURCC('s','p','k','r')
};

/* ---------------------------------------------------------------------------------
 * Route change reasons, the CFNumber under kAudioSession_AudioRouteChangeKey_Reason.
 * ------------------------------------------------------------------------------- */
enum {
    kAudioSessionRouteChangeReason_Unknown                    = 0,
    /* A device appeared (headphones plugged in, a USB card attached). */
    kAudioSessionRouteChangeReason_NewDeviceAvailable         = 1,
    /* The device in use went away (headphones pulled out). */
    kAudioSessionRouteChangeReason_OldDeviceUnavailable       = 2,
    /* The category changed while the session was active. */
    kAudioSessionRouteChangeReason_CategoryChange             = 3,
    /* kAudioSessionProperty_OverrideAudioRoute changed the route. */
    kAudioSessionRouteChangeReason_Override                   = 4,
    kAudioSessionRouteChangeReason_WakeFromSleep              = 6,
    /* No device is left that the category can use. */
    kAudioSessionRouteChangeReason_NoSuitableRouteForCategory = 7,
    kAudioSessionRouteChangeReason_RouteConfigurationChange   = 8
};

/* Keys of the dictionary passed to a kAudioSessionProperty_AudioRouteChange listener.
 * The first two are plain C strings: wrap them in CFSTR(). */
#define kAudioSession_AudioRouteChangeKey_Reason   "OutputDeviceDidChange_Reason"
#define kAudioSession_AudioRouteChangeKey_OldRoute "OutputDeviceDidChange_OldRoute"
/* The Reason key as a ready-made CFString (same text as the macro above). */
extern const CFStringRef kAudioSession_RouteChangeKey_Reason;
/* Keys of the route-change dictionary whose values describe the route before and after
 * the change; each value is laid out as a Get of kAudioSessionProperty_AudioRouteDescription
 * returns it (input and output port arrays). */
extern const CFStringRef kAudioSession_AudioRouteChangeKey_PreviousRouteDescription;
extern const CFStringRef kAudioSession_AudioRouteChangeKey_CurrentRouteDescription;

/* Keys of a route-description dictionary: Inputs and Outputs map to CFArrays of
 * dictionaries, each holding the port type under kAudioSession_AudioRouteKey_Type. */
extern const CFStringRef kAudioSession_AudioRouteKey_Inputs;
extern const CFStringRef kAudioSession_AudioRouteKey_Outputs;
extern const CFStringRef kAudioSession_AudioRouteKey_Type;

/* Input port types (values under kAudioSession_AudioRouteKey_Type). */
extern const CFStringRef kAudioSessionInputRoute_LineIn;
extern const CFStringRef kAudioSessionInputRoute_BuiltInMic;
extern const CFStringRef kAudioSessionInputRoute_HeadsetMic;
extern const CFStringRef kAudioSessionInputRoute_BluetoothHFP;
extern const CFStringRef kAudioSessionInputRoute_USBAudio;

/* Output port types. On Linux there is no receiver: where a phone would use it the
 * built-in speaker is reported, as on an iPad. */
extern const CFStringRef kAudioSessionOutputRoute_LineOut;
extern const CFStringRef kAudioSessionOutputRoute_Headphones;
extern const CFStringRef kAudioSessionOutputRoute_BluetoothHFP;
extern const CFStringRef kAudioSessionOutputRoute_BluetoothA2DP;
extern const CFStringRef kAudioSessionOutputRoute_BuiltInReceiver;
extern const CFStringRef kAudioSessionOutputRoute_BuiltInSpeaker;
extern const CFStringRef kAudioSessionOutputRoute_USBAudio;
extern const CFStringRef kAudioSessionOutputRoute_HDMI;
extern const CFStringRef kAudioSessionOutputRoute_AirPlay;

/* Keys of the dictionaries in kAudioSessionProperty_InputSources and
 * kAudioSessionProperty_OutputDestinations: a CFNumber ID and a CFString description. */
extern const CFStringRef kAudioSession_InputSourceKey_ID;
extern const CFStringRef kAudioSession_InputSourceKey_Description;
extern const CFStringRef kAudioSession_OutputDestinationKey_ID;
extern const CFStringRef kAudioSession_OutputDestinationKey_Description;

/* ---------------------------------------------------------------------------------
 * Flags of AudioSessionSetActiveWithFlags.
 * ------------------------------------------------------------------------------- */
enum {
    /* When deactivating: end the interruption of the sessions this one interrupted,
     * telling them they should resume. */
    kAudioSessionSetActiveFlag_NotifyOthersOnDeactivation = (1 << 0)
};

/* Values of kAudioSessionProperty_InterruptionType, readable only while the
 * interruption listener runs for kAudioSessionEndInterruption. */
enum {
    kAudioSessionInterruptionType_ShouldResume    = AT_FOURCC('i','r','s','m'),
    kAudioSessionInterruptionType_ShouldNotResume = AT_FOURCC('!','r','s','m')
};
typedef UInt32 AudioSessionInterruptionType;

/* ---------------------------------------------------------------------------------
 * Properties. Type and access are given for each; "listener" means
 * AudioSessionAddPropertyListener accepts it. CF values are returned retained:
 * the caller releases them.
 * ------------------------------------------------------------------------------- */
typedef UInt32 AudioSessionPropertyID;

enum {
    /* Float64, get/set. The sample rate asked for; 0 until set. */
    kAudioSessionProperty_PreferredHardwareSampleRate          = AT_FOURCC('h','w','s','r'),
    /* Float32 seconds, get/set. The IO buffer duration asked for; 0 until set. */
    kAudioSessionProperty_PreferredHardwareIOBufferDuration    = AT_FOURCC('i','o','b','d'),
    /* UInt32 category, get/set. */
    kAudioSessionProperty_AudioCategory                        = AT_FOURCC('a','c','a','t'),
    /* Listener only. The listener's data is a CFDictionaryRef (see the route change keys). */
    kAudioSessionProperty_AudioRouteChange                     = AT_FOURCC('r','o','c','h'),
    /* Float64, get. The rate the device runs at. */
    kAudioSessionProperty_CurrentHardwareSampleRate            = AT_FOURCC('c','h','s','r'),
    /* UInt32, get, listener. */
    kAudioSessionProperty_CurrentHardwareInputNumberChannels   = AT_FOURCC('c','h','i','c'),
    /* UInt32, get, listener. */
    kAudioSessionProperty_CurrentHardwareOutputNumberChannels  = AT_FOURCC('c','h','o','c'),
    /* Float32 0..1, get, listener. The playback volume. */
    kAudioSessionProperty_CurrentHardwareOutputVolume          = AT_FOURCC('c','h','o','v'),
    /* Float32 seconds, get. */
    kAudioSessionProperty_CurrentHardwareInputLatency          = AT_FOURCC('c','i','l','t'),
    /* Float32 seconds, get. */
    kAudioSessionProperty_CurrentHardwareOutputLatency         = AT_FOURCC('c','o','l','t'),
    /* Float32 seconds, get. The IO buffer duration the device granted. */
    kAudioSessionProperty_CurrentHardwareIOBufferDuration      = AT_FOURCC('c','h','b','d'),
    /* UInt32 0/1, get, and (a Linux addition) listenable. Another program's session with
     * output is active. */
    kAudioSessionProperty_OtherAudioIsPlaying                  = AT_FOURCC('o','t','h','r'),
    /* UInt32, set only: kAudioSessionOverrideAudioRoute_None or _Speaker. */
    kAudioSessionProperty_OverrideAudioRoute                   = AT_FOURCC('o','v','r','d'),
    /* UInt32 0/1, get, listener. */
    kAudioSessionProperty_AudioInputAvailable                  = AT_FOURCC('a','i','a','v'),
    /* Listener only. Called with UInt32 1 when the sound server went away. */
    kAudioSessionProperty_ServerDied                           = AT_FOURCC('d','i','e','d'),
    /* UInt32 0/1, get/set. */
    kAudioSessionProperty_OtherMixableAudioShouldDuck          = AT_FOURCC('d','u','c','k'),
    /* UInt32 0/1, get; set for MediaPlayback and PlayAndRecord. */
    kAudioSessionProperty_OverrideCategoryMixWithOthers        = AT_FOURCC('c','m','i','x'),
    /* UInt32 0/1, get; set for PlayAndRecord. */
    kAudioSessionProperty_OverrideCategoryDefaultToSpeaker     = AT_FOURCC('c','s','p','k'),
    /* UInt32 0/1, get; set for RecordAudio and PlayAndRecord. */
    kAudioSessionProperty_OverrideCategoryEnableBluetoothInput = AT_FOURCC('c','b','l','u'),
    /* UInt32 AudioSessionInterruptionType, get only inside an end-interruption callback. */
    kAudioSessionProperty_InterruptionType                     = AT_FOURCC('t','y','p','e'),
    /* UInt32 mode, get/set while inactive. */
    kAudioSessionProperty_Mode                                 = AT_FOURCC('m','o','d','e'),
    /* CFArrayRef of CFDictionaryRef, get, listener. */
    kAudioSessionProperty_InputSources                         = AT_FOURCC('s','r','c','s'),
    /* CFArrayRef of CFDictionaryRef, get, listener. */
    kAudioSessionProperty_OutputDestinations                   = AT_FOURCC('d','s','t','s'),
    /* CFNumberRef (an ID from InputSources), get/set. */
    kAudioSessionProperty_InputSource                          = AT_FOURCC('i','s','r','c'),
    /* CFNumberRef (an ID from OutputDestinations), get/set. */
    kAudioSessionProperty_OutputDestination                    = AT_FOURCC('o','d','s','t'),
    /* UInt32 0/1, get, listener. The input gain can be set. */
    kAudioSessionProperty_InputGainAvailable                   = AT_FOURCC('i','g','a','v'),
    /* Float32 0..1 (values outside are clamped), get/set, listener. */
    kAudioSessionProperty_InputGainScalar                      = AT_FOURCC('i','g','s','c'),
    /* CFDictionaryRef route description, get. */
    kAudioSessionProperty_AudioRouteDescription                = AT_FOURCC('c','r','a','r')
};

/* Deprecated: CFStringRef legacy route name ("Speaker", "Headphone", "HeadsetInOut", ...), get. */
enum {
    kAudioSessionProperty_AudioRoute = AT_FOURCC('r','o','u','t')
};

/* ---------------------------------------------------------------------------------
 * Callbacks.
 * ------------------------------------------------------------------------------- */

/* Called with kAudioSessionBeginInterruption after the session has been made inactive,
 * and with kAudioSessionEndInterruption when the interruption is over (which may never
 * happen). */
typedef void (*AudioSessionInterruptionListener)(void *inClientData, UInt32 inInterruptionState);

/* Called when a listened property changes. For UInt32/Float32 properties inData points
 * to the new value; for CF properties inData is the CF object itself, valid for the
 * duration of the call. */
typedef void (*AudioSessionPropertyListener)(void *inClientData, AudioSessionPropertyID inID,
                                             UInt32 inDataSize, const void *inData);

/* ---------------------------------------------------------------------------------
 * Functions.
 * ------------------------------------------------------------------------------- */

/* Set up this process's session. inRunLoop NULL means the main run loop and
 * inRunLoopMode NULL means kCFRunLoopDefaultMode: callbacks run there. The listener
 * may be NULL. Returns kAudioSessionAlreadyInitialized on a second call. */
extern OSStatus AudioSessionInitialize(CFRunLoopRef inRunLoop, CFStringRef inRunLoopMode,
                                       AudioSessionInterruptionListener inInterruptionListener,
                                       void *inClientData);

/* Activate or deactivate. Same as AudioSessionSetActiveWithFlags(active, 0). */
extern OSStatus AudioSessionSetActive(Boolean active);

/* Activate or deactivate. Activation negotiates with the hardware the category needs
 * and can fail (kAudioServicesNoHardwareError for RecordAudio without any input, or an
 * unusable device; kAudioSessionUnspecifiedError while an interruption is in progress
 * or the device is busy); the session then stays inactive. PlayAndRecord without an
 * input activates for output alone; the input joins when one is connected. Asking for the
 * current state again succeeds. Unknown flag bits give kAudioSessionUnsupportedPropertyError. */
extern OSStatus AudioSessionSetActiveWithFlags(Boolean active, UInt32 inFlags);

/* Read a property. *ioDataSize holds the buffer size on entry and the bytes written on
 * return; a buffer smaller than the property gives kAudioSessionBadPropertySizeError. */
extern OSStatus AudioSessionGetProperty(AudioSessionPropertyID inID, UInt32 *ioDataSize,
                                        void *outData);

/* Write a property. inDataSize must equal the property's size (sizeof(CFTypeRef) for
 * CF-valued ones). A failed call changes nothing. */
extern OSStatus AudioSessionSetProperty(AudioSessionPropertyID inID, UInt32 inDataSize,
                                        const void *inData);

/* The size in bytes of a property's value. */
extern OSStatus AudioSessionGetPropertySize(AudioSessionPropertyID inID, UInt32 *outDataSize);

/* Register a listener. There is one listener per (inID, inClientData) pair: adding
 * the same pair again replaces the procedure. */
extern OSStatus AudioSessionAddPropertyListener(AudioSessionPropertyID inID,
                                                AudioSessionPropertyListener inProc,
                                                void *inClientData);

/* Deprecated: remove every listener of inID. */
extern OSStatus AudioSessionRemovePropertyListener(AudioSessionPropertyID inID);

/* Remove the listener registered for (inID, inClientData) if its procedure is inProc.
 * Removing a listener that is not registered succeeds and does nothing. */
extern OSStatus AudioSessionRemovePropertyListenerWithUserData(AudioSessionPropertyID inID,
                                                               AudioSessionPropertyListener inProc,
                                                               void *inClientData);

#ifdef __cplusplus
}
#endif

#endif /* AUDIOTOOLBOX_AUDIOSESSION_H */
