/* See CSoundServer.h. Nodes are bound to receive their state; clients to learn the
 * process behind a node (node props name the client, client props the pid).
 *
 * Whose stream it is: the process at the other end of the client's socket
 * (pipewire.sec.pid, which the server sets and nobody can forge) — unless that process
 * is the sound server's own relay (pipewire-pulse, serving programs that use libpulse,
 * SDL...), whose streams belong to the programs it serves: then the process the stream
 * names (application.process.id of the node, else of the client), believed only if it
 * is a process of this user. */
#include <pipewire/pipewire.h>
#include <spa/param/props.h>
#include <spa/pod/builder.h>
#include <spa/pod/parser.h>
#include <spa/utils/result.h>
#include <pipewire/extensions/metadata.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "CSoundServer.h"

enum { MAX_STREAMS = 256, MAX_CLIENTS = 256 };

typedef struct {
    struct SoundServerWatch *watch;
    struct pw_proxy *proxy;
    struct spa_hook listener;
    SoundServerStream stream;
    uint32_t client;
    int32_t claimedPid; /* application.process.id of the node, 0 if none */
    int used;
} Node;

typedef struct {
    uint32_t id;
    int32_t pid;        /* pipewire.sec.pid (else application.process.id) */
    int32_t claimedPid; /* application.process.id */
    int relay;          /* pid is the sound server's relay */
    int used;
} Client;

/* An audio sink: its name (the default is named in the "default" metadata) and volume. */
typedef struct {
    struct SoundServerWatch *watch;
    struct pw_proxy *proxy;
    struct spa_hook listener;
    uint32_t id;
    char name[128];
    float volume;      /* the largest channel volume, linear; -1 unknown */
    int used;
} Sink;

enum { MAX_SINKS = 32 };

struct SoundServerWatch {
    struct pw_thread_loop *loop;
    struct pw_context *context;
    struct pw_core *core;
    struct pw_registry *registry;
    struct spa_hook coreListener, registryListener;
    Node nodes[MAX_STREAMS];
    Client clients[MAX_CLIENTS];
    Sink sinks[MAX_SINKS];
    struct pw_proxy *metadata;
    uint32_t metadataId;
    /* A second "default" metadata that appeared while one was bound: a restarted policy
     * manager's, whose predecessor's removal may come after it. */
    uint32_t spareMetadataId;
    int haveSpareMetadata;
    struct spa_hook metadataListener;
    char defaultSink[128];
    int connected;
    int syncSeq, synced;
    void (*changed)(void *);
    void *changedContext;
};

/* Whether `pid` is the sound server relaying other programs' streams. */
static int isRelay(int32_t pid)
{
    if (pid <= 0) return 0;
    char path[64], name[64] = {0};
    snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
    FILE *file = fopen(path, "re");
    if (!file) return 0;
    int read = fgets(name, sizeof name, file) != NULL;
    fclose(file);
    if (!read) return 0;
    name[strcspn(name, "\n")] = 0;
    return strcmp(name, "pipewire-pulse") == 0 || strcmp(name, "pipewire") == 0;
}

/* A pid a stream claims, if it is a live process of this user; else 0. */
static int32_t plausible(int32_t pid)
{
    if (pid <= 0) return 0;
    char path[64];
    struct stat info;
    snprintf(path, sizeof path, "/proc/%d", (int)pid);
    return stat(path, &info) == 0 && info.st_uid == getuid() ? pid : 0;
}

static Client *clientOf(struct SoundServerWatch *w, uint32_t id)
{
    for (int i = 0; i < MAX_CLIENTS; i++)
        if (w->clients[i].used && w->clients[i].id == id) return &w->clients[i];
    return NULL;
}

/* The process whose stream the node is (see the top of this file); 0 while unknown. */
static int32_t ownerOf(struct SoundServerWatch *w, const Node *node)
{
    const Client *client = clientOf(w, node->client);
    if (!client) return plausible(node->claimedPid);
    if (!client->relay) return client->pid;
    int32_t claimed = plausible(node->claimedPid);
    return claimed ? claimed : plausible(client->claimedPid);
}

static void refreshPids(struct SoundServerWatch *w)
{
    for (int i = 0; i < MAX_STREAMS; i++)
        if (w->nodes[i].used) w->nodes[i].stream.pid = ownerOf(w, &w->nodes[i]);
}

