import AudioSessionCore
import Dispatch
import Glibc
import Synchronization
import SystemSounds
import Testing

/// Many threads creating, playing, changing and disposing sounds while the mixer plays
/// them (silently, at a device's pace): no crash, no lost or extra completion, and — under
/// `make tsan` — no data race.
@Suite("Stress: system sounds")
struct PlayerStressTests {
    @Test("concurrent create/play/dispose: every play of a kept sound completes exactly once")
    func concurrentPlays() {
        let completions = Mutex<[UInt32: Int]>([:])
        let player = SystemSoundPlayer(
            predefined: [0x1000: AlertTone.sound],
            fedWith: AudioServiceSnapshot(active: true, interrupted: false, level: 0.5, silentSwitch: false,
                                          device: .none, sampleRate: 0, ioBufferDuration: 0),
            onFinished: { id in completions.withLock { $0[id, default: 0] += 1 } })
        let short = DecodedSound(sampleRate: 48000, channels: 1, samples: [Float](repeating: 0.1, count: 480))
        let kept = (0..<4).map { _ in player.create(short) }
        let threads = 8, playsPerThread = 25
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for round in 0..<playsPerThread {
                player.play(kept[(thread + round) % kept.count])
                // Sounds that come and go while others play.
                let passing = player.create(short)
                player.play(passing)
                _ = player.dispose(passing)
                _ = player.withSound(kept[round % kept.count]) { $0.isUISound = UInt32(round % 2) }
            }
        }
        // Wait for the mixer to finish (bounded by the plays: 200 × 10 ms at most).
        var waited = 0
        while completions.withLock({ counts in kept.map { counts[$0] ?? 0 }.reduce(0, +) }) < threads * playsPerThread,
              waited < 3000 {
            usleepMilliseconds(10)
            waited += 1
        }
        let counts = completions.withLock { $0 }
        #expect(kept.map { counts[$0] ?? 0 }.reduce(0, +) == threads * playsPerThread)
        // A passing sound is disposed right after its one play: it completes at most once
        // (only if the mixer heard it before the dispose).
        #expect(counts.filter { !kept.contains($0.key) }.allSatisfy { $0.value <= 1 })
    }
}

func usleepMilliseconds(_ ms: Int) {
    var pause = timespec(tv_sec: 0, tv_nsec: ms * 1_000_000)
    nanosleep(&pause, nil)
}
