/*
 * ALSA external PCM plugin of the virtual card (ioplug), 16-bit stereo interleaved
 * only; the rates and period sizes it accepts come from the shared state file, so
 * `vcard rates 44100,48000` makes a program's negotiation land on one of those. A card
 * whose state says it has no capture refuses to open for capture.
 *
 * Playback runs in real time, as a sound card does. From the moment the stream starts
 * its hardware pointer follows CLOCK_MONOTONIC (elapsed seconds x rate frames) but
 * never passes what the program has written. Reaching the end of the written frames
 * while running is an underrun: the next pointer read reports -EPIPE, ioplug puts the
 * stream in XRUN and the program recovers with snd_pcm_prepare (or snd_pcm_recover),
 * as on hardware with the default stop threshold. A program that set its stop
 * threshold above the buffer size (never stop) instead sees the clock wait at the
 * last written frame and go on from the next write. snd_pcm_drain returns once the
 * clock has played the last frame; snd_pcm_pause freezes the clock.
 *   The poll descriptor is a timerfd, armed for the instant the stream next becomes
 * ready (avail_min frames free, an underrun, or while draining the last frame played)
 * each time the stream changes, so a blocking write, a drain and the program's own
 * poll all sleep instead of spinning; it is readable whenever the stream is not
 * running. poll_revents turns its POLLIN into POLLOUT.
 *   Every frame the clock plays is appended (16-bit stereo little-endian, as written)
 * to "<state>.playback.raw", and the stream's rate goes to "<state>.playback.rate" as
 * text when it first plays; frames discarded by snd_pcm_drop, snd_pcm_prepare or
 * closing are not. Streams playing at once append their frames in turn, unmixed.
 *
 * Capture produces silence at the pace the program reads it.
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
#include <stdio.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include "vcard_config.h"
#include "vcard_state.h"

#define BYTES_PER_FRAME 4 /* S16_LE stereo, the only layout offered */
#define NS_PER_SECOND 1000000000ull

typedef struct {
    snd_pcm_ioplug_t io;
    int pollFD;                  /* capture: an eventfd, always readable; playback: a timerfd */
    int lockFD;                  /* the exclusive lock held while open, or -1 */
    snd_pcm_uframes_t boundary;  /* where ioplug's pointers wrap */

    /* Playback. ioplug calls start, stop, pointer, transfer and pause with its own lock
       held but prepare, sw_params and poll_revents without it, so this state has a lock
       of its own. Frame counts run from the last prepare. */
    pthread_mutex_t mutex;
    char *recordPath, *ratePath, *startedPath;
    snd_pcm_uframes_t availMin, stopThreshold;
    uint64_t written;            /* frames the program has given */
    uint64_t played;             /* frames the clock has consumed (and recorded) */
    int running, paused, xrun;
    struct timespec anchorTime;  /* the clock: anchorFrames at anchorTime, then `rate` per second */
    uint64_t anchorFrames;
    unsigned char *ring;         /* the written frames not yet played, at written % buffer_size */
    snd_pcm_uframes_t ringFrames;
    int recordFD;                /* opened at the first frame a start plays, or -1 */
    int rateNoted;               /* the rate file was written since the last start */
    int watched;                 /* the descriptor was handed out: keep the timer true from then on */
    int armed;                   /* TIMER_*: how the timer stands, to skip re-arming it the same way */
    struct timespec armedTime;

    /* Capture: a clock too (anchorTime/anchorFrames, running, availMin); `read` counts the
       frames the program has taken since the last prepare. What it hears is made from
       the state: a tone, and an echo read from the playback recording. */
    uint64_t read;
    int stateFD;                 /* the card's state, read at each transfer */
    char *originPath;            /* where the playback's latest start begins in its recording */
    char *startsPath;            /* every start of the playback, one line each */
} VPcm;

enum { TIMER_OFF, TIMER_NOW, TIMER_AT };

/* ---- playback: the clock -------------------------------------------------------------- */

static struct timespec monotonicNow(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now;
}

/* Where the clock stands at `now`, not limited to what was written: floor(elapsed x rate). */
static uint64_t clockFrames(const VPcm *pcm, struct timespec now)
{
    int64_t ns = (int64_t)(now.tv_sec - pcm->anchorTime.tv_sec) * (int64_t)NS_PER_SECOND +
                 (now.tv_nsec - pcm->anchorTime.tv_nsec);
    if (ns <= 0) return pcm->anchorFrames;
    uint64_t rate = pcm->io.rate;
    return pcm->anchorFrames + (uint64_t)ns / NS_PER_SECOND * rate + (uint64_t)ns % NS_PER_SECOND * rate / NS_PER_SECOND;
}

/* The first instant the clock stands at `frames` or beyond (rounded up, never early). */
static struct timespec clockTime(const VPcm *pcm, uint64_t frames)
{
    uint64_t rate = pcm->io.rate, n = frames - pcm->anchorFrames;
    uint64_t ns = n / rate * NS_PER_SECOND + (n % rate * NS_PER_SECOND + rate - 1) / rate;
    struct timespec t = pcm->anchorTime;
    t.tv_sec += (time_t)(ns / NS_PER_SECOND);
    t.tv_nsec += (long)(ns % NS_PER_SECOND);
    if (t.tv_nsec >= (long)NS_PER_SECOND) { t.tv_sec++; t.tv_nsec -= (long)NS_PER_SECOND; }
    return t;
}

