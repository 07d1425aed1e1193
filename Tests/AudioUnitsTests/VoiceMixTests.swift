import Mixing
import Testing

/// The engine every mix goes through (the mixer unit's buses, the players' voices, the
/// system sounds' voices), checked against what a gain, a pan and a ramp mean.
@Suite("VoiceMix: the one mixing engine")
struct VoiceMixTests {
    @Test("pan: centre keeps both sides whole; hard left silences the right; a mono output ignores it")
    func panLaw() {
        #expect(VoiceMix.sides(pan: 0) == (1, 1))
        #expect(VoiceMix.sides(pan: -1) == (1, 0))
        #expect(VoiceMix.sides(pan: 0.5) == (0.5, 1))
        #expect(VoiceMix.sides(pan: 3) == (0, 1))
        #expect(VoiceMix.sides(pan: -1, outputChannels: 1) == (1, 1))
    }

    @Test("a mono voice goes to both sides, scaled and added to what the sum holds")
    func monoVoiceAdds() {
        let voice: [Float] = [0.5, -0.25, 1]
        var sum: [Float] = [0.1, 0.1, 0, 0, 0, 0]
        let (levels, after) = voice.withUnsafeBufferPointer { v in
            sum.withUnsafeMutableBufferPointer { s in
                VoiceMix.add(v.baseAddress!, channels: 1, frames: 3, into: s.baseAddress!, gain: 0.5,
                             sides: VoiceMix.sides(pan: 0.5), measure: true)
            }
        }
        // Left: half gain, half side; right: half gain, whole side.
        #expect(sum == [0.1 + 0.125, 0.1 + 0.25, -0.0625, -0.125, 0.25, 0.5])
        #expect(levels.peak == (1, 1))
        #expect(abs(levels.meanSquare.left - (0.25 + 0.0625 + 1) / 3) < 1e-6)
        // After the gain and the sides: what the voice added.
        #expect(after.peak == (0.25, 0.5))
        #expect(abs(after.meanSquare.right - (0.0625 + 0.015625 + 0.25) / 3) < 1e-6)
    }

    @Test("while a gain ramps, the levels after it are each frame's own")
    func levelsDuringARamp() {
        let voice: [Float] = [1, 1, 1, 1]
        let ramp: [Float] = [0, 0.25, 0.5, 1]
        var sum = [Float](repeating: 0, count: 8)
        let after = voice.withUnsafeBufferPointer { v in
            ramp.withUnsafeBufferPointer { r in
                sum.withUnsafeMutableBufferPointer { s in
                    VoiceMix.add(v.baseAddress!, channels: 1, frames: 4, into: s.baseAddress!, gain: 1, ramp: r.baseAddress!,
                                 sides: VoiceMix.sides(pan: 0), measure: true).after
                }
            }
        }
        #expect(sum == [0, 0, 0.25, 0.25, 0.5, 0.5, 1, 1])
        #expect(after.peak == (1, 1))
        #expect(abs(after.meanSquare.left - (0 + 0.0625 + 0.25 + 1) / 4) < 1e-6)
    }

    @Test("a ramp reaches its target exactly after its frames, after its delay, and then holds")
    func rampArrives() {
        var gain = VoiceGain(0)
        gain.change(to: 1, delay: 2, rampFrames: 4)
        var gains = [Float](repeating: -1, count: 8)
        let moved = gains.withUnsafeMutableBufferPointer { gain.advance(frames: 8, into: $0.baseAddress!) }
        #expect(moved)
        #expect(gains == [0, 0, 0.25, 0.5, 0.75, 1, 1, 1])
        #expect(gain.current == 1)
        let still = gains.withUnsafeMutableBufferPointer { gain.advance(frames: 8, into: $0.baseAddress!) }
        #expect(!still)
    }

    @Test("16 bits: a 16-bit sample passes exactly at gain 1, and a loud sum saturates instead of wrapping")
    func saturates() {
        let sum: [Float] = [12345 / 32768, -32768 / 32768, 1.5, -1.5]
        var out = [Int16](repeating: 0, count: 4)
        sum.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { VoiceMix.saturate(s.baseAddress!, count: 4, gain: 1, into: $0.baseAddress!) }
        }
        #expect(out == [12345, -32768, 32767, -32768])
    }
}
