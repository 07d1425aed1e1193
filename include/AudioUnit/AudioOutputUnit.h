/*
 * AudioToolbox for Linux — <AudioUnit/AudioOutputUnit.h>.
 *
 * Starting and stopping an output unit (RemoteIO, VoiceProcessingIO, GenericOutput).
 * On the phone and here, starting an output unit activates an inactive session, and an
 * interruption stops every running unit before its Begin (SPEC 10).
 */
#ifndef __AUDIOOUTPUTUNIT__
#define __AUDIOOUTPUTUNIT__

#include <AudioUnit/AUComponent.h>

#ifdef __cplusplus
extern "C" {
#endif

extern OSStatus AudioOutputUnitStart(AudioUnit ci);
extern OSStatus AudioOutputUnitStop(AudioUnit ci);

enum {
    kAudioOutputUnitRange       = 0x0200,
    kAudioOutputUnitStartSelect = 0x0201,
    kAudioOutputUnitStopSelect  = 0x0202
};

#ifdef __cplusplus
}
#endif
#endif /* __AUDIOOUTPUTUNIT__ */
