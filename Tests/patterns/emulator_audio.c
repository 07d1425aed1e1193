/* An emulator's RemoteIO output, as such code was written for the iPhone: a lock-free
 * single-producer ring between the emulation thread and the render callback. */
#include "emulator_audio.h"
#include <AudioToolbox/AudioToolbox.h>
#include <string.h>

#define RING_FRAMES 8192

static AudioUnit output_unit;
static short ring[RING_FRAMES * 2];
static volatile long ring_read, ring_write;
static volatile long underruns;

static OSStatus pull(void *ref, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus,
                     UInt32 frames, AudioBufferList *io)
{
    short *out = (short *)io->mBuffers[0].mData;
    long available = __atomic_load_n(&ring_write, __ATOMIC_ACQUIRE) - ring_read;
    UInt32 i;
    (void)ref; (void)flags; (void)ts; (void)bus;
    if (available < (long)frames) underruns++;
    for (i = 0; i < frames && i < available; i++) {
        long at = (ring_read + i) % RING_FRAMES;
        out[2 * i] = ring[2 * at];
        out[2 * i + 1] = ring[2 * at + 1];
    }
    __atomic_store_n(&ring_read, ring_read + i, __ATOMIC_RELEASE);
    for (; i < frames; i++) out[2 * i] = out[2 * i + 1] = 0;
    return noErr;
}

int emu_audio_init(int rate)
{
    AudioComponentDescription desc = {kAudioUnitType_Output, kAudioUnitSubType_RemoteIO,
                                      kAudioUnitManufacturer_Apple, 0, 0};
    AudioStreamBasicDescription format;
    AURenderCallbackStruct callback = {pull, NULL};
    OSStatus err = AudioComponentInstanceNew(AudioComponentFindNext(NULL, &desc), &output_unit);
    if (err) return (int)err;
    memset(&format, 0, sizeof format);
    format.mSampleRate = rate;
    format.mFormatID = kAudioFormatLinearPCM;
    format.mFormatFlags = kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked;
    format.mFramesPerPacket = 1;
    format.mChannelsPerFrame = 2;
    format.mBitsPerChannel = 16;
    format.mBytesPerFrame = format.mBytesPerPacket = 4;
    err = AudioUnitSetProperty(output_unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &format,
                               sizeof format);
    if (err) return (int)err;
    err = AudioUnitSetProperty(output_unit, kAudioUnitProperty_SetRenderCallback, kAudioUnitScope_Input, 0, &callback,
                               sizeof callback);
    if (err) return (int)err;
    err = AudioUnitInitialize(output_unit);
    if (err) return (int)err;
    return (int)AudioOutputUnitStart(output_unit);
}

int emu_audio_write(const short *frames, int count)
{
    long space = RING_FRAMES - (ring_write - __atomic_load_n(&ring_read, __ATOMIC_ACQUIRE));
    int n = count < space ? count : (int)space;
    for (int i = 0; i < n; i++) {
        long at = (ring_write + i) % RING_FRAMES;
        ring[2 * at] = frames[2 * i];
        ring[2 * at + 1] = frames[2 * i + 1];
    }
    __atomic_store_n(&ring_write, ring_write + n, __ATOMIC_RELEASE);
    return n;
}

long emu_audio_consumed(void) { return __atomic_load_n(&ring_read, __ATOMIC_ACQUIRE); }
long emu_audio_underruns(void) { return underruns; }

void emu_audio_shutdown(void)
{
    AudioOutputUnitStop(output_unit);
    AudioUnitUninitialize(output_unit);
    AudioComponentInstanceDispose(output_unit);
}
