/* MixerHost's shape, written for this test: see mixer_host.h. */
#include "mixer_host.h"
#include <AudioToolbox/AudioToolbox.h>
#include <stdlib.h>
#include <string.h>

#define BUSES 2
static const Float64 graphRate = 44100;

/* One looping sound: its frames, per channel, in AudioUnitSampleType. */
typedef struct {
    UInt32 frameCount;
    UInt32 channels;
    UInt32 sampleNumber;
    AudioUnitSampleType *left, *right;
} SoundLoop;

static SoundLoop sounds[BUSES];
static AUGraph graph;
static AudioUnit mixerUnit;
static AUNode ioNode, mixerNode;
static mixer_host_state state;

static AudioStreamBasicDescription canonical(UInt32 channels)
{
    AudioStreamBasicDescription d;
    size_t bytes = sizeof(AudioUnitSampleType);
    memset(&d, 0, sizeof d);
    d.mFormatID = kAudioFormatLinearPCM;
    d.mFormatFlags = kAudioFormatFlagsAudioUnitCanonical;
    d.mBytesPerPacket = (UInt32)bytes;
    d.mFramesPerPacket = 1;
    d.mBytesPerFrame = (UInt32)bytes;
    d.mChannelsPerFrame = channels;
    d.mBitsPerChannel = (UInt32)(8 * bytes);
    d.mSampleRate = graphRate;
    return d;
}

static OSStatus readSound(const char *path, SoundLoop *sound, UInt32 channels)
{
    ExtAudioFileRef file = NULL;
    CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)path, (CFIndex)strlen(path), false);
    OSStatus result = ExtAudioFileOpenURL(url, &file);
    CFRelease(url);
    if (result != noErr) return result;
    SInt64 fileFrames = 0;
    UInt32 size = sizeof fileFrames;
    result = ExtAudioFileGetProperty(file, kExtAudioFileProperty_FileLengthFrames, &size, &fileFrames);
    AudioStreamBasicDescription client = canonical(channels);
    if (result == noErr)
        result = ExtAudioFileSetProperty(file, kExtAudioFileProperty_ClientDataFormat, sizeof client, &client);
    if (result != noErr) {
        ExtAudioFileDispose(file);
        return result;
    }
    /* The file's rate is not the graph's: the frames after conversion. */
    AudioStreamBasicDescription onDisk;
    size = sizeof onDisk;
    ExtAudioFileGetProperty(file, kExtAudioFileProperty_FileDataFormat, &size, &onDisk);
    UInt32 frames = (UInt32)(fileFrames * graphRate / onDisk.mSampleRate);
    sound->frameCount = frames;
    sound->channels = channels;
    sound->sampleNumber = 0;
    sound->left = (AudioUnitSampleType *)calloc(frames, sizeof(AudioUnitSampleType));
    sound->right = channels == 2 ? (AudioUnitSampleType *)calloc(frames, sizeof(AudioUnitSampleType)) : NULL;
    AudioBufferList *list = (AudioBufferList *)malloc(sizeof(AudioBufferList) + sizeof(AudioBuffer));
    UInt32 done = 0;
    while (done < frames) {
        list->mNumberBuffers = channels;
        list->mBuffers[0].mNumberChannels = 1;
        list->mBuffers[0].mDataByteSize = (frames - done) * sizeof(AudioUnitSampleType);
        list->mBuffers[0].mData = sound->left + done;
        if (channels == 2) {
            list->mBuffers[1].mNumberChannels = 1;
            list->mBuffers[1].mDataByteSize = (frames - done) * sizeof(AudioUnitSampleType);
            list->mBuffers[1].mData = sound->right + done;
        }
        UInt32 got = frames - done;
        result = ExtAudioFileRead(file, &got, list);
        if (result != noErr || got == 0) break;
        done += got;
    }
    sound->frameCount = done;
    free(list);
    ExtAudioFileDispose(file);
    return result;
}

int mixer_host_load(const char *guitar, const char *beats)
{
    OSStatus result = readSound(guitar, &sounds[0], 2);
    if (result == noErr) result = readSound(beats, &sounds[1], 1);
    return (int)result;
}

/* Each bus's callback: the next frames of its sound, from the start again at its end. */
static OSStatus inputRenderCallback(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts,
                                    UInt32 bus, UInt32 frames, AudioBufferList *data)
{
    SoundLoop *all = (SoundLoop *)refCon;
    SoundLoop *sound = &all[bus];
    AudioUnitSampleType *left = (AudioUnitSampleType *)data->mBuffers[0].mData;
    AudioUnitSampleType *right = sound->channels == 2 ? (AudioUnitSampleType *)data->mBuffers[1].mData : NULL;
    UInt32 at = sound->sampleNumber;
    (void)flags; (void)ts;
    for (UInt32 i = 0; i < frames; i++) {
        left[i] = sound->left[at];
        if (right) right[i] = sound->right[at];
        if (++at >= sound->frameCount) at = 0;
    }
    sound->sampleNumber = at;
    state.frames[bus] += frames;
    return noErr;
}

