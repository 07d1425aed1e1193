@testable import EchoCancellation
import Glibc
import Testing

/// The linear echo filter on its own, with a room made of numbers: the far end is noise,
/// the microphone hears it late and weaker through a short impulse response, plus (in
/// double talk) a talker of its own.
struct LinearEchoFilterTests {
    /// A repeatable noise in -1...1 (a linear congruential generator, not the system's).
    private struct Noise {
        var state: UInt32
        mutating func next() -> Float {
            state = state &* 1_664_525 &+ 1_013_904_223
            return Float(Int32(bitPattern: state)) / Float(Int32.max)
        }
    }

    /// The room: what the microphone hears of `far` (sample i), delayed and filtered.
    private static let echoPath: [(delay: Int, gain: Float)] = [(240, 0.5), (241, 0.25), (300, -0.125)]

    private static func echo(of far: [Float], at i: Int) -> Float {
        echoPath.reduce(Float(0)) { sum, tap in i >= tap.delay ? sum + tap.gain * far[i - tap.delay] : sum }
    }

    private static func power(_ samples: ArraySlice<Float>) -> Float {
        samples.reduce(0) { $0 + $1 * $1 } / Float(max(samples.count, 1))
    }

    /// Runs `seconds` of 16 kHz audio through the filter in 160-sample periods; returns
    /// what it left of the near end, and the near end's own part (the talker), if any.
    private static func run(seconds: Double, talker: (Int) -> Float) -> (out: [Float], echo: [Float], talk: [Float]) {
        let rate = 16_000, period = 160, count = Int(Double(rate) * seconds)
        var noise = Noise(state: 12345)
        let far = (0..<count).map { _ in noise.next() * 0.3 }
        let echo = (0..<count).map { Self.echo(of: far, at: $0) }
        let talk = (0..<count).map(talker)
        var out = zip(echo, talk).map { $0 + $1 }
        let filter = LinearEchoFilter(tail: 1024, maximumFrames: period)
        far.withUnsafeBufferPointer { farBuffer in
            out.withUnsafeMutableBufferPointer { near in
                for start in stride(from: 0, to: count - period + 1, by: period) {
                    filter.process(near.baseAddress! + start, far: farBuffer.baseAddress! + start, count: period)
                }
            }
        }
        return (out, echo, talk)
    }

    /// After a few seconds of far end alone, the echo is more than 25 dB down.
    @Test func cancelsALinearEcho() {
        let (out, echo, _) = Self.run(seconds: 6, talker: { _ in 0 })
        let last = out.count - 16_000
        let left = Self.power(out[last...]), before = Self.power(echo[last...])
        let decibels = 10 * log10(Double(before / max(left, 1e-20)))
        #expect(decibels > 25, "the echo is only \(decibels) dB down after 5 s")
    }

    /// A talker over the echo (double talk, after the filter has learnt the room) passes
    /// through: what is left is the talker, the echo still well down.
    @Test func letsTheTalkerThrough() {
        let rate: Float = 16_000
        let (out, _, talk) = Self.run(seconds: 8) { i in
            i < 5 * 16_000 ? 0 : 0.2 * sin(2 * Float.pi * 300 * Float(i) / rate)
        }
        // The output lags the recording by the filter's block.
        let lag = LinearEchoFilter(tail: 1024, maximumFrames: 160).latency
        let last = out.count - 16_000
        let residue = (last..<out.count).map { out[$0] - talk[$0 - lag] }
        let talkPower = Self.power(talk[last...]), residuePower = Self.power(residue[...])
        let decibels = 10 * log10(Double(talkPower / max(residuePower, 1e-20)))
        #expect(decibels > 15, "the talker is only \(decibels) dB above what is left of the echo")
    }

