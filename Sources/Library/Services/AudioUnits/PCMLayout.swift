/// A linear PCM layout an audio unit takes on one of its sides, as an
/// AudioStreamBasicDescription states it: the sample encoding, the channel count,
/// interleaved or one buffer per channel. Pure: no C types, so the rules are tested alone.
public struct PCMLayout: Equatable, Sendable {
    public enum Encoding: Equatable, Sendable {
        case float32
        case int16
        case int32
        /// SInt32 with 24 fraction bits: the iPhone's canonical 8.24 ("AudioUnitSampleType").
        case fixed824
    }

    public var sampleRate: Double
    public var encoding: Encoding
    public var channels: Int
    public var interleaved: Bool

    public init(sampleRate: Double, encoding: Encoding, channels: Int, interleaved: Bool) {
        self.sampleRate = sampleRate
        self.encoding = encoding
        self.channels = channels
        self.interleaved = interleaved
    }

    /// Why a description is refused (kAudioUnitErr_FormatNotSupported).
    public enum Refusal: Error, Equatable { case notLinearPCM, badRate, badChannels, badSample, inconsistentSizes }

    /// Format flag bits (CoreAudioTypes.h).
    public static let flagIsFloat: UInt32 = 1 << 0, flagIsBigEndian: UInt32 = 1 << 1, flagIsSigned: UInt32 = 1 << 2,
                      flagIsPacked: UInt32 = 1 << 3, flagIsNonInterleaved: UInt32 = 1 << 5
    static let fractionShift: UInt32 = 7, fractionMask: UInt32 = 0x3F << 7
    static let linearPCM: UInt32 = 0x6C70_636D

    /// Reads a description; every field must agree with the others.
    public init(formatID: UInt32, flags: UInt32, sampleRate: Double, bytesPerPacket: UInt32, framesPerPacket: UInt32,
                bytesPerFrame: UInt32, channelsPerFrame: UInt32, bitsPerChannel: UInt32) throws(Refusal) {
        guard formatID == Self.linearPCM else { throw .notLinearPCM }
        guard sampleRate.isFinite, sampleRate >= 8000, sampleRate <= 192_000 else { throw .badRate }
        guard channelsPerFrame >= 1, channelsPerFrame <= 8 else { throw .badChannels }
        guard flags & Self.flagIsBigEndian == 0 else { throw .badSample }
        let fraction = (flags & Self.fractionMask) >> Self.fractionShift
        let encoding: Encoding
        switch (flags & Self.flagIsFloat != 0, bitsPerChannel, fraction) {
        case (true, 32, 0): encoding = .float32
        case (false, 16, 0) where flags & Self.flagIsSigned != 0: encoding = .int16
        case (false, 32, 0) where flags & Self.flagIsSigned != 0: encoding = .int32
        case (false, 32, 24) where flags & Self.flagIsSigned != 0: encoding = .fixed824
        default: throw .badSample
        }
        let interleaved = flags & Self.flagIsNonInterleaved == 0
        let sampleBytes = UInt32(bitsPerChannel / 8)
        let frameBytes = interleaved ? sampleBytes * channelsPerFrame : sampleBytes
        guard framesPerPacket == 1, bytesPerFrame == frameBytes, bytesPerPacket == frameBytes else {
            throw .inconsistentSizes
        }
        self.init(sampleRate: sampleRate, encoding: encoding, channels: Int(channelsPerFrame), interleaved: interleaved)
    }

    public var bytesPerSample: Int { encoding == .int16 ? 2 : 4 }
    /// Bytes of one frame in one buffer.
    public var bytesPerFrame: Int { interleaved ? bytesPerSample * channels : bytesPerSample }
    public var bufferCount: Int { interleaved ? 1 : channels }
    public var channelsPerBuffer: Int { interleaved ? channels : 1 }

    public var formatFlags: UInt32 {
        var flags = Self.flagIsPacked | (interleaved ? 0 : Self.flagIsNonInterleaved)
        switch encoding {
        case .float32: flags |= Self.flagIsFloat
        case .int16, .int32: flags |= Self.flagIsSigned
        case .fixed824: flags |= Self.flagIsSigned | (24 << Self.fractionShift)
        }
        return flags
    }
    public var bitsPerChannel: UInt32 { UInt32(bytesPerSample * 8) }

    /// Sample `frame` of `channel` as a Float (full scale ±1), from the buffers laid out as
    /// this layout says.
    @inline(__always)
    func read(_ buffers: UnsafeMutablePointer<UnsafeMutableRawPointer?>, frame: Int, channel: Int) -> Float {
        let (buffer, index) = interleaved ? (0, frame * channels + channel) : (channel, frame)
        guard let base = buffers[buffer] else { return 0 }
        switch encoding {
        case .float32: return base.assumingMemoryBound(to: Float.self)[index]
        case .int16: return Float(base.assumingMemoryBound(to: Int16.self)[index]) / 32768
        case .int32: return Float(Double(base.assumingMemoryBound(to: Int32.self)[index]) / 2_147_483_648)
        case .fixed824: return Float(base.assumingMemoryBound(to: Int32.self)[index]) / 16_777_216
        }
    }

