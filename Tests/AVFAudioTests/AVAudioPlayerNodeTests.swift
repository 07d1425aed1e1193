import AVFAudio
import Foundation
import Testing

// AVAudioPlayerNode's transport as apps drive it, rendered by hand: pause and play on
// (the sound goes on from the frame it stopped at), play(at:) a sample time, the player's
// and the node's timelines, a loop ended at its pass by a buffer scheduled with
// .interruptsAtLoop, and the completion callback types. Expected values are the
// buffers' own samples at the frames where the words say they belong.

/// A buffer whose every sample says where it is: frame i of channel c holds
/// (i + 1) / 100000 + c (so any frame out of place is seen), times `sign`.
private func counting(_ frames: Int, sign: Float = 1) throws -> AVAudioPCMBuffer {
    let buffer = try #require(AVAudioPCMBuffer(pcmFormat: try standard(), frameCapacity: AVAudioFrameCount(frames)))
    for c in 0..<2 {
        for i in 0..<frames { buffer.floatChannelData![c][i] = sign * (Float(i + 1) / 100000 + Float(c) / 4) }
    }
    buffer.frameLength = AVAudioFrameCount(frames)
    return buffer
}

private func samples(_ buffer: AVAudioPCMBuffer, _ range: Range<Int>, channel: Int = 0) -> [Float] {
    Array(UnsafeBufferPointer(start: buffer.floatChannelData![channel] + range.lowerBound, count: range.count))
}

/// Whether `a` frames of one buffer are `b` frames of another (a yes or no, so a failure
/// prints the first frame that differs, not both runs).
private func same(_ a: AVAudioPCMBuffer, _ ra: Range<Int>, _ b: AVAudioPCMBuffer, _ rb: Range<Int>, channel: Int = 0) -> String {
    let x = samples(a, ra, channel: channel), y = samples(b, rb, channel: channel)
    guard x.count == y.count else { return "\(x.count) frames against \(y.count)" }
    guard let i = x.indices.first(where: { x[$0] != y[$0] }) else { return "same" }
    return "frame \(ra.lowerBound + i): \(x[i]), wanted \(y[i])"
}

private final class Calls: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [String] = []
    func add(_ what: String) { lock.withLock { seen.append(what) } }
    var all: [String] { lock.withLock { seen } }
}

@Suite("AVAudioPlayerNode transport, rendered by hand")
struct AVAudioPlayerNodeTests {
    @Test("pause keeps the place: silence while paused, then the frames from where it stopped; isPlaying follows")
    func pause() throws {
        let player = AVAudioPlayerNode()
        let engine = try offlineEngine(player, maximumFrames: 1000)
        let buffer = try counting(30000)
        player.scheduleBuffer(buffer)
        player.play()
        let first = try render(engine, 10000)
        #expect(same(first, 0..<10000, buffer, 0..<10000) == "same")
        player.pause()
        #expect(!player.isPlaying)
        let paused = try render(engine, 5000)
        #expect(samples(paused, 0..<5000).allSatisfy { $0 == 0 }, "silence while paused")
        player.play()
        #expect(player.isPlaying)
        let after = try render(engine, 10000)
        #expect(same(after, 0..<10000, buffer, 10000..<20000) == "same", "on from frame 10000")
        #expect(same(after, 0..<10000, buffer, 10000..<20000, channel: 1) == "same")
        // The player's time counts what played, not the pause.
        let now = AVAudioTime(sampleTime: engine.manualRenderingSampleTime, atRate: 44100)
        #expect(player.playerTime(forNodeTime: now)?.sampleTime == 20000)
        player.stop()
        #expect(player.playerTime(forNodeTime: now) == nil, "no player time once stopped")
    }

    @Test("play(at:) a sample time: silence until then, the buffer from its first frame; the two timelines map both ways")
    func playAt() throws {
        let player = AVAudioPlayerNode()
        let engine = try offlineEngine(player, maximumFrames: 1024)
        _ = try render(engine, 2048)   // the engine's timeline has moved on
        let buffer = try counting(8000)
        player.scheduleBuffer(buffer)
        let start = engine.manualRenderingSampleTime + 4410
        #expect(player.nodeTime(forPlayerTime: AVAudioTime(sampleTime: 0, atRate: 44100)) == nil, "not playing yet")
        player.play(at: AVAudioTime(sampleTime: start, atRate: 44100))
        let out = try render(engine, 12000)
        #expect(samples(out, 0..<4410).allSatisfy { $0 == 0 })
        #expect(same(out, 4410..<12000, buffer, 0..<7590) == "same")
        #expect(player.nodeTime(forPlayerTime: AVAudioTime(sampleTime: 0, atRate: 44100))?.sampleTime == start)
        #expect(player.playerTime(forNodeTime: AVAudioTime(sampleTime: start + 100, atRate: 44100))?.sampleTime == 100)
        // The node's lastRenderTime is the engine's timeline.
        #expect(player.lastRenderTime?.sampleTime == engine.manualRenderingSampleTime)
    }