/* The stop threshold in force: sw_params sets it before any stream can start. */
static uint64_t stopLimit(const VPcm *pcm)
{
    return pcm->stopThreshold ? pcm->stopThreshold : pcm->io.buffer_size;
}

/* Whether an underrun stops the stream (stop threshold within the buffer, as by default). */
static int stopsOnUnderrun(const VPcm *pcm)
{
    return stopLimit(pcm) <= pcm->io.buffer_size;
}

/* The clock position at which `frames` frames of the buffer are free: 0 if they are already. */
static uint64_t framesWhenFree(const VPcm *pcm, uint64_t frames)
{
    uint64_t needed = pcm->written + frames;
    return needed > pcm->io.buffer_size ? needed - pcm->io.buffer_size : 0;
}

/* The clock position at which the stream next needs attention: avail_min frames free,
 * an underrun, or, while draining, the last frame played. */
static uint64_t readyFrames(const VPcm *pcm)
{
    if (pcm->io.state == SND_PCM_STATE_DRAINING) return pcm->written;
    uint64_t target = pcm->written, when = framesWhenFree(pcm, pcm->availMin);
    if (when < target) target = when;
    if (stopsOnUnderrun(pcm) && (when = framesWhenFree(pcm, stopLimit(pcm))) < target) target = when;
    return target;
}

