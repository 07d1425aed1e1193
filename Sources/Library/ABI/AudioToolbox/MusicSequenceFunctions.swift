import CoreFoundation
import Glibc
import MusicSequences
import Runtime

// MusicPlayer.h's sequences: handles, standard MIDI files in and out (CFURL and CFData),
// the graph, beats and seconds, bars and beats. The model is MusicSequenceModel's.

/// Runs a call on a sequence.
func sequenceCall(_ handle: OpaquePointer?, _ body: (MusicSequenceModel) throws(MusicError) -> Void) -> Int32 {
    guard let sequence = MusicHandles.sequences.get(handle) else { return MusicError.parameter.rawValue }
    do throws(MusicError) {
        try body(sequence)
        return 0
    } catch {
        return error.rawValue
    }
}

@_cdecl("NewMusicSequence")
public func newMusicSequence(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out else { return MusicError.parameter.rawValue }
    out.pointee = MusicHandles.newSequence()
    return 0
}

@_cdecl("DisposeMusicSequence")
public func disposeMusicSequence(_ sequence: OpaquePointer?) -> Int32 {
    MusicHandles.dispose(sequence) ? 0 : MusicError.parameter.rawValue
}

@_cdecl("MusicSequenceNewTrack")
public func musicSequenceNewTrack(_ sequence: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    sequenceCall(sequence) { s throws(MusicError) in
        guard let out else { throw .parameter }
        out.pointee = MusicHandles.track(s, s.state.withLock { $0.newTrack() })
    }
}

@_cdecl("MusicSequenceDisposeTrack")
public func musicSequenceDisposeTrack(_ sequence: OpaquePointer?, _ track: OpaquePointer?) -> Int32 {
    sequenceCall(sequence) { s throws(MusicError) in
        guard let ref = MusicHandles.tracks.get(track), ref.sequence === s else { throw .trackNotFound }
        try s.state.withLock { state throws(MusicError) in try state.disposeTrack(ref.id) }
        MusicHandles.forget(s, track: ref.id)
    }
}

@_cdecl("MusicSequenceGetTrackCount")
public func musicSequenceGetTrackCount(_ sequence: OpaquePointer?, _ out: UnsafeMutablePointer<UInt32>?) -> Int32 {
    sequenceCall(sequence) { s throws(MusicError) in
        guard let out else { throw .parameter }
        out.pointee = UInt32(s.state.withLock { $0.tracks.count - 1 })
    }
}

@_cdecl("MusicSequenceGetIndTrack")
public func musicSequenceGetIndTrack(_ sequence: OpaquePointer?, _ index: UInt32,
                                     _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    sequenceCall(sequence) { s throws(MusicError) in
        guard let out else { throw .parameter }
        let ids = s.state.withLock { $0.tracks.dropFirst().map(\.id) }
        guard Int(index) < ids.count else { throw .trackIndex }
        out.pointee = MusicHandles.track(s, ids[Int(index)])
    }
}

@_cdecl("MusicSequenceGetTrackIndex")
public func musicSequenceGetTrackIndex(_ sequence: OpaquePointer?, _ track: OpaquePointer?,
                                       _ out: UnsafeMutablePointer<UInt32>?) -> Int32 {
    sequenceCall(sequence) { s throws(MusicError) in
        guard let out else { throw .parameter }
        guard let ref = MusicHandles.tracks.get(track), ref.sequence === s,
              let index = s.state.withLock({ $0.tracks.dropFirst().firstIndex { $0.id == ref.id } })
        else { throw .trackNotFound }
        out.pointee = UInt32(index - 1)
    }
}

@_cdecl("MusicSequenceGetTempoTrack")
public func musicSequenceGetTempoTrack(_ sequence: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    sequenceCall(sequence) { s throws(MusicError) in
        guard let out else { throw .parameter }
        out.pointee = MusicHandles.track(s, 0)
    }
}

@_cdecl("MusicSequenceSetAUGraph")
public func musicSequenceSetAUGraph(_ sequence: OpaquePointer?, _ graph: OpaquePointer?) -> Int32 {
    sequenceCall(sequence) { s throws(MusicError) in
        guard graph == nil || (try? GraphHandles.graph(graph)) != nil else { throw .parameter }
        let (old, owned) = s.state.withLock { state in
            defer {
                state.graph = graph.map { UInt(bitPattern: $0) }
                state.ownsGraph = false
                state.version += 1
            }
            return (state.graph, state.ownsGraph)
        }
        if owned, let old, old != graph.map({ UInt(bitPattern: $0) }) { try? GraphHandles.dispose(OpaquePointer(bitPattern: old)) }
    }
}

