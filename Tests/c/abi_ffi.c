/*
 * The ABI seen from outside the Swift compiler: dlopen the installed library, call
 * every exported function through libffi with the exact C types of our headers, and
 * register thousands of listeners built with ffi_closure_alloc.
 *
 * Usage: abi_ffi /path/to/libAudioToolbox.so.0
 * Only the headers' types and constants are used at compile time; nothing is linked
 * against the library, so a wrong calling convention or a missing symbol fails here.
 */
#define _GNU_SOURCE
#include <AudioToolbox/AudioToolbox.h>
#include <dlfcn.h>
#include <ffi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"

static void *library;

static void *symbol(const char *name)
{
    void *address = dlsym(library, name);
    CHECK(address != NULL, "symbol %s is exported", name);
    return address;
}

/* Calls `name` returning OSStatus with n arguments of the given ffi types. */
static OSStatus call(const char *name, unsigned n, ffi_type **types, void **values)
{
    void *function = symbol(name);
    if (!function) return -1;
    ffi_cif cif;
    if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, n, &ffi_type_sint32, types) != FFI_OK) {
        CHECK(0, "ffi_prep_cif for %s", name);
        return -1;
    }
    ffi_arg result = 0;
    ffi_call(&cif, FFI_FN(function), &result, values);
    return (OSStatus)(SInt32)result;
}

/* Type shorthands matching the header: Boolean is one byte, UInt32, Float32, pointers. */
#define T_PTR (&ffi_type_pointer)
#define T_U32 (&ffi_type_uint32)
#define T_BOOL (&ffi_type_uint8)
#define T_F32 (&ffi_type_float)

static OSStatus call0(const char *name) { return call(name, 0, NULL, NULL); }
static OSStatus callPtr(const char *name, void *p) { ffi_type *t[] = {T_PTR}; void *v[] = {&p}; return call(name, 1, t, v); }
static OSStatus callU32(const char *name, UInt32 a) { ffi_type *t[] = {T_U32}; void *v[] = {&a}; return call(name, 1, t, v); }
static OSStatus callBool(const char *name, UInt8 a) { ffi_type *t[] = {T_BOOL}; void *v[] = {&a}; return call(name, 1, t, v); }
static OSStatus callF32(const char *name, Float32 a) { ffi_type *t[] = {T_F32}; void *v[] = {&a}; return call(name, 1, t, v); }

static OSStatus setU32(AudioSessionPropertyID id, UInt32 value)
{
    UInt32 size = sizeof value;
    void *data = &value;
    ffi_type *t[] = {T_U32, T_U32, T_PTR};
    void *v[] = {&id, &size, &data};
    return call("AudioSessionSetProperty", 3, t, v);
}

static OSStatus getU32(AudioSessionPropertyID id, UInt32 *out)
{
    UInt32 size = sizeof *out;
    UInt32 *sizePointer = &size;
    ffi_type *t[] = {T_U32, T_PTR, T_PTR};
    void *v[] = {&id, &sizePointer, &out};
    return call("AudioSessionGetProperty", 3, t, v);
}

static OSStatus listenerCall(const char *name, AudioSessionPropertyID id, void *proc, void *clientData)
{
    ffi_type *t[] = {T_U32, T_PTR, T_PTR};
    void *v[] = {&id, &proc, &clientData};
    return call(name, 3, t, v);
}

/* ---- closures ------------------------------------------------------------------ */

enum { LISTENERS = 4000 };
typedef struct {
    ffi_closure *closure;
    void *code;
    int calls;
    AudioSessionPropertyID lastID;
    UInt32 lastSize;
    Float32 lastVolume;
} Listener;
static Listener listeners[LISTENERS];
static ffi_cif listenerCif;
static ffi_type *listenerArgs[] = {T_PTR, T_U32, T_U32, T_PTR};

/* Handler of every listener closure: args are (void *clientData, UInt32 id, UInt32 size, const void *data). */
static void listenerHandler(ffi_cif *cif, void *ret, void **args, void *userData)
{
    (void)cif; (void)ret;
    Listener *self = userData;
    void *clientData = *(void **)args[0];
    CHECK(clientData == (void *)self, "closure received its own client data");
    self->calls++;
    self->lastID = *(UInt32 *)args[1];
    self->lastSize = *(UInt32 *)args[2];
    const void *data = *(const void **)args[3];
    if (self->lastSize == sizeof(Float32)) memcpy(&self->lastVolume, data, sizeof(Float32));
}

