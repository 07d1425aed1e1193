/*
 * AudioToolbox for Linux — <AudioToolbox/MusicPlayer.h>: MIDI sequences, their tracks and
 * events, standard MIDI files, and a player that plays a sequence through an AUGraph, as
 * the iPhone SDK (iOS 7) declares them.
 *
 * Times are in beats (quarter notes) unless a call says seconds. A sequence's first
 * track is its tempo track (ExtendedTempo events; 120 beats a minute before the first).
 * A sequence plays through its graph: the one MusicSequenceSetAUGraph gave, or, from
 * the first call that needs one (MusicSequenceGetAUGraph, a player's Preroll or Start), a
 * graph of its own: an AUSampler playing General MIDI from Debian's fluid-soundfont-gm
 * (its sine if that is not installed) into RemoteIO. A track's events go to its
 * destination node (MusicTrackSetDestNode), else to the graph's first music device.
 *
 * The player's clock is the output of the samplers it plays: it hands each event over
 * ahead of time with the frame it belongs at, so events sound where their beats fall
 * (within the sampler's 64-frame synthesis block). MusicPlayerStart starts the graph if
 * it is not running; an interruption stops the graph, and the player with it.
 * MIDI endpoints (CoreMIDI) do not exist on Linux: the calls that take one answer
 * kAudio_UnimplementedError.
 */
#ifndef __MusicPlayer_h__
#define __MusicPlayer_h__

#include <CoreFoundation/CoreFoundation.h>
#include <AudioToolbox/AUGraph.h>
#include <AudioUnit/MusicDevice.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef UInt32 MusicEventType;
enum {
    kMusicEventType_NULL               = 0,
    kMusicEventType_ExtendedNote       = 1,
    kMusicEventType_ExtendedTempo      = 3,
    kMusicEventType_User               = 4,
    kMusicEventType_Meta               = 5,
    kMusicEventType_MIDINoteMessage    = 6,
    kMusicEventType_MIDIChannelMessage = 7,
    kMusicEventType_MIDIRawData        = 8,
    kMusicEventType_Parameter          = 9,
    kMusicEventType_AUPreset           = 10
};

typedef UInt32 MusicSequenceLoadFlags;
enum {
    kMusicSequenceLoadSMF_PreserveTracks   = 0,
    kMusicSequenceLoadSMF_ChannelsToTracks = (1 << 0)
};

typedef UInt32 MusicSequenceType;
enum {
    kMusicSequenceType_Beats   = AT_FOURCC('b','e','a','t'),
    kMusicSequenceType_Seconds = AT_FOURCC('s','e','c','s'),
    kMusicSequenceType_Samples = AT_FOURCC('s','a','m','p')
};

typedef UInt32 MusicSequenceFileTypeID;
enum {
    kMusicSequenceFile_AnyType     = 0,
    kMusicSequenceFile_MIDIType    = AT_FOURCC('m','i','d','i'),
    kMusicSequenceFile_iMelodyType = AT_FOURCC('i','m','e','l')
};

typedef UInt32 MusicSequenceFileFlags;
enum {
    kMusicSequenceFileFlags_Default   = 0,
    kMusicSequenceFileFlags_EraseFile = 1
};

typedef Float64 MusicTimeStamp;
/* A time past any track's end. */
#define kMusicTimeStamp_EndOfTrack 1000000000.0

/* A note: on at its time, off its duration (in beats) later. */
typedef struct MIDINoteMessage {
    UInt8   channel;
    UInt8   note;
    UInt8   velocity;
    UInt8   releaseVelocity;
    Float32 duration;
} MIDINoteMessage;

typedef struct MIDIChannelMessage {
    UInt8 status;
    UInt8 data1;
    UInt8 data2;
    UInt8 reserved;
} MIDIChannelMessage;

/* Bytes sent as they are (a system-exclusive message starts with F0). */
typedef struct MIDIRawData {
    UInt32 length;
    UInt8  data[1];
} MIDIRawData;

typedef struct MIDIMetaEvent {
    UInt8  metaEventType;
    UInt8  unused1;
    UInt8  unused2;
    UInt8  unused3;
    UInt32 dataLength;
    UInt8  data[1];
} MIDIMetaEvent;

/* What a user event carries to MusicSequenceUserCallback. */
typedef struct MusicEventUserData {
    UInt32 length;
    UInt8  data[1];
} MusicEventUserData;

typedef struct ExtendedNoteOnEvent {
    MusicDeviceInstrumentID instrumentID;
    MusicDeviceGroupID      groupID;
    Float32                 duration;
    MusicDeviceNoteParams   extendedParams;
} ExtendedNoteOnEvent;