@_cdecl("MusicSequenceGetAUGraph")
public func musicSequenceGetAUGraph(_ sequence: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    sequenceCall(sequence) { s throws(MusicError) in
        guard let out else { throw .parameter }
        _ = try MusicHandles.host.graph(of: s)
        out.pointee = s.state.withLock { $0.graph }.flatMap { OpaquePointer(bitPattern: $0) }
    }
}

@_cdecl("MusicSequenceSetMIDIEndpoint")
public func musicSequenceSetMIDIEndpoint(_ sequence: OpaquePointer?, _ endpoint: UInt32) -> Int32 {
    sequenceCall(sequence) { _ throws(MusicError) in throw .unimplemented }
}

@_cdecl("MusicSequenceSetSequenceType")
public func musicSequenceSetSequenceType(_ sequence: OpaquePointer?, _ type: UInt32) -> Int32 {
    sequenceCall(sequence) { s throws(MusicError) in try s.state.withLock { state throws(MusicError) in try state.setType(type) } }
}

@_cdecl("MusicSequenceGetSequenceType")
public func musicSequenceGetSequenceType(_ sequence: OpaquePointer?, _ out: UnsafeMutablePointer<UInt32>?) -> Int32 {
    sequenceCall(sequence) { s throws(MusicError) in
        guard let out else { throw .parameter }
        out.pointee = s.state.withLock { $0.type }
    }
}

/// Replaces the sequence's tracks with a MIDI file's; the old tracks' handles go.
private func load(_ s: MusicSequenceModel, _ bytes: [UInt8], hint: UInt32, flags: UInt32) throws(MusicError) {
    let old = try s.state.withLock { state throws(MusicError) in try state.load(bytes, typeHint: hint, flags: flags) }
    for id in old { MusicHandles.forget(s, track: id) }
}

@_cdecl("MusicSequenceFileLoad")
public func musicSequenceFileLoad(_ sequence: OpaquePointer?, _ url: CFURL?, _ hint: UInt32, _ flags: UInt32) -> Int32 {
    sequenceCall(sequence) { s throws(MusicError) in
        guard let url else { throw .parameter }
        var path = [UInt8](repeating: 0, count: 4096)
        guard CFURLGetFileSystemRepresentation(url, true, &path, path.count) else { throw .parameter }
        let descriptor = open(path.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self) },
                              O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .fileNotFound }
        defer { close(descriptor) }
        var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 65536)
        while bytes.count <= 64 << 20 {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        try load(s, bytes, hint: hint, flags: flags)
    }
}

@_cdecl("MusicSequenceFileLoadData")
public func musicSequenceFileLoadData(_ sequence: OpaquePointer?, _ data: CFData?, _ hint: UInt32, _ flags: UInt32) -> Int32 {
    sequenceCall(sequence) { s throws(MusicError) in
        guard let data else { throw .parameter }
        let length = CFDataGetLength(data)
        let bytes = length > 0 ? Array(UnsafeBufferPointer(start: CFDataGetBytePtr(data), count: length)) : []
        try load(s, bytes, hint: hint, flags: flags)
    }
}

private func fileBytes(_ s: MusicSequenceModel, type: UInt32, resolution: Int16) throws(MusicError) -> [UInt8] {
    try s.state.withLock { state throws(MusicError) in try state.file(type: type, resolution: resolution) }
}

@_cdecl("MusicSequenceFileCreate")
public func musicSequenceFileCreate(_ sequence: OpaquePointer?, _ url: CFURL?, _ type: UInt32, _ flags: UInt32,
                                    _ resolution: Int16) -> Int32 {
    sequenceCall(sequence) { s throws(MusicError) in
        guard let url else { throw .parameter }
        let bytes = try fileBytes(s, type: type, resolution: resolution)
        var path = [CChar](repeating: 0, count: 4096)
        guard path.withUnsafeMutableBufferPointer({ buffer in
            buffer.baseAddress!.withMemoryRebound(to: UInt8.self, capacity: buffer.count) {
                CFURLGetFileSystemRepresentation(url, true, $0, buffer.count)
            }
        }) else { throw .parameter }
        let erase = flags & 1 != 0
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (erase ? O_TRUNC : O_EXCL), 0o644)
        guard descriptor >= 0 else { throw errno == EEXIST ? .fileExists : .fileNotFound }
        defer { close(descriptor) }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw .fileNotFound }
    }
}

@_cdecl("MusicSequenceFileCreateData")
public func musicSequenceFileCreateData(_ sequence: OpaquePointer?, _ type: UInt32, _ flags: UInt32, _ resolution: Int16,
                                        _ out: UnsafeMutablePointer<Unmanaged<CFData>?>?) -> Int32 {
    sequenceCall(sequence) { s throws(MusicError) in
        guard let out else { throw .parameter }
        let bytes = try fileBytes(s, type: type, resolution: resolution)
        out.pointee = Unmanaged.passRetained(bytes.withUnsafeBufferPointer { CFDataCreate(nil, $0.baseAddress, $0.count)! })
    }
}

