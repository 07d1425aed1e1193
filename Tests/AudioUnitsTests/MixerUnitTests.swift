@testable import AudioUnits
import Glibc
import Testing

/// A bus's source: every sample the value its reference points at (a Float), mono.
private let constant: RenderCallback.Procedure = { refCon, _, _, _, frames, list in
    let value = refCon!.load(as: Float.self)
    let data = list!.load(fromByteOffset: 16, as: UnsafeMutablePointer<Float>.self)
    for i in 0..<Int(frames) { data[i] = value }
    return 0
}

@Suite("The multichannel mixer: gains, pan, volume changes at an offset and ramps")
struct MixerUnitTests {
    static let mono = PCMLayout(sampleRate: 48000, encoding: .float32, channels: 1, interleaved: false)
    static let stereo = PCMLayout(sampleRate: 48000, encoding: .float32, channels: 2, interleaved: false)

    /// Renders `frames` frames of the mixer's output: left and right.
    static func render(_ mixer: MixerUnit, frames: Int) throws -> ([Float], [Float]) {
        var left = [Float](repeating: -9, count: frames), right = [Float](repeating: -9, count: frames)
        let list = UnsafeMutableRawPointer.allocate(byteCount: 8 + 32, alignment: 8)
        defer { list.deallocate() }
        var flags: UInt32 = 0
        var stamp = [UInt8](repeating: 0, count: 64)
        try left.withUnsafeMutableBufferPointer { l in
            try right.withUnsafeMutableBufferPointer { r in
                list.storeBytes(of: UInt32(2), as: UInt32.self)
                for (i, buffer) in [l.baseAddress!, r.baseAddress!].enumerated() {
                    list.storeBytes(of: UInt32(1), toByteOffset: 8 + 16 * i, as: UInt32.self)
                    list.storeBytes(of: UInt32(frames * 4), toByteOffset: 12 + 16 * i, as: UInt32.self)
                    list.storeBytes(of: UnsafeMutableRawPointer(buffer), toByteOffset: 16 + 16 * i, as: UnsafeMutableRawPointer.self)
                }
                try stamp.withUnsafeMutableBytes { s in
                    try mixer.renderPulled(flags: &flags, timeStamp: UnsafeRawPointer(s.baseAddress!), bus: 0,
                                           frames: UInt32(frames), list: list)
                }
            }
        }
        return (left, right)
    }

    @Test("Two buses summed with their volumes, one panned hard left, the output volume over both")
    func gainsAndPan() throws {
        let mixer = MixerUnit()
        try mixer.setInputCount(2)
        let values = UnsafeMutablePointer<Float>.allocate(capacity: 2)
        defer { values.deallocate() }
        values[0] = 0.25
        values[1] = 0.5
        for bus in 0..<2 {
            try mixer.setFormat(Self.mono, scope: .input, element: UInt32(bus))
            try mixer.setRenderCallback(RenderCallback(procedure: constant, refCon: values + bus), input: UInt32(bus))
        }
        try mixer.setFormat(Self.stereo, scope: .output, element: 0)
        try mixer.setParameter(0, scope: .input, element: 1, value: 0.5, offset: 0)   // volume
        try mixer.setParameter(2, scope: .input, element: 1, value: -1, offset: 0)    // pan
        try mixer.initialize()
        var (left, right) = try Self.render(mixer, frames: 64)
        #expect(left.allSatisfy { $0 == 0.5 }, "0.25 + 0.5 x 0.5 on the left: \(left[0])")
        #expect(right.allSatisfy { $0 == 0.25 }, "only bus 0 on the right: \(right[0])")
        try mixer.setParameter(0, scope: .output, element: 0, value: 0.5, offset: 0)
        try mixer.setParameter(1, scope: .input, element: 0, value: 0, offset: 0)     // bus 0 disabled
        (left, right) = try Self.render(mixer, frames: 64)
        #expect(left.allSatisfy { $0 == 0.125 } && right.allSatisfy { $0 == 0 }, "\(left[0]), \(right[0])")
    }

    @Test("A volume set at an offset changes at that frame; a ramp moves evenly to its end")
    func offsetsAndRamps() throws {
        let mixer = MixerUnit()
        try mixer.setInputCount(1)
        let value = UnsafeMutablePointer<Float>.allocate(capacity: 1)
        defer { value.deallocate() }
        value.pointee = 1
        try mixer.setFormat(Self.mono, scope: .input, element: 0)
        try mixer.setFormat(Self.stereo, scope: .output, element: 0)
        try mixer.setRenderCallback(RenderCallback(procedure: constant, refCon: value), input: 0)
        try mixer.initialize()
        _ = try Self.render(mixer, frames: 32)
        try mixer.setParameter(0, scope: .input, element: 0, value: 0, offset: 10)
        var (left, _) = try Self.render(mixer, frames: 32)
        #expect(Array(left[0..<10]) == [Float](repeating: 1, count: 10))
        #expect(Array(left[10...]) == [Float](repeating: 0, count: 22))
        try mixer.scheduleVolume(0, scope: .input, element: 0, value: 1, from: 0, delay: 4, ramp: 8)
        (left, _) = try Self.render(mixer, frames: 16)
        #expect(Array(left[0..<4]) == [0, 0, 0, 0], "before the delay: \(left)")
        #expect(Array(left[4..<12]) == (1...8).map { Float($0) / 8 }, "the ramp: \(left)")
        #expect(Array(left[12...]) == [1, 1, 1, 1], "after it: \(left)")
    }

