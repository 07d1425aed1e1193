import AudioFiles
import CAudioToolbox
import CoreFoundation
import Runtime

// Audio File properties and global info (AudioFile.h): the values in C form.

// MARK: properties

/// kAudioFilePropertyInfoDictionary: the file's tags under Apple's keys (the
/// kAFInfoDictionary_* strings), and its approximate duration, as CFStrings.
func infoDictionary(_ r: AudioFileReader) -> CFDictionary {
    let names = ["title": "title", "artist": "artist", "album": "album", "genre": "genre", "composer": "composer",
                 "copyright": "copyright", "comment": "comments", "track": "track number", "encoder": "encoding application",
                 "lyricist": "lyricist", "subtitle": "subtitle", "date": "year", "TSRC": "ISRC", "isrc": "ISRC"]
    var pairs: [(String, String)] = []
    for (key, value) in r.tags {
        guard let name = names[key] ?? names[key.lowercased()], !pairs.contains(where: { $0.0 == name }) else { continue }
        // A date's year (ID3 and iTunes tags give "2014" or "2014-05-01").
        pairs.append((name, name == "year" ? String(value.prefix(4)) : value))
    }
    let seconds = (r.estimatedDuration * 1000).rounded() / 1000
    pairs.append(("approximate duration in seconds", "\(seconds)"))
    return CFValues.dictionary(pairs.map { (CFValues.string($0.0), CFValues.string($0.1)) })
}


/// A property's value from the file's facts (AudioFiles' FileProperties).
func fileProperty(_ handle: AudioFileHandle, _ id: UInt32) throws(AudioFileStatus) -> [UInt8] {
    switch handle.role {
    case .writing(let w): return try FileProperties.value(id, of: w.facts, unknown: .unsupportedProperty)
    case .reading(let r): return try FileProperties.value(id, of: r.facts, unknown: .unsupportedProperty)
    }
}

@_cdecl("AudioFileGetPropertyInfo")
public func audioFileGetPropertyInfo(_ id: OpaquePointer?, _ property: UInt32, _ outSize: UnsafeMutablePointer<UInt32>?,
                                     _ outWritable: UnsafeMutablePointer<UInt32>?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try fileHandle(id)
        let size: Int
        if FileTranslations.isTranslation(property) {
            size = FileTranslations.size
        } else if AnnotationLists.isList(property) {
            size = try AnnotationLists.size(property, of: handle)
        } else if property == UInt32(kAudioFilePropertyInfoDictionary) {
            guard case .reading = handle.role else { throw .unsupportedProperty }
            size = MemoryLayout<CFDictionary>.size
        } else {
            size = try handle.serialized { () throws(AudioFileStatus) in try fileProperty(handle, property) }.count
        }
        outSize?.pointee = UInt32(size)
        if AnnotationLists.isList(property) {
            outWritable?.pointee = AnnotationLists.isWritable(handle) ? 1 : 0
        } else if case .writing = handle.role {
            outWritable?.pointee = FileProperties.isWritable(property, kind: .written) ? 1 : 0
        } else {
            outWritable?.pointee = 0
        }
    }
}