static void copy(char *to, size_t size, const char *from)
{
    if (!from) from = "";
    strncpy(to, from, size - 1);
    to[size - 1] = 0;
}

static void nodeInfo(void *data, const struct pw_node_info *info)
{
    Node *node = data;
    int running = info->state == PW_NODE_STATE_RUNNING;
    const char *role = info->props ? spa_dict_lookup(info->props, PW_KEY_MEDIA_ROLE) : NULL;
    const char *pid = info->props ? spa_dict_lookup(info->props, PW_KEY_APP_PROCESS_ID) : NULL;
    int changed = running != node->stream.running;
    node->stream.running = running;
    if (role) copy(node->stream.role, sizeof node->stream.role, role);
    if (pid && node->claimedPid == 0) {
        node->claimedPid = atoi(pid);
        int32_t owner = ownerOf(node->watch, node);
        changed |= owner != node->stream.pid;
        node->stream.pid = owner;
    }
    if (changed && node->watch->changed) node->watch->changed(node->watch->changedContext);
}

/* The node's Props: its channel volumes and mute (the user's, which the desktop's mixer
 * shows and the policy manager saves) and its soft volumes and mute (ours: the policy
 * lowers and mutes through them). A report whose channel volumes or mute differ from the
 * last one is a touch: someone set them, and the node then plays at them again. */
static void nodeParam(void *data, int seq, uint32_t id, uint32_t index, uint32_t next, const struct spa_pod *param)
{
    (void)seq; (void)index; (void)next;
    Node *node = data;
    if (id != SPA_PARAM_Props || !param || !spa_pod_is_object(param)) return;
    const struct spa_pod_prop *prop;
    SoundServerStream *s = &node->stream;
    int changed = 0, touched = 0;
    SPA_POD_OBJECT_FOREACH((const struct spa_pod_object *)param, prop) {
        float values[8];
        bool mute = false;
        switch (prop->key) {
        case SPA_PROP_channelVolumes: {
            uint32_t count = spa_pod_copy_array(&prop->value, SPA_TYPE_Float, values, 8);
            if (count == 0) break;
            if (s->channels > 0 && ((int)count != s->channels || memcmp(values, s->volumes, count * sizeof(float)) != 0))
                touched = 1;
            s->channels = (int)count;
            memcpy(s->volumes, values, count * sizeof(float));
            changed = 1;
            break;
        }
        case SPA_PROP_mute:
            if (spa_pod_get_bool(&prop->value, &mute) != 0) break;
            if (s->channels > 0 && (int)mute != s->mute) touched = 1;
            s->mute = mute;
            changed = 1;
            break;
        case SPA_PROP_softVolumes: {
            uint32_t count = spa_pod_copy_array(&prop->value, SPA_TYPE_Float, values, 8);
            if (count == 0) break;
            s->softChannels = (int)count;
            memcpy(s->softVolumes, values, count * sizeof(float));
            changed = 1;
            break;
        }
        case SPA_PROP_softMute:
            if (spa_pod_get_bool(&prop->value, &mute) != 0) break;
            s->softMute = mute;
            changed = 1;
            break;
        default:
            break;
        }
    }
    if (touched) s->touches++;
    if (changed) s->reports++;
    if (changed && node->watch->changed) node->watch->changed(node->watch->changedContext);
}

static const struct pw_node_events nodeEvents = {PW_VERSION_NODE_EVENTS, .info = nodeInfo, .param = nodeParam};

static void sinkParam(void *data, int seq, uint32_t id, uint32_t index, uint32_t next, const struct spa_pod *param)
{
    (void)seq; (void)index; (void)next;
    Sink *sink = data;
    if (id != SPA_PARAM_Props || !param || !spa_pod_is_object(param)) return;
    const struct spa_pod_prop *prop;
    SPA_POD_OBJECT_FOREACH((const struct spa_pod_object *)param, prop) {
        if (prop->key != SPA_PROP_channelVolumes) continue;
        float values[8];
        uint32_t count = spa_pod_copy_array(&prop->value, SPA_TYPE_Float, values, 8);
        if (count == 0) continue;
        float largest = 0;
        for (uint32_t i = 0; i < count; i++) if (values[i] > largest) largest = values[i];
        if (largest != sink->volume) {
            sink->volume = largest;
            if (sink->watch->changed) sink->watch->changed(sink->watch->changedContext);
        }
    }
}

