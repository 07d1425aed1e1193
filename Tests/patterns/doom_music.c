/* DOOM's music shape: an AUGraph with a RemoteIO node, fed by a node input callback
 * from the synthesizer's ring (single producer, single consumer, no lock). */
#include "doom_music.h"
#include <AudioToolbox/AudioToolbox.h>
#include <string.h>

#define MUSIC_RING 16384

static AUGraph music_graph;
static short music_ring[MUSIC_RING];
static volatile long music_read, music_write;
static volatile long starved;

static OSStatus music_callback(void *ref, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus,
                               UInt32 frames, AudioBufferList *io)
{
    short *out = (short *)io->mBuffers[0].mData;
    long ready = __atomic_load_n(&music_write, __ATOMIC_ACQUIRE) - music_read;
    long n = ready < (long)frames ? ready : (long)frames;
    (void)ref; (void)ts; (void)bus;
    if (n < (long)frames) starved++;
    for (long i = 0; i < n; i++) out[i] = music_ring[(music_read + i) % MUSIC_RING];
    memset(out + n, 0, (frames - (UInt32)n) * sizeof(short));
    if (n == 0) *flags |= kAudioUnitRenderAction_OutputIsSilence;
    __atomic_store_n(&music_read, music_read + n, __ATOMIC_RELEASE);
    return noErr;
}

int doom_music_start(int rate)
{
    OSStatus err;
    AUNode output_node;
    AudioUnit output_unit;
    AudioComponentDescription io = {kAudioUnitType_Output, kAudioUnitSubType_RemoteIO, kAudioUnitManufacturer_Apple, 0, 0};
    AudioStreamBasicDescription mono;
    AURenderCallbackStruct input = {music_callback, NULL};
    UInt32 category = kAudioSessionCategory_AmbientSound;

    AudioSessionInitialize(NULL, NULL, NULL, NULL);
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
    AudioSessionSetActive(true);

    if ((err = NewAUGraph(&music_graph))) return (int)err;
    if ((err = AUGraphAddNode(music_graph, &io, &output_node))) return (int)err;
    if ((err = AUGraphOpen(music_graph))) return (int)err;
    if ((err = AUGraphNodeInfo(music_graph, output_node, NULL, &output_unit))) return (int)err;
    memset(&mono, 0, sizeof mono);
    mono.mSampleRate = rate;
    mono.mFormatID = kAudioFormatLinearPCM;
    mono.mFormatFlags = kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked;
    mono.mBytesPerPacket = mono.mBytesPerFrame = 2;
    mono.mFramesPerPacket = mono.mChannelsPerFrame = 1;
    mono.mBitsPerChannel = 16;
    err = AudioUnitSetProperty(output_unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &mono, sizeof mono);
    if (err) return (int)err;
    if ((err = AUGraphSetNodeInputCallback(music_graph, output_node, 0, &input))) return (int)err;
    if ((err = AUGraphInitialize(music_graph))) return (int)err;
    return (int)AUGraphStart(music_graph);
}

int doom_music_feed(const short *samples, int count)
{
    long room = MUSIC_RING - (music_write - __atomic_load_n(&music_read, __ATOMIC_ACQUIRE));
    int n = count < room ? count : (int)room;
    for (int i = 0; i < n; i++) music_ring[(music_write + i) % MUSIC_RING] = samples[i];
    __atomic_store_n(&music_write, music_write + n, __ATOMIC_RELEASE);
    return n;
}

long doom_music_played(void) { return __atomic_load_n(&music_read, __ATOMIC_ACQUIRE); }
long doom_music_starved(void) { return starved; }

int doom_music_running(void)
{
    Boolean running = false;
    AUGraphIsRunning(music_graph, &running);
    return running;
}

int doom_music_stop(void)
{
    OSStatus err = AUGraphStop(music_graph);
    if (!err) err = AUGraphUninitialize(music_graph);
    if (!err) err = AUGraphClose(music_graph);
    if (!err) err = DisposeAUGraph(music_graph);
    return (int)err;
}
