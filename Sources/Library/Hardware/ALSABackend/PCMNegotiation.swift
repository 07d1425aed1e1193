import AudioSessionCore
import AudioStreams
import CALSA
import Glibc

/// What an ALSA PCM grants for a session's preferences, found by opening the device,
/// negotiating, and closing it again (ALSAPCM.negotiate, the stream layer's one opener).
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
        do throws(ALSAPCM.Failure) {
            // The period asked for lasts the preferred duration at the rate granted.
            let granted = try ALSAPCM.negotiate(name, stream, rate: preferredRate > 0 ? preferredRate : Self.defaultSampleRate,
                                                period: Self.defaultPeriodFrames,
                                                periodSeconds: preferredDuration > 0 ? Double(preferredDuration) : nil,
                                                channels: stream == SND_PCM_STREAM_CAPTURE ? 1 : 2)
            sampleRate = granted.sampleRate
            periodFrames = granted.periodFrames
            bufferFrames = granted.bufferFrames
        } catch {
            throw error == .busy ? .unspecified : .noHardware
        }
    }
}