static const struct pw_node_events sinkEvents = {PW_VERSION_NODE_EVENTS, .param = sinkParam};

/* The "default" metadata names the default sink: {"name":"..."}. */
static int metadataProperty(void *data, uint32_t subject, const char *key, const char *type, const char *value)
{
    (void)subject; (void)type;
    struct SoundServerWatch *w = data;
    if (!key || strcmp(key, "default.audio.sink") != 0) return 0;
    w->defaultSink[0] = 0;
    const char *name = value ? strstr(value, "\"name\"") : NULL;
    if (name && (name = strchr(name + 6, '"'))) {
        name++;
        const char *end = strchr(name, '"');
        if (end && (size_t)(end - name) < sizeof w->defaultSink) {
            memcpy(w->defaultSink, name, (size_t)(end - name));
            w->defaultSink[end - name] = 0;
        }
    }
    if (w->changed) w->changed(w->changedContext);
    return 0;
}

static const struct pw_metadata_events metadataEvents = {PW_VERSION_METADATA_EVENTS, .property = metadataProperty};

static void bindDefaultMetadata(struct SoundServerWatch *w, uint32_t id)
{
    w->metadata = pw_registry_bind(w->registry, id, PW_TYPE_INTERFACE_Metadata, PW_VERSION_METADATA, 0);
    w->metadataId = id;
    if (w->metadata) pw_metadata_add_listener((struct pw_metadata *)w->metadata, &w->metadataListener,
                                              &metadataEvents, w);
}

static void registryGlobal(void *data, uint32_t id, uint32_t permissions, const char *type, uint32_t version,
                           const struct spa_dict *props)
{
    (void)permissions; (void)version;
    struct SoundServerWatch *w = data;
    if (strcmp(type, PW_TYPE_INTERFACE_Client) == 0) {
        const char *pid = props ? spa_dict_lookup(props, PW_KEY_SEC_PID) : NULL;
        const char *claimed = props ? spa_dict_lookup(props, PW_KEY_APP_PROCESS_ID) : NULL;
        if (!pid) pid = claimed;
        for (int i = 0; i < MAX_CLIENTS; i++) {
            if (w->clients[i].used) continue;
            int32_t secPid = pid ? atoi(pid) : 0;
            w->clients[i] = (Client){.id = id, .pid = secPid, .claimedPid = claimed ? atoi(claimed) : 0,
                                     .relay = isRelay(secPid), .used = 1};
            break;
        }
        refreshPids(w);
        return;
    }
    if (strcmp(type, PW_TYPE_INTERFACE_Metadata) == 0 && props) {
        const char *name = spa_dict_lookup(props, PW_KEY_METADATA_NAME);
        if (!name || strcmp(name, "default") != 0) return;
        if (w->metadata) {
            w->spareMetadataId = id;
            w->haveSpareMetadata = 1;
        } else {
            bindDefaultMetadata(w, id);
        }
        return;
    }
    if (strcmp(type, PW_TYPE_INTERFACE_Node) != 0 || !props) return;
    const char *class = spa_dict_lookup(props, PW_KEY_MEDIA_CLASS);
    if (class && strcmp(class, "Audio/Sink") == 0) {
        for (int i = 0; i < MAX_SINKS; i++) {
            Sink *sink = &w->sinks[i];
            if (sink->used) continue;
            memset(sink, 0, sizeof *sink);
            sink->used = 1;
            sink->watch = w;
            sink->id = id;
            sink->volume = -1;
            copy(sink->name, sizeof sink->name, spa_dict_lookup(props, PW_KEY_NODE_NAME));
            sink->proxy = pw_registry_bind(w->registry, id, PW_TYPE_INTERFACE_Node, PW_VERSION_NODE, 0);
            if (sink->proxy) {
                pw_proxy_add_object_listener(sink->proxy, &sink->listener, &sinkEvents, sink);
                uint32_t ids[] = {SPA_PARAM_Props};
                pw_node_subscribe_params((struct pw_node *)sink->proxy, ids, 1);
            }
            break;
        }
        return;
    }
    if (!class || strcmp(class, "Stream/Output/Audio") != 0) return;
    for (int i = 0; i < MAX_STREAMS; i++) {
        Node *node = &w->nodes[i];
        if (node->used) continue;
        memset(node, 0, sizeof *node);
        node->used = 1;
        node->watch = w;
        node->stream.node = id;
        const char *client = spa_dict_lookup(props, PW_KEY_CLIENT_ID);
        node->client = client ? (uint32_t)atoi(client) : 0;
        const char *claimed = spa_dict_lookup(props, PW_KEY_APP_PROCESS_ID);
        node->claimedPid = claimed ? atoi(claimed) : 0;
        node->stream.pid = ownerOf(w, node);
        copy(node->stream.application, sizeof node->stream.application, spa_dict_lookup(props, PW_KEY_APP_NAME));
        copy(node->stream.role, sizeof node->stream.role, spa_dict_lookup(props, PW_KEY_MEDIA_ROLE));
        node->proxy = pw_registry_bind(w->registry, id, PW_TYPE_INTERFACE_Node, PW_VERSION_NODE, 0);
        if (node->proxy) {
            pw_proxy_add_object_listener(node->proxy, &node->listener, &nodeEvents, node);
            uint32_t ids[] = {SPA_PARAM_Props};
            pw_node_subscribe_params((struct pw_node *)node->proxy, ids, 1);
        }
        break;
    }
    if (w->changed) w->changed(w->changedContext);
}

