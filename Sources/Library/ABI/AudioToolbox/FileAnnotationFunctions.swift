import AudioFiles
import CAudioToolbox
import CoreFoundation
import Runtime

// Audio File's user data (the file's own chunks, by type and index), and its marker and
// region lists as the C structures carry them. The chunks, markers and regions are
// AudioFiles' FileAnnotations: read from a CAF, AIFF or WAV at open, kept for a CAF
// being written and written at its close.

/// The annotations of an open file, and whether they may be changed.
private func annotations(_ handle: AudioFileHandle) -> FileAnnotations {
    switch handle.role {
    case .reading(let r): return r.annotations
    case .writing(let w): return w.annotations
    }
}

/// Changes the annotations of a CAF being written: a file opened for reading is
/// kAudioFilePermissionsError, one written through FFmpeg's multiplexers (WAV, AIFF,
/// M4A) kAudioFileOperationNotSupportedError.
private func changeAnnotations(_ handle: AudioFileHandle,
                               _ body: (inout FileAnnotations) throws(AudioFileStatus) -> Void) throws(AudioFileStatus) {
    guard case .writing(let w) = handle.role else { throw .permissions }
    guard w.keepsAnnotations else { throw .operationNotSupported }
    var changed = w.annotations
    try body(&changed)
    w.annotations = changed
}

@_cdecl("AudioFileCountUserData")
public func audioFileCountUserData(_ id: OpaquePointer?, _ userDataID: UInt32, _ out: UnsafeMutablePointer<UInt32>?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try fileHandle(id)
        guard let out else { throw .parameter }
        out.pointee = UInt32(try handle.serialized { () throws(AudioFileStatus) in annotations(handle).chunks(ofType: userDataID).count })
    }
}

/// Chunk `index` of `type`, or kAudioFileInvalidChunkError.
private func chunk(_ handle: AudioFileHandle, _ type: UInt32, _ index: UInt32) throws(AudioFileStatus) -> [UInt8] {
    let found = try handle.serialized { () throws(AudioFileStatus) in annotations(handle).chunks(ofType: type) }
    guard Int(index) < found.count else { throw .invalidChunk }
    return found[Int(index)]
}

@_cdecl("AudioFileGetUserDataSize")
public func audioFileGetUserDataSize(_ id: OpaquePointer?, _ userDataID: UInt32, _ index: UInt32,
                                     _ out: UnsafeMutablePointer<UInt32>?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try fileHandle(id)
        guard let out else { throw .parameter }
        out.pointee = UInt32(try chunk(handle, userDataID, index).count)
    }
}

/// As much of the chunk as `*ioSize` holds; `*ioSize` becomes what was copied.
@_cdecl("AudioFileGetUserData")
public func audioFileGetUserData(_ id: OpaquePointer?, _ userDataID: UInt32, _ index: UInt32, _ ioSize: UnsafeMutablePointer<UInt32>?,
                                 _ out: UnsafeMutableRawPointer?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try fileHandle(id)
        guard let ioSize, let out else { throw .parameter }
        let bytes = try chunk(handle, userDataID, index)
        let count = min(Int(ioSize.pointee), bytes.count)
        bytes.withUnsafeBytes { out.copyMemory(from: $0.baseAddress!, byteCount: count) }
        ioSize.pointee = UInt32(count)
    }
}

/// Replaces chunk `index` of the type, or adds one when `index` is the count of them.
@_cdecl("AudioFileSetUserData")
public func audioFileSetUserData(_ id: OpaquePointer?, _ userDataID: UInt32, _ index: UInt32, _ size: UInt32,
                                 _ data: UnsafeRawPointer?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try fileHandle(id)
        guard data != nil || size == 0, size <= 16 << 20 else { throw .parameter }
        let bytes = data.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(size))) } ?? []
        try handle.serialized { () throws(AudioFileStatus) in
            try changeAnnotations(handle) { (a: inout FileAnnotations) throws(AudioFileStatus) in
                try a.setChunk(userDataID, index: Int(index), bytes: bytes)
            }
        }
    }
}

