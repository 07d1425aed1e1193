/// Any linear PCM an ASBD can state that files and converters meet: 8 to 32-bit integers
/// (signed, or unsigned 8-bit as WAV stores it), 32 and 64-bit floats, 8.24 fixed point,
/// either byte order, interleaved or one buffer per channel. Samples pass through Float:
/// exact for integers up to 24 bits and for Float32.
public struct LinearPCM: Equatable, Sendable {
    public enum Sample: Equatable, Sendable {
        case unsigned8
        case signed(bytes: Int)           // 1...4 bytes, the value in the high bits of `bits`
        case fixed(fractionBits: Int)     // 8.24 and other fixed-point (32-bit containers)
        case float32
        case float64
    }
    public let sample: Sample
    public let bigEndian: Bool
    public let channels: Int
    public let interleaved: Bool
    public let sampleRate: Double
    /// Bytes of one sample in its container.
    public let sampleBytes: Int
    /// Significant bits (a 24-bit value in a 32-bit container: 24).
    public let bits: Int

    public init(_ d: StreamDescription) throws(AudioFileStatus) {
        guard d.formatID == FormatID.linearPCM else { throw .unsupportedDataFormat }
        guard d.sampleRate.isFinite, d.sampleRate > 0, d.sampleRate <= 1_536_000 else { throw .unsupportedDataFormat }
        guard d.channelsPerFrame >= 1, d.channelsPerFrame <= 64 else { throw .unsupportedDataFormat }
        guard d.framesPerPacket == 1, d.bytesPerFrame > 0, d.bytesPerPacket == d.bytesPerFrame else {
            throw .unsupportedDataFormat
        }
        let interleaved = d.formatFlags & Flags.nonInterleaved == 0
        let perChannel = interleaved ? Int(d.bytesPerFrame) / Int(d.channelsPerFrame) : Int(d.bytesPerFrame)
        guard perChannel * (interleaved ? Int(d.channelsPerFrame) : 1) == Int(d.bytesPerFrame) else {
            throw .unsupportedDataFormat
        }
        let bits = Int(d.bitsPerChannel)
        guard bits >= 8, bits <= perChannel * 8 else { throw .unsupportedDataFormat }
        let fraction = Int((d.formatFlags & Flags.fractionMask) >> Flags.fractionShift)
        let sample: Sample
        if d.formatFlags & Flags.float != 0 {
            switch (bits, perChannel) {
            case (32, 4): sample = .float32
            case (64, 8): sample = .float64
            default: throw .unsupportedDataFormat
            }
        } else if fraction > 0 {
            guard perChannel == 4, bits == 32, fraction < 32 else { throw .unsupportedDataFormat }
            sample = .fixed(fractionBits: fraction)
        } else if d.formatFlags & Flags.signedInteger == 0 {
            guard bits == 8, perChannel == 1 else { throw .unsupportedDataFormat }
            sample = .unsigned8
        } else {
            guard perChannel <= 4 else { throw .unsupportedDataFormat }
            sample = .signed(bytes: perChannel)
        }
        self.sample = sample
        self.bigEndian = d.formatFlags & Flags.bigEndian != 0 && perChannel > 1
        self.channels = Int(d.channelsPerFrame)
        self.interleaved = interleaved || d.channelsPerFrame == 1
        self.sampleRate = d.sampleRate
        self.sampleBytes = perChannel
        // A packed description names the bits it uses; an unpacked one is aligned high
        // unless it says otherwise, and a low-aligned sample we read as if high (rare).
        self.bits = bits
    }

    public var bytesPerFrame: Int { interleaved ? sampleBytes * channels : sampleBytes }
    public var bufferCount: Int { interleaved ? 1 : channels }

    /// The integer container value at `p` in host order.
    @inline(__always)
    private func loadInteger(_ p: UnsafeRawPointer) -> Int64 {
        var value: UInt64 = 0
        for i in 0..<sampleBytes {
            let byte = UInt64(p.load(fromByteOffset: bigEndian ? i : sampleBytes - 1 - i, as: UInt8.self))
            value = value << 8 | byte
        }
        // Sign-extend from the container's width.
        let shift = UInt64(64 - sampleBytes * 8)
        return Int64(bitPattern: value << shift) >> Int64(shift)
    }

    @inline(__always)
    private func storeInteger(_ value: Int64, _ p: UnsafeMutableRawPointer) {
        var v = UInt64(bitPattern: value)
        for i in 0..<sampleBytes {
            p.storeBytes(of: UInt8(truncatingIfNeeded: v), toByteOffset: bigEndian ? sampleBytes - 1 - i : i, as: UInt8.self)
            v >>= 8
        }
    }