typedef struct ParameterEvent {
    AudioUnitParameterID    parameterID;
    AudioUnitScope          scope;
    AudioUnitElement        element;
    AudioUnitParameterValue value;
} ParameterEvent;

typedef struct ExtendedTempoEvent {
    Float64 bpm;
} ExtendedTempoEvent;

typedef struct AUPresetEvent {
    AudioUnitScope    scope;
    AudioUnitElement  element;
    CFPropertyListRef preset;
} AUPresetEvent;

/* A time as bars, beats and a fraction of a beat, counted from 1. */
typedef struct CABarBeatTime {
    SInt32 bar;
    UInt16 beat;
    UInt16 subbeat;
    UInt16 subbeatDivisor;
    UInt16 reserved;
} CABarBeatTime;

typedef struct OpaqueMusicPlayer        *MusicPlayer;
typedef struct OpaqueMusicSequence      *MusicSequence;
typedef struct OpaqueMusicTrack         *MusicTrack;
typedef struct OpaqueMusicEventIterator *MusicEventIterator;

/* Called on the player's thread when a user event's time comes. */
typedef void (*MusicSequenceUserCallback)(void *inClientData, MusicSequence inSequence, MusicTrack inTrack,
                                          MusicTimeStamp inEventTime, const MusicEventUserData *inEventData,
                                          MusicTimeStamp inStartSliceBeat, MusicTimeStamp inEndSliceBeat);

enum {
    kAudioToolboxErr_InvalidSequenceType      = -10846,
    kAudioToolboxErr_TrackIndexError          = -10859,
    kAudioToolboxErr_TrackNotFound            = -10858,
    kAudioToolboxErr_EndOfTrack               = -10857,
    kAudioToolboxErr_StartOfTrack             = -10856,
    kAudioToolboxErr_IllegalTrackDestination  = -10855,
    kAudioToolboxErr_NoSequence               = -10854,
    kAudioToolboxErr_InvalidEventType         = -10853,
    kAudioToolboxErr_InvalidPlayerState       = -10852,
    kAudioToolboxErr_CannotDoInCurrentContext = -10863
};

/* Track properties (MusicTrackGetProperty, SetProperty): the loop (a MusicTrackLoopInfo),
 * the offset (MusicTimeStamp), mute and solo (Boolean), the automated parameters (UInt32),
 * the length (MusicTimeStamp) and, of the tempo track only, the resolution in ticks per
 * quarter note a MIDI file is written with (SInt16). */
enum {
    kSequenceTrackProperty_LoopInfo            = 0,
    kSequenceTrackProperty_OffsetTime          = 1,
    kSequenceTrackProperty_MuteStatus          = 2,
    kSequenceTrackProperty_SoloStatus          = 3,
    kSequenceTrackProperty_AutomatedParameters = 4,
    kSequenceTrackProperty_TrackLength         = 5,
    kSequenceTrackProperty_TimeResolution      = 6
};

/* The length looped (0: no loop) and how many times it plays (0: for ever). */
typedef struct MusicTrackLoopInfo {
    MusicTimeStamp loopDuration;
    SInt32         numberOfLoops;
} MusicTrackLoopInfo;

/* ---- players ---- */
extern OSStatus NewMusicPlayer(MusicPlayer *outPlayer);
extern OSStatus DisposeMusicPlayer(MusicPlayer inPlayer);
extern OSStatus MusicPlayerSetSequence(MusicPlayer inPlayer, MusicSequence inSequence);
extern OSStatus MusicPlayerGetSequence(MusicPlayer inPlayer, MusicSequence *outSequence);
extern OSStatus MusicPlayerSetTime(MusicPlayer inPlayer, MusicTimeStamp inTime);
extern OSStatus MusicPlayerGetTime(MusicPlayer inPlayer, MusicTimeStamp *outTime);
extern OSStatus MusicPlayerGetHostTimeForBeats(MusicPlayer inPlayer, MusicTimeStamp inBeats, UInt64 *outHostTime);
extern OSStatus MusicPlayerGetBeatsForHostTime(MusicPlayer inPlayer, UInt64 inHostTime, MusicTimeStamp *outBeats);
extern OSStatus MusicPlayerPreroll(MusicPlayer inPlayer);
extern OSStatus MusicPlayerStart(MusicPlayer inPlayer);
extern OSStatus MusicPlayerStop(MusicPlayer inPlayer);
extern OSStatus MusicPlayerIsPlaying(MusicPlayer inPlayer, Boolean *outIsPlaying);
extern OSStatus MusicPlayerSetPlayRateScalar(MusicPlayer inPlayer, Float64 inScaleRate);
extern OSStatus MusicPlayerGetPlayRateScalar(MusicPlayer inPlayer, Float64 *outScaleRate);