static UInt32 interruptionStates[4];
static int interruptionCount;
static void interruptionHandler(ffi_cif *cif, void *ret, void **args, void *userData)
{
    (void)cif; (void)ret;
    CHECK(*(void **)args[0] == userData, "interruption closure received its client data");
    if (interruptionCount < 4) interruptionStates[interruptionCount++] = *(UInt32 *)args[1];
}

/* ---- audio units: every AudioComponent, AudioUnit and AudioOutputUnit function through
 * libffi, and a render callback made with ffi_closure_alloc ------------------------------- */

static int renderCalls;
static void renderHandler(ffi_cif *cif, void *ret, void **args, void *userData)
{
    (void)cif; (void)userData;
    UInt32 frames = *(UInt32 *)args[4];
    AudioBufferList *list = *(AudioBufferList **)args[5];
    Float32 *samples = list->mBuffers[0].mData;
    for (UInt32 i = 0; i < frames; i++) samples[i] = 0.25f;
    renderCalls++;
    *(ffi_arg *)ret = 0;
}

/* Calls a function returning a pointer. */
static void *callReturningPointer(const char *name, unsigned n, ffi_type **types, void **values)
{
    void *function = symbol(name);
    if (!function) return NULL;
    ffi_cif cif;
    if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, n, &ffi_type_pointer, types) != FFI_OK) return NULL;
    void *result = NULL;
    ffi_call(&cif, FFI_FN(function), &result, values);
    return result;
}

