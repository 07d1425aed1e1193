/*
 * Every unit's parameters as a generic host reads them (an openFrameworks addon's
 * parameter panel, AUParameter browsers, a preset editor): for every component
 * AudioComponentFindNext finds, in each scope, kAudioUnitProperty_ParameterList's size
 * and IDs, then kAudioUnitProperty_ParameterInfo of each; the value the unit reports
 * must be the default the info gives, a writable parameter must take its range's two
 * ends and give them back, a meter must refuse a value, and an ID the list lacks must be
 * refused with the code a host checks. Then the lists of the mixers, Varispeed and the
 * I/O units against the IDs Apple's headers give them, and the scope errors.
 *
 * Compiled as iPhone code (the -ios module): the 3D mixer's subtype is an iPhone-only
 * name. Needs no session or device.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

static const AudioUnitScope scopes[] = {kAudioUnitScope_Global, kAudioUnitScope_Input, kAudioUnitScope_Output};
static const char *scopeNames[] = {"global", "input", "output"};

/* The IDs of ParameterList in `scope`, into ids (at most 256); their count, or -1. */
static int parameterList(AudioUnit unit, AudioUnitScope scope, AudioUnitParameterID *ids)
{
    UInt32 size = 0;
    Boolean writable = true;
    OSStatus status = AudioUnitGetPropertyInfo(unit, kAudioUnitProperty_ParameterList, scope, 0, &size, &writable);
    if (status != noErr) return -1;
    CHECK(!writable && size % 4 == 0 && size <= 256 * 4, "ParameterList: read only, whole IDs (size %u)", (unsigned)size);
    if (size == 0) return 0;
    UInt32 got = size;
    CHECK_STATUS(AudioUnitGetProperty(unit, kAudioUnitProperty_ParameterList, scope, 0, ids, &got), noErr);
    CHECK(got == size, "ParameterList gives the size its info said (%u, %u)", (unsigned)got, (unsigned)size);
    return (int)(got / 4);
}

static int near(float a, float b) { return fabsf(a - b) <= 1e-4f * fmaxf(1, fabsf(b)); }

/* One unit: every scope's list and every parameter's info, value and range. */
static void checkUnit(AudioComponent component, int *units, int *parameters)
{
    AudioComponentDescription d;
    AudioComponentGetDescription(component, &d);
    char type[16], subtype[16];
    fourcc((SInt32)d.componentType, type);
    fourcc((SInt32)d.componentSubType, subtype);
    AudioUnit unit = NULL;
    if (AudioComponentInstanceNew(component, &unit) != noErr) {
        CHECK(0, "%s %s: an instance", type, subtype);
        return;
    }
    int declared = 0;
    for (int s = 0; s < 3; s++) {
        AudioUnitParameterID ids[256];
        int count = parameterList(unit, scopes[s], ids);
        if (count < 0) continue;
        declared = 1;
        for (int i = 0; i < count; i++) {
            AudioUnitParameterInfo info;
            memset(&info, 0, sizeof info);
            UInt32 size = sizeof info;
            OSStatus status = AudioUnitGetProperty(unit, kAudioUnitProperty_ParameterInfo, scopes[s], ids[i], &info, &size);
            CHECK(status == noErr && size == sizeof info, "%s %s %s parameter %u: its info (%d, %u bytes)", type, subtype,
                  scopeNames[s], (unsigned)ids[i], (int)status, (unsigned)size);
            if (status != noErr) continue;
            (*parameters)++;
            int meter = (info.flags & kAudioUnitParameterFlag_MeterReadOnly) != 0;
            int writable = (info.flags & kAudioUnitParameterFlag_IsWritable) != 0;
            CHECK(info.name[0] && (info.flags & kAudioUnitParameterFlag_IsReadable) && meter != writable,
                  "%s %s %s parameter %u: named (\"%s\"), readable, a meter or writable (flags 0x%x)", type, subtype,
                  scopeNames[s], (unsigned)ids[i], info.name, (unsigned)info.flags);
            CHECK(info.minValue <= info.defaultValue && info.defaultValue <= info.maxValue,
                  "%s %s %s \"%s\": %g <= default %g <= %g", type, subtype, scopeNames[s], info.name, info.minValue,
                  info.defaultValue, info.maxValue);
            AudioUnitParameterValue value = NAN;
            CHECK_STATUS(AudioUnitGetParameter(unit, ids[i], scopes[s], 0, &value), noErr);
            if (meter) {
                CHECK(AudioUnitSetParameter(unit, ids[i], scopes[s], 0, info.maxValue, 0) != noErr,
                      "%s %s %s meter \"%s\" refuses a value", type, subtype, scopeNames[s], info.name);
                continue;
            }
            CHECK(near(value, info.defaultValue), "%s %s %s \"%s\" reads its default %g (%g)", type, subtype,
                  scopeNames[s], info.name, info.defaultValue, value);
            const AudioUnitParameterValue ends[] = {info.maxValue, info.minValue, info.defaultValue};
            for (int e = 0; e < 3; e++) {
                AudioUnitParameterValue back = NAN;
                CHECK_STATUS(AudioUnitSetParameter(unit, ids[i], scopes[s], 0, ends[e], 0), noErr);
                CHECK_STATUS(AudioUnitGetParameter(unit, ids[i], scopes[s], 0, &back), noErr);
                CHECK(near(back, ends[e]), "%s %s %s \"%s\" takes %g and gives it back (%g)", type, subtype,
                      scopeNames[s], info.name, ends[e], back);
            }
        }
        /* An ID the list lacks. */
        AudioUnitParameterInfo info;
        UInt32 size = sizeof info;
        CHECK_STATUS(AudioUnitGetProperty(unit, kAudioUnitProperty_ParameterInfo, scopes[s], 0xBAD0, &info, &size),
                     kAudioUnitErr_InvalidParameter);
    }
    if (declared) (*units)++;
    else printf("measured: %s %s declares no parameters\n", type, subtype);
    AudioComponentInstanceDispose(unit);
}

