/*
 * ALSA external control plugin of the virtual card: a playback volume, a capture
 * volume and switch, and HDA-named jack switches, all read from the shared state
 * file. Changes made by the `vcard` command reach subscribed programs as ordinary
 * control events: the poll descriptor is an inotify watch on the state file.
 *
 * Configured as:  ctl.vcard { type vcard state "/path/to/state" [jacks false] }
 * With `jacks false` the device shows only the mixer controls, as a sound server's
 * control device does.
 *                 ctl_type.vcard { lib "/path/to/libasound_module_ctl_vcard.so" }
 */
#include <alsa/asoundlib.h>
#include <alsa/control_external.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>
#include "vcard_config.h"
#include "vcard_state.h"

typedef struct {
    const char *name;
    snd_ctl_elem_iface_t iface;
    int type;          /* SND_CTL_ELEM_TYPE_* */
    uint32_t jackBit;  /* for jacks */
} Control;

enum { PLAYBACK_VOLUME, CAPTURE_VOLUME, CAPTURE_SWITCH, CAPTURE_SOURCE, FIRST_JACK };
static const Control controls[] = {
    {"Master Playback Volume", SND_CTL_ELEM_IFACE_MIXER, SND_CTL_ELEM_TYPE_INTEGER, 0},
    {"Capture Volume", SND_CTL_ELEM_IFACE_MIXER, SND_CTL_ELEM_TYPE_INTEGER, 0},
    {"Capture Switch", SND_CTL_ELEM_IFACE_MIXER, SND_CTL_ELEM_TYPE_BOOLEAN, 0},
    {"Capture Source", SND_CTL_ELEM_IFACE_MIXER, SND_CTL_ELEM_TYPE_ENUMERATED, 0},
    {"Headphone Jack", SND_CTL_ELEM_IFACE_CARD, SND_CTL_ELEM_TYPE_BOOLEAN, VCARD_JACK_HEADPHONE},
    {"Headset Mic Jack", SND_CTL_ELEM_IFACE_CARD, SND_CTL_ELEM_TYPE_BOOLEAN, VCARD_JACK_HEADSET_MIC},
    {"Mic Jack", SND_CTL_ELEM_IFACE_CARD, SND_CTL_ELEM_TYPE_BOOLEAN, VCARD_JACK_MIC},
    {"Line Out Jack", SND_CTL_ELEM_IFACE_CARD, SND_CTL_ELEM_TYPE_BOOLEAN, VCARD_JACK_LINE_OUT},
    {"Line Jack", SND_CTL_ELEM_IFACE_CARD, SND_CTL_ELEM_TYPE_BOOLEAN, VCARD_JACK_LINE_IN},
    {"HDMI/DP,pcm=3 Jack", SND_CTL_ELEM_IFACE_CARD, SND_CTL_ELEM_TYPE_BOOLEAN, VCARD_JACK_HDMI},
    {"Front Headphone Jack", SND_CTL_ELEM_IFACE_CARD, SND_CTL_ELEM_TYPE_BOOLEAN, VCARD_JACK_FRONT_HEADPHONE},
    {"Front Mic Jack", SND_CTL_ELEM_IFACE_CARD, SND_CTL_ELEM_TYPE_BOOLEAN, VCARD_JACK_FRONT_MIC},
};
enum { CONTROL_COUNT = sizeof controls / sizeof controls[0] };

typedef struct {
    snd_ctl_ext_t ext;
    int stateFD;
    int watchFD;
    VCardState seen;            /* what subscribers were last told about */
    int hideJacks;              /* a mixer-only device: no jack controls */
    unsigned pendingMask;       /* controls whose change is not reported yet */
} VCard;

static int readState(VCard *card, VCardState *out)
{
    return vcardReadState(card->stateFD, out) < 0 ? -EIO : 0;
}

