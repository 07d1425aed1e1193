/*
 * MusicPlayer.h, called as a strategy game's iOS music driver and Apple's samples call
 * it: a standard MIDI file loaded with MusicSequenceFileLoad (a conductor track with the
 * tempo and a 3/4 time signature, and a melody), its tracks walked with an event
 * iterator the way programs loop (`while (HasNextEvent) { GetEventInfo; NextEvent }`),
 * the track length, beats to seconds and to bars, the default graph walked node by node
 * (MusicSequenceGetAUGraph), the sequence written back to MIDI data and read again.
 * Tracks edited (Clear, Cut, CopyInsert, Merge, MoveEvents, a loop, mute), a user event's
 * callback, and bad inputs with their codes. The MIDI reader is fuzzed.
 *
 * Played (a sampler's sine into RemoteIO, the program's own graph as music apps set it
 * with MusicSequenceSetAUGraph): Preroll, Start, GetTime advancing, IsPlaying, Stop. At
 * the card, each note's onset is measured against the time its beat falls at: the
 * player's timing error (p50, p99, worst) is printed and held within 1 ms. A call stops
 * the player and its graph before the Begin listener runs; started again after the End,
 * it plays on.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "world.h"

enum { NOTES = 16 };
static const double TEMPO = 100; /* beats a minute in the file */

/* ---- a MIDI file, byte by byte ------------------------------------------------------- */

typedef struct { unsigned char bytes[4096]; int length; } Buffer;

static void put(Buffer *b, const void *data, int n) { memcpy(b->bytes + b->length, data, (size_t)n); b->length += n; }
static void byte(Buffer *b, int v) { b->bytes[b->length++] = (unsigned char)v; }
static void word(Buffer *b, unsigned v, int n) { for (int i = n - 1; i >= 0; i--) byte(b, (int)(v >> (8 * i)) & 0xFF); }
static void delta(Buffer *b, unsigned v)
{
    unsigned char tmp[4];
    int n = 0;
    do { tmp[n++] = v & 0x7F; v >>= 7; } while (v);
    while (n--) byte(b, tmp[n] | (n ? 0x80 : 0));
}

/* Type 1, 480 ticks a beat: a conductor (tempo 100, 3/4, a name) and a melody of NOTES
 * notes, each a quarter of a beat long, one a beat from beat 0 (with running status). */
static Buffer midiFile(void)
{
    Buffer f = {{0}, 0}, t = {{0}, 0};
    put(&f, "MThd", 4); word(&f, 6, 4); word(&f, 1, 2); word(&f, 2, 2); word(&f, 480, 2);
    delta(&t, 0); byte(&t, 0xFF); byte(&t, 0x51); byte(&t, 3); word(&t, (unsigned)(60000000 / TEMPO), 3);
    delta(&t, 0); byte(&t, 0xFF); byte(&t, 0x58); byte(&t, 4); byte(&t, 3); byte(&t, 2); byte(&t, 24); byte(&t, 8);
    delta(&t, 0); byte(&t, 0xFF); byte(&t, 0x03); byte(&t, 9); put(&t, "Conductor", 9);
    delta(&t, 0); byte(&t, 0xFF); byte(&t, 0x2F); byte(&t, 0);
    put(&f, "MTrk", 4); word(&f, (unsigned)t.length, 4); put(&f, t.bytes, t.length);
    t.length = 0;
    delta(&t, 0); byte(&t, 0xC0); byte(&t, 0);
    for (int i = 0; i < NOTES; i++) {
        delta(&t, i == 0 ? 0 : 360); byte(&t, 0x90); byte(&t, 69); byte(&t, 100);
        delta(&t, 120); byte(&t, 69); byte(&t, 0); /* running status, velocity 0: note off */
    }
    delta(&t, 480); byte(&t, 0xFF); byte(&t, 0x2F); byte(&t, 0);
    put(&f, "MTrk", 4); word(&f, (unsigned)t.length, 4); put(&f, t.bytes, t.length);
    return f;
}

static MusicTrack firstTrack(MusicSequence s)
{
    MusicTrack t = NULL;
    CHECK_STATUS(MusicSequenceGetIndTrack(s, 0, &t), noErr);
    return t;
}

/* Counts a track's events by walking it as programs do; the first note's time and
 * duration come back. */