static int before(struct timespec a, struct timespec b)
{
    return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

/* Arms the poll timer for the instant the stream is next ready: at once when it is
 * ready now or not running, never while paused. Re-arming also clears a past expiry,
 * so the descriptor is readable about when the stream is ready. Returns readiness.
 *   A timer set to expire at once costs a timer interrupt (some 15 us in a virtual
 * machine), so nothing is armed before anyone holds the descriptor (negotiation-only
 * opens never do), nor armed again the way it already is. */
static int armTimer(VPcm *pcm, struct timespec now)
{
    int want = TIMER_NOW, ready = 1;
    struct timespec when = {0, 1}; /* an absolute time long past */
    if (pcm->running && !pcm->xrun) {
        if (pcm->paused) {
            want = TIMER_OFF;
            ready = 0;
        } else {
            uint64_t target = readyFrames(pcm);
            if (clockFrames(pcm, now) < target) {
                want = TIMER_AT;
                when = clockTime(pcm, target);
                ready = 0;
            }
        }
    }
    if (!pcm->watched) return ready;
    if (want == TIMER_NOW && pcm->armed == TIMER_AT && !before(now, pcm->armedTime))
        pcm->armed = TIMER_NOW; /* it has expired (or is about to): readable as it is */
    if (want == pcm->armed && (want != TIMER_AT || !memcmp(&when, &pcm->armedTime, sizeof when))) return ready;
    struct itimerspec spec = {{0, 0}, {0, 0}};
    if (want != TIMER_OFF) spec.it_value = when;
    timerfd_settime(pcm->pollFD, TFD_TIMER_ABSTIME, &spec, NULL);
    pcm->armed = want;
    pcm->armedTime = when;
    return ready;
}

static void writeAll(int fd, const unsigned char *bytes, size_t size)
{
    while (size > 0) {
        ssize_t done = write(fd, bytes, size);
        if (done < 0 && errno == EINTR) continue;
        if (done <= 0) return; /* the device plays on even when its tape is full */
        bytes += done;
        size -= (size_t)done;
    }
}

/* Appends frames [played, to) from the ring to the recording. */
static void record(VPcm *pcm, uint64_t to)
{
    if (to <= pcm->played || !pcm->ring) return;
    if (!pcm->rateNoted) {
        pcm->rateNoted = 1;
        int fd = open(pcm->ratePath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd >= 0) {
            char text[32];
            int length = snprintf(text, sizeof text, "%u\n", pcm->io.rate);
            writeAll(fd, (const unsigned char *)text, (size_t)length);
            close(fd);
        }
    }
    if (pcm->recordFD < 0)
        pcm->recordFD = open(pcm->recordPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK, 0644);
    if (pcm->recordFD < 0) return;
    uint64_t from = pcm->played;
    while (from < to) {
        snd_pcm_uframes_t at = (snd_pcm_uframes_t)(from % pcm->ringFrames);
        uint64_t count = to - from;
        if (count > pcm->ringFrames - at) count = pcm->ringFrames - at;
        writeAll(pcm->recordFD, pcm->ring + (size_t)at * BYTES_PER_FRAME, (size_t)count * BYTES_PER_FRAME);
        from += count;
    }
}

/* Plays (records) what the clock has consumed by `now`, and notices an underrun.
 * `mayStop`: 0 when only the frames played so far matter (stop, prepare, drain). */
static void advance(VPcm *pcm, struct timespec now, int mayStop)
{
    if (!pcm->running || pcm->paused || pcm->xrun) return;
    uint64_t clock = clockFrames(pcm, now);
    uint64_t to = clock < pcm->written ? clock : pcm->written;
    record(pcm, to);
    pcm->played = to;
    if (!mayStop || pcm->io.state == SND_PCM_STATE_DRAINING) return;
    uint64_t avail = pcm->io.buffer_size - (pcm->written - pcm->played);
    if (stopsOnUnderrun(pcm) && avail >= stopLimit(pcm)) {
        pcm->xrun = 1;
        pcm->running = 0;
    }
}

/* ioplug moves its application pointer on its own in snd_pcm_rewind and snd_pcm_forward:
 * it is the truth about how far the program has written. */
static void syncWritten(VPcm *pcm)
{
    uint64_t boundary = pcm->boundary;
    if (boundary == 0) return;
    uint64_t pending = ((uint64_t)pcm->io.appl_ptr + boundary - pcm->played % boundary) % boundary;
    if (pending <= pcm->io.buffer_size) pcm->written = pcm->played + pending;
}

/* ---- playback: ioplug callbacks ----------------------------------------------------------- */

static int playbackStart(snd_pcm_ioplug_t *io)
{
    VPcm *pcm = io->private_data;
    pthread_mutex_lock(&pcm->mutex);
    struct timespec now = monotonicNow();
    pcm->anchorTime = now;
    pcm->anchorFrames = pcm->played;
    pcm->running = 1;
    pcm->paused = pcm->xrun = 0;
    /* Reopened at the first frame played: the file may have been removed meanwhile. */
    if (pcm->recordFD >= 0) close(pcm->recordFD);
    pcm->recordFD = -1;
    pcm->rateNoted = 0;
    /* Where this start begins in the recording, and when: the capture's echo reads the
       recording by time. ("start-ns first-frame rate") */
    struct stat recorded;
    uint64_t firstFrame = stat(pcm->recordPath, &recorded) == 0 ? (uint64_t)recorded.st_size / BYTES_PER_FRAME : 0;
    int originFD = open(pcm->originPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK, 0644);
    if (originFD >= 0) {
        char text[96];
        int length = snprintf(text, sizeof text, "%lld %llu %u\n",
                              (long long)now.tv_sec * 1000000000LL + (long long)now.tv_nsec,
                              (unsigned long long)firstFrame, pcm->io.rate);
        writeAll(originFD, (const unsigned char *)text, (size_t)length);
        close(originFD);
    }
    /* Every start, one line each ("start-ns first-frame"), in <state>.playback.starts:
       a stream that restarts after running dry starts again, so benchmarks count
       underruns here. */
    int startsFD = open(pcm->startsPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK, 0644);
    if (startsFD >= 0) {
        char text[64];
        int length = snprintf(text, sizeof text, "%lld %llu\n",
                              (long long)now.tv_sec * 1000000000LL + (long long)now.tv_nsec,
                              (unsigned long long)firstFrame);
        writeAll(startsFD, (const unsigned char *)text, (size_t)length);
        close(startsFD);
    }
    /* When the first frame of this start plays (CLOCK_MONOTONIC, ns): benchmarks
       measure how long sound takes to reach the card. */
    int startedFD = open(pcm->startedPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK, 0644);
    if (startedFD >= 0) {
        char text[32];
        int length = snprintf(text, sizeof text, "%lld\n",
                              (long long)now.tv_sec * 1000000000LL + (long long)now.tv_nsec);
        writeAll(startedFD, (const unsigned char *)text, (size_t)length);
        close(startedFD);
    }
    armTimer(pcm, now);
    pthread_mutex_unlock(&pcm->mutex);
    return 0;
}

/* snd_pcm_drop, the end of a drain, and close: what the clock played stays recorded,
 * the rest is discarded. */
static int playbackStop(snd_pcm_ioplug_t *io)
{
    VPcm *pcm = io->private_data;
    pthread_mutex_lock(&pcm->mutex);
    struct timespec now = monotonicNow();
    advance(pcm, now, 0);
    pcm->running = pcm->paused = 0;
    armTimer(pcm, now);
    pthread_mutex_unlock(&pcm->mutex);
    return 0;
}

static int playbackPrepare(snd_pcm_ioplug_t *io)
{
    VPcm *pcm = io->private_data;
    pthread_mutex_lock(&pcm->mutex);
    struct timespec now = monotonicNow();
    advance(pcm, now, 0);
    /* ioplug has just reset its pointers to 0: so do these. */
    pcm->written = pcm->played = 0;
    pcm->running = pcm->paused = pcm->xrun = 0;
    armTimer(pcm, now);
    pthread_mutex_unlock(&pcm->mutex);
    return 0;
}

static snd_pcm_sframes_t playbackPointer(snd_pcm_ioplug_t *io)
{
    VPcm *pcm = io->private_data;
    pthread_mutex_lock(&pcm->mutex);
    struct timespec now = monotonicNow();
    syncWritten(pcm);
    advance(pcm, now, 1);
    armTimer(pcm, now); /* an underrun, or a rewind, moves the next ready instant */
    snd_pcm_sframes_t result = pcm->xrun ? -EPIPE
                             : (snd_pcm_sframes_t)(pcm->boundary ? pcm->played % pcm->boundary : pcm->played);
    pthread_mutex_unlock(&pcm->mutex);
    return result;
}

/* Copies the program's frames into the ring, where the clock will play them. */
static snd_pcm_sframes_t playbackTransfer(snd_pcm_ioplug_t *io, const snd_pcm_channel_area_t *areas,
                                          snd_pcm_uframes_t offset, snd_pcm_uframes_t size)
{
    VPcm *pcm = io->private_data;
    pthread_mutex_lock(&pcm->mutex);
    struct timespec now = monotonicNow();
    syncWritten(pcm);
    advance(pcm, now, 1);
    if (pcm->xrun) {
        /* The frames ran out before these came: too late, as on hardware. */
        snd_pcm_ioplug_set_state(io, SND_PCM_STATE_XRUN);
        armTimer(pcm, now);
        pthread_mutex_unlock(&pcm->mutex);
        return -EPIPE;
    }
    if (pcm->ringFrames != io->buffer_size) {
        unsigned char *ring = realloc(pcm->ring, (size_t)io->buffer_size * BYTES_PER_FRAME);
        if (!ring) {
            pthread_mutex_unlock(&pcm->mutex);
            return -ENOMEM;
        }
        pcm->ring = ring;
        pcm->ringFrames = io->buffer_size;
    }
    /* A clock that waited at the last written frame (never-stop mode) goes on from now. */
    if (pcm->running && !pcm->paused && clockFrames(pcm, now) >= pcm->written) {
        pcm->anchorTime = now;
        pcm->anchorFrames = pcm->written;
    }
    snd_pcm_channel_area_t ringAreas[2];
    for (unsigned int c = 0; c < 2; c++)
        ringAreas[c] = (snd_pcm_channel_area_t){.addr = pcm->ring, .first = c * 16, .step = BYTES_PER_FRAME * 8};
    snd_pcm_uframes_t done = 0;
    while (done < size) {
        snd_pcm_uframes_t at = (snd_pcm_uframes_t)((pcm->written + done) % pcm->ringFrames);
        snd_pcm_uframes_t count = size - done;
        if (count > pcm->ringFrames - at) count = pcm->ringFrames - at;
        snd_pcm_areas_copy(ringAreas, at, areas, offset + done, 2, count, SND_PCM_FORMAT_S16_LE);
        done += count;
    }
    pcm->written += size;
    armTimer(pcm, now);
    pthread_mutex_unlock(&pcm->mutex);
    return (snd_pcm_sframes_t)size;
}

static int playbackPause(snd_pcm_ioplug_t *io, int enable)
{
    VPcm *pcm = io->private_data;
    pthread_mutex_lock(&pcm->mutex);
    struct timespec now = monotonicNow();
    if (enable) {
        advance(pcm, now, 1);
        pcm->paused = 1;
    } else if (pcm->paused) {
        pcm->paused = 0;
        pcm->anchorTime = now;
        pcm->anchorFrames = pcm->played;
    }
    armTimer(pcm, now);
    pthread_mutex_unlock(&pcm->mutex);
    return 0;
}

static int playbackSwParams(snd_pcm_ioplug_t *io, snd_pcm_sw_params_t *params)
{
    VPcm *pcm = io->private_data;
    snd_pcm_uframes_t availMin = 1, stop = io->buffer_size, boundary = 0;
    snd_pcm_sw_params_get_avail_min(params, &availMin);
    snd_pcm_sw_params_get_stop_threshold(params, &stop);
    snd_pcm_sw_params_get_boundary(params, &boundary);
    pthread_mutex_lock(&pcm->mutex);
    pcm->availMin = availMin ? availMin : 1;
    pcm->stopThreshold = stop;
    pcm->boundary = boundary;
    armTimer(pcm, monotonicNow());
    pthread_mutex_unlock(&pcm->mutex);
    return 0;
}

/* The timer says "look now"; whether the stream is ready is the clock's to say. */
static int playbackPollRevents(snd_pcm_ioplug_t *io, struct pollfd *pfd, unsigned int nfds, unsigned short *revents)
{
    VPcm *pcm = io->private_data;
    if (nfds >= 1 && (pfd[0].revents & (POLLERR | POLLNVAL))) {
        *revents = pfd[0].revents & (POLLERR | POLLNVAL);
        return 0;
    }
    pthread_mutex_lock(&pcm->mutex);
    int ready = armTimer(pcm, monotonicNow());
    pthread_mutex_unlock(&pcm->mutex);
    *revents = ready ? POLLOUT : 0;
    return 0;
}

static int playbackPollCount(snd_pcm_ioplug_t *io)
{
    (void)io;
    return 1;
}

/* Whoever asks for the descriptor is about to poll it: from now on it tells the truth. */
static int playbackPollDescriptors(snd_pcm_ioplug_t *io, struct pollfd *pfd, unsigned int space)
{
    VPcm *pcm = io->private_data;
    if (space < 1) return 0;
    pthread_mutex_lock(&pcm->mutex);
    pcm->watched = 1;
    armTimer(pcm, monotonicNow());
    pthread_mutex_unlock(&pcm->mutex);
    pfd[0] = (struct pollfd){.fd = pcm->pollFD, .events = POLLIN};
    return 1;
}

/* Frees what an open made before the PCM existed (closing its lock releases the flock). */
static void discard(VPcm *pcm)
{
    if (pcm->pollFD >= 0) close(pcm->pollFD);
    if (pcm->lockFD >= 0) close(pcm->lockFD);
    if (pcm->stateFD >= 0) close(pcm->stateFD);
    free(pcm->recordPath);
    free(pcm->ratePath);
    free(pcm->startedPath);
    free(pcm->originPath);
    free(pcm->startsPath);
    free(pcm);
}

/* Closes a PCM: what it added while open, then what the open made. */
static int closePcm(snd_pcm_ioplug_t *io)
{
    VPcm *pcm = io->private_data;
    if (pcm->recordFD >= 0) close(pcm->recordFD);
    pthread_mutex_destroy(&pcm->mutex);
    free(pcm->ring);
    discard(pcm);
    return 0;
}

/* ---- capture: what the card hears, at the clock's pace ------------------------------ */

/* The capture clock's next ready instant: avail_min frames to read. Not running: at once
 * (a read then starts the stream). Returns readiness. */
static int armCaptureTimer(VPcm *pcm, struct timespec now)
{
    int ready = 1;
    struct itimerspec spec = {{0, 0}, {0, 1}};
    if (pcm->running) {
        uint64_t target = pcm->read + pcm->availMin;
        if (clockFrames(pcm, now) < target) {
            spec.it_value = clockTime(pcm, target);
            ready = 0;
        }
    }
    timerfd_settime(pcm->pollFD, TFD_TIMER_ABSTIME, &spec, NULL);
    return ready;
}

static int captureStart(snd_pcm_ioplug_t *io)
{
    VPcm *pcm = io->private_data;
    pthread_mutex_lock(&pcm->mutex);
    struct timespec now = monotonicNow();
    pcm->anchorTime = now;
    pcm->anchorFrames = pcm->read;
    pcm->running = 1;
    /* When this start's first frame was heard (CLOCK_MONOTONIC, ns): with the playback's
       origin it tells where an echo lands. */
    int startedFD = open(pcm->startedPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK, 0644);
    if (startedFD >= 0) {
        char text[32];
        int length = snprintf(text, sizeof text, "%lld\n", (long long)now.tv_sec * 1000000000LL + (long long)now.tv_nsec);
        writeAll(startedFD, (const unsigned char *)text, (size_t)length);
        close(startedFD);
    }
    armCaptureTimer(pcm, now);
    pthread_mutex_unlock(&pcm->mutex);
    return 0;
}

static int captureStop(snd_pcm_ioplug_t *io)
{
    VPcm *pcm = io->private_data;
    pthread_mutex_lock(&pcm->mutex);
    pcm->running = 0;
    armCaptureTimer(pcm, monotonicNow());
    pthread_mutex_unlock(&pcm->mutex);
    return 0;
}

static int capturePrepare(snd_pcm_ioplug_t *io)
{
    VPcm *pcm = io->private_data;
    pthread_mutex_lock(&pcm->mutex);
    pcm->read = 0; /* ioplug has just reset its pointers */
    pcm->running = 0;
    armCaptureTimer(pcm, monotonicNow());
    pthread_mutex_unlock(&pcm->mutex);
    return 0;
}

/* ioplug moves its application pointer on its own in snd_pcm_forward and snd_pcm_rewind:
 * frames skipped unread were heard all the same, so the next read hears what comes after
 * them. */
static void syncRead(VPcm *pcm)
{
    uint64_t boundary = pcm->boundary;
    if (boundary == 0) return;
    uint64_t at = pcm->read % boundary, appl = (uint64_t)pcm->io.appl_ptr;
    uint64_t ahead = (appl + boundary - at) % boundary, behind = (at + boundary - appl) % boundary;
    if (ahead <= pcm->io.buffer_size) pcm->read += ahead;
    else if (behind <= pcm->io.buffer_size && behind <= pcm->read) pcm->read -= behind;
}

/* What the clock has captured, never more than a buffer ahead of the reader (the card
 * waits for a late reader instead of overrunning). */
static snd_pcm_sframes_t capturePointer(snd_pcm_ioplug_t *io)
{
    VPcm *pcm = io->private_data;
    pthread_mutex_lock(&pcm->mutex);
    syncRead(pcm);
    uint64_t captured = pcm->read;
    if (pcm->running) {
        captured = clockFrames(pcm, monotonicNow());
        if (captured > pcm->read + io->buffer_size) captured = pcm->read + io->buffer_size;
    }
    pthread_mutex_unlock(&pcm->mutex);
    return (snd_pcm_sframes_t)(pcm->boundary ? captured % pcm->boundary : captured);
}

/* The playback's latest start: CLOCK_MONOTONIC ns, the frame of the recording it begins
 * at, and its rate. 0 when unknown. */
static int playbackOrigin(const VPcm *pcm, long long *startNs, uint64_t *offset, unsigned *rate)
{
    int fd = open(pcm->originPath, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return 0;
    char text[96];
    ssize_t got = read(fd, text, sizeof text - 1);
    close(fd);
    if (got <= 0) return 0;
    text[got] = 0;
    unsigned long long frames;
    if (sscanf(text, "%lld %llu %u", startNs, &frames, rate) != 3) return 0;
    *offset = frames;
    return 1;
}

/* The card's files are opened without blocking: a FIFO put in one's place must not
 * stop the card (its reads and writes then just fail). */

/* The playback's starts, oldest first, the last `most` of them: CLOCK_MONOTONIC ns and the
 * frame of the recording each begins at. Returns how many (0 when unknown). */
static int playbackStarts(const VPcm *pcm, long long *startNs, uint64_t *first, int most)
{
    int fd = open(pcm->startsPath, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return 0;
    /* Lines are under 48 bytes: the file's last 4 KiB hold the last 64 and more. */
    char text[4096 + 1];
    struct stat info;
    off_t from = fstat(fd, &info) == 0 && info.st_size > 4096 ? info.st_size - 4096 : 0;
    ssize_t got = pread(fd, text, 4096, from);
    close(fd);
    if (got <= 0) return 0;
    text[got] = 0;
    char *line = text;
    if (from > 0) {
        /* The first line may be cut: from the next. */
        line = strchr(text, '\n');
        if (!line) return 0;
        line++;
    }
    int count = 0;
    while (*line) {
        long long ns;
        unsigned long long frame;
        /* A line that no start of this card could write is left out: the sums below
           stay within their types. */
        if (sscanf(line, "%lld %llu", &ns, &frame) == 2 && ns >= 0 && frame < (1ULL << 48)) {
            if (count == most) {
                memmove(startNs, startNs + 1, (size_t)(most - 1) * sizeof *startNs);
                memmove(first, first + 1, (size_t)(most - 1) * sizeof *first);
                count--;
            }
            startNs[count] = ns;
            first[count] = frame;
            count++;
        }
        char *next = strchr(line, '\n');
        if (!next) break;
        line = next + 1;
    }
    return count;
}

/* Frames [n, n + count) of the capture: the state's tone plus the echo of what the
 * playback played echoDelayMs before each frame's instant, as 16-bit stereo. */
static void hear(VPcm *pcm, int16_t *out, uint64_t n, snd_pcm_uframes_t count)
{
    VCardState state;
    if (vcardReadState(pcm->stateFD, &state) < 0) state = (VCardState){0};
    unsigned rate = pcm->io.rate;
    double amplitude = state.captureToneLevel / 1000.0 * 32767.0;
    for (snd_pcm_uframes_t i = 0; i < count; i++) {
        double v = 0;
        if (state.captureToneHz && amplitude > 0) {
            /* The phase from the frame's number, so that reads of any size join up. */
            uint64_t frame = n + i;
            double cycles = (double)((frame * state.captureToneHz) % rate) / rate;
            v = amplitude * sin(2 * M_PI * cycles);
        }
        out[2 * i] = out[2 * i + 1] = (int16_t)lround(v);
    }
    long long startNs;
    uint64_t offset;
    unsigned playedRate;
    if (!state.echoGainLevel || !playbackOrigin(pcm, &startNs, &offset, &playedRate) || playedRate != rate) return;
    /* Every start of the playback ("start-ns first-frame" per line, the latest last): an
       echo heard just after a start may still be of what the start before played, and
       between the two the speaker was silent. */
    enum { MOST_STARTS = 64 };
    long long starts[MOST_STARTS];
    uint64_t firsts[MOST_STARTS];
    int startCount = playbackStarts(pcm, starts, firsts, MOST_STARTS);
    if (startCount == 0 || starts[startCount - 1] != startNs) {
        /* Not listed (yet): the latest start alone. */
        startCount = 1;
        starts[0] = startNs;
        firsts[0] = offset;
    }
    /* Frame n was heard at anchorTime + (n - anchorFrames) / rate and echoes what was
       played echoDelayMs before: in the latest start s begun by then, the recording's
       frame firsts[s] + floor((anchorTime - delay - starts[s]) x rate) + (n - anchorFrames)
       (one frame on per frame, whatever the reads' sizes), unless that start had run
       dry by then: its frames end where the next start's begin. */
    long long anchorNs = (long long)pcm->anchorTime.tv_sec * 1000000000LL + pcm->anchorTime.tv_nsec;
    long long bases[MOST_STARTS];
    for (int k = 0; k < startCount; k++) {
        /* 128 bits: nanoseconds times a rate overflow 64 after about a day. */
        __int128 scaled = (__int128)(anchorNs - (long long)state.echoDelayMs * 1000000LL - starts[k]) * rate;
        bases[k] = (long long)(scaled >= 0 ? scaled / (__int128)NS_PER_SECOND
                                           : -((-scaled + (__int128)NS_PER_SECOND - 1) / (__int128)NS_PER_SECOND));
    }
    int fd = open(pcm->recordPath, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return;
    double gain = state.echoGainLevel / 1000.0;
    int16_t played[2 * 512];
    for (snd_pcm_uframes_t i = 0; i < count;) {
        /* A run of frames that echo consecutive frames of one start (or silence). */
        long long at = (long long)(n - pcm->anchorFrames) + (long long)i;
        int s = startCount - 1;
        while (s > 0 && bases[s] + at < 0) s--;
        long long within = bases[s] + at;
        snd_pcm_uframes_t run = count - i > 512 ? 512 : count - i;
        long long first = -1; /* the recording's frame, or -1: silence */
        if (within < 0) {
            /* Before the first start known: nothing was played. */
            if ((long long)run > -within) run = (snd_pcm_uframes_t)-within;
        } else if (s + 1 < startCount && within >= (long long)(firsts[s + 1] - firsts[s])) {
            /* After this start ran dry, before the next began: silence until the next. */
            long long untilNext = -(bases[s + 1] + at);
            if ((long long)run > untilNext) run = (snd_pcm_uframes_t)untilNext;
        } else {
            first = (long long)firsts[s] + within;
            if (s + 1 < startCount) {
                long long left = (long long)(firsts[s + 1] - firsts[s]) - within;
                if ((long long)run > left) run = (snd_pcm_uframes_t)left;
            }
        }
        if (first >= 0) {
            memset(played, 0, run * BYTES_PER_FRAME);
            ssize_t got = pread(fd, played, (size_t)run * BYTES_PER_FRAME, (off_t)((uint64_t)first * BYTES_PER_FRAME));
            (void)got; /* past the end: not played yet, silence */
            for (snd_pcm_uframes_t j = 0; j < run; j++)
                for (int c = 0; c < 2; c++) {
                    long v = out[2 * (i + j) + c] + lround(gain * played[2 * j + c]);
                    out[2 * (i + j) + c] = (int16_t)(v > 32767 ? 32767 : v < -32768 ? -32768 : v);
                }
        }
        i += run;
    }
    close(fd);
}

static snd_pcm_sframes_t captureTransfer(snd_pcm_ioplug_t *io, const snd_pcm_channel_area_t *areas,
                                         snd_pcm_uframes_t offset, snd_pcm_uframes_t size)
{
    VPcm *pcm = io->private_data;
    int16_t block[2 * 1024];
    pthread_mutex_lock(&pcm->mutex);
    syncRead(pcm);
    snd_pcm_channel_area_t blockAreas[2];
    for (unsigned int c = 0; c < 2; c++)
        blockAreas[c] = (snd_pcm_channel_area_t){.addr = block, .first = c * 16, .step = BYTES_PER_FRAME * 8};
    for (snd_pcm_uframes_t done = 0; done < size;) {
        snd_pcm_uframes_t count = size - done > 1024 ? 1024 : size - done;
        hear(pcm, block, pcm->read + done, count);
        snd_pcm_areas_copy(areas, offset + done, blockAreas, 0, 2, count, SND_PCM_FORMAT_S16_LE);
        done += count;
    }
    pcm->read += size;
    armCaptureTimer(pcm, monotonicNow());
    pthread_mutex_unlock(&pcm->mutex);
    return (snd_pcm_sframes_t)size;
}

static int captureSwParams(snd_pcm_ioplug_t *io, snd_pcm_sw_params_t *params)
{
    VPcm *pcm = io->private_data;
    snd_pcm_uframes_t availMin = 1, boundary = 0;
    snd_pcm_sw_params_get_avail_min(params, &availMin);
    snd_pcm_sw_params_get_boundary(params, &boundary);
    pthread_mutex_lock(&pcm->mutex);
    pcm->availMin = availMin ? availMin : 1;
    pcm->boundary = boundary;
    armCaptureTimer(pcm, monotonicNow());
    pthread_mutex_unlock(&pcm->mutex);
    return 0;
}

/* The timer says "look now"; whether frames are there is the clock's to say. */
static int capturePollRevents(snd_pcm_ioplug_t *io, struct pollfd *pfd, unsigned int nfds, unsigned short *revents)
{
    VPcm *pcm = io->private_data;
    if (nfds >= 1 && (pfd[0].revents & (POLLERR | POLLNVAL))) {
        *revents = pfd[0].revents & (POLLERR | POLLNVAL);
        return 0;
    }
    pthread_mutex_lock(&pcm->mutex);
    int ready = armCaptureTimer(pcm, monotonicNow());
    pthread_mutex_unlock(&pcm->mutex);
    *revents = ready ? POLLIN : 0;
    return 0;
}

static const snd_pcm_ioplug_callback_t captureCallbacks = {
    .start = captureStart,
    .stop = captureStop,
    .pointer = capturePointer,
    .transfer = captureTransfer,
    .close = closePcm,
    .prepare = capturePrepare,
    .sw_params = captureSwParams,
    .poll_revents = capturePollRevents,
};

static const snd_pcm_ioplug_callback_t playbackCallbacks = {
    .start = playbackStart,
    .stop = playbackStop,
    .pointer = playbackPointer,
    .transfer = playbackTransfer,
    .close = closePcm,
    .prepare = playbackPrepare,
    .pause = playbackPause,
    .sw_params = playbackSwParams,
    .poll_descriptors_count = playbackPollCount,
    .poll_descriptors = playbackPollDescriptors,
    .poll_revents = playbackPollRevents,
};

/* ---- opening -------------------------------------------------------------------------- */

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
    int err;
    if ((err = snd_pcm_ioplug_set_param_list(io, SND_PCM_IOPLUG_HW_ACCESS, 1, accesses)) < 0 ||
        (err = snd_pcm_ioplug_set_param_list(io, SND_PCM_IOPLUG_HW_FORMAT, 1, formats)) < 0 ||
        (err = snd_pcm_ioplug_set_param_minmax(io, SND_PCM_IOPLUG_HW_CHANNELS, 2, 2)) < 0 ||
        (err = snd_pcm_ioplug_set_param_list(io, SND_PCM_IOPLUG_HW_RATE, state->rateCount, state->rates)) < 0 ||
        (err = snd_pcm_ioplug_set_param_minmax(io, SND_PCM_IOPLUG_HW_PERIOD_BYTES, state->periodMinFrames * BYTES_PER_FRAME,
                                               state->periodMaxFrames * BYTES_PER_FRAME)) < 0 ||
        (err = snd_pcm_ioplug_set_param_minmax(io, SND_PCM_IOPLUG_HW_PERIODS, 2, 4)) < 0)
        return err;
    return 0;
}

static char *pathWithSuffix(const char *path, const char *suffix)
{
    size_t length = strlen(path) + strlen(suffix) + 1;
    char *result = malloc(length);
    if (result) snprintf(result, length, "%s%s", path, suffix);
    return result;
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
    pcm->recordFD = -1;
    pcm->stateFD = -1;
    pcm->io.version = SND_PCM_IOPLUG_VERSION;
    pcm->io.name = "AudioToolbox virtual card";
    pcm->io.mmap_rw = 0;
    pcm->io.private_data = pcm;
    if (stream == SND_PCM_STREAM_PLAYBACK) {
        pcm->pollFD = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
        pcm->recordPath = pathWithSuffix(statePath, ".playback.raw");
        pcm->ratePath = pathWithSuffix(statePath, ".playback.rate");
        pcm->startedPath = pathWithSuffix(statePath, ".playback.started");
        pcm->originPath = pathWithSuffix(statePath, ".playback.origin");
        pcm->startsPath = pathWithSuffix(statePath, ".playback.starts");
        if (pcm->pollFD < 0 || !pcm->recordPath || !pcm->ratePath || !pcm->startedPath || !pcm->originPath ||
            !pcm->startsPath) {
            int err = pcm->pollFD < 0 ? -errno : -ENOMEM;
            discard(pcm);
            return err;
        }
        pthread_mutex_init(&pcm->mutex, NULL);
        pcm->availMin = 1;
        pcm->io.callback = &playbackCallbacks;
        pcm->io.poll_events = POLLIN; /* the timerfd's; poll_revents turns it into POLLOUT */
        /* The pointer runs up to the boundary: between two reads the clock may play a whole
           buffer, which a pointer within the buffer could not tell from none. */
        pcm->io.flags = SND_PCM_IOPLUG_FLAG_BOUNDARY_WA;
    } else {
        /* What it hears is read from the state and from the playback's recording. */
        pcm->pollFD = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
        pcm->stateFD = open(statePath, O_RDONLY | O_CLOEXEC);
        pcm->recordPath = pathWithSuffix(statePath, ".playback.raw");
        pcm->originPath = pathWithSuffix(statePath, ".playback.origin");
        pcm->startsPath = pathWithSuffix(statePath, ".playback.starts");
        pcm->startedPath = pathWithSuffix(statePath, ".capture.started");
        if (pcm->pollFD < 0 || pcm->stateFD < 0 || !pcm->recordPath || !pcm->originPath || !pcm->startsPath ||
            !pcm->startedPath) {
            int err = pcm->pollFD < 0 || pcm->stateFD < 0 ? -errno : -ENOMEM;
            discard(pcm);
            return err;
        }
        pthread_mutex_init(&pcm->mutex, NULL);
        pcm->availMin = 1;
        pcm->io.callback = &captureCallbacks;
        pcm->io.poll_events = POLLIN;
        pcm->io.flags = SND_PCM_IOPLUG_FLAG_BOUNDARY_WA;
    }
    pcm->io.poll_fd = pcm->pollFD;
    int err = snd_pcm_ioplug_create(&pcm->io, name, stream, mode);
    if (err < 0) {
        pthread_mutex_destroy(&pcm->mutex);
        discard(pcm);
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