/* ---- sequences ---- */
extern OSStatus NewMusicSequence(MusicSequence *outSequence);
extern OSStatus DisposeMusicSequence(MusicSequence inSequence);
extern OSStatus MusicSequenceNewTrack(MusicSequence inSequence, MusicTrack *outTrack);
extern OSStatus MusicSequenceDisposeTrack(MusicSequence inSequence, MusicTrack inTrack);
extern OSStatus MusicSequenceGetTrackCount(MusicSequence inSequence, UInt32 *outNumberOfTracks);
extern OSStatus MusicSequenceGetIndTrack(MusicSequence inSequence, UInt32 inTrackIndex, MusicTrack *outTrack);
extern OSStatus MusicSequenceGetTrackIndex(MusicSequence inSequence, MusicTrack inTrack, UInt32 *outTrackIndex);
extern OSStatus MusicSequenceGetTempoTrack(MusicSequence inSequence, MusicTrack *outTrack);
extern OSStatus MusicSequenceSetAUGraph(MusicSequence inSequence, AUGraph inGraph);
extern OSStatus MusicSequenceGetAUGraph(MusicSequence inSequence, AUGraph *outGraph);
/* CoreMIDI's MIDIEndpointRef (a UInt32 handle): no endpoint exists here. */
extern OSStatus MusicSequenceSetMIDIEndpoint(MusicSequence inSequence, UInt32 inEndpoint);
extern OSStatus MusicSequenceSetSequenceType(MusicSequence inSequence, MusicSequenceType inType);
extern OSStatus MusicSequenceGetSequenceType(MusicSequence inSequence, MusicSequenceType *outType);
extern OSStatus MusicSequenceFileLoad(MusicSequence inSequence, CFURLRef inFileRef, MusicSequenceFileTypeID inFileTypeHint,
                                      MusicSequenceLoadFlags inFlags);
extern OSStatus MusicSequenceFileLoadData(MusicSequence inSequence, CFDataRef inData, MusicSequenceFileTypeID inFileTypeHint,
                                          MusicSequenceLoadFlags inFlags);
/* The resolution of a MIDI file in SMPTE frames: frames a second (negative) and ticks a frame. */
static inline SInt16 MusicSequenceSetSMPTEResolution(SInt8 fps, UInt8 ticks)
{
    return (SInt16)(((UInt16)(UInt8)fps << 8) | ticks);
}
static inline void MusicSequenceGetSMPTEResolution(SInt16 inRes, SInt8 *fps, UInt8 *ticks)
{
    *fps = (SInt8)((UInt16)inRes >> 8);
    *ticks = (UInt8)((UInt16)inRes & 0xFF);
}
extern OSStatus MusicSequenceFileCreate(MusicSequence inSequence, CFURLRef inFileRef, MusicSequenceFileTypeID inFileType,
                                        MusicSequenceFileFlags inFlags, SInt16 inResolution);
extern OSStatus MusicSequenceFileCreateData(MusicSequence inSequence, MusicSequenceFileTypeID inFileType,
                                            MusicSequenceFileFlags inFlags, SInt16 inResolution, CFDataRef *outData);
extern OSStatus MusicSequenceReverse(MusicSequence inSequence);
extern OSStatus MusicSequenceGetSecondsForBeats(MusicSequence inSequence, MusicTimeStamp inBeats, Float64 *outSeconds);
extern OSStatus MusicSequenceGetBeatsForSeconds(MusicSequence inSequence, Float64 inSeconds, MusicTimeStamp *outBeats);
extern OSStatus MusicSequenceSetUserCallback(MusicSequence inSequence, MusicSequenceUserCallback inCallback,
                                             void *inClientData);
extern OSStatus MusicSequenceBeatsToBarBeatTime(MusicSequence inSequence, MusicTimeStamp inBeats, UInt32 inSubbeatDivisor,
                                                CABarBeatTime *outBarBeatTime);
extern OSStatus MusicSequenceBarBeatTimeToBeats(MusicSequence inSequence, const CABarBeatTime *inBarBeatTime,
                                                MusicTimeStamp *outBeats);
/* A new dictionary (the caller releases it) of what the sequence knows of itself. */
extern CFDictionaryRef MusicSequenceGetInfoDictionary(MusicSequence inSequence);