/* ---- the lists Apple's headers give ------------------------------------------------------ */

typedef struct {
    const char *what;
    OSType type, subtype;
    AudioUnitScope scope;
    AudioUnitParameterID ids[16];
    int count;
} Expected;

/* The 3D mixer's levels (pre and post average power, peak hold): iOS 7's SDK names none
 * for the iPhone (later ones call them k3DMixerParam_PreAveragePower ...). */
#define LEVELS_3D 1000, 2000, 3000, 4000

static const Expected expectedLists[] = {
    {"multichannel mixer, a bus", kAudioUnitType_Mixer, kAudioUnitSubType_MultiChannelMixer, kAudioUnitScope_Input,
     {kMultiChannelMixerParam_Volume, kMultiChannelMixerParam_Enable, kMultiChannelMixerParam_Pan,
      kMultiChannelMixerParam_PreAveragePower, kMultiChannelMixerParam_PrePeakHoldLevel,
      kMultiChannelMixerParam_PostAveragePower, kMultiChannelMixerParam_PostPeakHoldLevel}, 7},
    {"multichannel mixer, the output", kAudioUnitType_Mixer, kAudioUnitSubType_MultiChannelMixer, kAudioUnitScope_Output,
     {kMultiChannelMixerParam_Volume, kMultiChannelMixerParam_Enable, kMultiChannelMixerParam_PreAveragePower,
      kMultiChannelMixerParam_PrePeakHoldLevel, kMultiChannelMixerParam_PostAveragePower,
      kMultiChannelMixerParam_PostPeakHoldLevel}, 6},
    {"multichannel mixer, global", kAudioUnitType_Mixer, kAudioUnitSubType_MultiChannelMixer, kAudioUnitScope_Global, {0}, 0},
    {"3D mixer, a bus", kAudioUnitType_Mixer, kAudioUnitSubType_AU3DMixerEmbedded, kAudioUnitScope_Input,
     {k3DMixerParam_Azimuth, k3DMixerParam_Elevation, k3DMixerParam_Distance, k3DMixerParam_Gain,
      k3DMixerParam_PlaybackRate, k3DMixerParam_Enable, k3DMixerParam_MinGain, k3DMixerParam_MaxGain,
      k3DMixerParam_ReverbBlend, k3DMixerParam_OcclusionAttenuation, k3DMixerParam_ObstructionAttenuation,
      LEVELS_3D}, 15},
    {"3D mixer, the output", kAudioUnitType_Mixer, kAudioUnitSubType_AU3DMixerEmbedded, kAudioUnitScope_Output,
     {k3DMixerParam_Gain, LEVELS_3D}, 5},
    {"3D mixer, global", kAudioUnitType_Mixer, kAudioUnitSubType_AU3DMixerEmbedded, kAudioUnitScope_Global,
     {k3DMixerParam_GlobalReverbGain}, 1},
    {"matrix mixer, global", kAudioUnitType_Mixer, kAudioUnitSubType_MatrixMixer, kAudioUnitScope_Global,
     {kMatrixMixerParam_Volume}, 1},
    {"matrix mixer, a bus", kAudioUnitType_Mixer, kAudioUnitSubType_MatrixMixer, kAudioUnitScope_Input,
     {kMatrixMixerParam_Volume, kMatrixMixerParam_Enable, kMatrixMixerParam_PreAveragePower,
      kMatrixMixerParam_PrePeakHoldLevel, kMatrixMixerParam_PostAveragePower, kMatrixMixerParam_PostPeakHoldLevel,
      kMatrixMixerParam_PreAveragePowerLinear, kMatrixMixerParam_PrePeakHoldLevelLinear,
      kMatrixMixerParam_PostAveragePowerLinear, kMatrixMixerParam_PostPeakHoldLevelLinear}, 10},
    {"Varispeed", kAudioUnitType_FormatConverter, kAudioUnitSubType_Varispeed, kAudioUnitScope_Global,
     {kVarispeedParam_PlaybackRate, kVarispeedParam_PlaybackCents}, 2},
    {"GenericOutput", kAudioUnitType_Output, kAudioUnitSubType_GenericOutput, kAudioUnitScope_Global,
     {kHALOutputParam_Volume}, 1},
};

