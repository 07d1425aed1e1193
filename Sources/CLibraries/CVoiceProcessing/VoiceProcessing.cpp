// The C face of VoiceProcessing.h over webrtc::AudioProcessing (0.3): one mono stream
// each way, float frames of 10 ms.
#include "VoiceProcessing.h"
#include <webrtc/modules/audio_processing/include/audio_processing.h>
#include <new>

struct VoiceProcessor {
    webrtc::AudioProcessing *apm;
    webrtc::StreamConfig stream;
    int frameLength;
};

extern "C" VoiceProcessor *VoiceProcessorCreate(int sampleRate, int automaticGain)
{
    webrtc::Config config;
    // The echo path of a desktop (a card's buffers, a sound server) is long and not
    // reported exactly: the extended filter and the delay estimator cope with both.
    config.Set<webrtc::ExtendedFilter>(new webrtc::ExtendedFilter(true));
    config.Set<webrtc::DelayAgnostic>(new webrtc::DelayAgnostic(true));
    webrtc::AudioProcessing *apm = webrtc::AudioProcessing::Create(config);
    if (!apm) return nullptr;
    webrtc::ProcessingConfig processing = {{
        webrtc::StreamConfig(sampleRate, 1), webrtc::StreamConfig(sampleRate, 1),
        webrtc::StreamConfig(sampleRate, 1), webrtc::StreamConfig(sampleRate, 1),
    }};
    if (apm->Initialize(processing) != webrtc::AudioProcessing::kNoError ||
        apm->echo_cancellation()->Enable(true) != 0 ||
        apm->echo_cancellation()->set_suppression_level(webrtc::EchoCancellation::kModerateSuppression) != 0 ||
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

extern "C" int VoiceProcessorFarEnd(VoiceProcessor *processor, const float *frame)
{
    const float *channels[1] = {frame};
    return processor->apm->AnalyzeReverseStream(channels, processor->frameLength, processor->stream.sample_rate_hz(),
                                                webrtc::AudioProcessing::kMono);
}

extern "C" int VoiceProcessorNearEnd(VoiceProcessor *processor, float *frame, int delayMilliseconds)
{
    processor->apm->set_stream_delay_ms(delayMilliseconds);
    const float *source[1] = {frame};
    float *destination[1] = {frame};
    return processor->apm->ProcessStream(source, processor->stream, processor->stream, destination);
}
