/*
 * ALSA external PCM plugin of the virtual card (ioplug), 16-bit stereo interleaved
 * only: playback consumes audio and
 * capture produces silence at the pace the program drives it; the rates and period
 * sizes it accepts come from the shared state file, so `vcard rates 44100,48000` makes
 * a program's negotiation land on one of those. A card whose state says it has no
 * capture refuses to open for capture.
 *
 * With `vcard exclusive on` each direction takes one opener at a time, as a kernel
 * hw:N device does: an open holds an flock on "<state>.playback.lock" or
 * "<state>.capture.lock" until it is closed. A second open made with SND_PCM_NONBLOCK
 * fails with -EBUSY; a blocking one waits until the holder closes. The lock belongs to
 * the open file description, so two opens inside one process conflict as well.
 *
 * Configured as:  pcm.vcard { type vcard state "/path/to/state" }
 *                 pcm_type.vcard { lib "/path/to/libasound_module_pcm_vcard.so" }
 */
#include <alsa/asoundlib.h>
#include <alsa/pcm_external.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <unistd.h>
#include "vcard_config.h"
#include "vcard_state.h"

typedef struct {
    snd_pcm_ioplug_t io;
    int readyFD;                 /* always readable: the device never blocks */
    int lockFD;                  /* the exclusive lock held while open, or -1 */
    snd_pcm_uframes_t position;  /* frames transferred, modulo the buffer */
} VPcm;

static int start(snd_pcm_ioplug_t *io) { (void)io; return 0; }
static int stop(snd_pcm_ioplug_t *io) { (void)io; return 0; }

static snd_pcm_sframes_t pointer(snd_pcm_ioplug_t *io)
{
    VPcm *pcm = io->private_data;
    return (snd_pcm_sframes_t)(pcm->position % io->buffer_size);
}

/* Playback: the frames are consumed at once. Capture: silence is produced. */
static snd_pcm_sframes_t transfer(snd_pcm_ioplug_t *io, const snd_pcm_channel_area_t *areas,
                                  snd_pcm_uframes_t offset, snd_pcm_uframes_t size)
{
    VPcm *pcm = io->private_data;
    if (io->stream == SND_PCM_STREAM_CAPTURE)
        snd_pcm_areas_silence(areas, offset, io->channels, size, io->format);
    pcm->position += size;
    return (snd_pcm_sframes_t)size;
}

static int closePcm(snd_pcm_ioplug_t *io)
{
    VPcm *pcm = io->private_data;
    close(pcm->readyFD);
    if (pcm->lockFD >= 0) close(pcm->lockFD); /* releases the flock */
    free(pcm);
    return 0;
}

static const snd_pcm_ioplug_callback_t callbacks = {
    .start = start,
    .stop = stop,
    .pointer = pointer,
    .transfer = transfer,
    .close = closePcm,
};

static int readState(const char *path, VCardState *state)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -ENODEV;
    int ok = vcardReadState(fd, state) == 0;
    close(fd);
    return ok ? 0 : -EIO;
}

/* Takes the direction's exclusive lock: at once or -EBUSY when `mode` has
 * SND_PCM_NONBLOCK, else waiting for the holder to close. Returns the lock's descriptor. */
static int lockDirection(const char *statePath, snd_pcm_stream_t stream, int mode)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s.%s.lock", statePath,
                 stream == SND_PCM_STREAM_PLAYBACK ? "playback" : "capture") >= (int)sizeof path)
        return -ENAMETOOLONG;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return -errno;
    int operation = LOCK_EX | (mode & SND_PCM_NONBLOCK ? LOCK_NB : 0);
    while (flock(fd, operation) < 0) {
        if (errno == EINTR) continue;
        int err = errno == EWOULDBLOCK ? -EBUSY : -errno;
        close(fd);
        return err;
    }
    return fd;
}

static int constrain(snd_pcm_ioplug_t *io, const VCardState *state)
{
    static const unsigned int accesses[] = {SND_PCM_ACCESS_RW_INTERLEAVED};
    /* One frame layout only (16-bit stereo), so that the period limits, which ioplug
       takes in bytes, are exactly the frame limits of the state. */
    static const unsigned int formats[] = {SND_PCM_FORMAT_S16_LE};
    const unsigned int bytesPerFrame = 2 * 2;
    int err;
    if ((err = snd_pcm_ioplug_set_param_list(io, SND_PCM_IOPLUG_HW_ACCESS, 1, accesses)) < 0 ||
        (err = snd_pcm_ioplug_set_param_list(io, SND_PCM_IOPLUG_HW_FORMAT, 1, formats)) < 0 ||
        (err = snd_pcm_ioplug_set_param_minmax(io, SND_PCM_IOPLUG_HW_CHANNELS, 2, 2)) < 0 ||
        (err = snd_pcm_ioplug_set_param_list(io, SND_PCM_IOPLUG_HW_RATE, state->rateCount, state->rates)) < 0 ||
        (err = snd_pcm_ioplug_set_param_minmax(io, SND_PCM_IOPLUG_HW_PERIOD_BYTES, state->periodMinFrames * bytesPerFrame,
                                               state->periodMaxFrames * bytesPerFrame)) < 0 ||
        (err = snd_pcm_ioplug_set_param_minmax(io, SND_PCM_IOPLUG_HW_PERIODS, 2, 4)) < 0)
        return err;
    return 0;
}

SND_PCM_PLUGIN_DEFINE_FUNC(vcard)
{
    (void)root;
    VCardConfig config;
    if (vcardReadConfig(conf, 0, &config) < 0) return -EINVAL;
    const char *statePath = config.statePath;
    VCardState state;
    if (!statePath || readState(statePath, &state) < 0) { SNDERR("vcard: no usable state file"); return -ENODEV; }
    if (state.removed || (stream == SND_PCM_STREAM_CAPTURE && !state.hasCapture)) return -ENODEV;
    if (state.rateCount == 0 || state.rateCount > VCARD_MAX_RATES) return -EINVAL;
    int lockFD = -1;
    if (state.exclusive && (lockFD = lockDirection(statePath, stream, mode)) < 0) return lockFD;

    VPcm *pcm = calloc(1, sizeof *pcm);
    if (!pcm) {
        if (lockFD >= 0) close(lockFD);
        return -ENOMEM;
    }
    pcm->lockFD = lockFD;
    pcm->readyFD = eventfd(1, EFD_NONBLOCK | EFD_CLOEXEC);
    pcm->io.version = SND_PCM_IOPLUG_VERSION;
    pcm->io.name = "AudioToolbox virtual card";
    pcm->io.mmap_rw = 0;
    pcm->io.callback = &callbacks;
    pcm->io.private_data = pcm;
    pcm->io.poll_fd = pcm->readyFD;
    pcm->io.poll_events = stream == SND_PCM_STREAM_PLAYBACK ? POLLOUT : POLLIN;
    int err = snd_pcm_ioplug_create(&pcm->io, name, stream, mode);
    if (err < 0) {
        close(pcm->readyFD);
        if (pcm->lockFD >= 0) close(pcm->lockFD);
        free(pcm);
        return err;
    }
    if ((err = constrain(&pcm->io, &state)) < 0) {
        snd_pcm_ioplug_delete(&pcm->io);
        return err;
    }
    *pcmp = pcm->io.pcm;
    return 0;
}

SND_PCM_PLUGIN_SYMBOL(vcard);