static int walk(MusicTrack track, MusicTimeStamp *firstNote, float *duration)
{
    MusicEventIterator it = NULL;
    CHECK_STATUS(NewMusicEventIterator(track, &it), noErr);
    int count = 0, notes = 0;
    Boolean more = false;
    while (MusicEventIteratorHasNextEvent(it, &more), more) {
        MusicTimeStamp time = 0;
        MusicEventType type = 0;
        const void *data = NULL;
        UInt32 size = 0;
        CHECK_STATUS(MusicEventIteratorGetEventInfo(it, &time, &type, &data, &size), noErr);
        if (type == kMusicEventType_MIDINoteMessage && notes++ == 0) {
            if (firstNote) *firstNote = time;
            if (duration) *duration = ((const MIDINoteMessage *)data)->duration;
        }
        count++;
        MusicEventIteratorNextEvent(it);
        if (count > 100000) break;
    }
    CHECK_STATUS(MusicEventIteratorNextEvent(it), kAudioToolboxErr_EndOfTrack);
    DisposeMusicEventIterator(it);
    return count;
}

/* ---- a file's sequence ----------------------------------------------------------------- */

static char folder[256];

static MusicSequence loadFile(void)
{
    Buffer file = midiFile();
    char path[300];
    snprintf(path, sizeof path, "%s/song.mid", folder);
    FILE *f = fopen(path, "wb");
    fwrite(file.bytes, 1, (size_t)file.length, f);
    fclose(f);
    CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)path, (CFIndex)strlen(path), false);
    MusicSequence s = NULL;
    CHECK_STATUS(NewMusicSequence(&s), noErr);
    CHECK_STATUS(MusicSequenceFileLoad(s, url, kMusicSequenceFile_MIDIType, 0), noErr);
    CFRelease(url);
    return s;
}