static void registryGlobalRemove(void *data, uint32_t id)
{
    struct SoundServerWatch *w = data;
    /* The policy manager restarted (or went away): its "default" metadata goes with it.
     * The next one is bound: the one that already came, or the next to come; until it
     * names the default sink, the sink is unknown. */
    if (w->haveSpareMetadata && w->spareMetadataId == id) w->haveSpareMetadata = 0;
    if (w->metadata && w->metadataId == id) {
        spa_hook_remove(&w->metadataListener);
        pw_proxy_destroy(w->metadata);
        w->metadata = NULL;
        w->defaultSink[0] = 0;
        if (w->haveSpareMetadata) {
            w->haveSpareMetadata = 0;
            bindDefaultMetadata(w, w->spareMetadataId);
        }
        if (w->changed) w->changed(w->changedContext);
    }
    for (int i = 0; i < MAX_SINKS; i++) {
        Sink *sink = &w->sinks[i];
        if (!sink->used || sink->id != id) continue;
        /* The hook was only added when binding worked. */
        if (sink->proxy) {
            spa_hook_remove(&sink->listener);
            pw_proxy_destroy(sink->proxy);
        }
        sink->used = 0;
        if (w->changed) w->changed(w->changedContext);
    }
    for (int i = 0; i < MAX_CLIENTS; i++)
        if (w->clients[i].used && w->clients[i].id == id) w->clients[i].used = 0;
    for (int i = 0; i < MAX_STREAMS; i++) {
        Node *node = &w->nodes[i];
        if (!node->used || node->stream.node != id) continue;
        if (node->proxy) {
            spa_hook_remove(&node->listener);
            pw_proxy_destroy(node->proxy);
        }
        node->used = 0;
        if (w->changed) w->changed(w->changedContext);
    }
}

static const struct pw_registry_events registryEvents = {
    PW_VERSION_REGISTRY_EVENTS, .global = registryGlobal, .global_remove = registryGlobalRemove};

static void coreError(void *data, uint32_t id, int seq, int res, const char *message)
{
    (void)seq; (void)message;
    struct SoundServerWatch *w = data;
    if (id == PW_ID_CORE && res == -EPIPE) {
        /* The server went away: nothing plays through it any more. */
        w->connected = 0;
        for (int i = 0; i < MAX_STREAMS; i++) w->nodes[i].stream.running = 0;
        if (w->changed) w->changed(w->changedContext);
    }
}

/* The answer to our sync: every global the server had has been announced before it. */
static void coreDone(void *data, uint32_t id, int seq)
{
    struct SoundServerWatch *w = data;
    if (id == PW_ID_CORE && seq == w->syncSeq && !w->synced) {
        w->synced = 1;
        if (w->changed) w->changed(w->changedContext);
    }
}

static const struct pw_core_events coreEvents = {PW_VERSION_CORE_EVENTS, .done = coreDone, .error = coreError};

