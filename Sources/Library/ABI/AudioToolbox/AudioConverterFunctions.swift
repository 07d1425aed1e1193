import AudioFiles
import CAudioToolbox
import CoreFoundation
import Resampling
import Runtime

// The Audio Converter functions of AudioConverter.h over AudioFiles.Converter.


private func converterHandle(_ ref: OpaquePointer?) throws(AudioFileStatus) -> ConverterHandle {
    guard let handle = converters.get(ref) else { throw .parameter }
    return handle
}

@_cdecl("AudioConverterNew")
public func audioConverterNew(_ from: UnsafePointer<AudioStreamBasicDescription>?, _ to: UnsafePointer<AudioStreamBasicDescription>?,
                              _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        guard let from, let to, let out else { throw .parameter }
        let converter = try Converter(from: StreamDescription(from.pointee), to: StreamDescription(to.pointee))
        out.pointee = converters.add(ConverterHandle(converter))
    }
}

@_cdecl("AudioConverterNewSpecific")
public func audioConverterNewSpecific(_ from: UnsafePointer<AudioStreamBasicDescription>?,
                                      _ to: UnsafePointer<AudioStreamBasicDescription>?, _ count: UInt32,
                                      _ classes: UnsafePointer<AudioClassDescription>?,
                                      _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    // One codec of each kind here: the class descriptions choose nothing.
    guard count == 0 || classes != nil else { return AudioFileStatus.parameter.code }
    return audioConverterNew(from, to, out)
}

@_cdecl("AudioConverterDispose")
public func audioConverterDispose(_ ref: OpaquePointer?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        guard converters.remove(ref) != nil else { throw .parameter }
    }
}

@_cdecl("AudioConverterReset")
public func audioConverterReset(_ ref: OpaquePointer?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try converterHandle(ref)
        try handle.serialized { () throws(AudioFileStatus) in handle.converter.reset() }
    }
}


private func converterProperty(_ c: Converter, _ id: UInt32) throws(AudioFileStatus) -> [UInt8] {
    switch Int(id) {
    case kAudioConverterCurrentInputStreamDescription: return bytesOf(c.source.c)
    case kAudioConverterCurrentOutputStreamDescription: return bytesOf(c.destination.c)
    case kAudioConverterInputChannelLayout:
        return c.inputLayout ?? defaultLayout(channels: c.source.channelsPerFrame)
    case kAudioConverterOutputChannelLayout:
        return c.outputLayout ?? defaultLayout(channels: c.destination.channelsPerFrame)
    case codecBitRateControlMode:
        guard c.encodes else { throw .converterPropertyNotSupported }
        return bytesOf(c.bitRateControlMode)
    case codecSoundQualityForVBR:
        guard c.encodes else { throw .converterPropertyNotSupported }
        return bytesOf(c.qualityForVBR)
    case kAudioConverterPropertyMinimumInputBufferSize, kAudioConverterPropertyMaximumInputPacketSize:
        return bytesOf(c.source.bytesPerPacket > 0 ? c.source.bytesPerPacket : 6144 * c.source.channelsPerFrame / 8 + 64)
    case kAudioConverterPropertyMinimumOutputBufferSize, kAudioConverterPropertyMaximumOutputPacketSize:
        return bytesOf(UInt32(c.maximumOutputPacketSize))
    case kAudioConverterCompressionMagicCookie, kAudioConverterDecompressionMagicCookie:
        guard !c.magicCookie.isEmpty else { throw .converterPropertyNotSupported }
        return (c.magicCookie)
    case kAudioConverterPrimeInfo:
        return bytesOf(AudioConverterPrimeInfo(leadingFrames: UInt32(c.priming), trailingFrames: 0))
    case kAudioConverterPrimeMethod: return bytesOf(UInt32(kConverterPrimeMethod_Normal))
    case kAudioConverterSampleRateConverterQuality: return bytesOf(UInt32(kAudioConverterQuality_High))
    case kAudioConverterSampleRateConverterComplexity: return bytesOf(UInt32(kAudioConverterSampleRateConverterComplexity_Normal))
    case kAudioConverterCodecQuality: return bytesOf(UInt32(kAudioConverterQuality_High))
    case kAudioConverterEncodeBitRate:
        guard c.encodes else { throw .converterPropertyNotSupported }
        return bytesOf(UInt32(clamping: c.bitRate))
    case kAudioConverterApplicableEncodeBitRates, kAudioConverterAvailableEncodeBitRates:
        guard c.encodes else { throw .converterPropertyNotSupported }
        return arrayBytes(AACEncoding.bitRates(channels: Int(c.destination.channelsPerFrame))
            .map { AudioValueRange(mMinimum: Double($0), mMaximum: Double($0)) })
    case kAudioConverterApplicableEncodeSampleRates, kAudioConverterAvailableEncodeSampleRates:
        guard c.encodes else { throw .converterPropertyNotSupported }
        return arrayBytes(AACEncoding.sampleRates.map { AudioValueRange(mMinimum: $0, mMaximum: $0) })
    case kAudioConverterChannelMap:
        let map = c.channelMap ?? (0..<Int(c.destination.channelsPerFrame)).map { $0 < Int(c.source.channelsPerFrame) ? $0 : -1 }
        return (arrayBytes(map.map(Int32.init)))
    case 0x6372_6669: return bytesOf(1)  // kAudioConverterPropertyCanResumeFromInterruption (declared for iPhone code only)
    default: throw .converterPropertyNotSupported
    }
}