static void audioUnits(void)
{
    AudioComponentDescription want = {kAudioUnitType_Output, kAudioUnitSubType_GenericOutput,
                                      kAudioUnitManufacturer_Apple, 0, 0};
    void *none = NULL, *wantPointer = &want;
    ffi_type *findTypes[] = {T_PTR, T_PTR};
    void *findValues[] = {&none, &wantPointer};
    void *component = callReturningPointer("AudioComponentFindNext", 2, findTypes, findValues);
    CHECK(component != NULL, "AudioComponentFindNext through ffi");
    {
        ffi_cif cif;
        ffi_type *t[] = {T_PTR};
        ffi_prep_cif(&cif, FFI_DEFAULT_ABI, 1, &ffi_type_uint32, t);
        void *v[] = {&wantPointer};
        ffi_arg count = 0;
        ffi_call(&cif, FFI_FN(symbol("AudioComponentCount")), &count, v);
        CHECK((UInt32)count == 1, "AudioComponentCount through ffi (%u)", (unsigned)count);
    }
    AudioComponentDescription got;
    void *gotPointer = &got;
    ffi_type *pp[] = {T_PTR, T_PTR};
    void *descriptionValues[] = {&component, &gotPointer};
    CHECK_STATUS(call("AudioComponentGetDescription", 2, pp, descriptionValues), noErr);
    UInt32 version = 0;
    void *versionPointer = &version;
    void *versionValues[] = {&component, &versionPointer};
    CHECK_STATUS(call("AudioComponentGetVersion", 2, pp, versionValues), noErr);
    CFStringRef name = NULL;
    void *namePointer = &name;
    void *nameValues[] = {&component, &namePointer};
    CHECK_STATUS(call("AudioComponentCopyName", 2, pp, nameValues), noErr);
    /* CoreFoundation came with the library (not linked here). */
    void (*release)(const void *) = (void (*)(const void *))dlsym(RTLD_DEFAULT, "CFRelease");
    CHECK(name != NULL && release != NULL, "a component name, and CFRelease to release it");
    if (name && release) release(name);
    AudioUnit unit = NULL;
    void *unitPointer = &unit;
    void *newValues[] = {&component, &unitPointer};
    CHECK_STATUS(call("AudioComponentInstanceNew", 2, pp, newValues), noErr);
    ffi_type *p1[] = {T_PTR};
    void *unitValue[] = {&unit};
    CHECK(callReturningPointer("AudioComponentInstanceGetComponent", 1, p1, unitValue) == component,
          "AudioComponentInstanceGetComponent through ffi");
    {
        ffi_cif cif;
        ffi_type *t[] = {T_PTR, &ffi_type_sint16};
        ffi_prep_cif(&cif, FFI_DEFAULT_ABI, 2, &ffi_type_uint8, t);
        SInt16 selector = kAudioUnitRenderSelect;
        void *v[] = {&unit, &selector};
        ffi_arg can = 0;
        ffi_call(&cif, FFI_FN(symbol("AudioComponentInstanceCanDo")), &can, v);
        CHECK((UInt8)can == 1, "AudioComponentInstanceCanDo(Render) through ffi");
    }

    /* Float32 mono on both sides, and a render callback that is an ffi closure. */
    AudioStreamBasicDescription format;
    memset(&format, 0, sizeof format);
    format.mSampleRate = 48000;
    format.mFormatID = kAudioFormatLinearPCM;
    format.mFormatFlags = kAudioFormatFlagIsFloat | kAudioFormatFlagIsPacked;
    format.mBytesPerPacket = format.mBytesPerFrame = 4;
    format.mFramesPerPacket = 1;
    format.mChannelsPerFrame = 1;
    format.mBitsPerChannel = 32;
    ffi_type *setTypes[] = {T_PTR, T_U32, T_U32, T_U32, T_PTR, T_U32};
    ffi_type *getTypes[] = {T_PTR, T_U32, T_U32, T_U32, T_PTR, T_PTR};
    for (UInt32 scope = kAudioUnitScope_Input; scope <= kAudioUnitScope_Output; scope++) {
        UInt32 id = kAudioUnitProperty_StreamFormat, element = 0, size = sizeof format;
        void *data = &format;
        void *v[] = {&unit, &id, &scope, &element, &data, &size};
        CHECK_STATUS(call("AudioUnitSetProperty", 6, setTypes, v), noErr);
    }
    ffi_cif renderCif;
    ffi_type *renderArgs[] = {T_PTR, T_PTR, T_PTR, T_U32, T_U32, T_PTR};
    ffi_prep_cif(&renderCif, FFI_DEFAULT_ABI, 6, &ffi_type_sint32, renderArgs);
    void *renderCode = NULL;
    ffi_closure *renderClosure = ffi_closure_alloc(sizeof(ffi_closure), &renderCode);
    ffi_prep_closure_loc(renderClosure, &renderCif, renderHandler, NULL, renderCode);
    AURenderCallbackStruct callback;
    memcpy(&callback.inputProc, &renderCode, sizeof renderCode);
    callback.inputProcRefCon = NULL;
    {
        UInt32 id = kAudioUnitProperty_SetRenderCallback, scope = kAudioUnitScope_Input, element = 0,
               size = sizeof callback;
        void *data = &callback;
        void *v[] = {&unit, &id, &scope, &element, &data, &size};
        CHECK_STATUS(call("AudioUnitSetProperty", 6, setTypes, v), noErr);
    }
    {
        UInt32 id = kAudioUnitProperty_MaximumFramesPerSlice, scope = kAudioUnitScope_Global, element = 0,
               value = 0, size = sizeof value;
        void *data = &value, *sizePointer = &size;
        void *v[] = {&unit, &id, &scope, &element, &data, &sizePointer};
        CHECK_STATUS(call("AudioUnitGetProperty", 6, getTypes, v), noErr);
        CHECK(value == 4096, "MaximumFramesPerSlice through ffi (%u)", (unsigned)value);
        Boolean writable = 0;
        void *writablePointer = &writable;
        void *w[] = {&unit, &id, &scope, &element, &sizePointer, &writablePointer};
        CHECK_STATUS(call("AudioUnitGetPropertyInfo", 6, getTypes, w), noErr);
        CHECK(writable == 1 && size == 4, "AudioUnitGetPropertyInfo through ffi");
    }
    CHECK_STATUS(callPtr("AudioUnitInitialize", unit), noErr);
    CHECK_STATUS(callPtr("AudioOutputUnitStart", unit), noErr);
    Float32 samples[64];
    struct { UInt32 count; AudioBuffer buffers[1]; } list = {1, {{1, sizeof samples, samples}}};
    AudioTimeStamp ts;
    memset(&ts, 0, sizeof ts);
    AudioUnitRenderActionFlags flags = 0;
    {
        void *flagsPointer = &flags, *tsPointer = &ts, *listPointer = &list;
        UInt32 bus = 0, frames = 64;
        ffi_type *t[] = {T_PTR, T_PTR, T_PTR, T_U32, T_U32, T_PTR};
        void *v[] = {&unit, &flagsPointer, &tsPointer, &bus, &frames, &listPointer};
        CHECK_STATUS(call("AudioUnitRender", 6, t, v), noErr);
    }
    CHECK(renderCalls == 1 && samples[0] == 0.25f && samples[63] == 0.25f, "the closure rendered (calls %d)", renderCalls);
    {
        UInt32 id = kHALOutputParam_Volume, scope = kAudioUnitScope_Global, element = 0, offset = 0;
        Float32 value = 0.5f, readBack = 0;
        ffi_type *t[] = {T_PTR, T_U32, T_U32, T_U32, T_F32, T_U32};
        void *v[] = {&unit, &id, &scope, &element, &value, &offset};
        CHECK_STATUS(call("AudioUnitSetParameter", 6, t, v), noErr);
        void *out = &readBack;
        ffi_type *g[] = {T_PTR, T_U32, T_U32, T_U32, T_PTR};
        void *gv[] = {&unit, &id, &scope, &element, &out};
        CHECK_STATUS(call("AudioUnitGetParameter", 5, g, gv), noErr);
        CHECK(readBack == 0.5f, "a Float32 parameter through ffi");
        AudioUnitParameterEvent event;
        memset(&event, 0, sizeof event);
        event.parameter = kHALOutputParam_Volume;
        event.eventType = kParameterEvent_Immediate;
        event.eventValues.immediate.value = 0.75f;
        void *eventPointer = &event;
        UInt32 count = 1;
        ffi_type *s[] = {T_PTR, T_PTR, T_U32};
        void *sv[] = {&unit, &eventPointer, &count};
        CHECK_STATUS(call("AudioUnitScheduleParameters", 3, s, sv), noErr);
    }
    {
        void *proc = renderCode, *data = NULL;
        ffi_type *t[] = {T_PTR, T_PTR, T_PTR};
        void *v[] = {&unit, &proc, &data};
        CHECK_STATUS(call("AudioUnitAddRenderNotify", 3, t, v), noErr);
        CHECK_STATUS(call("AudioUnitRemoveRenderNotify", 3, t, v), noErr);
        UInt32 id = kAudioOutputUnitProperty_IsRunning;
        ffi_type *l[] = {T_PTR, T_U32, T_PTR, T_PTR};
        void *lv[] = {&unit, &id, &proc, &data};
        CHECK_STATUS(call("AudioUnitAddPropertyListener", 4, l, lv), noErr);
        CHECK_STATUS(call("AudioUnitRemovePropertyListenerWithUserData", 4, l, lv), noErr);
    }
    {
        void *flagsPointer = &flags, *tsPointer = &ts, *listPointer = &list;
        UInt32 frames = 64, lists = 1;
        ffi_type *t[] = {T_PTR, T_PTR, T_PTR, T_U32, T_PTR};
        void *v[] = {&unit, &flagsPointer, &tsPointer, &frames, &listPointer};
        CHECK_STATUS(call("AudioUnitProcess", 5, t, v), kAudio_UnimplementedError);
        ffi_type *m[] = {T_PTR, T_PTR, T_PTR, T_U32, T_U32, T_PTR, T_U32, T_PTR};
        void *mv[] = {&unit, &flagsPointer, &tsPointer, &frames, &lists, &listPointer, &lists, &listPointer};
        CHECK_STATUS(call("AudioUnitProcessMultiple", 8, m, mv), kAudio_UnimplementedError);
        UInt32 scope = kAudioUnitScope_Global, element = 0;
        ffi_type *r[] = {T_PTR, T_U32, T_U32};
        void *rv[] = {&unit, &scope, &element};
        CHECK_STATUS(call("AudioUnitReset", 3, r, rv), noErr);
    }
    CHECK_STATUS(callPtr("AudioOutputUnitStop", unit), noErr);
    CHECK_STATUS(callPtr("AudioUnitUninitialize", unit), noErr);
    CHECK_STATUS(callPtr("AudioComponentInstanceDispose", unit), noErr);
    ffi_closure_free(renderClosure);
}

