/*
 * AudioToolbox for Linux — <AudioUnit/AudioCodec.h>, where the Mac's SDKs keep the codec
 * property IDs: the same declarations as <AudioToolbox/AudioCodec.h>, where the iPhone
 * SDK has them from iOS 10.
 */
#include <AudioToolbox/AudioCodec.h>