@_cdecl("MusicSequenceReverse")
public func musicSequenceReverse(_ sequence: OpaquePointer?) -> Int32 {
    sequenceCall(sequence) { s in s.state.withLock { $0.reverse() } }
}

@_cdecl("MusicSequenceGetSecondsForBeats")
public func musicSequenceGetSecondsForBeats(_ sequence: OpaquePointer?, _ beats: Double, _ out: UnsafeMutablePointer<Double>?)
    -> Int32 {
    sequenceCall(sequence) { s throws(MusicError) in
        guard let out, beats.isFinite else { throw .parameter }
        out.pointee = s.state.withLock { $0.tempoMap }.seconds(forBeats: beats)
    }
}

@_cdecl("MusicSequenceGetBeatsForSeconds")
public func musicSequenceGetBeatsForSeconds(_ sequence: OpaquePointer?, _ seconds: Double,
                                            _ out: UnsafeMutablePointer<Double>?) -> Int32 {
    sequenceCall(sequence) { s throws(MusicError) in
        guard let out, seconds.isFinite else { throw .parameter }
        out.pointee = s.state.withLock { $0.tempoMap }.beats(forSeconds: seconds)
    }
}

@_cdecl("MusicSequenceSetUserCallback")
public func musicSequenceSetUserCallback(_ sequence: OpaquePointer?, _ callback: UnsafeRawPointer?,
                                         _ data: UnsafeMutableRawPointer?) -> Int32 {
    sequenceCall(sequence) { s in
        s.state.withLock { state in
            state.callback = callback.map { (UInt(bitPattern: $0), UInt(bitPattern: data)) }
        }
    }
}

/// CABarBeatTime: bar (SInt32), beat, subbeat, subbeat divisor (UInt16 each).
@_cdecl("MusicSequenceBeatsToBarBeatTime")
public func musicSequenceBeatsToBarBeatTime(_ sequence: OpaquePointer?, _ beats: Double, _ divisor: UInt32,
                                            _ out: UnsafeMutableRawPointer?) -> Int32 {
    sequenceCall(sequence) { s throws(MusicError) in
        guard let out, divisor <= UInt32(UInt16.max) else { throw .parameter }
        let time = try BarBeatTime(beats: beats, divisor: UInt16(divisor), tempoEvents: s.state.withLock { $0.tracks[0].events })
        out.storeBytes(of: time.bar, as: Int32.self)
        out.storeBytes(of: time.beat, toByteOffset: 4, as: UInt16.self)
        out.storeBytes(of: time.subbeat, toByteOffset: 6, as: UInt16.self)
        out.storeBytes(of: time.subbeatDivisor, toByteOffset: 8, as: UInt16.self)
        out.storeBytes(of: UInt16(0), toByteOffset: 10, as: UInt16.self)
    }
}

@_cdecl("MusicSequenceBarBeatTimeToBeats")
public func musicSequenceBarBeatTimeToBeats(_ sequence: OpaquePointer?, _ time: UnsafeRawPointer?,
                                            _ out: UnsafeMutablePointer<Double>?) -> Int32 {
    sequenceCall(sequence) { s throws(MusicError) in
        guard let time, let out else { throw .parameter }
        let value = BarBeatTime(bar: time.load(as: Int32.self), beat: time.load(fromByteOffset: 4, as: UInt16.self),
                                subbeat: time.load(fromByteOffset: 6, as: UInt16.self),
                                subbeatDivisor: time.load(fromByteOffset: 8, as: UInt16.self))
        out.pointee = try value.beats(tempoEvents: s.state.withLock { $0.tracks[0].events })
    }
}

/// The tempo at the start (kAFInfoDictionary_Tempo's "tempo") and the length in seconds
/// ("approximate duration in seconds"), as strings.
@_cdecl("MusicSequenceGetInfoDictionary")
public func musicSequenceGetInfoDictionary(_ sequence: OpaquePointer?) -> Unmanaged<CFDictionary>? {
    guard let s = MusicHandles.sequences.get(sequence) else { return nil }
    let (map, length, firstTempo) = s.state.withLock { state in
        (state.tempoMap, state.length, state.tracks[0].events.first { $0.bpm != nil }?.bpm)
    }
    let pairs: [(CFString, AnyObject)] = [
        (CFValues.string("tempo"), CFValues.string(String(Int((firstTempo ?? 120).rounded())))),
        (CFValues.string("approximate duration in seconds"), CFValues.string(String(map.seconds(forBeats: length)))),
    ]
    return Unmanaged.passRetained(CFValues.dictionary(pairs))
}
