/*
 * AudioToolbox for Linux — System Sound Services: short sounds (clicks, alerts) that a
 * program creates from files and plays without managing any stream.
 *
 * Includes <AudioToolbox/AudioSession.h>, as the original header does. Sounds are
 * decoded whole when created (WAV, AIFF and CAF holding PCM, and whatever else
 * libsndfile reads, such as FLAC and Ogg), at most 30 seconds long. Every sound of the
 * process is mixed by one thread onto one ALSA playback stream of the session's device,
 * converted to the device's rate; the stream is open only while something plays. None
 * of these calls needs AudioSessionInitialize.
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
    /* UInt32 0/1, default 1: a sound of the user interface, silent while the silent
     * switch is on (`audiosession silent on`); the play still completes. */
    kAudioServicesPropertyIsUISound                   = AT_FOURCC('i','s','u','i'),
    /* UInt32 0/1, default 0: when 1, a play that is cut short because its program dies
     * is finished by audiosessiond from where it was (when the daemon arbitrates the
     * program's session, see audiosessiond(8); otherwise the value is only kept). */
    kAudioServicesPropertyCompletePlaybackIfAppDies   = AT_FOURCC('i','f','d','i')
};

/* Decode the sound file at inFileURL (a file: URL) and give it an ID, unique while the
 * program runs. kAudioServicesSystemSoundUnspecifiedError for a NULL argument, a URL
 * that is not a local file, or a file that is missing, unreadable or not a sound;
 * kAudioServicesSystemSoundExceededMaximumDurationError for more than 30 seconds. On
 * failure *outSystemSoundID is left alone. */
extern OSStatus AudioServicesCreateSystemSoundID(CFURLRef inFileURL, SystemSoundID *outSystemSoundID);

/* Forget a sound created above; a play of it in progress stops at once, without its
 * completion. An unknown ID, or a predefined one, gives
 * kAudioServicesUnsupportedPropertyError. */
extern OSStatus AudioServicesDisposeSystemSoundID(SystemSoundID inSystemSoundID);

/* Start playing a sound and return at once; plays of any sounds mix. An unknown or
 * disposed ID does nothing. kSystemSoundID_Vibrate makes no sound (there is no motor)
 * and completes at once; kSystemSoundID_UserPreferredAlert plays the library's alert
 * tone. Silent while a system interruption (a call, an alarm) is in progress, lowered
 * while another session ducks this one. */
extern void AudioServicesPlaySystemSound(SystemSoundID inSystemSoundID);

/* The same as AudioServicesPlaySystemSound (there is no vibrator to add). */
extern void AudioServicesPlayAlertSound(SystemSoundID inSystemSoundID);

/* Call inCompletionRoutine(ID, inClientData) once for each play of the sound, after its
 * last frame has been heard (left the device), on inRunLoop in inRunLoopMode (NULL: the
 * main run loop, default mode). A second registration for the same ID replaces the
 * first. kAudioServicesSystemSoundUnspecifiedError for a NULL routine or an unknown ID. */
extern OSStatus AudioServicesAddSystemSoundCompletion(SystemSoundID inSystemSoundID, CFRunLoopRef inRunLoop,
                                                      CFStringRef inRunLoopMode,
                                                      AudioServicesSystemSoundCompletionProc inCompletionRoutine,
                                                      void *inClientData);

/* Stop calling the sound's completion routine (plays already heard may still deliver
 * one that was queued before this call returned). */
extern void AudioServicesRemoveSystemSoundCompletion(SystemSoundID inSystemSoundID);

/* Properties of a sound; inSpecifier points to its SystemSoundID (inSpecifierSize 4).
 * A wrong specifier size gives kAudioServicesBadSpecifierSizeError, a NULL pointer
 * kAudioServicesSystemSoundUnspecifiedError, an unknown property or sound
 * kAudioServicesUnsupportedPropertyError, a data size other than 4
 * kAudioServicesBadPropertySizeError. Both properties are UInt32, readable and
 * writable; a value other than 0 or 1 is kAudioServicesUnsupportedPropertyError. */
extern OSStatus AudioServicesGetPropertyInfo(AudioServicesPropertyID inPropertyID, UInt32 inSpecifierSize,
                                             const void *inSpecifier, UInt32 *outPropertyDataSize,
                                             Boolean *outWritable);
extern OSStatus AudioServicesGetProperty(AudioServicesPropertyID inPropertyID, UInt32 inSpecifierSize,
                                         const void *inSpecifier, UInt32 *ioPropertyDataSize,
                                         void *outPropertyData);
extern OSStatus AudioServicesSetProperty(AudioServicesPropertyID inPropertyID, UInt32 inSpecifierSize,
                                         const void *inSpecifier, UInt32 inPropertyDataSize,
                                         const void *inPropertyData);

#ifdef __cplusplus
}
#endif

#endif /* AUDIOTOOLBOX_AUDIOSERVICES_H */
