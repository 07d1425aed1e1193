#include <AudioToolbox/AudioToolbox.h>
#include <math.h>
static double phase;
static OSStatus tone(void *data, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *time, UInt32 bus,
                     UInt32 frames, AudioBufferList *io) {
    Float32 *out = io->mBuffers[0].mData;                     /* mono Float32, as set below */
    for (UInt32 i = 0; i < frames; i++, phase += 2 * 3.14159265 * 440 / 44100) out[i] = 0.3 * sin(phase);
    (void)data, (void)flags, (void)time, (void)bus; return noErr;
}
int main(void) {
    AudioComponentDescription rio = {kAudioUnitType_Output, kAudioUnitSubType_RemoteIO, kAudioUnitManufacturer_Apple, 0, 0};
    AudioUnit unit; AudioComponentInstanceNew(AudioComponentFindNext(NULL, &rio), &unit);
    AudioStreamBasicDescription mono = {44100, kAudioFormatLinearPCM, kAudioFormatFlagsNativeFloatPacked, 4, 1, 4, 1, 32, 0};
    AudioUnitSetProperty(unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &mono, sizeof mono);
    AURenderCallbackStruct callback = {tone, NULL};
    AudioUnitSetProperty(unit, kAudioUnitProperty_SetRenderCallback, kAudioUnitScope_Input, 0, &callback, sizeof callback);
    AudioUnitInitialize(unit);
    AudioOutputUnitStart(unit);                                   /* plays on its own real-time thread */
    CFRunLoopRunInMode(kCFRunLoopDefaultMode, 2, false);          /* two seconds of A */
}
