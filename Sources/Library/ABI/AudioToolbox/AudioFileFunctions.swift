import AudioFiles
import CAudioToolbox
import CoreFoundation
import Runtime

// The Audio File Services functions of AudioFile.h: handles checked, C structures read
// and written, result codes. The files themselves are AudioFiles.AudioFileReader and
// AudioFileWriter.

func openForReading(_ source: ByteSource, hint: UInt32, _ out: UnsafeMutablePointer<OpaquePointer?>?) throws(AudioFileStatus) {
    guard let out else { throw .parameter }
    out.pointee = try FileFamily.openReading(source)
}

@_cdecl("AudioFileOpenURL")
public func audioFileOpenURL(_ url: CFURL?, _ permissions: Int8, _ hint: UInt32, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        guard let path = filePath(url), out != nil else { throw .parameter }
        // Reading only: a file open for writing is made with AudioFileCreateWithURL.
        guard permissions == Int8(kAudioFileReadPermission) else {
            throw permissions & ~Int8(kAudioFileReadWritePermission) != 0 || permissions == 0 ? .parameter : .operationNotSupported
        }
        try openForReading(try DescriptorSource.open(path: path), hint: hint, out)
    }
}

@_cdecl("AudioFileOpenWithCallbacks")
public func audioFileOpenWithCallbacks(_ clientData: UnsafeMutableRawPointer?, _ readProc: AudioFile_ReadProc?,
                                       _ writeProc: AudioFile_WriteProc?, _ sizeProc: AudioFile_GetSizeProc?,
                                       _ setSizeProc: AudioFile_SetSizeProc?, _ hint: UInt32,
                                       _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        guard let readProc, let sizeProc, out != nil else { throw .parameter }
        // Writing through callbacks is not there yet.
        guard writeProc == nil else { throw .operationNotSupported }
        let source = CallbackSource(read: { position, buffer, count in
            var actual: UInt32 = 0
            let status = readProc(clientData, position, UInt32(clamping: count), buffer, &actual)
            // End of file is a short read, whatever code came with it.
            if status != 0 && actual == 0 && status != kAudioFileEndOfFileError { return nil }
            return Int(min(actual, UInt32(clamping: count)))
        }, size: {
            let size = sizeProc(clientData)
            return size >= 0 ? size : nil
        })
        try openForReading(source, hint: hint, out)
    }
}

@_cdecl("AudioFileCreateWithURL")
public func audioFileCreateWithURL(_ url: CFURL?, _ type: UInt32, _ format: UnsafePointer<AudioStreamBasicDescription>?,
                                   _ flags: UInt32, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        guard let path = filePath(url), let format, let out else { throw .parameter }
        out.pointee = try FileFamily.create(path: path, type: type, format: StreamDescription(format.pointee),
                                            erase: flags & UInt32(kAudioFileFlags_EraseFile) != 0)
    }
}

@_cdecl("AudioFileInitializeWithCallbacks")
public func audioFileInitializeWithCallbacks(_ clientData: UnsafeMutableRawPointer?, _ readProc: AudioFile_ReadProc?,
                                             _ writeProc: AudioFile_WriteProc?, _ sizeProc: AudioFile_GetSizeProc?,
                                             _ setSizeProc: AudioFile_SetSizeProc?, _ type: UInt32,
                                             _ format: UnsafePointer<AudioStreamBasicDescription>?, _ flags: UInt32,
                                             _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        guard let writeProc, let format, let out else { throw .parameter }
        _ = (readProc, sizeProc, flags)  // written start to end: nothing is read back
        // The file is written start to end, then its header patched: the program's write
        // procedure must take every byte it is given.
        let sink = CallbackSink(write: { position, bytes in
            var actual: UInt32 = 0
            let status = writeProc(clientData, position, UInt32(bytes.count), bytes.baseAddress!, &actual)
            return status == noErr && actual == UInt32(bytes.count)
        }, setSize: { size in
            setSizeProc.map { $0(clientData, size) == noErr } ?? true
        })
        out.pointee = try FileFamily.create(sink: sink, type: type, format: StreamDescription(format.pointee))
    }
}

@_cdecl("AudioFileClose")
public func audioFileClose(_ id: OpaquePointer?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        guard let handle = audioFiles.remove(id) else { throw id == nil ? .parameter : .notOpen }
        if case .writing(let writer) = handle.role, !handle.ownedByExtendedFile {
            try handle.serialized { () throws(AudioFileStatus) in try writer.close() }
        }
    }
}

@_cdecl("AudioFileOptimize")
public func audioFileOptimize(_ id: OpaquePointer?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in _ = try fileHandle(id) }
}

@_cdecl("AudioFileReadBytes")
public func audioFileReadBytes(_ id: OpaquePointer?, _ useCache: UInt8, _ start: Int64, _ ioBytes: UnsafeMutablePointer<UInt32>?,
                               _ out: UnsafeMutableRawPointer?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try fileHandle(id)
        guard let ioBytes, let out else { throw .parameter }
        guard case .reading(let reader) = handle.role else { throw .permissions }
        let got = try handle.serialized { () throws(AudioFileStatus) in
            try reader.readBytes(at: start, count: Int(ioBytes.pointee), into: out)
        }
        let asked = ioBytes.pointee
        ioBytes.pointee = UInt32(got)
        if got < Int(asked) { throw .endOfFile }
    }
}