// AudioCodec.h's encoder properties, which AudioConverterSetProperty passes to the codec.
private let codecBitRateControlMode = 0x6163_6266   // 'acbf'
private let codecSoundQualityForVBR = 0x7662_7271   // 'vbrq'

/// A layout for `channels` channels as a tag: mono, stereo, or that many in order.
private func defaultLayout(channels: UInt32) -> [UInt8] {
    var layout = AudioChannelLayout()
    layout.mChannelLayoutTag = channels == 1 ? UInt32(kAudioChannelLayoutTag_Mono)
        : channels == 2 ? UInt32(kAudioChannelLayoutTag_Stereo) : UInt32(kAudioChannelLayoutTag_DiscreteInOrder) | channels
    return withUnsafeBytes(of: &layout) { Array($0) }
}

/// The channels an AudioChannelLayout of `size` bytes names: by its tag, its bitmap, or
/// its descriptions (which must all be there). nil for a layout too short for itself.
private func layoutChannels(_ data: UnsafeRawPointer, _ size: UInt32) -> UInt32? {
    let header = MemoryLayout<AudioChannelLayout>.offset(of: \.mChannelDescriptions)!
    guard Int(size) >= header else { return nil }
    let tag = data.loadUnaligned(as: UInt32.self)
    switch tag {
    case UInt32(kAudioChannelLayoutTag_UseChannelDescriptions):
        let count = data.loadUnaligned(fromByteOffset: 8, as: UInt32.self)
        guard count <= 64, Int(size) >= header + Int(count) * MemoryLayout<AudioChannelDescription>.stride else { return nil }
        return count
    case UInt32(kAudioChannelLayoutTag_UseChannelBitmap):
        return UInt32(data.loadUnaligned(fromByteOffset: 4, as: UInt32.self).nonzeroBitCount)
    default:
        return tag & 0xFFFF
    }
}

@_cdecl("AudioConverterGetPropertyInfo")
public func audioConverterGetPropertyInfo(_ ref: OpaquePointer?, _ id: UInt32, _ outSize: UnsafeMutablePointer<UInt32>?,
                                          _ outWritable: UnsafeMutablePointer<UInt8>?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try converterHandle(ref)
        let value = try handle.serialized { () throws(AudioFileStatus) in try converterProperty(handle.converter, id) }
        outSize?.pointee = UInt32(value.count)
        var writable: Set<Int> = [kAudioConverterDecompressionMagicCookie, kAudioConverterChannelMap,
                                  kAudioConverterSampleRateConverterQuality, kAudioConverterSampleRateConverterComplexity,
                                  kAudioConverterCodecQuality, kAudioConverterPrimeMethod,
                                  kAudioConverterInputChannelLayout, kAudioConverterOutputChannelLayout]
        if handle.converter.encodes {
            writable.formUnion([kAudioConverterEncodeBitRate, codecBitRateControlMode, codecSoundQualityForVBR])
        }
        outWritable?.pointee = writable.contains(Int(id)) ? 1 : 0
    }
}