static int writeState(VCard *card, const VCardState *state)
{
    return pwrite(card->stateFD, state, sizeof *state, 0) == (ssize_t)sizeof *state ? 0 : -EIO;
}

/* Only controls that exist on this device: a card without capture has no capture
 * controls, a mixer-only device no jacks. */
static int present(const VCard *card, const VCardState *state, int index)
{
    if (card->hideJacks && controls[index].jackBit) return 0;
    if (!state->hasCapture && (index == CAPTURE_VOLUME || index == CAPTURE_SWITCH || index == CAPTURE_SOURCE)) return 0;
    return 1;
}

static int controlValue(const VCardState *state, int index)
{
    switch (index) {
    case PLAYBACK_VOLUME: return state->playbackVolume;
    case CAPTURE_VOLUME: return state->captureVolume;
    case CAPTURE_SWITCH: return 1;
    case CAPTURE_SOURCE: return (int)state->captureSource;
    default: return (state->jacks & controls[index].jackBit) != 0;
    }
}

static int elemCount(snd_ctl_ext_t *ext)
{
    VCard *card = ext->private_data;
    VCardState state;
    if (readState(card, &state) < 0) return 0;
    int count = 0;
    for (int i = 0; i < CONTROL_COUNT; i++) count += present(card, &state, i);
    return count;
}

/* The index in `controls` of the offset-th present control, or -1. */
static int presentIndex(const VCard *card, const VCardState *state, unsigned offset)
{
    for (int i = 0; i < CONTROL_COUNT; i++) {
        if (!present(card, state, i)) continue;
        if (offset-- == 0) return i;
    }
    return -1;
}

static int elemList(snd_ctl_ext_t *ext, unsigned int offset, snd_ctl_elem_id_t *id)
{
    VCard *card = ext->private_data;
    VCardState state;
    if (readState(card, &state) < 0) return -EIO;
    int index = presentIndex(card, &state, offset);
    if (index < 0) return -EINVAL;
    snd_ctl_elem_id_set_interface(id, controls[index].iface);
    snd_ctl_elem_id_set_name(id, controls[index].name);
    return 0;
}

static snd_ctl_ext_key_t findElem(snd_ctl_ext_t *ext, const snd_ctl_elem_id_t *id)
{
    VCard *card = ext->private_data;
    VCardState state;
    if (readState(card, &state) < 0) return SND_CTL_EXT_KEY_NOT_FOUND;
    /* Numbered IDs count the present controls from 1, as elem_list does. */
    unsigned numid = snd_ctl_elem_id_get_numid(id);
    if (numid != 0) {
        int index = presentIndex(card, &state, numid - 1);
        return index < 0 ? SND_CTL_EXT_KEY_NOT_FOUND : (snd_ctl_ext_key_t)index;
    }
    const char *name = snd_ctl_elem_id_get_name(id);
    for (int i = 0; i < CONTROL_COUNT; i++) {
        if (present(card, &state, i) && strcmp(name, controls[i].name) == 0) return (snd_ctl_ext_key_t)i;
    }
    return SND_CTL_EXT_KEY_NOT_FOUND;
}

static int getAttribute(snd_ctl_ext_t *ext, snd_ctl_ext_key_t key, int *type, unsigned int *access, unsigned int *count)
{
    (void)ext;
    if (key >= CONTROL_COUNT) return -EINVAL;
    *type = controls[key].type;
    *count = 1;
    *access = controls[key].jackBit ? SND_CTL_EXT_ACCESS_READ : SND_CTL_EXT_ACCESS_READWRITE;
    if (controls[key].type == SND_CTL_ELEM_TYPE_INTEGER) *access |= SND_CTL_EXT_ACCESS_TLV_READ | SND_CTL_EXT_ACCESS_TLV_CALLBACK;
    return 0;
}

static int getIntegerInfo(snd_ctl_ext_t *ext, snd_ctl_ext_key_t key, long *min, long *max, long *step)
{
    (void)ext; (void)key;
    *min = 0;
    *max = VCARD_VOLUME_MAX;
    *step = 1;
    return 0;
}