SoundServerWatch *SoundServerWatchStart(void (*changed)(void *), void *context)
{
    pw_init(NULL, NULL);
    struct SoundServerWatch *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->loop = pw_thread_loop_new("audiosessiond-pipewire", NULL);
    if (!w->loop) { free(w); return NULL; }
    w->context = pw_context_new(pw_thread_loop_get_loop(w->loop), NULL, 0);
    if (!w->context) { pw_thread_loop_destroy(w->loop); free(w); return NULL; }
    w->core = pw_context_connect(w->context, NULL, 0);
    if (!w->core) {
        pw_context_destroy(w->context);
        pw_thread_loop_destroy(w->loop);
        free(w);
        return NULL;
    }
    w->connected = 1;
    pw_core_add_listener(w->core, &w->coreListener, &coreEvents, w);
    w->registry = pw_core_get_registry(w->core, PW_VERSION_REGISTRY, 0);
    pw_registry_add_listener(w->registry, &w->registryListener, &registryEvents, w);
    w->syncSeq = pw_core_sync(w->core, PW_ID_CORE, 0);
    /* Callbacks start only once everything above is in place. */
    w->changed = changed;
    w->changedContext = context;
    if (pw_thread_loop_start(w->loop) < 0) {
        SoundServerWatchStop(w);
        return NULL;
    }
    return w;
}

int SoundServerWatchStreams(SoundServerWatch *w, SoundServerStream *streams, int capacity, int *complete)
{
    pw_thread_loop_lock(w->loop);
    if (complete) *complete = w->synced;
    int count = 0;
    for (int i = 0; i < MAX_STREAMS; i++) {
        if (!w->nodes[i].used) continue;
        if (count < capacity) streams[count] = w->nodes[i].stream;
        count++;
    }
    pw_thread_loop_unlock(w->loop);
    return count;
}

int SoundServerWatchDefaultSinkVolume(SoundServerWatch *w, float *volume)
{
    pw_thread_loop_lock(w->loop);
    int known = 0;
    for (int i = 0; i < MAX_SINKS && w->defaultSink[0]; i++) {
        Sink *sink = &w->sinks[i];
        if (!sink->used || sink->volume < 0 || strcmp(sink->name, w->defaultSink) != 0) continue;
        *volume = cbrtf(sink->volume);
        known = 1;
        break;
    }
    pw_thread_loop_unlock(w->loop);
    return known;
}

int SoundServerWatchSetSoftVolume(SoundServerWatch *w, uint32_t id, const float *volumes, int channels, int mute)
{
    if (channels < 1 || channels > 8) return -EINVAL;
    pw_thread_loop_lock(w->loop);
    int result = -ENOENT;
    for (int i = 0; i < MAX_STREAMS; i++) {
        Node *node = &w->nodes[i];
        if (!node->used || node->stream.node != id || !node->proxy) continue;
        uint8_t buffer[1024];
        struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, sizeof buffer);
        struct spa_pod *props = spa_pod_builder_add_object(&b, SPA_TYPE_OBJECT_Props, SPA_PARAM_Props,
            SPA_PROP_softVolumes, SPA_POD_Array(sizeof(float), SPA_TYPE_Float, channels, volumes),
            SPA_PROP_softMute, SPA_POD_Bool(mute != 0));
        result = pw_node_set_param((struct pw_node *)node->proxy, SPA_PARAM_Props, 0, props);
        break;
    }
    pw_thread_loop_unlock(w->loop);
    return result < 0 ? result : 0;
}

int SoundServerWatchConnected(SoundServerWatch *w)
{
    pw_thread_loop_lock(w->loop);
    int connected = w->connected;
    pw_thread_loop_unlock(w->loop);
    return connected;
}

void SoundServerWatchStop(SoundServerWatch *w)
{
    if (!w) return;
    pw_thread_loop_stop(w->loop);
    for (int i = 0; i < MAX_SINKS; i++)
        if (w->sinks[i].used && w->sinks[i].proxy) {
            spa_hook_remove(&w->sinks[i].listener);
            pw_proxy_destroy(w->sinks[i].proxy);
        }
    if (w->metadata) {
        spa_hook_remove(&w->metadataListener);
        pw_proxy_destroy(w->metadata);
    }
    for (int i = 0; i < MAX_STREAMS; i++)
        if (w->nodes[i].used && w->nodes[i].proxy) {
            spa_hook_remove(&w->nodes[i].listener);
            pw_proxy_destroy(w->nodes[i].proxy);
        }
    if (w->registry) pw_proxy_destroy((struct pw_proxy *)w->registry);
    if (w->core) pw_core_disconnect(w->core);
    pw_context_destroy(w->context);
    pw_thread_loop_destroy(w->loop);
    free(w);
}