/* ---- tracks ---- */
extern OSStatus MusicTrackGetSequence(MusicTrack inTrack, MusicSequence *outSequence);
extern OSStatus MusicTrackSetDestNode(MusicTrack inTrack, AUNode inNode);
extern OSStatus MusicTrackSetDestMIDIEndpoint(MusicTrack inTrack, UInt32 inEndpoint);
extern OSStatus MusicTrackGetDestNode(MusicTrack inTrack, AUNode *outNode);
extern OSStatus MusicTrackGetDestMIDIEndpoint(MusicTrack inTrack, UInt32 *outEndpoint);
extern OSStatus MusicTrackSetProperty(MusicTrack inTrack, UInt32 inPropertyID, void *inData, UInt32 inLength);
extern OSStatus MusicTrackGetProperty(MusicTrack inTrack, UInt32 inPropertyID, void *outData, UInt32 *ioLength);
extern OSStatus MusicTrackMoveEvents(MusicTrack inTrack, MusicTimeStamp inStartTime, MusicTimeStamp inEndTime,
                                     MusicTimeStamp inMoveTime);
extern OSStatus MusicTrackClear(MusicTrack inTrack, MusicTimeStamp inStartTime, MusicTimeStamp inEndTime);
extern OSStatus MusicTrackCut(MusicTrack inTrack, MusicTimeStamp inStartTime, MusicTimeStamp inEndTime);
extern OSStatus MusicTrackCopyInsert(MusicTrack inSourceTrack, MusicTimeStamp inSourceStartTime,
                                     MusicTimeStamp inSourceEndTime, MusicTrack inDestTrack, MusicTimeStamp inDestInsertTime);
extern OSStatus MusicTrackMerge(MusicTrack inSourceTrack, MusicTimeStamp inSourceStartTime, MusicTimeStamp inSourceEndTime,
                                MusicTrack inDestTrack, MusicTimeStamp inDestInsertTime);
extern OSStatus MusicTrackNewMIDINoteEvent(MusicTrack inTrack, MusicTimeStamp inTimeStamp, const MIDINoteMessage *inMessage);
extern OSStatus MusicTrackNewMIDIChannelEvent(MusicTrack inTrack, MusicTimeStamp inTimeStamp,
                                              const MIDIChannelMessage *inMessage);
extern OSStatus MusicTrackNewMIDIRawDataEvent(MusicTrack inTrack, MusicTimeStamp inTimeStamp, const MIDIRawData *inRawData);
extern OSStatus MusicTrackNewExtendedNoteEvent(MusicTrack inTrack, MusicTimeStamp inTimeStamp,
                                               const ExtendedNoteOnEvent *inInfo);
extern OSStatus MusicTrackNewParameterEvent(MusicTrack inTrack, MusicTimeStamp inTimeStamp, const ParameterEvent *inInfo);
extern OSStatus MusicTrackNewExtendedTempoEvent(MusicTrack inTrack, MusicTimeStamp inTimeStamp, Float64 inBPM);
extern OSStatus MusicTrackNewMetaEvent(MusicTrack inTrack, MusicTimeStamp inTimeStamp, const MIDIMetaEvent *inMetaEvent);
extern OSStatus MusicTrackNewUserEvent(MusicTrack inTrack, MusicTimeStamp inTimeStamp, const MusicEventUserData *inUserData);
extern OSStatus MusicTrackNewAUPresetEvent(MusicTrack inTrack, MusicTimeStamp inTimeStamp, const AUPresetEvent *inPresetEvent);

/* ---- iterators ---- */
extern OSStatus NewMusicEventIterator(MusicTrack inTrack, MusicEventIterator *outIterator);
extern OSStatus DisposeMusicEventIterator(MusicEventIterator inIterator);
extern OSStatus MusicEventIteratorSeek(MusicEventIterator inIterator, MusicTimeStamp inTimeStamp);
extern OSStatus MusicEventIteratorNextEvent(MusicEventIterator inIterator);
extern OSStatus MusicEventIteratorPreviousEvent(MusicEventIterator inIterator);
extern OSStatus MusicEventIteratorGetEventInfo(MusicEventIterator inIterator, MusicTimeStamp *outTimeStamp,
                                               MusicEventType *outEventType, const void **outEventData,
                                               UInt32 *outEventDataSize);
extern OSStatus MusicEventIteratorSetEventInfo(MusicEventIterator inIterator, MusicEventType inEventType,
                                               const void *inEventData);
extern OSStatus MusicEventIteratorSetEventTime(MusicEventIterator inIterator, MusicTimeStamp inTimeStamp);
extern OSStatus MusicEventIteratorDeleteEvent(MusicEventIterator inIterator);
extern OSStatus MusicEventIteratorHasPreviousEvent(MusicEventIterator inIterator, Boolean *outHasPrevEvent);
extern OSStatus MusicEventIteratorHasNextEvent(MusicEventIterator inIterator, Boolean *outHasNextEvent);
extern OSStatus MusicEventIteratorHasCurrentEvent(MusicEventIterator inIterator, Boolean *outHasCurEvent);

#ifdef __cplusplus
}
#endif

#endif /* __MusicPlayer_h__ */
