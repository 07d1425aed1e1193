// The C face of VoiceProcessing.h over webrtc::AudioProcessing (0.3): gain control and
// a high-pass filter on one mono stream, float frames of 10 ms. The echo is cancelled
// before this, in Swift (LinearEchoFilter): 0.3's echo canceller cuts a talker who
// speaks over the echo (docs/notes/voice-processing.md), so it stays off.
#include "VoiceProcessing.h"
#include <webrtc/modules/audio_processing/include/audio_processing.h>
#include <dlfcn.h>
#include <new>
#include <pthread.h>

// The library is not linked: a program that never starts VoiceProcessingIO does not map
// it. Everything but the factory is reached through the object's virtual functions, so
// the factory is the one symbol looked up (by its C++ name, stable in the 0.3 ABI that
// the SONAME names).
using Factory = webrtc::AudioProcessing *(*)();
static Factory factory;
static pthread_once_t loadOnce = PTHREAD_ONCE_INIT;

static void load()
{
    void *library = dlopen("libwebrtc_audio_processing.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library) factory = reinterpret_cast<Factory>(dlsym(library, "_ZN6webrtc15AudioProcessing6CreateEv"));
}

extern "C" int VoiceProcessingAvailable(void)
{
    pthread_once(&loadOnce, load);
    return factory != nullptr;
}

struct VoiceProcessor {
    webrtc::AudioProcessing *apm;
    webrtc::StreamConfig stream;
    int frameLength;
};

extern "C" VoiceProcessor *VoiceProcessorCreate(int sampleRate, int automaticGain)
{
    if (!VoiceProcessingAvailable()) return nullptr;
    webrtc::AudioProcessing *apm = factory();
    if (!apm) return nullptr;
    webrtc::ProcessingConfig processing = {{
        webrtc::StreamConfig(sampleRate, 1), webrtc::StreamConfig(sampleRate, 1),
        webrtc::StreamConfig(sampleRate, 1), webrtc::StreamConfig(sampleRate, 1),
    }};
    if (apm->Initialize(processing) != webrtc::AudioProcessing::kNoError ||
        apm->gain_control()->set_mode(webrtc::GainControl::kAdaptiveDigital) != 0 ||
        apm->gain_control()->Enable(automaticGain != 0) != 0 ||
        apm->high_pass_filter()->Enable(true) != 0) {
        delete apm;
        return nullptr;
    }
    VoiceProcessor *processor = new (std::nothrow) VoiceProcessor{apm, webrtc::StreamConfig(sampleRate, 1),
                                                                  sampleRate / 100};
    if (!processor) delete apm;
    return processor;
}

extern "C" void VoiceProcessorDestroy(VoiceProcessor *processor)
{
    if (!processor) return;
    delete processor->apm;
    delete processor;
}

extern "C" int VoiceProcessorFrameLength(const VoiceProcessor *processor) { return processor->frameLength; }

extern "C" int VoiceProcessorSetAutomaticGain(VoiceProcessor *processor, int on)
{
    return processor->apm->gain_control()->Enable(on != 0);
}

extern "C" int VoiceProcessorNearEnd(VoiceProcessor *processor, float *frame)
{
    const float *source[1] = {frame};
    float *destination[1] = {frame};
    return processor->apm->ProcessStream(source, processor->stream, processor->stream, destination);
}