static int readInteger(snd_ctl_ext_t *ext, snd_ctl_ext_key_t key, long *value)
{
    VCardState state;
    if (key >= CONTROL_COUNT || readState(ext->private_data, &state) < 0) return -EINVAL;
    *value = controlValue(&state, (int)key);
    return 0;
}

/* Returns 1 when the value changed, as ALSA expects. */
static int writeInteger(snd_ctl_ext_t *ext, snd_ctl_ext_key_t key, long *value)
{
    VCard *card = ext->private_data;
    VCardState state;
    if (key >= CONTROL_COUNT || readState(card, &state) < 0) return -EINVAL;
    if (controls[key].jackBit) return -EPERM; /* jacks are read-only for programs */
    if (key == CAPTURE_SWITCH) return 0;
    long clamped = *value < 0 ? 0 : *value > VCARD_VOLUME_MAX ? VCARD_VOLUME_MAX : *value;
    int32_t *target = key == PLAYBACK_VOLUME ? &state.playbackVolume : &state.captureVolume;
    if (*target == clamped) return 0;
    *target = (int32_t)clamped;
    return writeState(card, &state) < 0 ? -EIO : 1;
}

static const char *const sourceNames[] = VCARD_CAPTURE_SOURCES;

static int getEnumeratedInfo(snd_ctl_ext_t *ext, snd_ctl_ext_key_t key, unsigned int *items)
{
    (void)ext;
    if (key != CAPTURE_SOURCE) return -EINVAL;
    *items = VCARD_CAPTURE_SOURCE_COUNT;
    return 0;
}

static int getEnumeratedName(snd_ctl_ext_t *ext, snd_ctl_ext_key_t key, unsigned int item, char *name, size_t size)
{
    (void)ext;
    if (key != CAPTURE_SOURCE || item >= VCARD_CAPTURE_SOURCE_COUNT) return -EINVAL;
    snprintf(name, size, "%s", sourceNames[item]);
    return 0;
}

static int readEnumerated(snd_ctl_ext_t *ext, snd_ctl_ext_key_t key, unsigned int *items)
{
    VCardState state;
    if (key != CAPTURE_SOURCE || readState(ext->private_data, &state) < 0) return -EINVAL;
    items[0] = state.captureSource;
    return 0;
}

static int writeEnumerated(snd_ctl_ext_t *ext, snd_ctl_ext_key_t key, unsigned int *items)
{
    VCard *card = ext->private_data;
    VCardState state;
    if (key != CAPTURE_SOURCE || items[0] >= VCARD_CAPTURE_SOURCE_COUNT || readState(card, &state) < 0) return -EINVAL;
    if (state.captureSource == items[0]) return 0;
    state.captureSource = items[0];
    return writeState(card, &state) < 0 ? -EIO : 1;
}

static int tlv(snd_ctl_ext_t *ext, snd_ctl_ext_key_t key, int opFlag, unsigned int numid, unsigned int *data,
               unsigned int size)
{
    (void)ext; (void)numid;
    if (opFlag != 0 || key >= CONTROL_COUNT || controls[key].type != SND_CTL_ELEM_TYPE_INTEGER) return -ENXIO;
    if (size < 4 * sizeof(unsigned int)) return -ENOMEM;
    data[0] = SND_CTL_TLVT_DB_SCALE;
    data[1] = 2 * sizeof(unsigned int);
    data[2] = (unsigned int)VCARD_VOLUME_DB_MIN;
    data[3] = VCARD_VOLUME_DB_STEP;
    return 0;
}

static void subscribeEvents(snd_ctl_ext_t *ext, int subscribe)
{
    VCard *card = ext->private_data;
    if (subscribe) readState(card, &card->seen);
}

