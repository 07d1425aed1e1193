import AudioSessionCore
import CALSA

/// An open ALSA PCM, negotiated from the session's preferences.
final class ALSAStream {
    let handle: OpaquePointer
    let sampleRate: Double
    let periodFrames: Int
    let bufferFrames: Int

    /// The frames asked for when the program states no IO buffer preference.
    static let defaultPeriodFrames = 1024
    /// The rate asked for when the program states no sample rate preference.
    static let defaultSampleRate = 44_100.0

    /// Opens `name` for `stream` and negotiates the rate nearest `preferredRate` and the
    /// period nearest `preferredDuration`; nil when the device cannot be opened or
    /// configured.
    init?(name: String, stream: snd_pcm_stream_t, preferredRate: Double, preferredDuration: Float) {
        var handle: OpaquePointer?
        guard withQuietALSA({ snd_pcm_open(&handle, name, stream, 0) }) >= 0, let handle else { return nil }
        var params: OpaquePointer?
        guard snd_pcm_hw_params_malloc(&params) >= 0, let params else {
            snd_pcm_close(handle)
            return nil
        }
        defer { snd_pcm_hw_params_free(params) }
        var rate = UInt32(preferredRate > 0 ? preferredRate : Self.defaultSampleRate)
        var channels: UInt32 = stream == SND_PCM_STREAM_CAPTURE ? 1 : 2
        var direction: Int32 = 0
        guard snd_pcm_hw_params_any(handle, params) >= 0,
              snd_pcm_hw_params_set_access(handle, params, SND_PCM_ACCESS_RW_INTERLEAVED) >= 0,
              snd_pcm_hw_params_set_format(handle, params, SND_PCM_FORMAT_S16_LE) >= 0,
              snd_pcm_hw_params_set_channels_near(handle, params, &channels) >= 0,
              snd_pcm_hw_params_set_rate_near(handle, params, &rate, &direction) >= 0
        else {
            snd_pcm_close(handle)
            return nil
        }
        var period = snd_pcm_uframes_t(preferredDuration > 0
            ? max(1, (Double(preferredDuration) * Double(rate)).rounded()) : Double(Self.defaultPeriodFrames))
        var periods: UInt32 = 2
        _ = snd_pcm_hw_params_set_period_size_near(handle, params, &period, &direction)
        _ = snd_pcm_hw_params_set_periods_near(handle, params, &periods, &direction)
        guard snd_pcm_hw_params(handle, params) >= 0 else {
            snd_pcm_close(handle)
            return nil
        }
        var grantedRate: UInt32 = 0
        var grantedPeriod: snd_pcm_uframes_t = 0
        var grantedBuffer: snd_pcm_uframes_t = 0
        snd_pcm_hw_params_get_rate(params, &grantedRate, &direction)
        snd_pcm_hw_params_get_period_size(params, &grantedPeriod, &direction)
        snd_pcm_hw_params_get_buffer_size(params, &grantedBuffer)
        self.handle = handle
        sampleRate = Double(grantedRate)
        periodFrames = Int(grantedPeriod)
        bufferFrames = Int(grantedBuffer)
    }

    deinit { snd_pcm_close(handle) }
}