static int sameSet(const AudioUnitParameterID *a, int n, const AudioUnitParameterID *b, int m)
{
    if (n != m) return 0;
    for (int i = 0; i < n; i++) {
        int found = 0;
        for (int k = 0; k < m; k++) found |= a[i] == b[k];
        if (!found) return 0;
    }
    return 1;
}

static AudioUnit make(OSType type, OSType subtype)
{
    AudioComponentDescription d = {type, subtype, kAudioUnitManufacturer_Apple, 0, 0};
    AudioUnit unit = NULL;
    AudioComponent c = AudioComponentFindNext(NULL, &d);
    CHECK(c != NULL && AudioComponentInstanceNew(c, &unit) == noErr, "a unit of subtype 0x%08x", (unsigned)subtype);
    return unit;
}

static void expectedIDs(void)
{
    for (size_t i = 0; i < sizeof expectedLists / sizeof expectedLists[0]; i++) {
        const Expected *e = &expectedLists[i];
        AudioUnit unit = make(e->type, e->subtype);
        if (!unit) continue;
        AudioUnitParameterID ids[256];
        int count = parameterList(unit, e->scope, ids);
        CHECK(count >= 0 && sameSet(ids, count, e->ids, e->count), "%s: ParameterList gives Apple's %d IDs (%d)", e->what,
              e->count, count);
        AudioComponentInstanceDispose(unit);
    }
    /* A parameter asked of a scope it is not in: the scope is wrong, not the ID. */
    AudioUnit mixer = make(kAudioUnitType_Mixer, kAudioUnitSubType_MultiChannelMixer);
    AudioUnit spatial = make(kAudioUnitType_Mixer, kAudioUnitSubType_AU3DMixerEmbedded);
    AudioUnitParameterInfo info;
    UInt32 size = sizeof info;
    if (mixer) {
        CHECK_STATUS(AudioUnitGetProperty(mixer, kAudioUnitProperty_ParameterInfo, kAudioUnitScope_Output,
                                          kMultiChannelMixerParam_Pan, &info, &size), kAudioUnitErr_InvalidScope);
        size = sizeof info;
        CHECK_STATUS(AudioUnitGetProperty(mixer, kAudioUnitProperty_ParameterInfo, kAudioUnitScope_Input,
                                          kMultiChannelMixerParam_Pan, &info, &size), noErr);
        CHECK(info.unit == kAudioUnitParameterUnit_Pan && info.minValue == -1 && info.maxValue == 1,
              "the mixer's pan: unit Pan, -1 to 1 (%u, %g to %g)", (unsigned)info.unit, info.minValue, info.maxValue);
        AudioComponentInstanceDispose(mixer);
    }
    if (spatial) {
        size = sizeof info;
        CHECK_STATUS(AudioUnitGetProperty(spatial, kAudioUnitProperty_ParameterInfo, kAudioUnitScope_Input,
                                          k3DMixerParam_GlobalReverbGain, &info, &size), kAudioUnitErr_InvalidScope);
        size = sizeof info;
        CHECK_STATUS(AudioUnitGetProperty(spatial, kAudioUnitProperty_ParameterInfo, kAudioUnitScope_Input,
                                          k3DMixerParam_Azimuth, &info, &size), noErr);
        CHECK(info.unit == kAudioUnitParameterUnit_Degrees && info.minValue == -180 && info.maxValue == 180,
              "the 3D mixer's azimuth: degrees, -180 to 180 (%u, %g to %g)", (unsigned)info.unit, info.minValue,
              info.maxValue);
        AudioComponentInstanceDispose(spatial);
    }
}

int main(void)
{
    installWatchdog("parameter lists");
    alarm(60);
    int units = 0, parameters = 0, components = 0;
    AudioComponentDescription any = {0, 0, 0, 0, 0};
    for (AudioComponent c = AudioComponentFindNext(NULL, &any); c; c = AudioComponentFindNext(c, &any)) {
        components++;
        checkUnit(c, &units, &parameters);
    }
    printf("measured: %d of %d components declare their parameters: %d parameters, each read, set to its ends and back\n",
           units, components, parameters);
    /* All but the two players, which have no parameters. */
    CHECK(components >= 27 && units == components - 2, "the components found (%d) and those that declare parameters (%d)",
          components, units);
    expectedIDs();
    return finish("parameter lists");
}