/* Audio Converter, Audio Format and Audio File through libffi, with the header's types:
 * a 16-bit to float conversion by AudioConverterConvertBuffer, a format property, the
 * global info, and handles refused. */
static void audioFiles(void)
{
    AudioStreamBasicDescription from = {44100, kAudioFormatLinearPCM, kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked,
                                        4, 1, 4, 2, 16, 0};
    AudioStreamBasicDescription to = {44100, kAudioFormatLinearPCM, kAudioFormatFlagIsFloat | kAudioFormatFlagIsPacked,
                                      8, 1, 8, 2, 32, 0};
    AudioConverterRef converter = NULL;
    void *fromPointer = &from, *toPointer = &to, *outPointer = &converter;
    ffi_type *n[] = {T_PTR, T_PTR, T_PTR};
    void *nv[] = {&fromPointer, &toPointer, &outPointer};
    CHECK_STATUS(call("AudioConverterNew", 3, n, nv), noErr);
    SInt16 input[4] = {16384, -16384, 32767, -32768};
    Float32 output[4] = {0};
    UInt32 inSize = sizeof input, outSize = sizeof output;
    void *inPointer = input, *outSizePointer = &outSize, *outData = output;
    ffi_type *c[] = {T_PTR, T_U32, T_PTR, T_PTR, T_PTR};
    void *cv[] = {&converter, &inSize, &inPointer, &outSizePointer, &outData};
    CHECK_STATUS(call("AudioConverterConvertBuffer", 5, c, cv), noErr);
    CHECK(outSize == sizeof output && output[0] == 0.5f && output[1] == -0.5f && output[3] == -1.0f,
          "ConvertBuffer through ffi: %g %g %g %g", output[0], output[1], output[2], output[3]);
    CHECK_STATUS(callPtr("AudioConverterDispose", converter), noErr);
    CHECK_STATUS(callPtr("AudioConverterDispose", converter), kAudio_ParamError);

    UInt32 property = kAudioFormatProperty_FormatIsVBR, specifierSize = sizeof to, vbr = 7, size = sizeof vbr;
    void *specifier = &to, *sizePointer = &size, *vbrPointer = &vbr;
    ffi_type *f[] = {T_U32, T_U32, T_PTR, T_PTR, T_PTR};
    void *fv[] = {&property, &specifierSize, &specifier, &sizePointer, &vbrPointer};
    CHECK_STATUS(call("AudioFormatGetProperty", 5, f, fv), noErr);
    CHECK(vbr == 0, "linear PCM is not VBR through ffi");

    UInt32 info = kAudioFileGlobalInfo_WritableTypes, zero = 0, typesSize = 0;
    void *none = NULL, *typesSizePointer = &typesSize;
    ffi_type *g[] = {T_U32, T_U32, T_PTR, T_PTR};
    void *gv[] = {&info, &zero, &none, &typesSizePointer};
    CHECK_STATUS(call("AudioFileGetGlobalInfoSize", 4, g, gv), noErr);
    CHECK(typesSize >= 16 && typesSize % 4 == 0, "writable types through ffi: %u bytes", (unsigned)typesSize);

    UInt32 bogus = 0;
    CHECK_STATUS(callPtr("AudioFileClose", &bogus), kAudioFileNotOpenError);
    CHECK_STATUS(callPtr("ExtAudioFileDispose", &bogus), kAudioFileNotOpenError);
    CHECK_STATUS(callPtr("AudioFileStreamClose", &bogus), kAudioFileStreamError_IllegalOperation);
}

