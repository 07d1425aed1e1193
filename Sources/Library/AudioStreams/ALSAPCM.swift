import CALSA
import Glibc

/// The library's one way to open and configure an ALSA PCM: 16-bit interleaved samples
/// (what every card and ALSA's plug layer take), the rate, channels, period and number
/// of periods nearest those asked. The session's backend uses it to learn what a device
/// grants (`negotiate`, which closes it again); the stream layer's ALSA link to play and
/// record (`open`).
public enum ALSAPCM {
    public struct Granted: Equatable, Sendable {
        public let sampleRate: Double
        public let periodFrames: Int
        /// Frames the device's buffer holds: the output latency when it is full.
        public let bufferFrames: Int
        public let channels: Int
    }

    public enum Failure: Error, Equatable {
        /// Another program holds the device (an exclusive `hw:` device).
        case busy
        /// No such device, or it takes nothing near what was asked.
        case unavailable
    }

    /// Opens `name` for `stream`, non-blocking (so a busy device fails at once rather
    /// than waiting), and applies the hardware parameters. `quiet`: ALSA's own messages
    /// about a device that will not open are not printed (the backend's probing).
    public static func open(_ name: String, _ stream: snd_pcm_stream_t, rate: Double, period: Int,
                            periodSeconds: Double? = nil, channels: UInt32, periods: UInt32 = 2,
                            quiet: Bool = false) throws(Failure) -> (OpaquePointer, Granted) {
        var handle: OpaquePointer?
        let open = { snd_pcm_open(&handle, name, stream, Int32(SND_PCM_NONBLOCK)) }
        let status = quiet ? withQuietALSA(open) : open()
        guard status >= 0, let pcm = handle else { throw status == -EBUSY || status == -EAGAIN ? .busy : .unavailable }
        guard let granted = configure(pcm, rate: rate, period: period, periodSeconds: periodSeconds, channels: channels,
                                      periods: periods) else {
            snd_pcm_close(pcm)
            throw .unavailable
        }
        return (pcm, granted)
    }

    /// What `name` grants for `stream`, learnt by opening and closing it: nothing stays
    /// open, so a program that plays through the same device itself can still open it.
    /// `periodSeconds`, when given, asks for a period of that duration at the rate the
    /// device grants (instead of `period` frames).
    public static func negotiate(_ name: String, _ stream: snd_pcm_stream_t, rate: Double, period: Int,
                                 periodSeconds: Double? = nil, channels: UInt32) throws(Failure) -> Granted {
        let (pcm, granted) = try open(name, stream, rate: rate, period: period, periodSeconds: periodSeconds,
                                      channels: channels, quiet: true)
        snd_pcm_close(pcm)
        return granted
    }

    private static func configure(_ pcm: OpaquePointer, rate: Double, period: Int, periodSeconds: Double?,
                                  channels: UInt32, periods: UInt32) -> Granted? {
        var allocated: OpaquePointer?
        guard snd_pcm_hw_params_malloc(&allocated) >= 0, let params = allocated else { return nil }
        defer { snd_pcm_hw_params_free(params) }
        var grantedRate = UInt32(rate)
        var grantedChannels = channels
        var direction: Int32 = 0
        var periods = periods
        guard snd_pcm_hw_params_any(pcm, params) >= 0,
              snd_pcm_hw_params_set_access(pcm, params, SND_PCM_ACCESS_RW_INTERLEAVED) >= 0,
              snd_pcm_hw_params_set_format(pcm, params, SND_PCM_FORMAT_S16_LE) >= 0,
              snd_pcm_hw_params_set_channels_near(pcm, params, &grantedChannels) >= 0,
              snd_pcm_hw_params_set_rate_near(pcm, params, &grantedRate, &direction) >= 0
        else { return nil }
        var periodFrames = snd_pcm_uframes_t(periodSeconds.map { max(1, ($0 * Double(grantedRate)).rounded()) }
                                             ?? Double(max(1, period)))
        // Near is enough: a device that keeps its own period still plays.
        _ = snd_pcm_hw_params_set_period_size_near(pcm, params, &periodFrames, &direction)
        _ = snd_pcm_hw_params_set_periods_near(pcm, params, &periods, &direction)
        guard snd_pcm_hw_params(pcm, params) >= 0 else { return nil }
        var bufferFrames: snd_pcm_uframes_t = 0
        snd_pcm_hw_params_get_rate(params, &grantedRate, &direction)
        snd_pcm_hw_params_get_period_size(params, &periodFrames, &direction)
        snd_pcm_hw_params_get_buffer_size(params, &bufferFrames)
        snd_pcm_hw_params_get_channels(params, &grantedChannels)
        return Granted(sampleRate: Double(grantedRate), periodFrames: Int(periodFrames), bufferFrames: Int(bufferFrames),
                       channels: Int(grantedChannels))
    }
}

/// Runs `body` with libasound's error messages silenced on this thread: probing for a
/// card or device that is not there is expected, and must not print to the program's
/// stderr. The backend's control probing and `ALSAPCM.negotiate` both use it.
public func withQuietALSA<T>(_ body: () -> T) -> T {
    let previous = snd_lib_error_set_local { _, _, _, _, _, _ in }
    defer { snd_lib_error_set_local(previous) }
    return body()
}
