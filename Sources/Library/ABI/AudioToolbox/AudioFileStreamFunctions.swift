import AudioFiles
import CAudioToolbox
import Runtime

// Audio File Stream Services (AudioFileStream.h) over AudioFiles.AudioFileStreamParser: the
// program's callbacks, the handle checks and the property values in C form.


func streamHandle(_ id: OpaquePointer?) throws(AudioFileStatus) -> FileStreamHandle {
    guard let handle = fileStreams.get(id) else { throw id == nil ? .parameter : .streamIllegalOperation }
    return handle
}

@_cdecl("AudioFileStreamOpen")
public func audioFileStreamOpen(_ clientData: UnsafeMutableRawPointer?, _ listener: AudioFileStream_PropertyListenerProc?,
                                _ packets: AudioFileStream_PacketsProc?, _ hint: UInt32,
                                _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        // The content decides the container; the hint is not needed.
        guard let listener, let packets, let out else { throw .parameter }
        out.pointee = FileFamily.openStream(clientData: clientData, listener: listener, packets: packets)
    }
}

@_cdecl("AudioFileStreamParseBytes")
public func audioFileStreamParseBytes(_ stream: OpaquePointer?, _ size: UInt32, _ data: UnsafeRawPointer?, _ flags: UInt32) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try streamHandle(stream)
        guard data != nil || size == 0 else { throw .parameter }
        try handle.serialized { () throws(AudioFileStatus) in
            let id = stream!
            try handle.parser.parse(UnsafeRawBufferPointer(start: data, count: Int(size)),
                                    discontinuity: flags & UInt32(kAudioFileStreamParseFlag_Discontinuity) != 0,
                                    property: { property in
                                        // Every value stays available after the call: the parser keeps them all.
                                        var flags = UInt32(kAudioFileStreamPropertyFlag_PropertyIsCached)
                                        handle.listener(handle.clientData, id, property, &flags)
                                    },
                                    packets: { bytes, count, descriptions in
                                        handle.packets(handle.clientData, UInt32(bytes.count), UInt32(count),
                                                       bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!,
                                                       descriptions.map { cDescriptions(handle, $0, count) })
                                    })
        }
    }
}

/// The packet descriptions in C form (the same fields; copied so the layouts need not match).
func cDescriptions(_ handle: FileStreamHandle, _ from: UnsafeMutablePointer<PacketDescription>,
                           _ count: Int) -> UnsafeMutablePointer<AudioStreamPacketDescription> {
    if count > handle.cCapacity {
        handle.cDescriptions.deallocate()
        handle.cCapacity = max(count, handle.cCapacity * 2)
        handle.cDescriptions = .allocate(capacity: handle.cCapacity)
    }
    for i in 0..<count {
        handle.cDescriptions[i] = AudioStreamPacketDescription(mStartOffset: from[i].startOffset,
                                                               mVariableFramesInPacket: from[i].variableFrames,
                                                               mDataByteSize: from[i].byteSize)
    }
    return handle.cDescriptions
}

@_cdecl("AudioFileStreamSeek")
public func audioFileStreamSeek(_ stream: OpaquePointer?, _ packet: Int64, _ outOffset: UnsafeMutablePointer<Int64>?,
                                _ ioFlags: UnsafeMutablePointer<UInt32>?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try streamHandle(stream)
        guard let outOffset, let ioFlags else { throw .parameter }
        let (offset, estimated) = try handle.serialized { () throws(AudioFileStatus) in try handle.parser.seek(packet: packet) }
        outOffset.pointee = offset
        ioFlags.pointee = estimated ? UInt32(kAudioFileStreamSeekFlag_OffsetIsEstimated) : 0
    }
}

/// A property's value from what the stream has parsed (AudioFiles' FileProperties), or
/// the code saying why there is none yet.
func streamProperty(_ p: AudioFileStreamParser, _ id: UInt32) throws(AudioFileStatus) -> [UInt8] {
    try FileProperties.value(id, of: p.facts, unknown: .streamValueUnknown)
}


@_cdecl("AudioFileStreamGetPropertyInfo")
public func audioFileStreamGetPropertyInfo(_ stream: OpaquePointer?, _ id: UInt32, _ outSize: UnsafeMutablePointer<UInt32>?,
                                           _ outWritable: UnsafeMutablePointer<UInt8>?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try streamHandle(stream)
        let size = FileTranslations.isTranslation(id) ? FileTranslations.size
            : try handle.serialized { () throws(AudioFileStatus) in try streamProperty(handle.parser, id) }.count
        outSize?.pointee = UInt32(size)
        outWritable?.pointee = 0
    }
}

@_cdecl("AudioFileStreamGetProperty")
public func audioFileStreamGetProperty(_ stream: OpaquePointer?, _ id: UInt32, _ ioSize: UnsafeMutablePointer<UInt32>?,
                                       _ out: UnsafeMutableRawPointer?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try streamHandle(stream)
        guard let ioSize, let out else { throw .parameter }
        try handle.serialized { () throws(AudioFileStatus) in
            if FileTranslations.isTranslation(id) {
                try translate(handle.parser, id, ioSize.pointee, out)
                return
            }
            try storeBytes(try streamProperty(handle.parser, id), ioSize, out, badSize: .badPropertySize)
        }
    }
}

/// The four translations, once the header is known: by the average packet so far.
func translate(_ p: AudioFileStreamParser, _ id: UInt32, _ size: UInt32, _ out: UnsafeMutableRawPointer) throws(AudioFileStatus) {
    guard let info = p.info else { throw .streamValueUnknown }
    try FileTranslations.translate(id, in: out, capacity: Int(size), framesPerPacket: info.format.framesPerPacket) {
        () throws(AudioFileStatus) in
        guard let average = p.averageBytesPerPacket, average > 0 else { throw .streamValueUnknown }
        return .average(bytesPerPacket: average, exact: info.format.isConstantBitRate)
    }
}

@_cdecl("AudioFileStreamSetProperty")
public func audioFileStreamSetProperty(_ stream: OpaquePointer?, _ id: UInt32, _ size: UInt32, _ data: UnsafeRawPointer?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try streamHandle(stream)
        guard data != nil else { throw .parameter }
        // Every property comes from the stream: none is set by the program.
        _ = try handle.serialized { () throws(AudioFileStatus) in
            if FileTranslations.isTranslation(id) { throw .streamIllegalOperation }
            do throws(AudioFileStatus) { _ = try streamProperty(handle.parser, id) } catch where error == .unsupportedProperty {
                throw error
            } catch {}
            throw .streamIllegalOperation
        }
    }
}

@_cdecl("AudioFileStreamClose")
public func audioFileStreamClose(_ stream: OpaquePointer?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        guard let handle = fileStreams.remove(stream) else { throw stream == nil ? .parameter : .streamIllegalOperation }
        // Closed from inside one of its own callbacks: parsing stops when that returns,
        // and the parser is freed when the ParseBytes call that ran it lets it go.
        handle.parser.cancelled = true
    }
}
