/*
 * The configuration block both vcard plugins take:
 *     { type vcard state "/path/to/state" [jacks BOOL] }
 */
#ifndef VCARD_CONFIG_H
#define VCARD_CONFIG_H
#include <alsa/asoundlib.h>
#include <errno.h>
#include <string.h>

typedef struct {
    const char *statePath;
    int jacks; /* 1 unless `jacks false`: a mixer-only device shows no jack controls */
} VCardConfig;

/* Fills `config`; `acceptsJacks` says whether this plugin takes the `jacks` field. */
static inline int vcardReadConfig(snd_config_t *conf, int acceptsJacks, VCardConfig *config)
{
    config->statePath = NULL;
    config->jacks = 1;
    snd_config_iterator_t i, next;
    snd_config_for_each(i, next, conf) {
        snd_config_t *node = snd_config_iterator_entry(i);
        const char *key;
        if (snd_config_get_id(node, &key) < 0) continue;
        if (!strcmp(key, "comment") || !strcmp(key, "type") || !strcmp(key, "hint")) continue;
        if (!strcmp(key, "state") && snd_config_get_string(node, &config->statePath) >= 0) continue;
        if (acceptsJacks && !strcmp(key, "jacks")) {
            config->jacks = snd_config_get_bool(node);
            if (config->jacks < 0) { SNDERR("vcard: jacks must be a boolean"); return -EINVAL; }
            continue;
        }
        SNDERR("vcard: unknown field %s", key);
        return -EINVAL;
    }
    if (!config->statePath) { SNDERR("vcard: no state file"); return -EINVAL; }
    return 0;
}
#endif
