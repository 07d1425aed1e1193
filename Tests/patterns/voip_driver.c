#include "TargetConditionals.h"
/*
 * An old VoIP program's iPhone audio driver: 20 ms IO buffer, hardware figures read
 * for its jitter buffer, Bluetooth input, the loudspeaker unless a headset is in, and an
 * interruption listener that stops the stream and deactivates inside Begin, then reads
 * InterruptionType inside End to decide whether to restart. Release 1 set the route
 * overrides before the category (open_v1): those calls fail with '!cat' and the result
 * is ignored, as it was. Nothing here knows it is under test.
 */
#include <stdio.h>
#include <string.h>
#include "voip_driver.h"

static struct voip_audio_info info;

#if TARGET_OS_IPHONE
static int session_ready;

/* The real driver starts and stops its audio unit here. */
static void stream_start(void) { info.running = 1; }
static void stream_stop(void) { info.running = 0; }

static int route_is_headset(void)
{
    CFStringRef route = NULL;
    UInt32 size = sizeof(route);

    info.route[0] = '\0';
    if (AudioSessionGetProperty(kAudioSessionProperty_AudioRoute, &size, &route) != 0 || route == NULL)
        return 0;
    CFStringGetCString(route, info.route, sizeof(info.route), kCFStringEncodingUTF8);
    CFRelease(route);
    /* "HeadsetInOut", "HeadsetBT": talk through the headset, as with the earpiece. */
    return strstr(info.route, "Headset") != NULL;
}

static void choose_route(void)
{
    if (route_is_headset()) {
        info.loudspeaker = 0;
        return;
    }
    UInt32 route = kAudioSessionOverrideAudioRoute_Speaker;
    info.override_err = AudioSessionSetProperty(kAudioSessionProperty_OverrideAudioRoute, sizeof(route), &route);
    info.loudspeaker = 1;
}

static void enable_bluetooth(void)
{
    UInt32 on = 1;
    info.bluetooth_err =
        AudioSessionSetProperty(kAudioSessionProperty_OverrideCategoryEnableBluetoothInput, sizeof(on), &on);
}

static void set_category(void)
{
    UInt32 category = kAudioSessionCategory_PlayAndRecord;
    info.category_err = AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof(category), &category);
}

static void read_hardware(void)
{
    UInt32 size = sizeof(Float32);
    AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareInputLatency, &size, &info.input_latency);
    size = sizeof(Float32);
    AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareOutputLatency, &size, &info.output_latency);
    size = sizeof(Float32);
    AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareIOBufferDuration, &size, &info.io_buffer);
    size = sizeof(Float32);
    AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareOutputVolume, &size, &info.output_volume);
}

static void interruption_listener(void *user_data, UInt32 state)
{
    (void)user_data;
    if (state == kAudioSessionBeginInterruption) {
        info.begin_count++;
        stream_stop();
        info.deactivate_in_begin_err = AudioSessionSetActive(false);
    } else if (state == kAudioSessionEndInterruption) {
        UInt32 type = 0, size = sizeof(type);
        info.end_count++;
        info.type_err = AudioSessionGetProperty(kAudioSessionProperty_InterruptionType, &size, &type);
        info.end_type = type;
        if (type != kAudioSessionInterruptionType_ShouldResume)
            return; /* the user restarts the call */
        info.reactivate_err = AudioSessionSetActive(true);
        if (info.reactivate_err == 0) {
            choose_route(); /* the interruption dropped the speaker override */
            stream_start();
        }
    }
}

static void route_listener(void *user_data, AudioSessionPropertyID id, UInt32 size, const void *data)
{
    (void)user_data;
    (void)size;
    if (id != kAudioSessionProperty_AudioRouteChange || !info.running)
        return; /* routing matters only during a call */
    SInt32 reason = 0;
    CFNumberRef number =
        (CFNumberRef)CFDictionaryGetValue((CFDictionaryRef)data, CFSTR(kAudioSession_AudioRouteChangeKey_Reason));
    if (number)
        CFNumberGetValue(number, kCFNumberSInt32Type, &reason);
    /* A device came or went: decide again (our own override is reason Override). */
    if (reason == kAudioSessionRouteChangeReason_NewDeviceAvailable ||
        reason == kAudioSessionRouteChangeReason_OldDeviceUnavailable)
        choose_route();
}

static void session_init(void)
{
    if (session_ready)
        return;
    AudioSessionInitialize(NULL, NULL, interruption_listener, &info);
    AudioSessionAddPropertyListener(kAudioSessionProperty_AudioRouteChange, route_listener, &info);
    session_ready = 1;
}

static int start(void)
{
    Float32 duration = 0.02f; /* one 20 ms voice frame */
    AudioSessionSetProperty(kAudioSessionProperty_PreferredHardwareIOBufferDuration, sizeof(duration), &duration);
    info.activate_err = AudioSessionSetActive(true);
    if (info.activate_err != 0) {
        printf("voip: cannot activate the audio session (%d)\n", (int)info.activate_err);
        return -1;
    }
    read_hardware();
    printf("voip: route %s, latency in %.4f out %.4f, buffer %.4f, volume %.2f\n", info.route,
           (double)info.input_latency, (double)info.output_latency, (double)info.io_buffer, (double)info.output_volume);
    stream_start();
    return 0;
}
#endif

int voip_driver_open_v1(void)
{
#if TARGET_OS_IPHONE
    session_init();
    choose_route();
    enable_bluetooth();
    set_category();
    return start();
#else
    return -1;
#endif
}

int voip_driver_open(void)
{
#if TARGET_OS_IPHONE
    session_init();
    set_category();
    choose_route();
    enable_bluetooth();
    return start();
#else
    return -1;
#endif
}

void voip_driver_close(void)
{
#if TARGET_OS_IPHONE
    stream_stop();
    AudioSessionSetActive(false);
#endif
}

const struct voip_audio_info *voip_driver_info(void)
{
    return &info;
}