    /// A mixer of one mono bus fed `value`, into `output`, initialized.
    static func oneBus(_ value: UnsafeMutablePointer<Float>, output: PCMLayout = stereo) throws -> MixerUnit {
        let mixer = MixerUnit()
        try mixer.setInputCount(1)
        try mixer.setFormat(Self.mono, scope: .input, element: 0)
        try mixer.setFormat(output, scope: .output, element: 0)
        try mixer.setRenderCallback(RenderCallback(procedure: constant, refCon: value), input: 0)
        try mixer.initialize()
        return mixer
    }

    @Test("A volume step in the middle of a ramp ends the ramp there")
    func stepDuringRamp() throws {
        let value = UnsafeMutablePointer<Float>.allocate(capacity: 1)
        defer { value.deallocate() }
        value.pointee = 1
        let mixer = try Self.oneBus(value)
        try mixer.scheduleVolume(0, scope: .input, element: 0, value: 1, from: 0, delay: 0, ramp: 16)
        _ = try Self.render(mixer, frames: 8)
        try mixer.setParameter(0, scope: .input, element: 0, value: 0, offset: 0)
        let (left, _) = try Self.render(mixer, frames: 32)
        #expect(left.allSatisfy { $0 == 0 }, "\(left)")
    }

    @Test("A metered bus disabled falls silent on the meters instead of keeping its level")
    func metersFall() throws {
        let value = UnsafeMutablePointer<Float>.allocate(capacity: 1)
        defer { value.deallocate() }
        value.pointee = 0.5
        let mixer = try Self.oneBus(value)
        try mixer.setMetering(true, scope: .input, element: 0)
        for _ in 0..<20 { _ = try Self.render(mixer, frames: 1024) }
        let loud = try mixer.parameter(1000, scope: .input, element: 0)
        #expect(abs(loud - 20 * log10(0.5)) < 0.1, "a constant 0.5 is \(loud) dB")
        try mixer.setParameter(1, scope: .input, element: 0, value: 0, offset: 0)
        for _ in 0..<40 { _ = try Self.render(mixer, frames: 1024) }
        let quiet = try mixer.parameter(1000, scope: .input, element: 0)
        #expect(quiet < -60, "disabled for 0.85 s: \(quiet) dB")
    }

    @Test("Pan does not lower a bus on a mono output")
    func panOnMono() throws {
        let value = UnsafeMutablePointer<Float>.allocate(capacity: 1)
        defer { value.deallocate() }
        value.pointee = 0.5
        let monoOut = PCMLayout(sampleRate: 48000, encoding: .float32, channels: 1, interleaved: true)
        let mixer = try Self.oneBus(value, output: monoOut)
        try mixer.setParameter(2, scope: .input, element: 0, value: -1, offset: 0)
        var out = [Float](repeating: -9, count: 16)
        let list = UnsafeMutableRawPointer.allocate(byteCount: 24, alignment: 8)
        defer { list.deallocate() }
        var flags: UInt32 = 0
        var stamp = [UInt8](repeating: 0, count: 64)
        try out.withUnsafeMutableBufferPointer { o in
            list.storeBytes(of: UInt32(1), as: UInt32.self)
            list.storeBytes(of: UInt32(1), toByteOffset: 8, as: UInt32.self)
            list.storeBytes(of: UInt32(64), toByteOffset: 12, as: UInt32.self)
            list.storeBytes(of: UnsafeMutableRawPointer(o.baseAddress!), toByteOffset: 16, as: UnsafeMutableRawPointer.self)
            try stamp.withUnsafeMutableBytes { st in
                try mixer.renderPulled(flags: &flags, timeStamp: UnsafeRawPointer(st.baseAddress!), bus: 0, frames: 16, list: list)
            }
        }
        #expect(out.allSatisfy { $0 == 0.5 }, "\(out[0])")
    }

    @Test("Bad values are refused with their codes and change nothing")
    func refusals() throws {
        let mixer = MixerUnit()
        #expect(throws: UnitError.invalidPropertyValue) { try mixer.setInputCount(0) }
        #expect(throws: UnitError.invalidElement) { try mixer.setParameter(0, scope: .input, element: 8, value: 1, offset: 0) }
        #expect(throws: UnitError.invalidScope) { try mixer.setParameter(0, scope: .global, element: 0, value: 1, offset: 0) }
        #expect(throws: UnitError.invalidParameter) { try mixer.setParameter(2, scope: .input, element: 0, value: 3, offset: 0) }
        #expect(throws: UnitError.invalidParameter) { try mixer.setParameter(1000, scope: .input, element: 0, value: 0, offset: 0) }
        #expect(try mixer.parameter(2, scope: .input, element: 0) == 0)
        #expect(throws: UnitError.formatNotSupported) {
            try mixer.setFormat(PCMLayout(sampleRate: 48000, encoding: .float32, channels: 4, interleaved: true),
                                scope: .output, element: 0)
        }
        try mixer.initialize()
        #expect(throws: UnitError.invalidPropertyValue) { try mixer.setInputCount(200) }
        #expect(mixer.elementCount(.input) == 8)
    }

    @Test("An initialized mixer takes a new bus count: new buses are unfed and at the defaults")
    func growsWhileInitialized() throws {
        let mixer = MixerUnit()
        try mixer.setInputCount(1)
        try mixer.setFormat(PCMLayout(sampleRate: 44100, encoding: .float32, channels: 1, interleaved: false),
                            scope: .input, element: 0)
        try mixer.setParameter(0, scope: .input, element: 0, value: 0.5, offset: 0)
        try mixer.initialize()
        try mixer.setInputCount(3)
        #expect(mixer.elementCount(.input) == 3)
        #expect(try mixer.parameter(0, scope: .input, element: 0) == 0.5)
        #expect(try mixer.parameter(0, scope: .input, element: 2) == 1)
        try mixer.setInputCount(1)
        #expect(mixer.elementCount(.input) == 1)
        #expect(throws: UnitError.invalidElement) { try mixer.parameter(0, scope: .input, element: 2) }
    }
}
