/*
 * AudioToolbox for Linux — <AudioUnit/AudioComponent.h>.
 *
 * Finding audio components (the I/O units the library provides) and making instances of
 * them. Names, values and signatures are the iPhone SDK's (iOS 7), so code that looks up
 * RemoteIO or VoiceProcessingIO compiles unchanged.
 */
#ifndef __AUDIOCOMPONENT_H__
#define __AUDIOCOMPONENT_H__

#include <CoreAudio/CoreAudioTypes.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Component flags (componentFlags). */
enum {
    kAudioComponentFlag_Unsearchable = 1,
    kAudioComponentFlag_SandboxSafe  = 2
};

/* What to look for: zero fields match anything. The layout packs to 4 bytes, as the SDK's. */
#pragma pack(push, 4)
typedef struct AudioComponentDescription {
    OSType componentType;
    OSType componentSubType;
    OSType componentManufacturer;
    UInt32 componentFlags;
    UInt32 componentFlagsMask;
} AudioComponentDescription;
#pragma pack(pop)

/* A component (a kind of unit) and an instance of one (a unit). */
typedef struct OpaqueAudioComponent *AudioComponent;
typedef struct OpaqueAudioComponentInstance *AudioComponentInstance;

/* The next component after inComponent (NULL: the first) that matches inDesc, or NULL. */
extern AudioComponent AudioComponentFindNext(AudioComponent inComponent, const AudioComponentDescription *inDesc);

/* How many components match inDesc. */
extern UInt32 AudioComponentCount(const AudioComponentDescription *inDesc);

/* The component's name ("Apple: AURemoteIO" style), a CFString the caller releases. */
extern OSStatus AudioComponentCopyName(AudioComponent inComponent, CFStringRef *outName);

/* The component's full description. */
extern OSStatus AudioComponentGetDescription(AudioComponent inComponent, AudioComponentDescription *outDesc);

/* The component's version, 0xMMMMmmDD. */
extern OSStatus AudioComponentGetVersion(AudioComponent inComponent, UInt32 *outVersion);

/* Makes an instance (a unit); dispose of it with AudioComponentInstanceDispose. */
extern OSStatus AudioComponentInstanceNew(AudioComponent inComponent, AudioComponentInstance *outInstance);

extern OSStatus AudioComponentInstanceDispose(AudioComponentInstance inInstance);

/* The component an instance was made from. */
extern AudioComponent AudioComponentInstanceGetComponent(AudioComponentInstance inInstance);

/* Whether the instance answers a selector (kAudioUnit*Select). */
extern Boolean AudioComponentInstanceCanDo(AudioComponentInstance inInstance, SInt16 inSelectorID);

#ifdef __cplusplus
}
#endif
#endif /* __AUDIOCOMPONENT_H__ */
