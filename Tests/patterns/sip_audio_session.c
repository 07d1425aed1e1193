/*
 * A SIP softphone's audio-session module as it was written for the iPhone: one
 * interruption listener given at initialisation, PlayAndRecord for calls, a route
 * change listener that logs why and from where the route changed, an input
 * availability listener for the "no microphone" banner, and a teardown that removes
 * its own listeners by user data. Nothing here knows it is under test.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <stdio.h>
#include <string.h>
#include "sip_audio_session.h"

struct sip_audio_module {
    int initialized;
    int in_call;
    sip_audio_status status;
};

static struct sip_audio_module sip_audio;

static void cf_to_c(CFStringRef text, char *out, size_t size)
{
    out[0] = '\0';
    if (text != NULL)
        CFStringGetCString(text, out, (CFIndex)size, kCFStringEncodingUTF8);
}

static void first_port_type(CFDictionaryRef route, CFStringRef side, char *out, size_t size)
{
    out[0] = '\0';
    if (route == NULL)
        return;
    CFArrayRef ports = (CFArrayRef)CFDictionaryGetValue(route, side);
    if (ports == NULL || CFArrayGetCount(ports) == 0)
        return;
    CFDictionaryRef port = (CFDictionaryRef)CFArrayGetValueAtIndex(ports, 0);
    cf_to_c((CFStringRef)CFDictionaryGetValue(port, kAudioSession_AudioRouteKey_Type), out, size);
}

static void sip_interruption_listener(void *user_data, UInt32 state)
{
    struct sip_audio_module *module = (struct sip_audio_module *)user_data;

    if (state == kAudioSessionBeginInterruption) {
        /* A GSM call took the audio: the session is already inactive, hold our call. */
        module->status.interruptions++;
        if (module->in_call)
            module->status.call_on_hold = 1;
    } else if (state == kAudioSessionEndInterruption) {
        module->status.resumes++;
        if (module->status.call_on_hold) {
            module->status.resume_result = AudioSessionSetActive(true);
            if (module->status.resume_result == kAudioSessionNoError)
                module->status.call_on_hold = 0;
            else
                printf("sip-audio: cannot reactivate after interruption (%d)\n", (int)module->status.resume_result);
        }
    }
}

static void sip_route_change_listener(void *user_data, AudioSessionPropertyID id, UInt32 size, const void *data)
{
    struct sip_audio_module *module = (struct sip_audio_module *)user_data;
    (void)size;

    if (id != kAudioSessionProperty_AudioRouteChange || data == NULL)
        return;
    CFDictionaryRef change = (CFDictionaryRef)data;

    SInt32 reason = kAudioSessionRouteChangeReason_Unknown;
    CFNumberRef number = (CFNumberRef)CFDictionaryGetValue(change, CFSTR(kAudioSession_AudioRouteChangeKey_Reason));
    if (number != NULL)
        CFNumberGetValue(number, kCFNumberSInt32Type, &reason);

    module->status.route_changes++;
    module->status.last_reason = reason;
    cf_to_c((CFStringRef)CFDictionaryGetValue(change, CFSTR(kAudioSession_AudioRouteChangeKey_OldRoute)),
            module->status.old_route, sizeof module->status.old_route);

    CFDictionaryRef previous =
        (CFDictionaryRef)CFDictionaryGetValue(change, kAudioSession_AudioRouteChangeKey_PreviousRouteDescription);
    CFDictionaryRef current =
        (CFDictionaryRef)CFDictionaryGetValue(change, kAudioSession_AudioRouteChangeKey_CurrentRouteDescription);
    first_port_type(previous, kAudioSession_AudioRouteKey_Inputs, module->status.previous_input,
                    sizeof module->status.previous_input);
    first_port_type(previous, kAudioSession_AudioRouteKey_Outputs, module->status.previous_output,
                    sizeof module->status.previous_output);
    first_port_type(current, kAudioSession_AudioRouteKey_Inputs, module->status.current_input,
                    sizeof module->status.current_input);
    first_port_type(current, kAudioSession_AudioRouteKey_Outputs, module->status.current_output,
                    sizeof module->status.current_output);

    printf("sip-audio: route change, reason %d, old route %s, now %s/%s\n", (int)reason, module->status.old_route,
           module->status.current_input, module->status.current_output);
}

static void sip_input_listener(void *user_data, AudioSessionPropertyID id, UInt32 size, const void *data)
{
    struct sip_audio_module *module = (struct sip_audio_module *)user_data;

    if (id != kAudioSessionProperty_AudioInputAvailable || size < sizeof(UInt32))
        return;
    module->status.mic_available = *(const UInt32 *)data ? 1 : 0;
    module->status.mic_changes++;
    printf("sip-audio: microphone %s\n", module->status.mic_available ? "available" : "gone");
}

static void set_call_category(void)
{
    UInt32 category = kAudioSessionCategory_PlayAndRecord;
    sip_audio.status.category_result =
        AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof(category), &category);
}

int sip_audio_init(void)
{
    if (sip_audio.initialized)
        return 0;
    sip_audio.status.mic_available = -1;

    OSStatus err = AudioSessionInitialize(NULL, kCFRunLoopDefaultMode, sip_interruption_listener, &sip_audio);
    if (err != kAudioSessionNoError && err != kAudioSessionAlreadyInitialized) {
        printf("sip-audio: AudioSessionInitialize failed (%d)\n", (int)err);
        return -1;
    }
    set_call_category();
    AudioSessionAddPropertyListener(kAudioSessionProperty_AudioRouteChange, sip_route_change_listener, &sip_audio);
    AudioSessionAddPropertyListener(kAudioSessionProperty_AudioInputAvailable, sip_input_listener, &sip_audio);
    sip_audio.initialized = 1;
    return 0;
}

int sip_audio_start_call(void)
{
    /* The app may have played a ringtone in another category since the last call. */
    set_call_category();
    sip_audio.status.activate_result = AudioSessionSetActive(true);
    sip_audio.in_call = sip_audio.status.activate_result == kAudioSessionNoError;
    return sip_audio.in_call ? 0 : -1;
}

void sip_audio_end_call(void)
{
    sip_audio.in_call = 0;
    sip_audio.status.call_on_hold = 0;
    AudioSessionSetActive(false);
}

void sip_audio_shutdown(void)
{
    sip_audio_end_call();
    AudioSessionRemovePropertyListenerWithUserData(kAudioSessionProperty_AudioRouteChange, sip_route_change_listener,
                                                   &sip_audio);
    AudioSessionRemovePropertyListenerWithUserData(kAudioSessionProperty_AudioInputAvailable, sip_input_listener,
                                                   &sip_audio);
    sip_audio.initialized = 0;
}

const sip_audio_status *sip_audio_get_status(void)
{
    return &sip_audio.status;
}
