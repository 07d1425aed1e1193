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

private func wrap(_ file: AudioFileHandle, _ fileID: OpaquePointer, owns: Bool,
                  _ out: UnsafeMutablePointer<OpaquePointer?>) throws(AudioFileStatus) {
    let role: ExtAudioFileHandle.Role
    switch file.role {
    case .reading(let r): role = .reading(try ExtendedAudioFileReader(file: r))
    case .writing(let w):
        role = .writing(try ExtendedAudioFileWriter(file: w))
        file.ownedByExtendedFile = true
    }
    out.pointee = extAudioFiles.add(ExtAudioFileHandle(role, fileHandle: fileID, ownsFile: owns))
}

@_cdecl("ExtAudioFileOpenURL")
public func extAudioFileOpenURL(_ url: CFURL?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        guard let path = filePath(url), let out else { throw .parameter }
        let reader = try AudioFileReader(source: try DescriptorSource.open(path: path))
        let file = AudioFileHandle(.reading(reader))
        let id = audioFiles.add(file)
        do throws(AudioFileStatus) { try wrap(file, id, owns: true, out) } catch { _ = audioFiles.remove(id); throw error }
    }
}

@_cdecl("ExtAudioFileWrapAudioFileID")
public func extAudioFileWrapAudioFileID(_ id: OpaquePointer?, _ forWriting: UInt8, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        guard let file = audioFiles.get(id), let id, let out else { throw .parameter }
        if case .reading = file.role, forWriting != 0 { throw .permissions }
        try wrap(file, id, owns: false, out)
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
        let writer = try AudioFileWriter(path: path, fileType: type, format: description,
                                         erase: flags & UInt32(kAudioFileFlags_EraseFile) != 0)
        let file = AudioFileHandle(.writing(writer))
        let id = audioFiles.add(file)
        do throws(AudioFileStatus) { try wrap(file, id, owns: true, out) } catch { _ = audioFiles.remove(id); throw error }
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


/// The file's converter (kExtAudioFileProperty_AudioConverter): an Audio Converter between
/// the client format and the file's. The program sets the encoder's properties on it (the
/// bit rate) and then kExtAudioFileProperty_ConverterConfig; the file takes them then, or
/// at its first write.
private func fileConverter(_ handle: ExtAudioFileHandle) throws(AudioFileStatus) -> OpaquePointer {
    if let made = handle.converterRef { return made }
    let converter: Converter
    switch handle.role {
    case .reading(let r): converter = try Converter(from: r.file.format, to: r.clientFormat)
    case .writing(let w):
        converter = try Converter(from: w.clientFormat, to: w.file.format)
        if converter.encodes && w.encodeBitRate > 0 { try? converter.setEncodeBitRate(w.encodeBitRate) }
    }
    let ref = converters.add(ConverterHandle(converter))
    handle.converterRef = ref
    return ref
}

/// What the program set on the file's converter, taken by the file's encoder.
private func applyConverterSettings(_ handle: ExtAudioFileHandle) throws(AudioFileStatus) {
    guard case .writing(let w) = handle.role, let ref = handle.converterRef, let c = converters.get(ref) else { return }
    let rate = try c.serialized { () throws(AudioFileStatus) -> Int64 in c.converter.encodes ? c.converter.bitRate : 0 }
    if rate > 0 { try w.setEncodeBitRate(rate) }
}

private func extProperty(_ handle: ExtAudioFileHandle, _ id: UInt32) throws(AudioFileStatus) -> [UInt8] {
    let fileFormat: StreamDescription, client: StreamDescription
    switch handle.role {
    case .reading(let r): fileFormat = r.file.format; client = r.clientFormat
    case .writing(let w): fileFormat = w.file.format; client = w.clientFormat
    }
    switch Int(id) {
    case kExtAudioFileProperty_FileDataFormat: return bytesOf(fileFormat.c)
    case kExtAudioFileProperty_ClientDataFormat: return bytesOf(client.c)
    case kExtAudioFileProperty_FileChannelLayout: return ChannelLayoutData.standard(channels: fileFormat.channelsPerFrame)
    case kExtAudioFileProperty_ClientChannelLayout: return ChannelLayoutData.standard(channels: client.channelsPerFrame)
    case kExtAudioFileProperty_AudioFile: return bytesOf(UnsafeMutableRawPointer(handle.fileHandle))
    case kExtAudioFileProperty_FileMaxPacketSize:
        switch handle.role {
        case .reading(let r): return bytesOf(r.file.maximumPacketSize)
        case .writing(let w): return bytesOf(max(w.file.maximumPacketSize, fileFormat.bytesPerPacket))
        }
    case kExtAudioFileProperty_ClientMaxPacketSize: return bytesOf(client.bytesPerPacket)
    case kExtAudioFileProperty_FileLengthFrames:
        switch handle.role {
        case .reading(let r): return bytesOf(r.fileLengthFrames)
        case .writing(let w): return bytesOf(w.framesWritten)
        }
    case kExtAudioFileProperty_PacketTable:
        guard case .reading(let r) = handle.role, let t = r.file.packetTable else { throw .extInvalidProperty }
        return FileProperties.packetTableBytes(t)
    case kExtAudioFileProperty_CodecManufacturer: return bytesOf(UInt32(0x6170_706C))  // 'appl', kAppleSoftwareAudioCodecManufacturer
    case kExtAudioFileProperty_AudioConverter: return bytesOf(UnsafeMutableRawPointer(try fileConverter(handle)))
    default: throw .extInvalidProperty
    }
}

@_cdecl("ExtAudioFileGetPropertyInfo")
public func extAudioFileGetPropertyInfo(_ ref: OpaquePointer?, _ id: UInt32, _ outSize: UnsafeMutablePointer<UInt32>?,
                                        _ outWritable: UnsafeMutablePointer<UInt8>?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try extHandle(ref)
        let value = try handle.serialized { () throws(AudioFileStatus) in try extProperty(handle, id) }
        outSize?.pointee = UInt32(value.count)
        let writable: Set<Int> = [kExtAudioFileProperty_ClientDataFormat, kExtAudioFileProperty_ClientChannelLayout,
                                  kExtAudioFileProperty_FileChannelLayout, kExtAudioFileProperty_CodecManufacturer]
        outWritable?.pointee = writable.contains(Int(id)) ? 1 : 0
    }
}

