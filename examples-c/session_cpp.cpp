// Recipe: the API from C++, wrapped the way a C++ audio engine usually does it: RAII for
// CF objects and a member function as the route-change handler.
#include <AudioToolbox/AudioToolbox.h>
#include <cstdio>
#include <string>

namespace {

// Owns a CF object returned +1 by AudioSessionGetProperty.
template <typename Ref> class CFOwned {
public:
    explicit CFOwned(Ref ref = nullptr) : ref_(ref) {}
    ~CFOwned() { if (ref_) CFRelease(ref_); }
    CFOwned(const CFOwned &) = delete;
    CFOwned &operator=(const CFOwned &) = delete;
    Ref *out() { return &ref_; }
    Ref get() const { return ref_; }
private:
    Ref ref_;
};

std::string toString(CFStringRef text)
{
    char buffer[128] = "";
    if (text) CFStringGetCString(text, buffer, sizeof buffer, kCFStringEncodingUTF8);
    return buffer;
}

class AudioEngine {
public:
    AudioEngine()
    {
        AudioSessionInitialize(nullptr, nullptr, nullptr, nullptr);
        AudioSessionAddPropertyListener(kAudioSessionProperty_AudioRouteChange, &AudioEngine::routeChanged, this);
        UInt32 category = kAudioSessionCategory_PlayAndRecord;
        AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
        AudioSessionSetActive(true);
    }
    ~AudioEngine()
    {
        AudioSessionRemovePropertyListenerWithUserData(kAudioSessionProperty_AudioRouteChange,
                                                       &AudioEngine::routeChanged, this);
        AudioSessionSetActive(false);
    }

    std::string outputPort() const
    {
        CFOwned<CFDictionaryRef> description;
        UInt32 size = sizeof(CFDictionaryRef);
        if (AudioSessionGetProperty(kAudioSessionProperty_AudioRouteDescription, &size, description.out()) != noErr)
            return "?";
        auto outputs = static_cast<CFArrayRef>(CFDictionaryGetValue(description.get(), kAudioSession_AudioRouteKey_Outputs));
        if (!outputs || CFArrayGetCount(outputs) == 0) return "none";
        auto port = static_cast<CFDictionaryRef>(CFArrayGetValueAtIndex(outputs, 0));
        return toString(static_cast<CFStringRef>(CFDictionaryGetValue(port, kAudioSession_AudioRouteKey_Type)));
    }

    int routeChanges() const { return routeChanges_; }

private:
    static void routeChanged(void *self, AudioSessionPropertyID, UInt32, const void *)
    {
        auto engine = static_cast<AudioEngine *>(self);
        engine->routeChanges_++;
        std::printf("route changed, now %s\n", engine->outputPort().c_str());
    }
    int routeChanges_ = 0;
};

} // namespace

int main()
{
    AudioEngine engine;
    std::printf("output port: %s\n", engine.outputPort().c_str());
    AudioSessionVirtualDeviceConnectPort(kAudioSessionVirtualPort_USBAudio);
    while (CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0, true) == kCFRunLoopRunHandledSource) {}
    std::printf("route changes: %d\n", engine.routeChanges());
    return 0;
}