static void fileAndModel(void)
{
    MusicSequence s = loadFile();
    UInt32 tracks = 0;
    CHECK_STATUS(MusicSequenceGetTrackCount(s, &tracks), noErr);
    CHECK(tracks == 1, "the conductor adds no track of its own: %u track", tracks);
    MusicTimeStamp first = -1;
    float duration = 0;
    int events = walk(firstTrack(s), &first, &duration);
    CHECK(events == NOTES + 1, "the melody has its notes and its program change (%d events)", events);
    CHECK(first == 0 && fabs(duration - 0.25) < 1e-6, "the first note at beat 0 lasts a quarter beat (%g, %g)", first, duration);
    MusicTimeStamp length = 0;
    UInt32 size = sizeof length;
    CHECK_STATUS(MusicTrackGetProperty(firstTrack(s), kSequenceTrackProperty_TrackLength, &length, &size), noErr);
    CHECK(fabs(length - (NOTES - 1 + 0.25 + 1)) < 1e-9, "its length is its end of track (%g beats)", length);
    Float64 seconds = 0;
    CHECK_STATUS(MusicSequenceGetSecondsForBeats(s, 10, &seconds), noErr);
    CHECK(fabs(seconds - 10 * 60 / TEMPO) < 1e-9, "at %g beats a minute, 10 beats are %g s", TEMPO, seconds);
    MusicTimeStamp back = 0;
    CHECK_STATUS(MusicSequenceGetBeatsForSeconds(s, seconds, &back), noErr);
    CHECK(fabs(back - 10) < 1e-9, "and back (%g)", back);
    /* 3/4: beat 4.5 is bar 2, beat 2, half way through it. */
    CABarBeatTime bbt;
    CHECK_STATUS(MusicSequenceBeatsToBarBeatTime(s, 4.5, 480, &bbt), noErr);
    CHECK(bbt.bar == 2 && bbt.beat == 2 && bbt.subbeat == 240 && bbt.subbeatDivisor == 480, "4.5 beats in 3/4 is 2:2:240 "
          "(%d:%u:%u)", (int)bbt.bar, bbt.beat, bbt.subbeat);
    MusicTimeStamp beats = 0;
    CHECK_STATUS(MusicSequenceBarBeatTimeToBeats(s, &bbt, &beats), noErr);
    CHECK(fabs(beats - 4.5) < 1e-9, "and back (%g)", beats);
    SInt16 resolution = 0;
    MusicTrack tempo = NULL;
    CHECK_STATUS(MusicSequenceGetTempoTrack(s, &tempo), noErr);
    size = sizeof resolution;
    CHECK_STATUS(MusicTrackGetProperty(tempo, kSequenceTrackProperty_TimeResolution, &resolution, &size), noErr);
    CHECK(resolution == 480, "the tempo track keeps the file's resolution (%d)", resolution);

    /* The default graph, walked as the music driver walks it. */
    AUGraph graph = NULL;
    CHECK_STATUS(MusicSequenceGetAUGraph(s, &graph), noErr);
    UInt32 nodes = 0;
    CHECK_STATUS(AUGraphGetNodeCount(graph, &nodes), noErr);
    int samplers = 0, outputs = 0;
    AUNode samplerNode = 0;
    for (UInt32 i = 0; i < nodes; i++) {
        AUNode node = 0;
        AudioComponentDescription d;
        AudioUnit unit = NULL;
        CHECK_STATUS(AUGraphGetIndNode(graph, i, &node), noErr);
        CHECK_STATUS(AUGraphNodeInfo(graph, node, &d, &unit), noErr);
        if (d.componentType == kAudioUnitType_MusicDevice) { samplers++; samplerNode = node; }
        outputs += d.componentType == kAudioUnitType_Output;
        CHECK(unit != NULL, "the default graph is open: node %u has its unit", i);
    }
    CHECK(nodes == 2 && samplers == 1 && outputs == 1, "the default graph is a sampler and an output (%u nodes)", nodes);
    AUNode dest = 0;
    CHECK_STATUS(MusicTrackGetDestNode(firstTrack(s), &dest), noErr);
    CHECK(dest == samplerNode, "a track plays on the graph's sampler (node %d)", (int)dest);

    /* Written out and read back: the same events at the same times. */
    CFDataRef data = NULL;
    CHECK_STATUS(MusicSequenceFileCreateData(s, kMusicSequenceFile_MIDIType, kMusicSequenceFileFlags_EraseFile, 0, &data),
                 noErr);
    MusicSequence again = NULL;
    CHECK_STATUS(NewMusicSequence(&again), noErr);
    CHECK_STATUS(MusicSequenceFileLoadData(again, data, 0, 0), noErr);
    MusicTimeStamp first2 = -1;
    float duration2 = 0;
    int events2 = walk(firstTrack(again), &first2, &duration2);
    CHECK(events2 == events && first2 == first && duration2 == duration, "written and read again, the melody is the same "
          "(%d events)", events2);
    CHECK_STATUS(MusicSequenceGetSecondsForBeats(again, 10, &seconds), noErr);
    CHECK(fabs(seconds - 6) < 1e-6, "and its tempo (%g s)", seconds);
    CFRelease(data);
    DisposeMusicSequence(again);
    DisposeMusicSequence(s);
}

/* ---- editing -------------------------------------------------------------------------- */

static void note(MusicTrack t, MusicTimeStamp at, UInt8 key)
{
    MIDINoteMessage n = {0, key, 100, 0, 0.5f};
    CHECK_STATUS(MusicTrackNewMIDINoteEvent(t, at, &n), noErr);
}

/* The times of a track's events, written into `times`; their count. */
static int times(MusicTrack t, double *out, int most)
{
    MusicEventIterator it = NULL;
    NewMusicEventIterator(t, &it);
    int n = 0;
    Boolean has = false;
    while (MusicEventIteratorHasCurrentEvent(it, &has), has && n < most) {
        MusicEventIteratorGetEventInfo(it, &out[n++], NULL, NULL, NULL);
        MusicEventIteratorNextEvent(it);
    }
    DisposeMusicEventIterator(it);
    return n;
}