@_cdecl("AudioFileGetProperty")
public func audioFileGetProperty(_ id: OpaquePointer?, _ property: UInt32, _ ioSize: UnsafeMutablePointer<UInt32>?,
                                 _ out: UnsafeMutableRawPointer?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try fileHandle(id)
        guard let ioSize, let out else { throw .parameter }
        // The lists, the dictionary and the translations are more than bytes.
        if AnnotationLists.isList(property) {
            try AnnotationLists.get(property, of: handle, ioSize, out)
            return
        }
        if property == FileProperties.infoDictionary {
            // A new dictionary each time, which the caller releases.
            guard case .reading(let r) = handle.role else { throw .unsupportedProperty }
            guard Int(ioSize.pointee) >= MemoryLayout<CFDictionary>.size else { throw .badPropertySize }
            let made = try handle.serialized { () throws(AudioFileStatus) in infoDictionary(r) }
            out.storeBytes(of: Unmanaged.passRetained(made).toOpaque(), as: UnsafeMutableRawPointer.self)
            ioSize.pointee = UInt32(MemoryLayout<CFDictionary>.size)
            return
        }
        if FileTranslations.isTranslation(property) {
            try handle.serialized { () throws(AudioFileStatus) in
                try FileTranslations.translate(property, in: out, capacity: Int(ioSize.pointee),
                                               framesPerPacket: handle.format.framesPerPacket) { () throws(AudioFileStatus) in
                    // A file being written has no packets to look up.
                    guard case .reading(let r) = handle.role else { throw .unsupportedProperty }
                    return r.translationLayout
                }
            }
            return
        }
        let value = try handle.serialized { () throws(AudioFileStatus) in try fileProperty(handle, property) }
        try storeBytes(value, ioSize, out, badSize: .badPropertySize)
    }
}

@_cdecl("AudioFileSetProperty")
public func audioFileSetProperty(_ id: OpaquePointer?, _ property: UInt32, _ size: UInt32, _ data: UnsafeRawPointer?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try fileHandle(id)
        guard let data else { throw .parameter }
        if AnnotationLists.isList(property) { return try AnnotationLists.set(property, of: handle, size, data) }
        guard case .writing(let w) = handle.role else {
            _ = try handle.serialized { () throws(AudioFileStatus) in try fileProperty(handle, property) }
            throw .permissions
        }
        try handle.serialized { () throws(AudioFileStatus) in
            try FileProperties.set(property, UnsafeRawBufferPointer(start: data, count: Int(size)), on: w)
        }
    }
}

// MARK: global info

/// The answer as C takes it: the words' bytes, or a new CF object the caller releases.
private func globalInfo(_ property: UInt32, _ specifierSize: UInt32, _ specifier: UnsafeRawPointer?)
    throws(AudioFileStatus) -> (bytes: [UInt8], object: AnyObject?) {
    let given = specifier.map { UnsafeRawBufferPointer(start: $0, count: Int(specifierSize)) }
    switch try FileGlobalInfo.answer(property, specifier: given) {
    case .words(let words): return (arrayBytes(words), nil)
    case .text(let text): return ([], CFValues.string(text))
    case .texts(let texts): return ([], CFValues.array(texts.map { CFValues.string($0) }))
    }
}

@_cdecl("AudioFileGetGlobalInfoSize")
public func audioFileGetGlobalInfoSize(_ property: UInt32, _ specifierSize: UInt32, _ specifier: UnsafeMutableRawPointer?,
                                       _ outSize: UnsafeMutablePointer<UInt32>?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        guard let outSize else { throw .parameter }
        let (bytes, object) = try globalInfo(property, specifierSize, specifier)
        outSize.pointee = UInt32(object != nil ? MemoryLayout<UnsafeRawPointer>.size : bytes.count)
    }
}

@_cdecl("AudioFileGetGlobalInfo")
public func audioFileGetGlobalInfo(_ property: UInt32, _ specifierSize: UInt32, _ specifier: UnsafeMutableRawPointer?,
                                   _ ioSize: UnsafeMutablePointer<UInt32>?, _ out: UnsafeMutableRawPointer?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        guard let ioSize, let out else { throw .parameter }
        let (bytes, object) = try globalInfo(property, specifierSize, specifier)
        if let object {
            guard Int(ioSize.pointee) >= MemoryLayout<UnsafeRawPointer>.size else { throw .badPropertySize }
            out.storeBytes(of: Unmanaged.passRetained(object).toOpaque(), as: UnsafeMutableRawPointer.self)
            ioSize.pointee = UInt32(MemoryLayout<UnsafeRawPointer>.size)
            return
        }
        try storeBytes(bytes, ioSize, out, badSize: .badPropertySize)
    }
}