@_cdecl("ExtAudioFileGetProperty")
public func extAudioFileGetProperty(_ ref: OpaquePointer?, _ id: UInt32, _ ioSize: UnsafeMutablePointer<UInt32>?,
                                    _ out: UnsafeMutableRawPointer?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try extHandle(ref)
        let value = try handle.serialized { () throws(AudioFileStatus) in try extProperty(handle, id) }
        try storeBytes(value, ioSize, out, badSize: .extInvalidPropertySize)
    }
}

@_cdecl("ExtAudioFileSetProperty")
public func extAudioFileSetProperty(_ ref: OpaquePointer?, _ id: UInt32, _ size: UInt32, _ data: UnsafeRawPointer?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try extHandle(ref)
        guard let data else { throw .parameter }
        try handle.serialized { () throws(AudioFileStatus) in
            switch Int(id) {
            case kExtAudioFileProperty_ClientDataFormat:
                guard Int(size) >= MemoryLayout<AudioStreamBasicDescription>.size else { throw .extInvalidPropertySize }
                let format = StreamDescription(data.loadUnaligned(as: AudioStreamBasicDescription.self))
                switch handle.role {
                case .reading(let r): try r.setClientFormat(format)
                case .writing(let w): try w.setClientFormat(format)
                }
            case kExtAudioFileProperty_ClientChannelLayout, kExtAudioFileProperty_FileChannelLayout:
                guard Int(size) >= MemoryLayout<AudioChannelLayout>.size - MemoryLayout<AudioChannelDescription>.size else {
                    throw .extInvalidPropertySize
                }
                // Layouts follow the channel counts; a layout naming other channels is refused.
                let tag = data.loadUnaligned(as: UInt32.self)
                let count = tag & 0xFFFF
                let channels: UInt32
                switch handle.role {
                case .reading(let r): channels = id == UInt32(kExtAudioFileProperty_FileChannelLayout) ? r.file.format.channelsPerFrame : r.clientFormat.channelsPerFrame
                case .writing(let w): channels = id == UInt32(kExtAudioFileProperty_FileChannelLayout) ? w.file.format.channelsPerFrame : w.clientFormat.channelsPerFrame
                }
                if tag != UInt32(kAudioChannelLayoutTag_UseChannelDescriptions) && tag != UInt32(kAudioChannelLayoutTag_UseChannelBitmap)
                    && count != channels { throw .extInvalidChannelMap }
            case kExtAudioFileProperty_CodecManufacturer:
                guard size == 4 else { throw .extInvalidPropertySize }
            case kExtAudioFileProperty_ConverterConfig:
                try applyConverterSettings(handle)
            case kExtAudioFileProperty_IOBufferSizeBytes, kExtAudioFileProperty_IOBuffer:
                return
            case kExtAudioFileProperty_FileLengthFrames, kExtAudioFileProperty_PacketTable, kExtAudioFileProperty_FileDataFormat,
                 kExtAudioFileProperty_AudioFile, kExtAudioFileProperty_AudioConverter, kExtAudioFileProperty_FileMaxPacketSize,
                 kExtAudioFileProperty_ClientMaxPacketSize:
                throw .extInvalidOperationOrder
            default:
                throw .extInvalidProperty
            }
        }
    }
}