@_cdecl("AudioFileRemoveUserData")
public func audioFileRemoveUserData(_ id: OpaquePointer?, _ userDataID: UInt32, _ index: UInt32) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        let handle = try fileHandle(id)
        try handle.serialized { () throws(AudioFileStatus) in
            try changeAnnotations(handle) { (a: inout FileAnnotations) throws(AudioFileStatus) in
                try a.removeChunk(userDataID, index: Int(index))
            }
        }
    }
}

// MARK: marker and region lists

/// The C layouts of kAudioFilePropertyMarkerList and kAudioFilePropertyRegionList. Names
/// go out as new CFStrings that the caller releases, and come in as the caller's.
enum AnnotationLists {
    static let markerSize = MemoryLayout<AudioFileMarker>.stride
    static let markerListHeader = MemoryLayout<AudioFileMarkerList>.offset(of: \.mMarkers)!
    static let regionHeader = MemoryLayout<AudioFileRegion>.offset(of: \.mMarkers)!
    static let regionListHeader = MemoryLayout<AudioFileRegionList>.offset(of: \.mRegions)!

    static func isList(_ property: UInt32) -> Bool {
        property == UInt32(kAudioFilePropertyMarkerList) || property == UInt32(kAudioFilePropertyRegionList)
    }

    static func size(_ property: UInt32, of handle: AudioFileHandle) throws(AudioFileStatus) -> Int {
        let a = try handle.serialized { () throws(AudioFileStatus) in annotations(handle) }
        if property == UInt32(kAudioFilePropertyMarkerList) { return markerListHeader + a.markers.count * markerSize }
        return regionListHeader + a.regions.reduce(0) { $0 + regionHeader + $1.markers.count * markerSize }
    }

    /// Whether the list may be set: on a CAF being written.
    static func isWritable(_ handle: AudioFileHandle) -> Bool {
        if case .writing(let w) = handle.role { return w.keepsAnnotations }
        return false
    }

    private static func cMarker(_ m: FileAnnotations.Marker) -> AudioFileMarker {
        var c = AudioFileMarker()
        c.mFramePosition = m.framePosition
        c.mName = m.name.map { Unmanaged.passRetained(CFValues.string($0)) }
        c.mMarkerID = m.id
        c.mSMPTETime = AudioFile_SMPTE_Time(mHours: m.smpte.hours, mMinutes: m.smpte.minutes, mSeconds: m.smpte.seconds,
                                            mFrames: m.smpte.frames, mSubFrameSampleOffset: m.smpte.offset)
        c.mType = m.type
        c.mChannel = m.channel
        return c
    }

    private static func marker(_ c: AudioFileMarker) -> FileAnnotations.Marker {
        FileAnnotations.Marker(framePosition: c.mFramePosition, name: c.mName.map { CFValues.swiftString($0.takeUnretainedValue()) },
                               id: c.mMarkerID, type: c.mType, channel: c.mChannel,
                               smpte: (c.mSMPTETime.mHours, c.mSMPTETime.mMinutes, c.mSMPTETime.mSeconds,
                                       c.mSMPTETime.mFrames, c.mSMPTETime.mSubFrameSampleOffset))
    }