    @Test(".interruptsAtLoop: the loop finishes the pass under way, the new buffer follows it at once; both handlers run")
    func interruptsAtLoop() throws {
        let player = AVAudioPlayerNode()
        let engine = try offlineEngine(player, maximumFrames: 1024)
        let loop = try counting(4410), next = try counting(4410, sign: -1)
        let calls = Calls()
        player.scheduleBuffer(loop, at: nil, options: .loops) { calls.add("loop") }
        player.play()
        let before = try render(engine, 6615)
        #expect(same(before, 4410..<6615, loop, 0..<2205) == "same", "looping")
        player.scheduleBuffer(next, at: nil, options: .interruptsAtLoop) { calls.add("next") }
        let out = try render(engine, 8000)
        // Player time 6615 + a render ahead (1024) = 7639: the pass ending at 8820 is the last.
        #expect(same(out, 0..<2205, loop, 2205..<4410) == "same", "the pass under way plays out")
        #expect(same(out, 2205..<6615, next, 0..<4410) == "same", "then the new buffer, from frame 8820")
        #expect(samples(out, 6615..<8000).allSatisfy { $0 == 0 })
        for _ in 0..<100 where calls.all.count < 2 { usleep(10000) }
        #expect(calls.all == ["loop", "next"])
        // With no loop playing it interrupts at once, as .interrupts.
        player.scheduleBuffer(try counting(30000)) { calls.add("long") }
        _ = try render(engine, 1000)
        player.scheduleBuffer(next, at: nil, options: .interruptsAtLoop) { calls.add("short") }
        let cut = try render(engine, 5000)
        #expect(same(cut, 0..<4410, next, 0..<4410) == "same")
        for _ in 0..<100 where calls.all.count < 4 { usleep(10000) }
        #expect(calls.all == ["loop", "next", "long", "short"])
    }

    @Test("completion callback types: each handler is told its type once the buffer has played; a stop tells it too")
    func callbackTypes() throws {
        let player = AVAudioPlayerNode()
        let engine = try offlineEngine(player, maximumFrames: 1024)
        let calls = Calls()
        player.scheduleBuffer(try counting(1000), completionCallbackType: .dataConsumed) { calls.add("consumed \($0.rawValue)") }
        player.scheduleBuffer(try counting(1000), completionCallbackType: .dataRendered) { calls.add("rendered \($0.rawValue)") }
        player.scheduleBuffer(try counting(1000), at: nil, options: [], completionCallbackType: .dataPlayedBack) {
            calls.add("played \($0.rawValue)")
        }
        player.scheduleBuffer(try counting(100000), completionCallbackType: .dataPlayedBack) { calls.add("stopped \($0.rawValue)") }
        player.play()
        #expect(calls.all.isEmpty, "nothing before a render")
        _ = try render(engine, 4096)
        for _ in 0..<100 where calls.all.count < 3 { usleep(10000) }
        #expect(calls.all == ["consumed 0", "rendered 1", "played 2"])
        player.stop()
        #expect(calls.all.last == "stopped 2")
    }

    @Test("connection points: one player feeding two mixer buses renders once for both (the sum is twice each frame); the points read back")
    func fanOut() throws {
        let player = AVAudioPlayerNode()
        let engine = AVAudioEngine()
        engine.attach(player)
        let mixer = engine.mainMixerNode
        engine.connect(player, to: [AVAudioConnectionPoint(node: mixer, bus: 0), AVAudioConnectionPoint(node: mixer, bus: 1)],
                       fromBus: 0, format: try standard())
        let points = engine.outputConnectionPoints(for: player, outputBus: 0)
        #expect(points.count == 2 && points.allSatisfy { $0.node === mixer } && Set(points.map(\.bus)) == [0, 1])
        #expect(engine.inputConnectionPoint(for: mixer, inputBus: 1)?.node === player)
        #expect(engine.inputConnectionPoint(for: mixer, inputBus: 2) == nil)
        try engine.enableManualRenderingMode(.offline, format: try standard(), maximumFrameCount: 1024)
        try engine.start()
        let buffer = try counting(8000)
        player.scheduleBuffer(buffer)
        player.play()
        let out = try render(engine, 8000)
        var worst: Float = 0
        for c in 0..<2 {
            for i in 0..<8000 { worst = max(worst, abs(out.floatChannelData![c][i] - 2 * buffer.floatChannelData![c][i])) }
        }
        #expect(worst < 1e-6, "each frame twice, in order: the player rendered once a render for both buses")
        // One connection again: the other bus is free, the sound is the buffer's once.
        engine.connect(player, to: mixer, fromBus: 0, toBus: 0, format: try standard())
        #expect(engine.outputConnectionPoints(for: player, outputBus: 0).count == 1)
    }
}