static void editing(void)
{
    MusicSequence s = NULL;
    MusicTrack a = NULL, b = NULL;
    NewMusicSequence(&s);
    MusicSequenceNewTrack(s, &a);
    MusicSequenceNewTrack(s, &b);
    for (int i = 0; i < 4; i++) note(a, i, (UInt8)(60 + i));
    double t[16];
    CHECK_STATUS(MusicTrackCut(a, 1, 2), noErr); /* 0, 2, 3 -> 0, 1, 2 */
    int n = times(a, t, 16);
    CHECK(n == 3 && t[0] == 0 && t[1] == 1 && t[2] == 2, "Cut removes a beat and closes the gap (%d: %g %g %g)", n, t[0], t[1], t[2]);
    CHECK_STATUS(MusicTrackCopyInsert(a, 0, 1, b, 0), noErr);
    CHECK_STATUS(MusicTrackCopyInsert(a, 0, 1, b, 0), noErr); /* the first copy moves a beat later */
    n = times(b, t, 16);
    CHECK(n == 2 && t[0] == 0 && t[1] == 1, "CopyInsert moves what follows (%d: %g %g)", n, t[0], t[1]);
    CHECK_STATUS(MusicTrackMerge(a, 0, 3, b, 0.5), noErr);
    n = times(b, t, 16);
    CHECK(n == 5 && t[1] == 0.5 && t[4] == 2.5, "Merge adds without moving (%d: %g ... %g)", n, t[1], t[4]);
    CHECK_STATUS(MusicTrackMoveEvents(b, 2, 3, 10), noErr);
    n = times(b, t, 16);
    CHECK(t[n - 1] == 12.5, "MoveEvents moves a range (%g)", t[n - 1]);
    CHECK_STATUS(MusicTrackClear(b, 0, 100), noErr);
    CHECK(times(b, t, 16) == 0, "Clear empties the range");
    /* An iterator deletes and moves events, and stays on what it moved. */
    MusicEventIterator it = NULL;
    NewMusicEventIterator(a, &it);
    CHECK_STATUS(MusicEventIteratorSeek(it, 1), noErr);
    CHECK_STATUS(MusicEventIteratorSetEventTime(it, 7), noErr);
    MusicTimeStamp now = 0;
    MusicEventIteratorGetEventInfo(it, &now, NULL, NULL, NULL);
    CHECK(now == 7, "SetEventTime keeps the iterator on the event (%g)", now);
    CHECK_STATUS(MusicEventIteratorDeleteEvent(it), noErr);
    CHECK(times(a, t, 16) == 2, "DeleteEvent removes it");
    CHECK_STATUS(MusicEventIteratorSeek(it, 0), noErr);
    CHECK_STATUS(MusicEventIteratorPreviousEvent(it), kAudioToolboxErr_StartOfTrack);
    DisposeMusicEventIterator(it);
    /* Loop and mute properties read back as set. */
    MusicTrackLoopInfo loop = {2, 3}, read = {0, 0};
    UInt32 size = sizeof read;
    CHECK_STATUS(MusicTrackSetProperty(a, kSequenceTrackProperty_LoopInfo, &loop, sizeof loop), noErr);
    CHECK_STATUS(MusicTrackGetProperty(a, kSequenceTrackProperty_LoopInfo, &read, &size), noErr);
    CHECK(read.loopDuration == 2 && read.numberOfLoops == 3, "the loop reads back (%g x %d)", read.loopDuration,
          (int)read.numberOfLoops);
    Boolean muted = true, mutedRead = false;
    size = sizeof mutedRead;
    CHECK_STATUS(MusicTrackSetProperty(a, kSequenceTrackProperty_MuteStatus, &muted, sizeof muted), noErr);
    CHECK_STATUS(MusicTrackGetProperty(a, kSequenceTrackProperty_MuteStatus, &mutedRead, &size), noErr);
    CHECK(mutedRead, "mute reads back");
    DisposeMusicSequence(s);
}

/* ---- bad inputs ------------------------------------------------------------------------- */

