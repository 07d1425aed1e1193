import AudioFiles
import CAudioToolbox
import CoreFoundation
import Runtime

// The Extended Audio File functions of ExtendedAudioFile.h over AudioFiles'
// ExtendedAudioFileReader and ExtendedAudioFileWriter.


private func extHandle(_ ref: OpaquePointer?) throws(AudioFileStatus) -> ExtAudioFileHandle {
    guard let handle = extAudioFiles.get(ref) else { throw ref == nil ? .parameter : .notOpen }
    return handle
}


@_cdecl("ExtAudioFileOpenURL")
public func extAudioFileOpenURL(_ url: CFURL?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        guard let path = filePath(url), let out else { throw .parameter }
        out.pointee = try FileFamily.extended { () throws(AudioFileStatus) in
            try FileFamily.openReading(try DescriptorSource.open(path: path))
        }
    }
}

@_cdecl("ExtAudioFileWrapAudioFileID")
public func extAudioFileWrapAudioFileID(_ id: OpaquePointer?, _ forWriting: UInt8, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        guard let file = audioFiles.get(id), let id, let out else { throw .parameter }
        if case .reading = file.role, forWriting != 0 { throw .permissions }
        out.pointee = try FileFamily.wrap(file, id, owns: false)
    }
}

@_cdecl("ExtAudioFileCreateWithURL")
public func extAudioFileCreateWithURL(_ url: CFURL?, _ type: UInt32, _ format: UnsafePointer<AudioStreamBasicDescription>?,
                                      _ layout: UnsafePointer<AudioChannelLayout>?, _ flags: UInt32,
                                      _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        guard let path = filePath(url), let format, let out else { throw .parameter }
        var description = StreamDescription(format.pointee)
        // A compressed format need only name its ID, rate and channels, as iPhone code
        // writes it: the rest is the codec's (Audio Format's completion). Linear PCM is
        // taken as given: a description that does not add up is refused, not mended.
        if !description.isLinearPCM, let whole = try? description.completed(cookie: nil) { description = whole }
        out.pointee = try FileFamily.extended { () throws(AudioFileStatus) in
            try FileFamily.create(path: path, type: type, format: description, erase: flags & UInt32(kAudioFileFlags_EraseFile) != 0)
        }
    }
}

@_cdecl("ExtAudioFileDispose")
public func extAudioFileDispose(_ ref: OpaquePointer?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        guard let handle = extAudioFiles.remove(ref) else { throw ref == nil ? .parameter : .notOpen }
        var failure: AudioFileStatus?
        if case .writing(let w) = handle.role {
            do throws(AudioFileStatus) { try handle.serialized { () throws(AudioFileStatus) in try w.close() } } catch { failure = error }
        }
        if handle.ownsFile { _ = audioFiles.remove(handle.fileHandle) }
        if let converter = handle.converterRef { _ = converters.remove(converter) }
        if let failure { throw failure }
    }
}

/// The buffers of a buffer list as the layout wants them: one, or one per channel.
private func buffers(_ list: UnsafeMutablePointer<AudioBufferList>, frames: Int, format: StreamDescription) throws(AudioFileStatus) -> [UnsafeMutableRawPointer] {
    let abl = BufferListView(list)
    let interleaved = format.formatFlags & Flags.nonInterleaved == 0 || format.channelsPerFrame == 1
    let expected = interleaved ? 1 : Int(format.channelsPerFrame)
    guard abl.count == expected else { throw .parameter }
    var result: [UnsafeMutableRawPointer] = []
    for buffer in abl {
        guard let data = buffer.mData, Int(buffer.mDataByteSize) >= frames * Int(format.bytesPerFrame) else { throw .parameter }
        result.append(data)
    }
    return result
}

@_cdecl("ExtAudioFileRead")
public func extAudioFileRead(_ ref: OpaquePointer?, _ ioFrames: UnsafeMutablePointer<UInt32>?,
                             _ list: UnsafeMutablePointer<AudioBufferList>?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try extHandle(ref)
        guard let ioFrames, let list else { throw .parameter }
        guard case .reading(let r) = handle.role else { throw .extInvalidOperationOrder }
        let wanted = Int(ioFrames.pointee)
        let got = try handle.serialized { () throws(AudioFileStatus) -> Int in
            // The buffers hold what their sizes say; ask for no more than fits.
            let frameBytes = Int(r.clientFormat.bytesPerFrame)
            let abl = BufferListView(list)
            let fits = abl.map { Int($0.mDataByteSize) / max(1, frameBytes) }.min() ?? 0
            let count = min(wanted, fits)
            let targets = try buffers(list, frames: count, format: r.clientFormat)
            let made = try r.read(count: count, into: targets)
            for i in 0..<abl.count { abl[i].mDataByteSize = UInt32(made * frameBytes) }
            return made
        }
        ioFrames.pointee = UInt32(got)
    }
}

