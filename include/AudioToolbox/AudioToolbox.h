/*
 * AudioToolbox for Linux — umbrella header.
 *
 * Include this (or the individual headers) exactly as the original code does.
 * Compile and link with: cc prog.c $(pkg-config --cflags --libs AudioToolbox)
 */
#ifndef AUDIOTOOLBOX_AUDIOTOOLBOX_H
#define AUDIOTOOLBOX_AUDIOTOOLBOX_H

#include <AudioToolbox/AudioSession.h>
#include <AudioToolbox/AudioServices.h>
#include <AudioToolbox/AudioSessionLinux.h>

#endif /* AUDIOTOOLBOX_AUDIOTOOLBOX_H */