@_cdecl("AudioConverterGetProperty")
public func audioConverterGetProperty(_ ref: OpaquePointer?, _ id: UInt32, _ ioSize: UnsafeMutablePointer<UInt32>?,
                                      _ out: UnsafeMutableRawPointer?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try converterHandle(ref)
        let value = try handle.serialized { () throws(AudioFileStatus) in try converterProperty(handle.converter, id) }
        let bad = AudioFileStatus.converterBadPropertySize
        try storeBytes(value, ioSize, out, badSize: bad)
    }
}

@_cdecl("AudioConverterSetProperty")
public func audioConverterSetProperty(_ ref: OpaquePointer?, _ id: UInt32, _ size: UInt32, _ data: UnsafeRawPointer?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try converterHandle(ref)
        guard let data else { throw .parameter }
        let c = handle.converter
        try handle.serialized { () throws(AudioFileStatus) in
            switch Int(id) {
            case kAudioConverterDecompressionMagicCookie:
                guard size > 0, size <= 1 << 20 else { throw .converterBadPropertySize }
                try c.setDecompressionCookie(Array(UnsafeRawBufferPointer(start: data, count: Int(size))))
            case kAudioConverterChannelMap:
                let count = Int(c.destination.channelsPerFrame)
                guard Int(size) == count * 4 else { throw .converterBadPropertySize }
                let map = (0..<count).map { Int(data.loadUnaligned(fromByteOffset: $0 * 4, as: Int32.self)) }
                guard map.allSatisfy({ $0 >= -1 && $0 < Int(c.source.channelsPerFrame) }) else { throw .parameter }
                c.channelMap = map
            case kAudioConverterSampleRateConverterQuality:
                guard size == 4 else { throw .converterBadPropertySize }
                let q = data.loadUnaligned(as: UInt32.self)
                c.quality = q >= UInt32(kAudioConverterQuality_High) ? .best
                    : q >= UInt32(kAudioConverterQuality_Medium) ? .medium : .fastest
            case kAudioConverterSampleRateConverterComplexity:
                guard size == 4 else { throw .converterBadPropertySize }
                switch data.loadUnaligned(as: UInt32.self) {
                case UInt32(kAudioConverterSampleRateConverterComplexity_Linear): c.quality = .linear
                case UInt32(kAudioConverterSampleRateConverterComplexity_Normal): c.quality = .medium
                case UInt32(kAudioConverterSampleRateConverterComplexity_Mastering): c.quality = .best
                default: throw .parameter
                }
            case kAudioConverterEncodeBitRate:
                guard size == 4 else { throw .converterBadPropertySize }
                try c.setEncodeBitRate(Int64(data.loadUnaligned(as: UInt32.self)))
            case kAudioConverterCodecQuality, kAudioConverterPrimeMethod:
                guard size == 4 else { throw .converterBadPropertySize }
            case kAudioConverterInputChannelLayout, kAudioConverterOutputChannelLayout:
                // By the stereo tag, a bitmap or channel descriptions: it must name the
                // format's channels.
                guard let channels = layoutChannels(data, size) else { throw .converterBadPropertySize }
                let input = Int(id) == kAudioConverterInputChannelLayout
                guard channels == (input ? c.source : c.destination).channelsPerFrame else { throw .parameter }
                let bytes = Array(UnsafeRawBufferPointer(start: data, count: Int(size)))
                if input { c.inputLayout = bytes } else { c.outputLayout = bytes }
            case codecBitRateControlMode:
                guard c.encodes else { throw .converterPropertyNotSupported }
                guard size == 4 else { throw .converterBadPropertySize }
                let mode = data.loadUnaligned(as: UInt32.self)
                guard mode <= 3 else { throw .parameter }  // Constant, LongTermAverage, VariableConstrained, Variable
                c.bitRateControlMode = mode
            case codecSoundQualityForVBR:
                guard c.encodes else { throw .converterPropertyNotSupported }
                guard size == 4 else { throw .converterBadPropertySize }
                let quality = data.loadUnaligned(as: UInt32.self)
                guard quality <= 127 else { throw .parameter }
                c.qualityForVBR = quality
            default:
                throw .converterPropertyNotSupported
            }
        }
    }
}