    /// Writes the list into `out` (`*ioSize` bytes): kAudioFileBadPropertySizeError, with
    /// nothing written, when it does not fit.
    static func get(_ property: UInt32, of handle: AudioFileHandle, _ ioSize: UnsafeMutablePointer<UInt32>,
                    _ out: UnsafeMutableRawPointer) throws(AudioFileStatus) {
        let a = try handle.serialized { () throws(AudioFileStatus) in annotations(handle) }
        let needed = try size(property, of: handle)
        guard Int(ioSize.pointee) >= needed else { throw .badPropertySize }
        var at = 0
        func put(_ m: FileAnnotations.Marker) {
            out.storeBytes(of: cMarker(m), toByteOffset: at, as: AudioFileMarker.self)
            at += markerSize
        }
        if property == UInt32(kAudioFilePropertyMarkerList) {
            out.storeBytes(of: a.smpteTimeType, toByteOffset: 0, as: UInt32.self)
            out.storeBytes(of: UInt32(a.markers.count), toByteOffset: 4, as: UInt32.self)
            at = markerListHeader
            for m in a.markers { put(m) }
        } else {
            out.storeBytes(of: a.smpteTimeType, toByteOffset: 0, as: UInt32.self)
            out.storeBytes(of: UInt32(a.regions.count), toByteOffset: 4, as: UInt32.self)
            at = regionListHeader
            for r in a.regions {
                let name = r.name.map { Unmanaged.passRetained(CFValues.string($0)) }
                out.storeBytes(of: r.id, toByteOffset: at + MemoryLayout<AudioFileRegion>.offset(of: \.mRegionID)!, as: UInt32.self)
                out.storeBytes(of: name, toByteOffset: at + MemoryLayout<AudioFileRegion>.offset(of: \.mName)!,
                               as: Unmanaged<CFString>?.self)
                out.storeBytes(of: r.flags, toByteOffset: at + MemoryLayout<AudioFileRegion>.offset(of: \.mFlags)!, as: UInt32.self)
                out.storeBytes(of: UInt32(r.markers.count),
                               toByteOffset: at + MemoryLayout<AudioFileRegion>.offset(of: \.mNumberMarkers)!, as: UInt32.self)
                at += regionHeader
                for m in r.markers { put(m) }
            }
        }
        ioSize.pointee = UInt32(needed)
    }

    /// Reads a list the program passes (`size` bytes at `data`) into the annotations of
    /// a CAF being written. A count the size cannot hold is kAudioFileBadPropertySizeError.
    static func set(_ property: UInt32, of handle: AudioFileHandle, _ size: UInt32,
                    _ data: UnsafeRawPointer) throws(AudioFileStatus) {
        let total = Int(size)
        guard total >= 8 else { throw .badPropertySize }
        let smpte = data.loadUnaligned(fromByteOffset: 0, as: UInt32.self)
        let count = Int(data.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        func loadMarkers(at start: Int, _ n: Int) throws(AudioFileStatus) -> [FileAnnotations.Marker] {
            guard n <= (total - start) / markerSize else { throw .badPropertySize }
            return (0..<n).map { marker(data.loadUnaligned(fromByteOffset: start + $0 * markerSize, as: AudioFileMarker.self)) }
        }
        var markers: [FileAnnotations.Marker] = []
        var regions: [FileAnnotations.Region] = []
        if property == UInt32(kAudioFilePropertyMarkerList) {
            markers = try loadMarkers(at: markerListHeader, count)
        } else {
            var at = regionListHeader
            guard count <= total / max(regionHeader, 1) else { throw .badPropertySize }
            for _ in 0..<count {
                guard at + regionHeader <= total else { throw .badPropertySize }
                let id = data.loadUnaligned(fromByteOffset: at + MemoryLayout<AudioFileRegion>.offset(of: \.mRegionID)!, as: UInt32.self)
                let name = data.loadUnaligned(fromByteOffset: at + MemoryLayout<AudioFileRegion>.offset(of: \.mName)!,
                                              as: Unmanaged<CFString>?.self)
                let flags = data.loadUnaligned(fromByteOffset: at + MemoryLayout<AudioFileRegion>.offset(of: \.mFlags)!, as: UInt32.self)
                let n = Int(data.loadUnaligned(fromByteOffset: at + MemoryLayout<AudioFileRegion>.offset(of: \.mNumberMarkers)!,
                                               as: UInt32.self))
                at += regionHeader
                let inside = try loadMarkers(at: at, n)
                at += n * markerSize
                regions.append(FileAnnotations.Region(id: id, name: name.map { CFValues.swiftString($0.takeUnretainedValue()) },
                                                      flags: flags, markers: inside))
            }
        }
        try handle.serialized { () throws(AudioFileStatus) in
            try changeAnnotations(handle) { (a: inout FileAnnotations) throws(AudioFileStatus) in
                a.smpteTimeType = smpte
                if property == UInt32(kAudioFilePropertyMarkerList) { a.markers = markers } else { a.regions = regions }
            }
        }
    }
}