static void badInputs(void)
{
    MusicPlayer p = NULL;
    MusicSequence s = NULL;
    MusicTrack t = NULL, tempo = NULL;
    NewMusicPlayer(&p);
    NewMusicSequence(&s);
    MusicSequenceNewTrack(s, &t);
    MusicSequenceGetTempoTrack(s, &tempo);
    MIDINoteMessage n = {0, 60, 100, 0, 1};
    UInt64 host = 0;
    CABarBeatTime bbt = {1, 1, 0, 0, 0};
    MusicTimeStamp beats = 0;
    MusicTrack none = NULL;
    Buffer file = midiFile();
    file.bytes[23] = 0xF5; /* the conductor's first status: one no track may hold */
    CFDataRef broken = CFDataCreate(NULL, file.bytes, file.length);
    char missing[300];
    snprintf(missing, sizeof missing, "%s/absent.mid", folder);
    CFURLRef absent = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)missing, (CFIndex)strlen(missing), false);
    struct { const char *what; OSStatus got, want; } table[] = {
        {"Start without a sequence", MusicPlayerStart(p), kAudioToolboxErr_NoSequence},
        {"Preroll without a sequence", MusicPlayerPreroll(p), kAudioToolboxErr_NoSequence},
        {"host time while stopped", MusicPlayerGetHostTimeForBeats(p, 1, &host), kAudioToolboxErr_InvalidPlayerState},
        {"a rate of 0", MusicPlayerSetPlayRateScalar(p, 0), kAudio_ParamError},
        {"a negative time", MusicPlayerSetTime(p, -1), kAudio_ParamError},
        {"a track index past the end", MusicSequenceGetIndTrack(s, 5, &none), kAudioToolboxErr_TrackIndexError},
        {"a note on the tempo track", MusicTrackNewMIDINoteEvent(tempo, 0, &n), kAudioToolboxErr_InvalidEventType},
        {"a NULL note", MusicTrackNewMIDINoteEvent(t, 0, NULL), kAudio_ParamError},
        {"a note at a negative time", MusicTrackNewMIDINoteEvent(t, -1, &n), kAudio_ParamError},
        {"a tempo of 0", MusicTrackNewExtendedTempoEvent(tempo, 0, 0), kAudio_ParamError},
        {"an unknown track property", MusicTrackSetProperty(t, 99, &n, 4), kAudio_ParamError},
        {"a node the graph lacks", MusicTrackSetDestNode(t, 12345), kAudioToolboxErr_IllegalTrackDestination},
        {"a MIDI endpoint", MusicSequenceSetMIDIEndpoint(s, 1), kAudio_UnimplementedError},
        {"a sequence type of 0", MusicSequenceSetSequenceType(s, 0), kAudioToolboxErr_InvalidSequenceType},
        {"a subbeat divisor of 0", MusicSequenceBarBeatTimeToBeats(s, &bbt, &beats), kAudio_ParamError},
        {"a missing MIDI file", MusicSequenceFileLoad(s, absent, 0, 0), -43},
        {"MIDI data with a bad status", MusicSequenceFileLoadData(s, broken, 0, 0), kAudioFileInvalidFileError},
        {"an iMelody file", MusicSequenceFileLoadData(s, broken, kMusicSequenceFile_iMelodyType, 0),
         kAudioFileUnsupportedFileTypeError},
        {"a disposed track", (DisposeMusicSequence(NULL), MusicTrackClear(NULL, 0, 1)), kAudio_ParamError},
    };
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        CHECK(table[i].got == table[i].want, "%s: %d (want %d)", table[i].what, (int)table[i].got, (int)table[i].want);
    UInt32 count = 0;
    MusicSequenceGetTrackCount(s, &count);
    CHECK(count == 1, "after the refusals the sequence still has its one track (%u)", count);
    CFRelease(broken);
    CFRelease(absent);
    DisposeMusicPlayer(p);
    DisposeMusicSequence(s);
}

/* A mutated MIDI file is read or refused, never more: 20 000 of them. */
static void fuzz(void)
{
    Buffer original = midiFile();
    unsigned seed = 12345;
    int loaded = 0, refused = 0;
    MusicSequence s = NULL;
    NewMusicSequence(&s);
    for (int round = 0; round < 20000; round++) {
        Buffer b = original;
        int changes = 1 + round % 8;
        for (int c = 0; c < changes; c++) {
            seed = seed * 1664525u + 1013904223u;
            int at = (int)((seed >> 8) % (unsigned)b.length);
            b.bytes[at] = (unsigned char)(seed >> 24);
        }
        if (round % 5 == 0) b.length = (int)((seed >> 4) % (unsigned)b.length);
        CFDataRef data = CFDataCreate(NULL, b.bytes, b.length);
        OSStatus status = MusicSequenceFileLoadData(s, data, 0, 0);
        CFRelease(data);
        if (status == noErr) loaded++; else refused++;
    }
    printf("measured: MIDI fuzz, 20000 mutated files: %d read, %d refused, no crash\n", loaded, refused);
    CHECK(loaded > 0 && refused > 0, "some mutations read, some refused");
    DisposeMusicSequence(s);
}

/* ---- playing ------------------------------------------------------------------------------ */

static volatile int userCalls;
static volatile double userTime;
static void userCallback(void *data, MusicSequence s, MusicTrack t, MusicTimeStamp time, const MusicEventUserData *event,
                         MusicTimeStamp start, MusicTimeStamp end)
{
    (void)s; (void)t; (void)start; (void)end;
    if (data == (void *)0x5eed && event && event->length == 3 && memcmp(event->data, "cue", 3) == 0) {
        userTime = time;
        __atomic_add_fetch(&userCalls, 1, __ATOMIC_SEQ_CST);
    }
}