/// Calls the program's input procedure and reads what it gave.
private func callInput(_ proc: AudioConverterComplexInputDataProc, _ ref: OpaquePointer, _ userData: UnsafeMutableRawPointer?,
                       _ wanted: Int, sourceBuffers: Int, needsDescriptions: Bool) -> ConverterInput {
    var packets = UInt32(max(1, wanted))
    let list = BufferListView.allocate(buffers: max(1, sourceBuffers))
    defer { list.deallocate() }
    var descriptions: UnsafeMutablePointer<AudioStreamPacketDescription>?
    let status = withUnsafeMutablePointer(to: &descriptions) { d in
        proc(ref, &packets, list.list, needsDescriptions ? d : nil, userData)
    }
    if status != 0 && packets == 0 { return .failed(status) }
    if packets == 0 { return .end }
    var buffers: [UnsafeRawPointer] = []
    var sizes: [Int] = []
    for buffer in list {
        guard let data = buffer.mData else { return .failed(AudioFileStatus.parameter.code) }
        buffers.append(UnsafeRawPointer(data))
        sizes.append(Int(buffer.mDataByteSize))
    }
    let swift = descriptions.map { d in
        (0..<Int(packets)).map { PacketDescription(startOffset: d[$0].mStartOffset, variableFrames: d[$0].mVariableFramesInPacket,
                                                   byteSize: d[$0].mDataByteSize) }
    }
    return .packets(buffers: buffers, byteSizes: sizes, count: Int(packets), descriptions: swift)
}

@_cdecl("AudioConverterFillComplexBuffer")
public func audioConverterFillComplexBuffer(_ ref: OpaquePointer?, _ proc: AudioConverterComplexInputDataProc?,
                                            _ userData: UnsafeMutableRawPointer?, _ ioPackets: UnsafeMutablePointer<UInt32>?,
                                            _ outList: UnsafeMutablePointer<AudioBufferList>?,
                                            _ outDescriptions: UnsafeMutablePointer<AudioStreamPacketDescription>?) -> Int32 {
    var failure: Int32 = 0
    let status = fileCall { () throws(AudioFileStatus) in
        let handle = try converterHandle(ref)
        guard let ref, let proc, let ioPackets, let outList else { throw .parameter }
        let c = handle.converter
        let abl = BufferListView(outList)
        var targets: [(UnsafeMutableRawPointer, Int)] = []
        for buffer in abl {
            guard let data = buffer.mData else { throw .parameter }
            targets.append((data, Int(buffer.mDataByteSize)))
        }
        let wanted = Int(ioPackets.pointee)
        let sourceBuffers = c.source.isLinearPCM && c.source.formatFlags & Flags.nonInterleaved != 0 ? Int(c.source.channelsPerFrame) : 1
        let needsDescriptions = !c.source.isConstantBitRate
        var swift = [PacketDescription](repeating: PacketDescription(startOffset: 0, variableFrames: 0, byteSize: 0), count: wanted)
        let result = try handle.serialized { () throws(AudioFileStatus) in
            try swift.withUnsafeMutableBufferPointer { (d) throws(AudioFileStatus) in
                try c.fill(packets: wanted, into: targets, descriptions: d.baseAddress) { n in
                    callInput(proc, ref, userData, n, sourceBuffers: sourceBuffers, needsDescriptions: needsDescriptions)
                }
            }
        }
        ioPackets.pointee = UInt32(result.packets)
        for i in 0..<abl.count { abl[i].mDataByteSize = UInt32(result.bytes[min(i, result.bytes.count - 1)]) }
        if let outDescriptions, !c.destination.isLinearPCM {
            for i in 0..<result.packets {
                outDescriptions[i] = AudioStreamPacketDescription(mStartOffset: swift[i].startOffset, mVariableFramesInPacket: 0,
                                                                  mDataByteSize: swift[i].byteSize)
            }
        }
        failure = result.failure ?? 0
    }
    return status != 0 ? status : failure
}

