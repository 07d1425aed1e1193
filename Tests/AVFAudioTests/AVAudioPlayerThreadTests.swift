@testable import AVFAudio
import AudioToolbox
import CAudioToolbox
import Foundation
import Testing
import Runtime

// AVAudioPlayer called as a game calls it, from many threads at once: players made from
// data, played, changed, stopped and dropped on eight threads while the mix's stream
// runs. Nothing may crash or hang, every stopped player reads as stopped, and the mix
// has every slot back afterwards (a full mix's worth of new players all join it).

/// A short 16-bit mono WAV of a 440 Hz tone, made here.
private func toneWAV(seconds: Double = 0.05, rate: Int = 22050) -> Data {
    let frames = Int(Double(rate) * seconds)
    var data = Data()
    func add<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
    data.append(contentsOf: Array("RIFF".utf8)); add(UInt32(36 + frames * 2))
    data.append(contentsOf: Array("WAVEfmt ".utf8)); add(UInt32(16)); add(UInt16(1)); add(UInt16(1))
    add(UInt32(rate)); add(UInt32(rate * 2)); add(UInt16(2)); add(UInt16(16))
    data.append(contentsOf: Array("data".utf8)); add(UInt32(frames * 2))
    for i in 0..<frames { add(Int16(12000 * sin(2 * Double.pi * 440 * Double(i) / Double(rate)))) }
    return data
}

@Suite("AVAudioPlayer from many threads", .serialized)
struct AVAudioPlayerThreadTests {
    init() { _ = audioSessionInitialize(nil, nil, nil, nil) }

    @Test("eight threads make, play, change, stop and drop players at once")
    func manyThreads() throws {
        let wav = toneWAV()
        let stoppedButPlaying = Locked(0)
        let made = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for round in 0..<25 {
                guard let player = try? AVAudioPlayer(data: wav) else { continue }
                made.withLock { $0 += 1 }
                player.volume = Float(round % 5) / 4
                player.pan = thread % 2 == 0 ? -0.5 : 0.5
                player.numberOfLoops = round % 3 == 0 ? 1 : 0
                _ = player.play()
                player.currentTime = 0.01
                player.isMeteringEnabled = true
                player.updateMeters()
                _ = player.averagePower(forChannel: 0)
                if round % 2 == 0 { player.pause(); _ = player.play() }
                player.setVolume(1, fadeDuration: 0.01)
                player.stop()
                if player.isPlaying { stoppedButPlaying.withLock { $0 += 1 } }
            }
        }
        let count = made.withLock { $0 }, wrong = stoppedButPlaying.withLock { $0 }
        #expect(count == 200)
        #expect(wrong == 0, "a stopped player read as playing")
        // Every dropped player gave its slot back: a full mix of new ones joins it.
        let players = try (0..<PlayerMixer.slotCount).map { _ in try AVAudioPlayer(data: wav) }
        for player in players { #expect(player.prepareToPlay()) }
        let inMix = players.filter { $0.playsInMix }.count
        #expect(inMix == PlayerMixer.slotCount)
        // One more than the mix holds plays through a queue of its own.
        let extra = try AVAudioPlayer(data: wav)
        #expect(extra.prepareToPlay() && !extra.playsInMix)
    }
}

/// A pthread-free counter for the test (Foundation's NSLock).
private final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T { lock.lock(); defer { lock.unlock() }; return body(&value) }
}
