import Glibc
import Synchronization
import SystemSounds

/// Plays the rest of a system sound whose program died mid-play
/// (kAudioServicesPropertyCompletePlaybackIfAppDies), on the device it was playing on.
final class SoundFinisher: @unchecked Sendable {
    private var players: [String: SystemSoundPlayer] = [:]
    private let playing = Atomic<Int>(0)

    /// Whether a finished sound is still being heard (the daemon stays for it).
    var isPlaying: Bool { playing.load(ordering: .acquiring) > 0 }

    func finish(_ path: String, device: String, startedAt: Double) {
        guard let sound = try? DecodedSound.load(path: path) else {
            Log.error("cannot finish \(path): the file cannot be read any more")
            return
        }
        // What the program played already is not played again.
        let heard = max(0, Int((monotonicSeconds() - startedAt) * Double(sound.sampleRate)))
        guard heard < sound.frameCount else { return }
        let rest = DecodedSound(sampleRate: sound.sampleRate, channels: sound.channels,
                                samples: Array(sound.samples[(heard * sound.channels)...]))
        let player = players[device] ?? {
            // The player does not exist yet when its completion handler is made.
            final class Box: @unchecked Sendable { weak var player: SystemSoundPlayer? }
            let box = Box()
            let made = SystemSoundPlayer(predefined: [:], output: { .alsa(device) }, gain: { 1 },
                                         silencesUISounds: { false },
                                         onFinished: { [unowned self] id in
                                             _ = box.player?.dispose(id)
                                             self.playing.subtract(1, ordering: .releasing)
                                         })
            box.player = made
            players[device] = made
            return made
        }()
        playing.add(1, ordering: .releasing)
        let id = player.create(rest, path: path)
        player.play(id)
        Log.info("finishing \(path) for a program that died (\(sound.frameCount - heard) frames left)")
    }
}
