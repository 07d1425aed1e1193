/*
 * AudioToolbox for Linux — <AudioUnit/MusicDevice.h>: playing a music device (AUSampler)
 * with MIDI, as the iPhone SDK (iOS 7) declares it.
 *
 * MusicDeviceMIDIEvent takes a channel message (note on and off, key and channel
 * pressure, controllers, program change, pitch bend) with the frame offset into the next
 * render at which it sounds; MusicDeviceSysEx a system-exclusive message of at most 32
 * bytes (F0 ... F7). MusicDeviceStartNote and MusicDeviceStopNote are the note calls of
 * the extended API: a group is a MIDI channel (0 to 15), the pitch a MIDI note number
 * (the fraction is dropped) and a note started by StartNote is stopped by StopNote with
 * the ID it gave. The sampler must be initialized: before that these calls answer
 * kAudioUnitErr_Uninitialized.
 */
#ifndef __MusicDevice_h__
#define __MusicDevice_h__

#include <AudioUnit/AUComponent.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef UInt32 MusicDeviceInstrumentID;

/* The note parameters of the usual case: two arguments, the pitch and the velocity. */
typedef struct MusicDeviceStdNoteParams {
    UInt32  argCount;
    Float32 mPitch;
    Float32 mVelocity;
} MusicDeviceStdNoteParams;

typedef struct NoteParamsControlValue {
    AudioUnitParameterID    mID;
    AudioUnitParameterValue mValue;
} NoteParamsControlValue;

/* argCount is 2 plus the number of controls that follow the velocity. */
typedef struct MusicDeviceNoteParams {
    UInt32                 argCount;
    Float32                mPitch;
    Float32                mVelocity;
    NoteParamsControlValue mControls[1];
} MusicDeviceNoteParams;

enum {
    kMusicNoteEvent_UseGroupInstrument = (SInt32)0xFFFFFFFFU, /* all bits, as an int */
    kMusicNoteEvent_Unused             = (SInt32)0xFFFFFFFFU
};

typedef UInt32 MusicDeviceGroupID;
typedef UInt32 NoteInstanceID;
typedef AudioComponentInstance MusicDeviceComponent;

extern OSStatus MusicDeviceMIDIEvent(MusicDeviceComponent inUnit, UInt32 inStatus, UInt32 inData1, UInt32 inData2,
                                     UInt32 inOffsetSampleFrame);
extern OSStatus MusicDeviceSysEx(MusicDeviceComponent inUnit, const UInt8 *inData, UInt32 inLength);
extern OSStatus MusicDeviceStartNote(MusicDeviceComponent inUnit, MusicDeviceInstrumentID inInstrument,
                                     MusicDeviceGroupID inGroupID, NoteInstanceID *outNoteInstanceID,
                                     UInt32 inOffsetSampleFrame, const MusicDeviceNoteParams *inParams);
extern OSStatus MusicDeviceStopNote(MusicDeviceComponent inUnit, MusicDeviceGroupID inGroupID,
                                    NoteInstanceID inNoteInstanceID, UInt32 inOffsetSampleFrame);

/* The same calls as a component's functions take them (the unit's own storage first). */
typedef OSStatus (*MusicDeviceMIDIEventProc)(void *self, UInt32 inStatus, UInt32 inData1, UInt32 inData2,
                                             UInt32 inOffsetSampleFrame);
typedef OSStatus (*MusicDeviceSysExProc)(void *self, const UInt8 *inData, UInt32 inLength);
typedef OSStatus (*MusicDeviceStartNoteProc)(void *self, MusicDeviceInstrumentID inInstrument, MusicDeviceGroupID inGroupID,
                                             NoteInstanceID *outNoteInstanceID, UInt32 inOffsetSampleFrame,
                                             const MusicDeviceNoteParams *inParams);
typedef OSStatus (*MusicDeviceStopNoteProc)(void *self, MusicDeviceGroupID inGroupID, NoteInstanceID inNoteInstanceID,
                                            UInt32 inOffsetSampleFrame);

/* The component selectors of these calls. */
enum {
    kMusicDeviceRange                   = 0x0100,
    kMusicDeviceMIDIEventSelect         = 0x0101,
    kMusicDeviceSysExSelect             = 0x0102,
    kMusicDevicePrepareInstrumentSelect = 0x0103,
    kMusicDeviceReleaseInstrumentSelect = 0x0104,
    kMusicDeviceStartNoteSelect         = 0x0105,
    kMusicDeviceStopNoteSelect          = 0x0106
};

#ifdef __cplusplus
}
#endif

#endif /* __MusicDevice_h__ */
