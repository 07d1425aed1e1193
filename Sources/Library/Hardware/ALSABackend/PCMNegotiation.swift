import AudioSessionCore
import CALSA
import Glibc

/// What an ALSA PCM grants for a session's preferences, found by opening the device,
/// negotiating, and closing it again.
///
/// Nothing stays open: a ported program plays and records through the same device
/// itself (ALSA, SDL, PortAudio...), and on an exclusive device (`hw:N`) a stream held
/// by the session would make the program's own open fail.
struct PCMNegotiation: Equatable {
    let sampleRate: Double
    let periodFrames: Int
    let bufferFrames: Int

    /// The frames asked for when the program states no IO buffer preference.
    static let defaultPeriodFrames = 1024
    /// The rate asked for when the program states no sample rate preference.
    static let defaultSampleRate = 44_100.0

    var periodDuration: Float { Float(Double(periodFrames) / sampleRate) }
    var bufferDuration: Float { Float(Double(bufferFrames) / sampleRate) }

    /// Negotiates the rate nearest `preferredRate` and the period nearest
    /// `preferredDuration` on `name` for `stream`. The device is opened non-blocking, so
    /// a device another program holds fails at once: `unspecified` ('what') when it is
    /// busy, `noHardware` when it cannot be opened or configured at all.
    init(name: String, stream: snd_pcm_stream_t, preferredRate: Double,
         preferredDuration: Float) throws(ResultCode) {
        var opened: OpaquePointer?
        let status = withQuietALSA { snd_pcm_open(&opened, name, stream, Int32(SND_PCM_NONBLOCK)) }
        guard status >= 0, let handle = opened else {
            throw status == -EBUSY || status == -EAGAIN ? .unspecified : .noHardware
        }
        defer { snd_pcm_close(handle) }
        guard let granted = Self.configure(handle, stream: stream, preferredRate: preferredRate,
                                           preferredDuration: preferredDuration) else { throw .noHardware }
        self = granted
    }

    private init(sampleRate: Double, periodFrames: Int, bufferFrames: Int) {
        self.sampleRate = sampleRate
        self.periodFrames = periodFrames
        self.bufferFrames = bufferFrames
    }

    private static func configure(_ handle: OpaquePointer, stream: snd_pcm_stream_t, preferredRate: Double,
                                  preferredDuration: Float) -> PCMNegotiation? {
        var allocated: OpaquePointer?
        guard snd_pcm_hw_params_malloc(&allocated) >= 0, let params = allocated else { return nil }
        defer { snd_pcm_hw_params_free(params) }
        var rate = UInt32(preferredRate > 0 ? preferredRate : defaultSampleRate)
        var channels: UInt32 = stream == SND_PCM_STREAM_CAPTURE ? 1 : 2
        var direction: Int32 = 0
        guard snd_pcm_hw_params_any(handle, params) >= 0,
              snd_pcm_hw_params_set_access(handle, params, SND_PCM_ACCESS_RW_INTERLEAVED) >= 0,
              snd_pcm_hw_params_set_format(handle, params, SND_PCM_FORMAT_S16_LE) >= 0,
              snd_pcm_hw_params_set_channels_near(handle, params, &channels) >= 0,
              snd_pcm_hw_params_set_rate_near(handle, params, &rate, &direction) >= 0
        else { return nil }
        var period = snd_pcm_uframes_t(preferredDuration > 0
            ? max(1, (Double(preferredDuration) * Double(rate)).rounded()) : Double(defaultPeriodFrames))
        var periods: UInt32 = 2
        _ = snd_pcm_hw_params_set_period_size_near(handle, params, &period, &direction)
        _ = snd_pcm_hw_params_set_periods_near(handle, params, &periods, &direction)
        guard snd_pcm_hw_params(handle, params) >= 0 else { return nil }
        var grantedRate: UInt32 = 0
        var grantedPeriod: snd_pcm_uframes_t = 0
        var grantedBuffer: snd_pcm_uframes_t = 0
        snd_pcm_hw_params_get_rate(params, &grantedRate, &direction)
        snd_pcm_hw_params_get_period_size(params, &grantedPeriod, &direction)
        snd_pcm_hw_params_get_buffer_size(params, &grantedBuffer)
        return PCMNegotiation(sampleRate: Double(grantedRate), periodFrames: Int(grantedPeriod),
                              bufferFrames: Int(grantedBuffer))
    }
}