@_cdecl("AudioFileWriteBytes")
public func audioFileWriteBytes(_ id: OpaquePointer?, _ useCache: UInt8, _ start: Int64, _ ioBytes: UnsafeMutablePointer<UInt32>?,
                                _ data: UnsafeRawPointer?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try fileHandle(id)
        guard let ioBytes, let data else { throw .parameter }
        guard case .writing(let writer) = handle.role else { throw .permissions }
        try handle.serialized { () throws(AudioFileStatus) in try writer.writeBytes(data, count: Int(ioBytes.pointee), at: start) }
    }
}

/// ReadPacketData and ReadPackets: packets from `start` into the buffer.
func readPackets(_ id: OpaquePointer?, _ ioBytes: UnsafeMutablePointer<UInt32>?, bytesIn: Bool,
                         _ descriptions: UnsafeMutablePointer<AudioStreamPacketDescription>?, _ start: Int64,
                         _ ioPackets: UnsafeMutablePointer<UInt32>?, _ out: UnsafeMutableRawPointer?) throws(AudioFileStatus) {
    let handle = try fileHandle(id)
    guard let ioPackets else { throw .parameter }
    guard case .reading(let reader) = handle.role else { throw .permissions }
    let wanted = Int(ioPackets.pointee)
    // ReadPackets trusts the buffer to hold the packets at their largest size.
    let capacity = bytesIn ? Int(ioBytes?.pointee ?? 0) : wanted * Int(max(1, reader.maximumPacketSize))
    guard bytesIn ? ioBytes != nil : true else { throw .parameter }
    guard start >= 0 else { throw .invalidPacketOffset }
    if !reader.format.isConstantBitRate && descriptions == nil && out != nil { throw .parameter }
    var swiftDescriptions = [PacketDescription](repeating: PacketDescription(startOffset: 0, variableFrames: 0, byteSize: 0),
                                                count: reader.format.isConstantBitRate ? 0 : wanted)
    let (packets, bytes) = try handle.serialized { () throws(AudioFileStatus) in
        try swiftDescriptions.withUnsafeMutableBufferPointer { (d) throws(AudioFileStatus) in
            try reader.readPackets(from: start, count: wanted, capacity: capacity, into: out, descriptions: d.baseAddress)
        }
    }
    if let descriptions, !reader.format.isConstantBitRate {
        for i in 0..<packets {
            let d = swiftDescriptions[i]
            descriptions[i] = AudioStreamPacketDescription(mStartOffset: d.startOffset, mVariableFramesInPacket: d.variableFrames,
                                                           mDataByteSize: d.byteSize)
        }
    }
    ioPackets.pointee = UInt32(packets)
    ioBytes?.pointee = UInt32(bytes)
    // At the end, AudioFileReadPacketData says so ('eof?'); AudioFileReadPackets reads no
    // packet and succeeds, which Apple's players and offline-render sample rely on.
    if bytesIn && packets == 0 && wanted > 0 && start >= reader.packetCount { throw .endOfFile }
}

@_cdecl("AudioFileReadPacketData")
public func audioFileReadPacketData(_ id: OpaquePointer?, _ useCache: UInt8, _ ioBytes: UnsafeMutablePointer<UInt32>?,
                                    _ descriptions: UnsafeMutablePointer<AudioStreamPacketDescription>?, _ start: Int64,
                                    _ ioPackets: UnsafeMutablePointer<UInt32>?, _ out: UnsafeMutableRawPointer?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in try readPackets(id, ioBytes, bytesIn: true, descriptions, start, ioPackets, out) }
}

@_cdecl("AudioFileReadPackets")
public func audioFileReadPackets(_ id: OpaquePointer?, _ useCache: UInt8, _ outBytes: UnsafeMutablePointer<UInt32>?,
                                 _ descriptions: UnsafeMutablePointer<AudioStreamPacketDescription>?, _ start: Int64,
                                 _ ioPackets: UnsafeMutablePointer<UInt32>?, _ out: UnsafeMutableRawPointer?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in try readPackets(id, outBytes, bytesIn: false, descriptions, start, ioPackets, out) }
}

@_cdecl("AudioFileWritePackets")
public func audioFileWritePackets(_ id: OpaquePointer?, _ useCache: UInt8, _ bytes: UInt32,
                                  _ descriptions: UnsafePointer<AudioStreamPacketDescription>?, _ start: Int64,
                                  _ ioPackets: UnsafeMutablePointer<UInt32>?, _ data: UnsafeRawPointer?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try fileHandle(id)
        guard let ioPackets, let data else { throw .parameter }
        guard case .writing(let writer) = handle.role else { throw .permissions }
        let count = Int(ioPackets.pointee)
        let swift = descriptions.map { d in
            (0..<count).map { PacketDescription(startOffset: d[$0].mStartOffset, variableFrames: d[$0].mVariableFramesInPacket,
                                                byteSize: d[$0].mDataByteSize) }
        }
        try handle.serialized { () throws(AudioFileStatus) in
            try writer.writePackets(data, byteCount: Int(bytes), descriptions: swift, packets: count, startingPacket: start)
        }
    }
}