/* What the Begin listener saw: whether the player still played and its graph ran. */
static MusicPlayer heldPlayer;
static AUGraph heldGraph;
static volatile int begins, ends, playingAtBegin = -1, runningAtBegin = -1;
static void interruptionListener(void *data, UInt32 state)
{
    (void)data;
    if (state == kAudioSessionBeginInterruption) {
        Boolean playing = true, running = true;
        if (heldPlayer) MusicPlayerIsPlaying(heldPlayer, &playing);
        if (heldGraph) AUGraphIsRunning(heldGraph, &running);
        playingAtBegin = playing;
        runningAtBegin = running;
        begins++;
    } else {
        ends++;
    }
}

static int compareDoubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void playing(void)
{
    UInt32 category = kAudioSessionCategory_MediaPlayback;
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, interruptionListener, NULL), noErr);
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category), noErr);
    if (worldOnCard()) worldRun("vcard %s", "record-reset");
    /* The program's graph: a sampler (its sine) into RemoteIO. */
    AudioComponentDescription samplerDesc = {kAudioUnitType_MusicDevice, kAudioUnitSubType_Sampler,
                                             kAudioUnitManufacturer_Apple, 0, 0};
    AudioComponentDescription rio = {kAudioUnitType_Output, kAudioUnitSubType_RemoteIO, kAudioUnitManufacturer_Apple, 0, 0};
    AUGraph graph = NULL;
    AUNode samplerNode = 0, out = 0;
    NewAUGraph(&graph);
    AUGraphAddNode(graph, &samplerDesc, &samplerNode);
    AUGraphAddNode(graph, &rio, &out);
    AUGraphConnectNodeInput(graph, samplerNode, 0, out, 0);
    AUGraphOpen(graph);
    /* The melody: NOTES notes of a tenth of a beat, one every half beat at 120 bpm. */
    MusicSequence s = NULL;
    MusicTrack melody = NULL, cues = NULL;
    NewMusicSequence(&s);
    CHECK_STATUS(MusicSequenceSetAUGraph(s, graph), noErr);
    MusicSequenceNewTrack(s, &melody);
    MusicSequenceNewTrack(s, &cues);
    for (int i = 0; i < NOTES; i++) {
        MIDINoteMessage n = {0, 69, 110, 0, 0.1f};
        MusicTrackNewMIDINoteEvent(melody, 1 + 0.5 * i, &n);
    }
    CHECK_STATUS(MusicTrackSetDestNode(melody, samplerNode), noErr);
    struct { UInt32 length; UInt8 data[3]; } cue = {3, {'c', 'u', 'e'}};
    CHECK_STATUS(MusicTrackNewUserEvent(cues, 2, (const MusicEventUserData *)&cue), noErr);
    CHECK_STATUS(MusicSequenceSetUserCallback(s, userCallback, (void *)0x5eed), noErr);

    MusicPlayer player = NULL;
    NewMusicPlayer(&player);
    CHECK_STATUS(MusicPlayerSetSequence(player, s), noErr);
    CHECK_STATUS(MusicPlayerPreroll(player), noErr);
    CHECK_STATUS(MusicPlayerStart(player), noErr);
    Boolean isPlaying = false;
    CHECK_STATUS(MusicPlayerIsPlaying(player, &isPlaying), noErr);
    CHECK(isPlaying, "the player plays after Start");
    MusicTimeStamp now = 0, end = 1 + 0.5 * NOTES + 0.5;
    for (int i = 0; i < 800 && now < end; i++) {
        usleep(10000);
        MusicPlayerGetTime(player, &now);
    }
    CHECK(now >= end, "its time reaches the end of the melody (%g beats)", now);
    UInt64 host = 0;
    CHECK_STATUS(MusicPlayerGetHostTimeForBeats(player, now + 2, &host), noErr);
    CHECK_STATUS(MusicPlayerStop(player), noErr);
    MusicTimeStamp stopped = 0, later = 0;
    MusicPlayerGetTime(player, &stopped);
    usleep(100000);
    MusicPlayerGetTime(player, &later);
    CHECK(stopped == later, "stopped, its time stands (%g, %g)", stopped, later);
    CHECK_STATUS(MusicPlayerIsPlaying(player, &isPlaying), noErr);
    CHECK(!isPlaying, "and it says it does not play");
    CHECK(userCalls == 1 && userTime == 2, "the user event's callback came once, at beat 2 (%d, %g)", userCalls, userTime);
    AUGraphStop(graph);

    if (worldOnCard()) {
        long frames = 0;
        short *heard = worldCardRecording(&frames);
        int rate = worldCardRate();
        /* Onsets: the first loud sample after at least 20 ms of quiet. */
        double onsets[NOTES + 8];
        int found = 0;
        long quiet = 0;
        for (long i = 0; heard && i < frames && found < NOTES + 8; i++) {
            if (abs(heard[2 * i]) > 800) {
                if (quiet > rate / 50) onsets[found++] = (double)i / rate;
                quiet = 0;
            } else {
                quiet++;
            }
        }
        CHECK(found == NOTES, "the card heard %d note onsets (want %d)", found, NOTES);
        if (found == NOTES) {
            /* Each onset against its beat (a quarter second apart at 120 bpm): the latency
             * of the whole path is the median; each note's error is its distance from it. */
            double offsets[NOTES], errors[NOTES];
            for (int i = 0; i < NOTES; i++) offsets[i] = onsets[i] - 0.25 * i;
            memcpy(errors, offsets, sizeof errors);
            qsort(errors, NOTES, sizeof *errors, compareDoubles);
            double latency = errors[NOTES / 2];
            for (int i = 0; i < NOTES; i++) errors[i] = fabs(offsets[i] - latency) * 1000;
            qsort(errors, NOTES, sizeof *errors, compareDoubles);
            printf("measured: MIDI event timing at the card, %d notes: p50 %.3f ms, p99 %.3f ms, worst %.3f ms\n", NOTES,
                   errors[NOTES / 2], errors[(int)(NOTES * 0.99)], errors[NOTES - 1]);
            CHECK(errors[NOTES - 1] < 1.0, "every note within 1 ms of its beat (worst %.3f ms)", errors[NOTES - 1]);
        }
        free(heard);
    }
    /* A call: the player has stopped, and its graph, before the Begin listener runs; after
     * the End, as a game does, it starts again from where it was. */
    heldPlayer = player;
    heldGraph = graph;
    CHECK_STATUS(MusicPlayerSetTime(player, 0), noErr);
    CHECK_STATUS(MusicPlayerStart(player), noErr);
    usleep(300000);
    if (worldBeginInterruption() == WORLD_DONE) {
        for (int i = 0; i < 200 && begins == 0; i++) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
        CHECK(begins == 1 && playingAtBegin == 0 && runningAtBegin == 0,
              "at Begin the player has stopped (%d) and its graph (%d)", playingAtBegin, runningAtBegin);
        MusicTimeStamp at = 0, after = 0;
        MusicPlayerGetTime(player, &at);
        usleep(200000);
        MusicPlayerGetTime(player, &after);
        CHECK(at > 0 && at == after, "its time stands during the call (%g, %g)", at, after);
        if (worldEndInterruption(1) == WORLD_DONE) {
            for (int i = 0; i < 200 && ends == 0; i++) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
            CHECK_STATUS(AudioSessionSetActive(true), noErr);
            CHECK_STATUS(MusicPlayerStart(player), noErr);
            MusicTimeStamp resumed = 0;
            for (int i = 0; i < 100 && resumed <= after + 0.2; i++) {
                usleep(10000);
                MusicPlayerGetTime(player, &resumed);
            }
            CHECK(resumed > after + 0.2, "started after the End, it plays on from there (%g after %g)", resumed, after);
            MusicPlayerStop(player);
        }
    }
    heldPlayer = NULL;
    heldGraph = NULL;
    AUGraphStop(graph);
    DisposeMusicPlayer(player);
    DisposeMusicSequence(s);
    DisposeAUGraph(graph);
}

int main(void)
{
    installWatchdog("music player");
    alarm(180);
    snprintf(folder, sizeof folder, "%s/music-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(folder)) return 1;
    fileAndModel();
    editing();
    badInputs();
    fuzz();
    playing();
    char command[300];
    snprintf(command, sizeof command, "rm -rf '%s'", folder);
    if (system(command) != 0) printf("could not remove %s\n", folder);
    return worldFinish("test_music_player");
}
