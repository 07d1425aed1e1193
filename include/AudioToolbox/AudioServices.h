/*
 * AudioToolbox for Linux — System Sound Services types and constants.
 *
 * Includes <AudioToolbox/AudioSession.h>, as the original header does. The System
 * Sound functions (AudioServicesPlaySystemSound and friends) are not provided by this
 * release: only their types and constants are declared, so code that merely names them
 * keeps compiling. See CHANGELOG.md.
 */
#ifndef AUDIOTOOLBOX_AUDIOSERVICES_H
#define AUDIOTOOLBOX_AUDIOSERVICES_H

#include <AudioToolbox/AudioSession.h>
#include <CoreFoundation/CFURL.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Result codes of the System Sound Services calls. */
enum {
    kAudioServicesNoError                          = 0,
    kAudioServicesUnsupportedPropertyError         = (SInt32)AT_FOURCC('p','t','y','?'),
    kAudioServicesBadPropertySizeError             = (SInt32)AT_FOURCC('!','s','i','z'),
    kAudioServicesBadSpecifierSizeError            = (SInt32)AT_FOURCC('!','s','p','c'),
    kAudioServicesSystemSoundUnspecifiedError      = -1500,
    kAudioServicesSystemSoundClientTimedOutError   = -1501,
    kAudioServicesSystemSoundExceededMaximumDurationError = -1502
};

/* Identifies a sound created from a file, or one of the predefined sounds below. */
typedef UInt32 SystemSoundID;

/* Identifies a System Sound Services property. */
typedef UInt32 AudioServicesPropertyID;

/* Called when a system sound has finished playing. */
typedef void (*AudioServicesSystemSoundCompletionProc)(SystemSoundID ssID, void *clientData);

/* Predefined sounds. */
enum {
    /* The user's alert sound. */
    kSystemSoundID_UserPreferredAlert = 0x00001000,
    /* Flash the screen (no effect on Linux). */
    kSystemSoundID_FlashScreen        = 0x00000FFE,
    /* Vibrate; accepted, and silent where there is no vibrator. */
    kSystemSoundID_Vibrate            = 0x00000FFF,
    /* Deprecated name of kSystemSoundID_UserPreferredAlert. */
    kUserPreferredAlert               = kSystemSoundID_UserPreferredAlert
};

/* Properties; the specifier of each is a SystemSoundID. */
enum {
    /* UInt32 0/1, default 1: the sound obeys the user's sound-effects setting. */
    kAudioServicesPropertyIsUISound                   = AT_FOURCC('i','s','u','i'),
    /* UInt32 0/1, default 0: when 1, a sound that is playing when its program ends
     * (or crashes) is played to its end rather than cut off. */
    kAudioServicesPropertyCompletePlaybackIfAppDies   = AT_FOURCC('i','f','d','i')
};

#ifdef __cplusplus
}
#endif

#endif /* AUDIOTOOLBOX_AUDIOSERVICES_H */