/* Drains inotify and marks every control whose value differs from what was reported. */
static void collectChanges(VCard *card)
{
    char buffer[4096];
    while (read(card->watchFD, buffer, sizeof buffer) > 0) {}
    VCardState now;
    if (readState(card, &now) < 0) return;
    for (int i = 0; i < CONTROL_COUNT; i++) {
        if (present(card, &now, i) != present(card, &card->seen, i) || controlValue(&now, i) != controlValue(&card->seen, i))
            card->pendingMask |= 1u << i;
    }
    card->seen = now;
}

static int readEvent(snd_ctl_ext_t *ext, snd_ctl_elem_id_t *id, unsigned int *eventMask)
{
    VCard *card = ext->private_data;
    if (card->pendingMask == 0) collectChanges(card);
    if (card->seen.removed) return -ENODEV; /* as a hot-unplugged card reports */
    for (int i = 0; i < CONTROL_COUNT; i++) {
        if (!(card->pendingMask & (1u << i))) continue;
        card->pendingMask &= ~(1u << i);
        snd_ctl_elem_id_set_interface(id, controls[i].iface);
        snd_ctl_elem_id_set_name(id, controls[i].name);
        *eventMask = SND_CTL_EVENT_MASK_VALUE;
        return 1;
    }
    return -EAGAIN;
}

static void closeCard(snd_ctl_ext_t *ext)
{
    VCard *card = ext->private_data;
    close(card->watchFD);
    close(card->stateFD);
    free(card);
}

static const snd_ctl_ext_callback_t callbacks = {
    .close = closeCard,
    .elem_count = elemCount,
    .elem_list = elemList,
    .find_elem = findElem,
    .get_attribute = getAttribute,
    .get_integer_info = getIntegerInfo,
    .read_integer = readInteger,
    .write_integer = writeInteger,
    .get_enumerated_info = getEnumeratedInfo,
    .get_enumerated_name = getEnumeratedName,
    .read_enumerated = readEnumerated,
    .write_enumerated = writeEnumerated,
    .subscribe_events = subscribeEvents,
    .read_event = readEvent,
};

SND_CTL_PLUGIN_DEFINE_FUNC(vcard)
{
    (void)root;
    VCardConfig config;
    int err = vcardReadConfig(conf, 1, &config);
    if (err < 0) return err;
    const char *statePath = config.statePath;

    VCard *card = calloc(1, sizeof *card);
    if (!card) return -ENOMEM;
    card->stateFD = open(statePath, O_RDWR | O_CLOEXEC);
    card->watchFD = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (card->stateFD < 0 || card->watchFD < 0 || inotify_add_watch(card->watchFD, statePath, IN_MODIFY) < 0 ||
        readState(card, &card->seen) < 0 || card->seen.removed) {
        SNDERR("vcard: cannot use state file %s", statePath);
        if (card->stateFD >= 0) close(card->stateFD);
        if (card->watchFD >= 0) close(card->watchFD);
        free(card);
        return -ENODEV;
    }
    card->hideJacks = !config.jacks;
    card->ext.version = SND_CTL_EXT_VERSION;
    card->ext.card_idx = 0;
    strcpy(card->ext.id, "VCard");
    strcpy(card->ext.driver, "vcard");
    strcpy(card->ext.name, "Virtual Card");
    strcpy(card->ext.longname, "AudioToolbox virtual sound card");
    strcpy(card->ext.mixername, "AudioToolbox virtual mixer");
    card->ext.poll_fd = card->watchFD;
    card->ext.callback = &callbacks;
    card->ext.private_data = card;
    card->ext.tlv.c = tlv;
    err = snd_ctl_ext_create(&card->ext, name, mode);
    if (err < 0) {
        close(card->watchFD);
        close(card->stateFD);
        free(card);
        return err;
    }
    *handlep = card->ext.handle;
    return 0;
}

SND_CTL_PLUGIN_SYMBOL(vcard);