/// For ConvertBuffer and ConvertComplexBuffer: one input, handed over once.
private final class OneShot {
    var given = false
}

@_cdecl("AudioConverterConvertBuffer")
public func audioConverterConvertBuffer(_ ref: OpaquePointer?, _ inSize: UInt32, _ input: UnsafeRawPointer?,
                                        _ ioOutSize: UnsafeMutablePointer<UInt32>?, _ output: UnsafeMutableRawPointer?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try converterHandle(ref)
        guard let input, let ioOutSize, let output else { throw .parameter }
        let c = handle.converter
        // Only for conversions of fixed ratio between interleaved linear PCM formats.
        guard c.source.isLinearPCM, c.destination.isLinearPCM, c.source.sampleRate == c.destination.sampleRate,
              c.source.formatFlags & Flags.nonInterleaved == 0 || c.source.channelsPerFrame == 1,
              c.destination.formatFlags & Flags.nonInterleaved == 0 || c.destination.channelsPerFrame == 1 else {
            throw .converterOperationNotSupported
        }
        let inFrame = Int(c.source.bytesPerFrame), outFrame = Int(c.destination.bytesPerFrame)
        guard Int(inSize) % inFrame == 0 else { throw .converterInvalidInputSize }
        let frames = Int(inSize) / inFrame
        guard Int(ioOutSize.pointee) >= frames * outFrame else { throw .converterInvalidOutputSize }
        let once = OneShot()
        let result = try handle.serialized { () throws(AudioFileStatus) in
            c.reset()
            return try c.fill(packets: frames, into: [(output, frames * outFrame)], descriptions: nil) { _ in
                if once.given { return .end }
                once.given = true
                return .packets(buffers: [input], byteSizes: [Int(inSize)], count: frames, descriptions: nil)
            }
        }
        ioOutSize.pointee = UInt32(result.packets * outFrame)
    }
}

@_cdecl("AudioConverterConvertComplexBuffer")
public func audioConverterConvertComplexBuffer(_ ref: OpaquePointer?, _ frames: UInt32, _ input: UnsafePointer<AudioBufferList>?,
                                               _ output: UnsafeMutablePointer<AudioBufferList>?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try converterHandle(ref)
        guard let input, let output else { throw .parameter }
        let c = handle.converter
        guard c.source.isLinearPCM, c.destination.isLinearPCM, c.source.sampleRate == c.destination.sampleRate else {
            throw .converterOperationNotSupported
        }
        let inList = BufferListView(UnsafeMutablePointer(mutating: input))
        let outList = BufferListView(output)
        var sources: [UnsafeRawPointer] = [], sizes: [Int] = []
        for b in inList {
            guard let d = b.mData else { throw .parameter }
            sources.append(UnsafeRawPointer(d))
            sizes.append(Int(b.mDataByteSize))
        }
        var targets: [(UnsafeMutableRawPointer, Int)] = []
        for b in outList {
            guard let d = b.mData else { throw .parameter }
            targets.append((d, Int(b.mDataByteSize)))
        }
        let once = OneShot()
        let result = try handle.serialized { () throws(AudioFileStatus) in
            c.reset()
            return try c.fill(packets: Int(frames), into: targets, descriptions: nil) { _ in
                if once.given { return .end }
                once.given = true
                return .packets(buffers: sources, byteSizes: sizes, count: Int(frames), descriptions: nil)
            }
        }
        guard result.packets == Int(frames) else { throw .converterInvalidOutputSize }
        for i in 0..<outList.count { outList[i].mDataByteSize = UInt32(result.bytes[min(i, result.bytes.count - 1)]) }
    }
}