    /// The echo moves (the device slipped, and its counts did not say by how much) while a
    /// talker louder than the echo speaks over it, or while the far end is silent and only
    /// the talker speaks (the move is then seen only once double talk starts): the filter
    /// must find the echo again in double talk, later or earlier, by a sample or by
    /// several device periods.
    @Test(arguments: [-300, -5, 1, 3, 8, 20, 160, 400, 1200], [false, true])
    func findsTheEchoAgainInDoubleTalk(slip: Int, farEndSilentMeanwhile: Bool) {
        let rate = 16_000, period = 160, count = 14 * rate
        var noise = Noise(state: 777)
        var smooth: Float = 0
        let moveAt = 7 * rate
        // Silent meanwhile: from 6 s to 8 s the far end says nothing, the talker goes on.
        let far = (0..<count).map { i -> Float in
            smooth = 0.7 * smooth + 0.3 * noise.next()
            return farEndSilentMeanwhile && i >= 6 * rate && i < 8 * rate ? 0 : 0.5 * smooth
        }
        let echo = (0..<count).map { i -> Float in
            let delay = 240 + (i >= moveAt ? slip : 0)
            return i >= delay && i - delay < count ? 0.5 * far[i - delay] : 0
        }
        let talk = (0..<count).map { i in i < 5 * rate ? Float(0) : 0.1 * sin(2 * Float.pi * 440 * Float(i) / Float(rate)) }
        var out = zip(echo, talk).map { $0 + $1 }
        let filter = LinearEchoFilter(tail: 1024, maximumFrames: period)
        // As EchoCanceller does: the far end given moves by each shift the filter reports,
        // and the filter's span is filled again with what was played before.
        var moved = 0
        func played(_ i: Int) -> Float { i >= 0 && i < count ? far[i] : 0 }
        var aligned = [Float](repeating: 0, count: period)
        out.withUnsafeMutableBufferPointer { near in
            for start in stride(from: 0, to: count - period + 1, by: period) {
                for k in 0..<period { aligned[k] = played(start + k - moved) }
                filter.process(near.baseAddress! + start, far: aligned, count: period)
                if filter.shift != 0 {
                    moved += filter.shift
                    filter.shift = 0
                    let next = start + period - moved
                    filter.reload { played(next - $0) }
                }
            }
        }
        let lag = filter.latency
        let last = count - 2 * rate
        let residue = (last..<count).map { out[$0] - talk[$0 - lag] }
        let decibels = 10 * log10(Double(Self.power(echo[last...]) / max(Self.power(residue[...]), 1e-20)))
        #expect(decibels > 20, "\(slip) samples later, in double talk: the echo only \(decibels) dB down after 5 s")
    }

    /// A far end in bursts (0.3 s on, 0.2 s off), whose echo sometimes stops before the far
    /// end does (as when the room changes, or a test card's echo is switched off), with a
    /// talker from 3 s: the echo path never moved, so the watch must report no shift, and
    /// the echo stays cancelled.
    @Test func burstsAndStoppedEchoesMoveNothing() {
        let rate = 16_000, period = 160, count = 10 * rate
        var noise = Noise(state: 4242)
        var smooth: Float = 0
        let on = { (i: Int) in i % 8000 < 4800 }
        let far = (0..<count).map { i -> Float in
            smooth = 0.7 * smooth + 0.3 * noise.next()
            return on(i) ? 0.5 * smooth : 0
        }
        // Every third burst's echo stops 0.1 s early.
        let echo = (0..<count).map { i -> Float in
            let burst = i / 8000, into = i % 8000
            if burst % 3 == 2 && into >= 3200 { return 0 }
            return i >= 240 ? 0.5 * far[i - 240] : 0
        }
        let talk = (0..<count).map { i in i < 3 * rate ? Float(0) : 0.1 * sin(2 * Float.pi * 440 * Float(i) / Float(rate)) }
        var out = zip(echo, talk).map { $0 + $1 }
        let filter = LinearEchoFilter(tail: 1024, maximumFrames: period)
        var shifts = 0
        far.withUnsafeBufferPointer { farBuffer in
            out.withUnsafeMutableBufferPointer { near in
                for start in stride(from: 0, to: count - period + 1, by: period) {
                    filter.process(near.baseAddress! + start, far: farBuffer.baseAddress! + start, count: period)
                    if filter.shift != 0 { shifts += 1; filter.shift = 0 }
                }
            }
        }
        #expect(shifts == 0, "the watch moved an echo that never moved (\(shifts) times)")
        // The last whole burst (9.0 to 9.3 s, its echo whole), past the filter's lag.
        let lag = filter.latency
        let from = 9 * rate + 2000, to = 9 * rate + 4600
        let residue = (from..<to).map { out[$0] - talk[$0 - lag] }
        let decibels = 10 * log10(Double(Self.power(echo[from..<to]) / max(Self.power(residue[...]), 1e-20)))
        #expect(decibels > 20, "the echo only \(decibels) dB down in the last burst")
    }

    /// No far end, no change: the near end comes out as it went in, a block late.
    @Test func silenceFarEndLeavesTheNearEndAlone() {
        let talk = (0..<16_000).map { i in Float(0.1) * sin(Float(i) / 7) }
        let noFar = Self.runWithoutFarEnd(talk)
        let lag = LinearEchoFilter(tail: 1024, maximumFrames: 160).latency
        #expect(lag > 0 && lag < 1024)
        #expect(noFar[..<lag].allSatisfy { $0 == 0 }, "the filter's first block comes out silent")
        #expect((lag..<noFar.count).allSatisfy { abs(noFar[$0] - talk[$0 - lag]) < 1e-4 },
                "with no far end the recording comes out unchanged, a block late")
    }

    private static func runWithoutFarEnd(_ near: [Float]) -> [Float] {
        let period = 160
        var out = near
        let far = [Float](repeating: 0, count: near.count)
        let filter = LinearEchoFilter(tail: 1024, maximumFrames: period)
        far.withUnsafeBufferPointer { farBuffer in
            out.withUnsafeMutableBufferPointer { buffer in
                for start in stride(from: 0, to: near.count - period + 1, by: period) {
                    filter.process(buffer.baseAddress! + start, far: farBuffer.baseAddress! + start, count: period)
                }
            }
        }
        return out
    }
}
