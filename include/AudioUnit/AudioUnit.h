/*
 * AudioToolbox for Linux — <AudioUnit/AudioUnit.h>, the umbrella of the audio unit
 * headers, as on the phone. <AudioToolbox/AudioToolbox.h> includes it too.
 */
#ifndef __AUDIOUNIT__
#define __AUDIOUNIT__

#include <TargetConditionals.h>
#define AUDIO_UNIT_VERSION 1070

#include <AudioUnit/AudioComponent.h>
#include <AudioUnit/AUComponent.h>
#include <AudioUnit/AudioOutputUnit.h>
#include <AudioUnit/AudioUnitProperties.h>
#include <AudioUnit/AudioUnitParameters.h>
#include <AudioUnit/MusicDevice.h>

#endif /* __AUDIOUNIT__ */