@_cdecl("ExtAudioFileWrite")
public func extAudioFileWrite(_ ref: OpaquePointer?, _ frames: UInt32, _ list: UnsafePointer<AudioBufferList>?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try extHandle(ref)
        guard case .writing(let w) = handle.role else { throw .extInvalidOperationOrder }
        guard frames > 0 else { return }
        guard let list else { throw .parameter }
        try handle.serialized { () throws(AudioFileStatus) in
            if w.framesWritten == 0 { try applyConverterSettings(handle) }
            let sources = try buffers(UnsafeMutablePointer(mutating: list), frames: Int(frames), format: w.clientFormat)
            try w.write(count: Int(frames), from: sources.map { UnsafeRawPointer($0) })
        }
    }
}

@_cdecl("ExtAudioFileWriteAsync")
public func extAudioFileWriteAsync(_ ref: OpaquePointer?, _ frames: UInt32, _ list: UnsafePointer<AudioBufferList>?) -> Int32 {
    // Written at once: the file is whole when the call returns, which an asynchronous
    // writer promises only at dispose. Zero frames and no list primes nothing to prime.
    if frames == 0 && list == nil { return fileCall { () throws(AudioFileStatus) in _ = try extHandle(ref) } }
    return extAudioFileWrite(ref, frames, list)
}

@_cdecl("ExtAudioFileSeek")
public func extAudioFileSeek(_ ref: OpaquePointer?, _ frame: Int64) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try extHandle(ref)
        guard case .reading(let r) = handle.role else { throw .extInvalidSeek }
        try handle.serialized { () throws(AudioFileStatus) in try r.seek(to: frame) }
    }
}

@_cdecl("ExtAudioFileTell")
public func extAudioFileTell(_ ref: OpaquePointer?, _ out: UnsafeMutablePointer<Int64>?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try extHandle(ref)
        guard let out else { throw .parameter }
        switch handle.role {
        case .reading(let r): out.pointee = try handle.serialized { () throws(AudioFileStatus) in r.tell() }
        case .writing(let w): out.pointee = w.framesWritten
        }
    }
}


/// What the program set on the file's converter, taken by the file's encoder.
private func applyConverterSettings(_ handle: ExtAudioFileHandle) throws(AudioFileStatus) {
    guard case .writing(let w) = handle.role, let ref = handle.converterRef, let c = converters.get(ref) else { return }
    let rate = try c.serialized { () throws(AudioFileStatus) -> Int64 in c.converter.encodes ? c.converter.bitRate : 0 }
    if rate > 0 { try w.setEncodeBitRate(rate) }
}

/// The file as its property table asks it, with the runtime's handles.
private func properties(_ handle: ExtAudioFileHandle) -> (ExtFileProperties.Side, ExtFileProperties.Handles) {
    let side: ExtFileProperties.Side
    switch handle.role {
    case .reading(let r): side = .reading(r)
    case .writing(let w): side = .writing(w)
    }
    let handles = ExtFileProperties.Handles(
        audioFile: UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(handle.fileHandle))),
        converter: { () throws(AudioFileStatus) in UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(try FileFamily.converter(of: handle)))) },
        applyConverterSettings: { () throws(AudioFileStatus) in try applyConverterSettings(handle) })
    return (side, handles)
}

@_cdecl("ExtAudioFileGetPropertyInfo")
public func extAudioFileGetPropertyInfo(_ ref: OpaquePointer?, _ id: UInt32, _ outSize: UnsafeMutablePointer<UInt32>?,
                                        _ outWritable: UnsafeMutablePointer<UInt8>?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try extHandle(ref)
        let (side, handles) = properties(handle)
        let value = try handle.serialized { () throws(AudioFileStatus) in try ExtFileProperties.value(side, id, handles) }
        outSize?.pointee = UInt32(value.count)
        outWritable?.pointee = ExtFileProperties.isWritable(id) ? 1 : 0
    }
}

@_cdecl("ExtAudioFileGetProperty")
public func extAudioFileGetProperty(_ ref: OpaquePointer?, _ id: UInt32, _ ioSize: UnsafeMutablePointer<UInt32>?,
                                    _ out: UnsafeMutableRawPointer?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try extHandle(ref)
        let (side, handles) = properties(handle)
        let value = try handle.serialized { () throws(AudioFileStatus) in try ExtFileProperties.value(side, id, handles) }
        try storeBytes(value, ioSize, out, badSize: .extInvalidPropertySize)
    }
}

@_cdecl("ExtAudioFileSetProperty")
public func extAudioFileSetProperty(_ ref: OpaquePointer?, _ id: UInt32, _ size: UInt32, _ data: UnsafeRawPointer?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try extHandle(ref)
        guard let data else { throw .parameter }
        let (side, handles) = properties(handle)
        try handle.serialized { () throws(AudioFileStatus) in
            try ExtFileProperties.set(side, id, UnsafeRawBufferPointer(start: data, count: Int(size)), handles)
        }
    }
}
