/*
 * AudioToolbox for Linux — umbrella header.
 *
 * Include this (or the individual headers) exactly as the original code does.
 * Compile and link with: cc prog.c $(pkg-config --cflags --libs AudioToolbox)
 */
#ifndef AUDIOTOOLBOX_AUDIOTOOLBOX_H
#define AUDIOTOOLBOX_AUDIOTOOLBOX_H

/* The value the iPhone SDK (iOS 7) gives, which programs test before using newer calls. */
#define AUDIO_TOOLBOX_VERSION 1060

/* As on the phone, the umbrella brings CoreFoundation's (CFSwapInt32HostToBig, CFURL,
 * ...); under AudioToolbox-ios it is read with the Linux view and the iPhone one is
 * put back after. */
#include <CoreFoundation/CoreFoundation.h>
#include <AudioToolbox/AudioSession.h>
/* Core Audio's shared types (formats, buffer lists, time stamps), as the phone's
 * umbrella brings them. */
#include <CoreAudio/CoreAudioTypes.h>
/* The audio units, as the phone's umbrella brings them (through AUGraph.h there). */
#include <AudioUnit/AudioUnit.h>
#include <AudioToolbox/AUGraph.h>
#include <AudioToolbox/MusicPlayer.h>
/* Audio files, file streams, formats and converters, as the phone's umbrella brings them. */
#include <AudioToolbox/AudioFile.h>
#include <AudioToolbox/CAFFile.h>
#include <AudioToolbox/AudioFileStream.h>
#include <AudioToolbox/AudioFormat.h>
#include <AudioToolbox/AudioConverter.h>
#include <AudioToolbox/ExtendedAudioFile.h>
/* Audio queues (playing and recording buffers), as the phone's umbrella brings them. */
#include <AudioToolbox/AudioQueue.h>
#include <AudioToolbox/AudioServices.h>
#include <AudioToolbox/AudioSessionLinux.h>
/* The codec property IDs an encoder is set up with through AudioConverterSetProperty
 * (bit-rate control mode, VBR quality). The iPhone SDK has this header from iOS 10, in
 * AudioToolbox, and its umbrella brings it on the Mac only; here both modules bring it,
 * so encoder code written for later SDKs compiles as it is. */
#include <AudioToolbox/AudioCodec.h>

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Debugging aids: print a description of an object (an AUGraph: its nodes, its
 * connections and its state) to standard output, or to the given stream. */
extern void CAShow(void *inObject);
extern void CAShowFile(void *inObject, FILE *inFile);

#ifdef __cplusplus
}
#endif

#endif /* AUDIOTOOLBOX_AUDIOTOOLBOX_H */
