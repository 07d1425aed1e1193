/* baresip's audiounit sound driver (client side of the pattern test): a VoiceProcessingIO
 * player and recorder per call, the player's stream format set AFTER AudioUnitInitialize,
 * the recorder resampling through an AUConverter. The interface is the module's own
 * (baresip's auplay/ausrc alloc functions with its parameter and frame structures cut
 * down to what the driver uses); see baresip_audiounit.c for the source followed. */
#ifndef BARESIP_AUDIOUNIT_H
#define BARESIP_AUDIOUNIT_H
#include <stddef.h>
#include <stdint.h>
#include <AudioUnit/AudioUnit.h>

enum bau_aufmt { BAU_AUFMT_S16LE = 0, BAU_AUFMT_FLOAT = 1 };

/* baresip's struct auplay_prm / ausrc_prm */
struct bau_prm {
    uint32_t srate;
    uint8_t ch;
    uint32_t ptime;
    int fmt;
};

/* baresip's struct auframe */
struct bau_frame {
    int fmt;
    void *sampv;
    size_t sampc;
    uint32_t srate;
    uint8_t ch;
    uint64_t timestamp;
};

typedef void(bau_write_h)(struct bau_frame *af, void *arg);
typedef void(bau_read_h)(struct bau_frame *af, void *arg);

struct bau_player;
struct bau_recorder;

/* What the module would have logged (its warning()/debug() lines), for the driver. */
struct bau_log {
    int io_found, conv_found;  /* AudioComponentFindNext results of module_init */
    char io_name[64], conv_name[64];
    OSStatus last_ret;         /* the failing call's status ("player failed: %d") */
    const char *last_call;     /* which call that was */
    double player_hw_srate;    /* "player hardware sample rate is now at %f Hz" */
    double recorder_hw_srate;  /* "record hardware sample rate is now at %f Hz" */
    long route_changes;        /* the session's route listener */
    int interruptions_begin, interruptions_end;
};

int bau_module_init(void);  /* 0, ENOENT (a component is missing) or ENODEV */
void bau_module_close(void);
const struct bau_log *bau_get_log(void);

/* The player (modules/audiounit/player.c): 0 or an errno (ENODEV when a call failed). */
int bau_player_alloc(struct bau_player **stp, const struct bau_prm *prm, bau_write_h *wh, void *arg);
void bau_player_free(struct bau_player *st);
AudioUnit bau_player_unit(const struct bau_player *st);

/* The recorder as baresip ships it (with the AUConverter resampler). */
int bau_recorder_alloc(struct bau_recorder **stp, const struct bau_prm *prm, bau_read_h *rh, void *arg);
/* The recorder of baresip 0.6.0, before the AUConverter (the unit delivers directly). */
int bau_recorder_v060_alloc(struct bau_recorder **stp, const struct bau_prm *prm, bau_read_h *rh, void *arg);
void bau_recorder_free(struct bau_recorder *st);
AudioUnit bau_recorder_unit(const struct bau_recorder *st);
#endif