/* Audio queues through libffi: an output queue whose callback is an ffi closure, fed one
 * buffer and rendered offline (the samples come back), a Float32 parameter, the Boolean
 * of Stop and Dispose, a time stamp. */
static int queueCallbacks;
static void queueHandler(ffi_cif *cif, void *ret, void **args, void *userData)
{
    (void)cif; (void)ret;
    if (*(void **)args[0] == userData) queueCallbacks++;
}

static void audioQueues(void)
{
    ffi_cif cif;
    ffi_type *callbackArgs[] = {T_PTR, T_PTR, T_PTR};
    ffi_prep_cif(&cif, FFI_DEFAULT_ABI, 3, &ffi_type_void, callbackArgs);
    void *code = NULL;
    ffi_closure *closure = ffi_closure_alloc(sizeof(ffi_closure), &code);
    static int tag;
    ffi_prep_closure_loc(closure, &cif, queueHandler, &tag, code);

    AudioStreamBasicDescription f = {44100, kAudioFormatLinearPCM, kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked,
                                     4, 1, 4, 2, 16, 0};
    AudioQueueRef queue = NULL;
    void *format = &f, *userData = &tag, *runLoop = NULL, *mode = NULL, *out = &queue;
    UInt32 flags = 0;
    ffi_type *n[] = {T_PTR, T_PTR, T_PTR, T_PTR, T_PTR, T_U32, T_PTR};
    void *nv[] = {&format, &code, &userData, &runLoop, &mode, &flags, &out};
    CHECK_STATUS(call("AudioQueueNewOutput", 7, n, nv), noErr);
    if (!queue) return;
    AudioQueueBufferRef buffer = NULL, rendered = NULL;
    UInt32 bytes = 400;
    void *bufferOut = &buffer, *renderedOut = &rendered;
    ffi_type *a[] = {T_PTR, T_U32, T_PTR};
    void *av[] = {&queue, &bytes, &bufferOut};
    CHECK_STATUS(call("AudioQueueAllocateBuffer", 3, a, av), noErr);
    void *arv[] = {&queue, &bytes, &renderedOut};
    CHECK_STATUS(call("AudioQueueAllocateBuffer", 3, a, arv), noErr);
    if (!buffer || !rendered) return;
    for (int i = 0; i < 200; i++) ((SInt16 *)buffer->mAudioData)[i] = (SInt16)(i * 100 - 10000);
    buffer->mAudioDataByteSize = 400;
    UInt32 zero = 0;
    void *noDescriptions = NULL;
    ffi_type *e[] = {T_PTR, T_PTR, T_U32, T_PTR};
    void *ev[] = {&queue, &buffer, &zero, &noDescriptions};
    CHECK_STATUS(call("AudioQueueEnqueueBuffer", 4, e, ev), noErr);
    UInt32 parameter = kAudioQueueParam_Volume;
    Float32 volume = 1.0f;
    ffi_type *p[] = {T_PTR, T_U32, T_F32};
    void *pv[] = {&queue, &parameter, &volume};
    CHECK_STATUS(call("AudioQueueSetParameter", 3, p, pv), noErr);
    void *offline = &f, *layout = NULL;
    ffi_type *o[] = {T_PTR, T_PTR, T_PTR};
    void *ov[] = {&queue, &offline, &layout};
    CHECK_STATUS(call("AudioQueueSetOfflineRenderFormat", 3, o, ov), noErr);
    void *noTime = NULL;
    ffi_type *st[] = {T_PTR, T_PTR};
    void *stv[] = {&queue, &noTime};
    CHECK_STATUS(call("AudioQueueStart", 2, st, stv), noErr);
    AudioTimeStamp stamp = {0};
    stamp.mFlags = kAudioTimeStampSampleTimeValid;
    void *stampPointer = &stamp;
    UInt32 frames = 100;
    ffi_type *r[] = {T_PTR, T_PTR, T_PTR, T_U32};
    void *rv[] = {&queue, &stampPointer, &rendered, &frames};
    CHECK_STATUS(call("AudioQueueOfflineRender", 4, r, rv), noErr);
    CHECK(rendered->mAudioDataByteSize == 400 && memcmp(rendered->mAudioData, buffer->mAudioData, 400) == 0,
          "offline render through ffi gives the enqueued samples back");
    for (int i = 0; i < 200 && queueCallbacks == 0; i++) usleep(5000);
    CHECK(queueCallbacks == 1, "the output callback (an ffi closure) got its user data (%d calls)", queueCallbacks);
    UInt8 immediate = 0x80;  /* any non-zero byte means true */
    ffi_type *b[] = {T_PTR, T_BOOL};
    void *bv[] = {&queue, &immediate};
    CHECK_STATUS(call("AudioQueueStop", 2, b, bv), noErr);
    CHECK_STATUS(call("AudioQueueDispose", 2, b, bv), noErr);
    CHECK_STATUS(call("AudioQueueDispose", 2, b, bv), kAudio_ParamError);
    ffi_closure_free(closure);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s LIBRARY\n", argv[0]); return 2; }
    library = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
    if (!library) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 1; }

    /* The version needs no session. */
    UInt32 version = 0;
    CHECK_STATUS(callPtr("AudioSessionGetLinuxVersion", &version), noErr);
    CHECK(version == AUDIOTOOLBOX_LINUX_VERSION_NUMBER, "version through ffi: %u", (unsigned)version);

    /* Before initialisation every entry point answers NotInitialized. */
    CHECK_STATUS(callBool("AudioSessionSetActive", 1), kAudioSessionNotInitialized);

    /* AudioSessionInitialize(CFRunLoopRef, CFStringRef, listener, void *) with a closure. */
    ffi_cif interruptionCif;
    ffi_type *interruptionArgs[] = {T_PTR, T_U32};
    ffi_prep_cif(&interruptionCif, FFI_DEFAULT_ABI, 2, &ffi_type_void, interruptionArgs);
    void *interruptionCode = NULL;
    ffi_closure *interruptionClosure = ffi_closure_alloc(sizeof(ffi_closure), &interruptionCode);
    static int interruptionTag;
    ffi_prep_closure_loc(interruptionClosure, &interruptionCif, interruptionHandler, &interruptionTag, interruptionCode);
    {
        void *runLoop = NULL, *mode = NULL, *clientData = &interruptionTag;
        ffi_type *t[] = {T_PTR, T_PTR, T_PTR, T_PTR};
        void *v[] = {&runLoop, &mode, &interruptionCode, &clientData};
        CHECK_STATUS(call("AudioSessionInitialize", 4, t, v), noErr);
        CHECK_STATUS(call("AudioSessionInitialize", 4, t, v), kAudioSessionAlreadyInitialized);
    }

    /* Boolean is one byte and any non-zero byte means true. */
    CHECK_STATUS(callBool("AudioSessionSetActive", 0x80), noErr);
    CHECK_STATUS(setU32(kAudioSessionProperty_Mode, kAudioSessionMode_Measurement), kAudioSessionUnspecifiedError);
    {
        UInt8 active = 0; UInt32 flags = kAudioSessionSetActiveFlag_NotifyOthersOnDeactivation;
        ffi_type *t[] = {T_BOOL, T_U32};
        void *v[] = {&active, &flags};
        CHECK_STATUS(call("AudioSessionSetActiveWithFlags", 2, t, v), noErr);
    }
    CHECK_STATUS(setU32(kAudioSessionProperty_Mode, kAudioSessionMode_Measurement), noErr);

    /* Get/Set/GetPropertySize with the header's pointer types. */
    CHECK_STATUS(setU32(kAudioSessionProperty_AudioCategory, kAudioSessionCategory_PlayAndRecord), noErr);
    UInt32 category = 0;
    CHECK_STATUS(getU32(kAudioSessionProperty_AudioCategory, &category), noErr);
    CHECK(category == kAudioSessionCategory_PlayAndRecord, "category read back through ffi");
    {
        UInt32 id = kAudioSessionProperty_CurrentHardwareSampleRate, size = 0;
        UInt32 *sizePointer = &size;
        ffi_type *t[] = {T_U32, T_PTR};
        void *v[] = {&id, &sizePointer};
        CHECK_STATUS(call("AudioSessionGetPropertySize", 2, t, v), noErr);
        CHECK(size == sizeof(Float64), "size of a Float64 property is 8 (got %u)", (unsigned)size);
    }
    CHECK_STATUS(callBool("AudioSessionSetActive", 1), noErr);

    /* Thousands of listener closures on the volume. */
    ffi_prep_cif(&listenerCif, FFI_DEFAULT_ABI, 4, &ffi_type_void, listenerArgs);
    for (int i = 0; i < LISTENERS; i++) {
        listeners[i].closure = ffi_closure_alloc(sizeof(ffi_closure), &listeners[i].code);
        ffi_prep_closure_loc(listeners[i].closure, &listenerCif, listenerHandler, &listeners[i], listeners[i].code);
        OSStatus status = listenerCall("AudioSessionAddPropertyListener", kAudioSessionProperty_CurrentHardwareOutputVolume,
                                       listeners[i].code, &listeners[i]);
        if (status != noErr) CHECK_STATUS(status, noErr);
    }
    CHECK_STATUS(callF32("AudioSessionVirtualDeviceSetOutputVolume", 0.125f), noErr);
    int fd = -1;
    CHECK_STATUS(callPtr("AudioSessionGetCallbackFileDescriptor", &fd), noErr);
    CHECK(fd >= 0, "callback descriptor");
    UInt32 ran = 0;
    CHECK_STATUS(callPtr("AudioSessionDispatchPendingCallbacks", &ran), noErr);
    int exact = 0;
    for (int i = 0; i < LISTENERS; i++) {
        exact += listeners[i].calls == 1 && listeners[i].lastID == kAudioSessionProperty_CurrentHardwareOutputVolume &&
                 listeners[i].lastSize == sizeof(Float32) && listeners[i].lastVolume == 0.125f;
    }
    CHECK(exact == LISTENERS, "every closure called once with the new volume (%d of %d)", exact, LISTENERS);

    /* Remove half with the user-data call, the rest with the deprecated call. */
    for (int i = 0; i < LISTENERS / 2; i++) {
        OSStatus status = listenerCall("AudioSessionRemovePropertyListenerWithUserData",
                                       kAudioSessionProperty_CurrentHardwareOutputVolume, listeners[i].code, &listeners[i]);
        if (status != noErr) CHECK_STATUS(status, noErr);
    }
    CHECK_STATUS(callF32("AudioSessionVirtualDeviceSetOutputVolume", 0.25f), noErr);
    CHECK_STATUS(callPtr("AudioSessionDispatchPendingCallbacks", NULL), noErr);
    int removedCalled = 0, keptCalled = 0;
    for (int i = 0; i < LISTENERS; i++) {
        if (i < LISTENERS / 2) removedCalled += listeners[i].calls != 1;
        else keptCalled += listeners[i].calls == 2;
    }
    CHECK(removedCalled == 0, "removed closures not called (%d were)", removedCalled);
    CHECK(keptCalled == LISTENERS / 2, "kept closures called again (%d)", keptCalled);
    CHECK_STATUS(callU32("AudioSessionRemovePropertyListener", kAudioSessionProperty_CurrentHardwareOutputVolume), noErr);
    CHECK_STATUS(callF32("AudioSessionVirtualDeviceSetOutputVolume", 0.5f), noErr);
    CHECK_STATUS(callPtr("AudioSessionDispatchPendingCallbacks", &ran), noErr);
    CHECK(ran == 1, "one queued delivery, with no listener left (ran %u)", (unsigned)ran);
    int calledAfterRemoveAll = 0;
    for (int i = 0; i < LISTENERS; i++) calledAfterRemoveAll += listeners[i].calls > 2;
    CHECK(calledAfterRemoveAll == 0, "no closure called after RemovePropertyListener");

    /* The interruption closure, and the remaining Linux additions. */
    CHECK_STATUS(call0("AudioSessionVirtualDeviceBeginInterruption"), noErr);
    CHECK_STATUS(callBool("AudioSessionVirtualDeviceEndInterruption", 1), noErr);
    CHECK_STATUS(callPtr("AudioSessionDispatchPendingCallbacks", NULL), noErr);
    CHECK(interruptionCount == 2 && interruptionStates[0] == kAudioSessionBeginInterruption &&
          interruptionStates[1] == kAudioSessionEndInterruption, "interruption closure got Begin then End");
    CHECK_STATUS(callU32("AudioSessionVirtualDeviceConnectPort", kAudioSessionVirtualPort_Headset), noErr);
    CHECK_STATUS(callU32("AudioSessionVirtualDeviceDisconnectPort", kAudioSessionVirtualPort_Headset), noErr);
    CHECK_STATUS(callBool("AudioSessionVirtualDeviceSetInputGainSettable", 0), noErr);
    CHECK_STATUS(callBool("AudioSessionVirtualDeviceSetOtherAudioPlaying", 1), noErr);
    CHECK_STATUS(call0("AudioSessionVirtualDeviceServerDied"), noErr);
    {
        Float64 rates[] = {32000, 96000};
        Float64 *ratesPointer = rates;
        UInt32 count = 2;
        ffi_type *t[] = {T_PTR, T_U32};
        void *v[] = {&ratesPointer, &count};
        CHECK_STATUS(call("AudioSessionVirtualDeviceSetSampleRates", 2, t, v), noErr);
    }

    /* Every exported CFString constant is a real CFString. */
    CFIndex (*getLength)(CFStringRef) = (CFIndex(*)(CFStringRef))dlsym(RTLD_DEFAULT, "CFStringGetLength");
    CHECK(getLength != NULL, "CoreFoundation came with the library");
    const char *constants[] = {
        "kAudioSession_RouteChangeKey_Reason", "kAudioSession_AudioRouteChangeKey_PreviousRouteDescription", "kAudioSession_AudioRouteChangeKey_CurrentRouteDescription",
        "kAudioSession_AudioRouteKey_Inputs", "kAudioSession_AudioRouteKey_Outputs", "kAudioSession_AudioRouteKey_Type",
        "kAudioSessionInputRoute_LineIn", "kAudioSessionInputRoute_BuiltInMic", "kAudioSessionInputRoute_HeadsetMic",
        "kAudioSessionInputRoute_BluetoothHFP", "kAudioSessionInputRoute_USBAudio", "kAudioSessionOutputRoute_LineOut",
        "kAudioSessionOutputRoute_Headphones", "kAudioSessionOutputRoute_BluetoothHFP", "kAudioSessionOutputRoute_BluetoothA2DP",
        "kAudioSessionOutputRoute_BuiltInReceiver", "kAudioSessionOutputRoute_BuiltInSpeaker", "kAudioSessionOutputRoute_USBAudio",
        "kAudioSessionOutputRoute_HDMI", "kAudioSessionOutputRoute_AirPlay", "kAudioSession_InputSourceKey_ID",
        "kAudioSession_InputSourceKey_Description", "kAudioSession_OutputDestinationKey_ID",
        "kAudioSession_OutputDestinationKey_Description",
    };
    for (size_t i = 0; getLength && i < sizeof constants / sizeof constants[0]; i++) {
        CFStringRef *address = symbol(constants[i]);
        CHECK(address && *address && getLength(*address) > 0, "%s is a non-empty CFString", constants[i]);
    }

    audioUnits();
    audioFiles();
    audioQueues();

    for (int i = 0; i < LISTENERS; i++) ffi_closure_free(listeners[i].closure);
    ffi_closure_free(interruptionClosure);
    return finish("abi through libffi");
}
