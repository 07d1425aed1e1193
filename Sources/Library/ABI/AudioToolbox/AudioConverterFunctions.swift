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
        out.pointee = try FileFamily.newConverter(from: StreamDescription(from.pointee), to: StreamDescription(to.pointee))
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


// The properties are the converter family's table (AudioFiles.ConverterProperties).

@_cdecl("AudioConverterGetPropertyInfo")
public func audioConverterGetPropertyInfo(_ ref: OpaquePointer?, _ id: UInt32, _ outSize: UnsafeMutablePointer<UInt32>?,
                                          _ outWritable: UnsafeMutablePointer<UInt8>?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try converterHandle(ref)
        let value = try handle.serialized { () throws(AudioFileStatus) in try ConverterProperties.value(handle.converter, id) }
        outSize?.pointee = UInt32(value.count)
        outWritable?.pointee = ConverterProperties.isWritable(handle.converter, id) ? 1 : 0
    }
}

@_cdecl("AudioConverterGetProperty")
public func audioConverterGetProperty(_ ref: OpaquePointer?, _ id: UInt32, _ ioSize: UnsafeMutablePointer<UInt32>?,
                                      _ out: UnsafeMutableRawPointer?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try converterHandle(ref)
        let value = try handle.serialized { () throws(AudioFileStatus) in try ConverterProperties.value(handle.converter, id) }
        try storeBytes(value, ioSize, out, badSize: .converterBadPropertySize)
    }
}

@_cdecl("AudioConverterSetProperty")
public func audioConverterSetProperty(_ ref: OpaquePointer?, _ id: UInt32, _ size: UInt32, _ data: UnsafeRawPointer?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try converterHandle(ref)
        guard let data else { throw .parameter }
        try handle.serialized { () throws(AudioFileStatus) in
            try ConverterProperties.set(handle.converter, id, UnsafeRawBufferPointer(start: data, count: Int(size)))
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