    /// Writes `value` (full scale ±1; clipped for the integer encodings).
    @inline(__always)
    func write(_ value: Float, _ buffers: UnsafeMutablePointer<UnsafeMutableRawPointer?>, frame: Int, channel: Int) {
        let (buffer, index) = interleaved ? (0, frame * channels + channel) : (channel, frame)
        guard let base = buffers[buffer] else { return }
        switch encoding {
        case .float32: base.assumingMemoryBound(to: Float.self)[index] = value
        case .int16:
            base.assumingMemoryBound(to: Int16.self)[index] = Int16(max(-32768, min(32767, (value * 32768).rounded())))
        case .int32:
            let scaled = (Double(value) * 2_147_483_648).rounded()
            base.assumingMemoryBound(to: Int32.self)[index] = Int32(max(-2_147_483_648, min(2_147_483_647, scaled)))
        case .fixed824:
            // 8.24 holds -128..<128: no clipping at ±1, as on the phone.
            let scaled = (Double(value) * 16_777_216).rounded()
            base.assumingMemoryBound(to: Int32.self)[index] = Int32(max(-2_147_483_648, min(2_147_483_647, scaled)))
        }
    }
}

/// Converts `frames` frames between two layouts of the same rate: each sample through a
/// Float, channels mapped (one to many copies it, many to one averages, otherwise channel
/// by channel, missing ones silent), scaled by `gain`. No allocation: the render path.
public func convertPCM(from source: PCMLayout, _ input: UnsafeMutablePointer<UnsafeMutableRawPointer?>,
                       to destination: PCMLayout, _ output: UnsafeMutablePointer<UnsafeMutableRawPointer?>,
                       frames: Int, gain: Float) {
    // The conversions every period of an I/O unit or a mixer's bus makes (one interleaved
    // layout to another of as many channels; one channel is laid out alike either way):
    // straight loops over the samples.
    let sourceFlat = source.interleaved || source.channels == 1
    let destinationFlat = destination.interleaved || destination.channels == 1
    // Non-interleaved on both sides, channel for channel (a unit's output pulled into the
    // caller's list): each buffer is a one-channel conversion of its own.
    if !sourceFlat && !destinationFlat && source.channels == destination.channels {
        let one = PCMLayout(sampleRate: source.sampleRate, encoding: source.encoding, channels: 1, interleaved: false)
        let oneOut = PCMLayout(sampleRate: destination.sampleRate, encoding: destination.encoding, channels: 1,
                               interleaved: false)
        for channel in 0..<source.channels {
            convertPCM(from: one, input + channel, to: oneOut, output + channel, frames: frames, gain: gain)
        }
        return
    }
    if sourceFlat && destinationFlat && source.channels == destination.channels,
       let from = input[0], let to = output[0] {
        let count = frames * source.channels
        switch (source.encoding, destination.encoding) {
        case (.int16, .float32):
            let a = from.assumingMemoryBound(to: Int16.self), b = to.assumingMemoryBound(to: Float.self)
            let scale = gain / 32768
            for i in 0..<count { b[i] = Float(a[i]) * scale }
            return
        case (.float32, .int16):
            let a = from.assumingMemoryBound(to: Float.self), b = to.assumingMemoryBound(to: Int16.self)
            for i in 0..<count { b[i] = Int16(max(-32768, min(32767, (a[i] * gain * 32768).rounded()))) }
            return
        case (.int16, .int16):
            let a = from.assumingMemoryBound(to: Int16.self), b = to.assumingMemoryBound(to: Int16.self)
            if gain == 1 {
                b.update(from: a, count: count)
            } else {
                for i in 0..<count { b[i] = Int16(max(-32768, min(32767, (Float(a[i]) * gain).rounded()))) }
            }
            return
        case (.float32, .float32):
            let a = from.assumingMemoryBound(to: Float.self), b = to.assumingMemoryBound(to: Float.self)
            if gain == 1 {
                if a != b { b.update(from: a, count: count) }
            } else {
                for i in 0..<count { b[i] = a[i] * gain }
            }
            return
        default:
            break
        }
    }
    // A mixer's sum (Float, interleaved) into the non-interleaved Float units default to.
    if source.encoding == .float32 && destination.encoding == .float32 && sourceFlat && !destinationFlat
        && source.channels == destination.channels, let from = input[0] {
        let a = from.assumingMemoryBound(to: Float.self)
        let channels = source.channels
        for channel in 0..<channels {
            guard let to = output[channel] else { continue }
            let b = to.assumingMemoryBound(to: Float.self)
            for frame in 0..<frames { b[frame] = a[frame * channels + channel] * gain }
        }
        return
    }
    for frame in 0..<frames {
        if source.channels == 1 {
            let value = source.read(input, frame: frame, channel: 0) * gain
            for channel in 0..<destination.channels { destination.write(value, output, frame: frame, channel: channel) }
        } else if destination.channels == 1 {
            var sum: Float = 0
            for channel in 0..<source.channels { sum += source.read(input, frame: frame, channel: channel) }
            destination.write(sum / Float(source.channels) * gain, output, frame: frame, channel: 0)
        } else {
            for channel in 0..<destination.channels {
                let value = channel < source.channels ? source.read(input, frame: frame, channel: channel) : 0
                destination.write(value * gain, output, frame: frame, channel: channel)
            }
        }
    }
}