/* The interruption: stop in Begin; after End, the session again and the graph again. */
static void interruptionListener(void *data, UInt32 interruption)
{
    (void)data;
    if (interruption == kAudioSessionBeginInterruption) {
        AUGraphStop(graph);
        Boolean running = true;
        AUGraphIsRunning(graph, &running);
        state.running_in_begin = running;
        state.begins++;
    } else if (interruption == kAudioSessionEndInterruption) {
        AudioSessionSetActive(true);
        state.restart_status = (int)AUGraphStart(graph);
        state.ends++;
    }
}

int mixer_host_start(void)
{
    OSStatus result = AudioSessionInitialize(NULL, NULL, interruptionListener, NULL);
    if (result != noErr && result != kAudioSessionAlreadyInitialized) return (int)result;
    UInt32 category = kAudioSessionCategory_MediaPlayback;
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
    Float64 preferred = graphRate;
    AudioSessionSetProperty(kAudioSessionProperty_PreferredHardwareSampleRate, sizeof preferred, &preferred);
    result = AudioSessionSetActive(true);
    if (result != noErr) return (int)result;

    AudioComponentDescription io, mixer;
    memset(&io, 0, sizeof io);
    io.componentType = kAudioUnitType_Output;
    io.componentSubType = kAudioUnitSubType_RemoteIO;
    io.componentManufacturer = kAudioUnitManufacturer_Apple;
    memset(&mixer, 0, sizeof mixer);
    mixer.componentType = kAudioUnitType_Mixer;
    mixer.componentSubType = kAudioUnitSubType_MultiChannelMixer;
    mixer.componentManufacturer = kAudioUnitManufacturer_Apple;
    if ((result = NewAUGraph(&graph)) != noErr) return (int)result;
    if ((result = AUGraphAddNode(graph, &io, &ioNode)) != noErr) return (int)result;
    if ((result = AUGraphAddNode(graph, &mixer, &mixerNode)) != noErr) return (int)result;
    if ((result = AUGraphOpen(graph)) != noErr) return (int)result;
    if ((result = AUGraphNodeInfo(graph, mixerNode, NULL, &mixerUnit)) != noErr) return (int)result;

    UInt32 busCount = BUSES;
    result = AudioUnitSetProperty(mixerUnit, kAudioUnitProperty_ElementCount, kAudioUnitScope_Input, 0, &busCount,
                                  sizeof busCount);
    if (result != noErr) return (int)result;
    UInt32 maximumFrames = 4096;
    AudioUnitSetProperty(mixerUnit, kAudioUnitProperty_MaximumFramesPerSlice, kAudioUnitScope_Global, 0, &maximumFrames,
                         sizeof maximumFrames);
    for (UInt16 bus = 0; bus < busCount; bus++) {
        AURenderCallbackStruct callback;
        callback.inputProc = &inputRenderCallback;
        callback.inputProcRefCon = sounds;
        if ((result = AUGraphSetNodeInputCallback(graph, mixerNode, bus, &callback)) != noErr) return (int)result;
    }
    AudioStreamBasicDescription stereo = canonical(2), mono = canonical(1);
    result = AudioUnitSetProperty(mixerUnit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &stereo,
                                  sizeof stereo);
    if (result == noErr)
        result = AudioUnitSetProperty(mixerUnit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 1, &mono, sizeof mono);
    if (result == noErr) {
        Float64 rate = graphRate;
        result = AudioUnitSetProperty(mixerUnit, kAudioUnitProperty_SampleRate, kAudioUnitScope_Output, 0, &rate, sizeof rate);
    }
    if (result != noErr) return (int)result;
    if ((result = AUGraphConnectNodeInput(graph, mixerNode, 0, ioNode, 0)) != noErr) return (int)result;
    if ((result = AUGraphInitialize(graph)) != noErr) return (int)result;
    return (int)AUGraphStart(graph);
}

int mixer_host_enable(int bus, int on)
{
    return (int)AudioUnitSetParameter(mixerUnit, kMultiChannelMixerParam_Enable, kAudioUnitScope_Input, (UInt32)bus,
                                      on ? 1 : 0, 0);
}

int mixer_host_gain(int bus, float gain)
{
    if (bus < 0)
        return (int)AudioUnitSetParameter(mixerUnit, kMultiChannelMixerParam_Volume, kAudioUnitScope_Output, 0, gain, 0);
    return (int)AudioUnitSetParameter(mixerUnit, kMultiChannelMixerParam_Volume, kAudioUnitScope_Input, (UInt32)bus, gain,
                                      0);
}

int mixer_host_running(void)
{
    Boolean running = false;
    AUGraphIsRunning(graph, &running);
    return running;
}

int mixer_host_stop(void)
{
    Boolean running = false;
    AUGraphIsRunning(graph, &running);
    if (running) AUGraphStop(graph);
    OSStatus result = AUGraphUninitialize(graph);
    if (result == noErr) result = DisposeAUGraph(graph);
    for (int i = 0; i < BUSES; i++) {
        free(sounds[i].left);
        free(sounds[i].right);
        sounds[i].left = sounds[i].right = NULL;
    }
    return (int)result;
}

mixer_host_state *mixer_host_status(void) { return &state; }