    /// Reads `frames` frames from `buffers` (one per buffer of this layout) starting at
    /// `frame` into interleaved Floats.
    public func decode(_ buffers: [UnsafeRawPointer], from frame: Int, frames: Int, into out: UnsafeMutablePointer<Float>) {
        let stride = interleaved ? sampleBytes * channels : sampleBytes
        let containerScale = Float(1) / Float(Int64(1) << Int64(sampleBytes * 8 - 1))
        for c in 0..<channels {
            let base = interleaved ? buffers[0] + c * sampleBytes : buffers[c]
            var p = base + frame * stride
            var o = out + c
            switch sample {
            case .float32 where !bigEndian:
                for _ in 0..<frames { o.pointee = p.loadUnaligned(as: Float.self); p += stride; o += channels }
            case .float32:
                for _ in 0..<frames {
                    o.pointee = Float(bitPattern: UInt32(bigEndian: p.loadUnaligned(as: UInt32.self))); p += stride; o += channels
                }
            case .float64:
                for _ in 0..<frames {
                    let raw = p.loadUnaligned(as: UInt64.self)
                    o.pointee = Float(Double(bitPattern: bigEndian ? UInt64(bigEndian: raw) : raw)); p += stride; o += channels
                }
            case .unsigned8:
                for _ in 0..<frames { o.pointee = (Float(p.load(as: UInt8.self)) - 128) / 128; p += stride; o += channels }
            case .signed(bytes: 2) where !bigEndian:
                for _ in 0..<frames { o.pointee = Float(p.loadUnaligned(as: Int16.self)) / 32768; p += stride; o += channels }
            case .signed:
                for _ in 0..<frames { o.pointee = Float(loadInteger(p)) * containerScale; p += stride; o += channels }
            case .fixed(let fraction):
                let scale = Float(1) / Float(Int64(1) << Int64(fraction))
                for _ in 0..<frames { o.pointee = Float(loadInteger(p)) * scale; p += stride; o += channels }
            }
        }
    }

    /// Writes `frames` interleaved Floats as this layout into `buffers` from `frame` on,
    /// rounding and clipping integers.
    public func encode(_ input: UnsafePointer<Float>, frames: Int, into buffers: [UnsafeMutableRawPointer], at frame: Int) {
        let stride = interleaved ? sampleBytes * channels : sampleBytes
        if case .float32 = sample, !bigEndian, sampleBytes == 4, interleaved || channels == 1 {
            // The pipeline's own layout (what OpenAL loaders and players mostly ask for): one copy.
            (buffers[0] + frame * stride).copyMemory(from: input, byteCount: frames * channels * 4)
            return
        }
        for c in 0..<channels {
            let base = interleaved ? buffers[0] + c * sampleBytes : buffers[c]
            var p = base + frame * stride
            var i = input + c
            switch sample {
            case .float32 where !bigEndian:
                for _ in 0..<frames { p.storeBytes(of: i.pointee, as: Float.self); p += stride; i += channels }
            case .float32:
                for _ in 0..<frames { p.storeBytes(of: i.pointee.bitPattern.bigEndian, as: UInt32.self); p += stride; i += channels }
            case .float64:
                for _ in 0..<frames {
                    let raw = Double(i.pointee).bitPattern
                    p.storeBytes(of: bigEndian ? raw.bigEndian : raw, as: UInt64.self); p += stride; i += channels
                }
            case .unsigned8:
                for _ in 0..<frames {
                    p.storeBytes(of: UInt8(max(0, min(255, (i.pointee * 128).rounded() + 128))), as: UInt8.self)
                    p += stride; i += channels
                }
            case .signed(bytes: 2) where !bigEndian:
                for _ in 0..<frames {
                    p.storeBytes(of: Int16(max(-32768, min(32767, (i.pointee * 32768).rounded()))), as: Int16.self)
                    p += stride; i += channels
                }
            case .signed:
                let full = Double(Int64(1) << Int64(sampleBytes * 8 - 1))
                for _ in 0..<frames {
                    let v = (Double(i.pointee) * full).rounded()
                    storeInteger(Int64(max(-full, min(full - 1, v))), p); p += stride; i += channels
                }
            case .fixed(let fraction):
                let one = Double(Int64(1) << Int64(fraction))
                for _ in 0..<frames {
                    let v = (Double(i.pointee) * one).rounded()
                    storeInteger(Int64(max(-2_147_483_648, min(2_147_483_647, v))), p); p += stride; i += channels
                }
            }
        }
    }
}
