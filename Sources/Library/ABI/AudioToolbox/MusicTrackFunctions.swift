import AudioGraphs
import AudioUnits
import CoreFoundation
import MusicSequences
import Runtime

// MusicPlayer.h's tracks, their events and properties, and event iterators: the C
// structures read into MusicEvents (their bytes kept as given) and written back.

/// Runs a call on a track, under its sequence's lock.
private func trackCall<T>(_ handle: OpaquePointer?, _ body: (TrackRef, inout MusicSequenceModel.State) throws(MusicError) -> T)
    -> Result<T, MusicError> {
    guard let ref = MusicHandles.tracks.get(handle) else { return .failure(.parameter) }
    return ref.sequence.state.withLock { state in
        do throws(MusicError) {
            return .success(try body(ref, &state))
        } catch {
            return .failure(error)
        }
    }
}

private func status<T>(_ result: Result<T, MusicError>) -> Int32 {
    switch result {
    case .success: return 0
    case .failure(let error): return error.rawValue
    }
}

/// The bytes of an event's C structure, by type; nil when the structure is not one the
/// type can have (a length past what any program sends).
private func eventBytes(_ type: MusicEventType, _ data: UnsafeRawPointer) -> [UInt8]? {
    func bytes(_ count: Int) -> [UInt8] { Array(UnsafeRawBufferPointer(start: data, count: count)) }
    let mostData = 1 << 24
    switch type {
    case .note: return bytes(8)
    case .channel: return bytes(4)
    case .parameter, .auPreset: return bytes(16)
    case .extendedTempo: return bytes(8)
    case .raw, .user:
        let length = Int(data.loadUnaligned(as: UInt32.self))
        return length <= mostData ? bytes(4 + length) : nil
    case .meta:
        let length = Int(data.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        return length <= mostData ? bytes(8 + length) : nil
    case .extendedNote:
        let arguments = Int(data.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
        guard arguments >= 2, arguments <= 2 + 256 else { return nil }
        return bytes(24 + 8 * max(1, arguments - 2))
    case .null:
        return nil
    }
}

/// Adds an event to a track (the model keeps the tempo track's rule).
private func add(_ track: OpaquePointer?, _ time: Double, _ type: MusicEventType, _ data: UnsafeRawPointer?) -> Int32 {
    status(trackCall(track) { ref, state throws(MusicError) in
        guard let data, let bytes = eventBytes(type, data) else { throw .parameter }
        var kept: AnyObjectBox?
        if type == .auPreset {
            guard let preset = data.loadUnaligned(fromByteOffset: 8, as: UnsafeRawPointer?.self) else { throw .parameter }
            kept = AnyObjectBox(Unmanaged<AnyObject>.fromOpaque(preset).takeUnretainedValue())
        }
        try state.add(MusicEvent(time: time, type: type, data: bytes, kept: kept), to: ref.id)
    })
}

@_cdecl("MusicTrackNewMIDINoteEvent")
public func musicTrackNewMIDINoteEvent(_ track: OpaquePointer?, _ time: Double, _ message: UnsafeRawPointer?) -> Int32 {
    add(track, time, .note, message)
}

@_cdecl("MusicTrackNewMIDIChannelEvent")
public func musicTrackNewMIDIChannelEvent(_ track: OpaquePointer?, _ time: Double, _ message: UnsafeRawPointer?) -> Int32 {
    if let message, message.load(as: UInt8.self) < 0x80 { return MusicError.parameter.rawValue }
    return add(track, time, .channel, message)
}

@_cdecl("MusicTrackNewMIDIRawDataEvent")
public func musicTrackNewMIDIRawDataEvent(_ track: OpaquePointer?, _ time: Double, _ data: UnsafeRawPointer?) -> Int32 {
    add(track, time, .raw, data)
}

@_cdecl("MusicTrackNewExtendedNoteEvent")
public func musicTrackNewExtendedNoteEvent(_ track: OpaquePointer?, _ time: Double, _ info: UnsafeRawPointer?) -> Int32 {
    add(track, time, .extendedNote, info)
}

@_cdecl("MusicTrackNewParameterEvent")
public func musicTrackNewParameterEvent(_ track: OpaquePointer?, _ time: Double, _ info: UnsafeRawPointer?) -> Int32 {
    add(track, time, .parameter, info)
}

@_cdecl("MusicTrackNewExtendedTempoEvent")
public func musicTrackNewExtendedTempoEvent(_ track: OpaquePointer?, _ time: Double, _ bpm: Double) -> Int32 {
    withUnsafeBytes(of: bpm) { add(track, time, .extendedTempo, $0.baseAddress) }
}

@_cdecl("MusicTrackNewMetaEvent")
public func musicTrackNewMetaEvent(_ track: OpaquePointer?, _ time: Double, _ meta: UnsafeRawPointer?) -> Int32 {
    add(track, time, .meta, meta)
}

@_cdecl("MusicTrackNewUserEvent")
public func musicTrackNewUserEvent(_ track: OpaquePointer?, _ time: Double, _ data: UnsafeRawPointer?) -> Int32 {
    add(track, time, .user, data)
}

@_cdecl("MusicTrackNewAUPresetEvent")
public func musicTrackNewAUPresetEvent(_ track: OpaquePointer?, _ time: Double, _ event: UnsafeRawPointer?) -> Int32 {
    add(track, time, .auPreset, event)
}

@_cdecl("MusicTrackGetSequence")
public func musicTrackGetSequence(_ track: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out, let ref = MusicHandles.tracks.get(track) else { return MusicError.parameter.rawValue }
    out.pointee = MusicHandles.handle(of: ref.sequence)
    return 0
}

/// A node of the sequence's graph (the tempo track has no destination).
@_cdecl("MusicTrackSetDestNode")
public func musicTrackSetDestNode(_ track: OpaquePointer?, _ node: Int32) -> Int32 {
    guard let ref = MusicHandles.tracks.get(track) else { return MusicError.parameter.rawValue }
    guard ref.id != 0 else { return MusicError.illegalTrackDestination.rawValue }
    guard let graph = try? MusicHandles.host.graph(of: ref.sequence), (try? graph.nodeInfo(node)) != nil else {
        return MusicError.illegalTrackDestination.rawValue
    }
    return status(trackCall(track) { ref, state throws(MusicError) in try state.update(ref.id) { $0.destination = node } })
}

@_cdecl("MusicTrackGetDestNode")
public func musicTrackGetDestNode(_ track: OpaquePointer?, _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    guard let out, let ref = MusicHandles.tracks.get(track) else { return MusicError.parameter.rawValue }
    guard ref.id != 0 else { return MusicError.illegalTrackDestination.rawValue }
    if let node = ref.sequence.state.withLock({ (try? $0.track(ref.id))?.destination }) {
        out.pointee = node
        return 0
    }
    // No node of its own: the graph's first music device.
    guard let graph = try? MusicHandles.host.graph(of: ref.sequence),
          let node = graph.nodes.first(where: {
              UnitKind.named(type: $0.component.type, subtype: $0.component.subtype)?.traits.contains(.instrument) == true
          }) else { return MusicError.illegalTrackDestination.rawValue }
    out.pointee = node.id
    return 0
}

@_cdecl("MusicTrackSetDestMIDIEndpoint")
public func musicTrackSetDestMIDIEndpoint(_ track: OpaquePointer?, _ endpoint: UInt32) -> Int32 {
    MusicHandles.tracks.get(track) == nil ? MusicError.parameter.rawValue : MusicError.unimplemented.rawValue
}

@_cdecl("MusicTrackGetDestMIDIEndpoint")
public func musicTrackGetDestMIDIEndpoint(_ track: OpaquePointer?, _ out: UnsafeMutablePointer<UInt32>?) -> Int32 {
    MusicHandles.tracks.get(track) == nil ? MusicError.parameter.rawValue : MusicError.illegalTrackDestination.rawValue
}

// MARK: Properties

/// A NULL `outData` asks the size.
@_cdecl("MusicTrackGetProperty")
public func musicTrackGetProperty(_ track: OpaquePointer?, _ id: UInt32, _ outData: UnsafeMutableRawPointer?,
                                  _ ioLength: UnsafeMutablePointer<UInt32>?) -> Int32 {
    status(trackCall(track) { ref, state throws(MusicError) in
        guard let ioLength else { throw .parameter }
        let size = try TrackProperties.size(id, track: ref.id)
        guard let outData else {
            ioLength.pointee = UInt32(size)
            return
        }
        guard Int(ioLength.pointee) >= size else { throw .parameter }
        let value = try TrackProperties.value(id, of: ref.id, in: state)
        value.withUnsafeBytes { outData.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        ioLength.pointee = UInt32(value.count)
    })
}

@_cdecl("MusicTrackSetProperty")
public func musicTrackSetProperty(_ track: OpaquePointer?, _ id: UInt32, _ inData: UnsafeRawPointer?, _ length: UInt32) -> Int32 {
    status(trackCall(track) { ref, state throws(MusicError) in
        guard let inData else { throw .parameter }
        try TrackProperties.set(id, of: ref.id, in: &state, UnsafeRawBufferPointer(start: inData, count: Int(length)))
    })
}

// MARK: Edits

private func range(_ start: Double, _ end: Double) throws(MusicError) {
    guard start.isFinite, end.isFinite, start >= 0, end >= start else { throw .parameter }
}

@_cdecl("MusicTrackMoveEvents")
public func musicTrackMoveEvents(_ track: OpaquePointer?, _ start: Double, _ end: Double, _ move: Double) -> Int32 {
    status(trackCall(track) { ref, state throws(MusicError) in
        try range(start, end)
        guard move.isFinite else { throw .parameter }
        try state.update(ref.id) { t throws(MusicError) in try t.move(from: start, to: end, by: move) }
    })
}

@_cdecl("MusicTrackClear")
public func musicTrackClear(_ track: OpaquePointer?, _ start: Double, _ end: Double) -> Int32 {
    status(trackCall(track) { ref, state throws(MusicError) in
        try range(start, end)
        try state.update(ref.id) { $0.clear(from: start, to: end) }
    })
}

@_cdecl("MusicTrackCut")
public func musicTrackCut(_ track: OpaquePointer?, _ start: Double, _ end: Double) -> Int32 {
    status(trackCall(track) { ref, state throws(MusicError) in
        try range(start, end)
        try state.update(ref.id) { $0.cut(from: start, to: end) }
    })
}

/// The source's range into the destination at `at` (the two may be of different sequences).
private func paste(_ source: OpaquePointer?, _ start: Double, _ end: Double, _ destination: OpaquePointer?, _ at: Double,
                   shifting: Bool) -> Int32 {
    guard let from = MusicHandles.tracks.get(source), MusicHandles.tracks.get(destination) != nil else {
        return MusicError.parameter.rawValue
    }
    do throws(MusicError) { try range(start, end) } catch { return error.rawValue }
    guard at.isFinite, at >= 0 else { return MusicError.parameter.rawValue }
    guard let events = from.sequence.state.withLock({ (try? $0.track(from.id))?.events(from: start, to: end) }) else {
        return MusicError.trackNotFound.rawValue
    }
    let moved = events.map { event -> MusicEvent in
        var copy = event
        copy.time -= start
        return copy
    }
    return status(trackCall(destination) { ref, state throws(MusicError) in
        if ref.id == 0, moved.contains(where: { $0.type != .extendedTempo && $0.type != .meta }) { throw .invalidEventType }
        try state.update(ref.id) { $0.insert(moved, at: at, length: end - start, shifting: shifting) }
    })
}

@_cdecl("MusicTrackCopyInsert")
public func musicTrackCopyInsert(_ source: OpaquePointer?, _ start: Double, _ end: Double, _ destination: OpaquePointer?,
                                 _ at: Double) -> Int32 {
    paste(source, start, end, destination, at, shifting: true)
}

@_cdecl("MusicTrackMerge")
public func musicTrackMerge(_ source: OpaquePointer?, _ start: Double, _ end: Double, _ destination: OpaquePointer?,
                            _ at: Double) -> Int32 {
    paste(source, start, end, destination, at, shifting: false)
}

// MARK: Iterators

@_cdecl("NewMusicEventIterator")
public func newMusicEventIterator(_ track: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out, let ref = MusicHandles.tracks.get(track) else { return MusicError.parameter.rawValue }
    out.pointee = MusicHandles.newIterator(ref)
    return 0
}

@_cdecl("DisposeMusicEventIterator")
public func disposeMusicEventIterator(_ iterator: OpaquePointer?) -> Int32 {
    MusicHandles.iterators.remove(iterator) == nil ? MusicError.parameter.rawValue : 0
}

/// Runs a call on an iterator with its track (under the sequence's lock); the position is
/// kept within the track.
private func iteratorCall(_ handle: OpaquePointer?, changing: Bool = false,
                          _ body: (IteratorRef, inout TrackData) throws(MusicError) -> Void) -> Int32 {
    guard let iterator = MusicHandles.iterators.get(handle) else { return MusicError.parameter.rawValue }
    return status(iterator.track.sequence.state.withLock { state -> Result<Void, MusicError> in
        do throws(MusicError) {
            try state.update(iterator.track.id, changing: changing) { t throws(MusicError) in
                iterator.index = min(iterator.index, t.events.count)
                try body(iterator, &t)
            }
            return .success(())
        } catch {
            return .failure(error)
        }
    })
}

@_cdecl("MusicEventIteratorSeek")
public func musicEventIteratorSeek(_ iterator: OpaquePointer?, _ time: Double) -> Int32 {
    iteratorCall(iterator) { it, t throws(MusicError) in
        guard !time.isNaN else { throw .parameter }
        it.index = t.index(atOrAfter: time)
    }
}

@_cdecl("MusicEventIteratorNextEvent")
public func musicEventIteratorNextEvent(_ iterator: OpaquePointer?) -> Int32 {
    iteratorCall(iterator) { it, t throws(MusicError) in
        guard it.index < t.events.count else { throw .endOfTrack }
        it.index += 1
    }
}

@_cdecl("MusicEventIteratorPreviousEvent")
public func musicEventIteratorPreviousEvent(_ iterator: OpaquePointer?) -> Int32 {
    iteratorCall(iterator) { it, _ throws(MusicError) in
        guard it.index > 0 else { throw .startOfTrack }
        it.index -= 1
    }
}

/// The event's time, type, and its structure (valid until the iterator's next call).
@_cdecl("MusicEventIteratorGetEventInfo")
public func musicEventIteratorGetEventInfo(_ iterator: OpaquePointer?, _ outTime: UnsafeMutablePointer<Double>?,
                                           _ outType: UnsafeMutablePointer<UInt32>?,
                                           _ outData: UnsafeMutablePointer<UnsafeRawPointer?>?,
                                           _ outSize: UnsafeMutablePointer<UInt32>?) -> Int32 {
    iteratorCall(iterator) { it, t throws(MusicError) in
        guard it.index < t.events.count else { throw .endOfTrack }
        let event = t.events[it.index]
        outTime?.pointee = event.time
        outType?.pointee = event.type.rawValue
        it.data = event.data
        outData?.pointee = it.data.withUnsafeBytes { $0.baseAddress }
        outSize?.pointee = UInt32(event.data.count)
    }
}

@_cdecl("MusicEventIteratorSetEventInfo")
public func musicEventIteratorSetEventInfo(_ iterator: OpaquePointer?, _ type: UInt32, _ data: UnsafeRawPointer?) -> Int32 {
    iteratorCall(iterator, changing: true) { it, t throws(MusicError) in
        guard it.index < t.events.count else { throw .endOfTrack }
        guard let kind = MusicEventType(rawValue: type), kind == t.events[it.index].type else { throw .invalidEventType }
        guard let data, let bytes = eventBytes(kind, data) else { throw .parameter }
        t.events[it.index].data = bytes
    }
}

/// Moves the event; the iterator stays on it.
@_cdecl("MusicEventIteratorSetEventTime")
public func musicEventIteratorSetEventTime(_ iterator: OpaquePointer?, _ time: Double) -> Int32 {
    iteratorCall(iterator, changing: true) { it, t throws(MusicError) in
        guard it.index < t.events.count else { throw .endOfTrack }
        guard time.isFinite, time >= 0 else { throw .parameter }
        var event = t.events.remove(at: it.index)
        event.time = time
        t.add(event)
        it.index = t.index(atOrAfter: time.nextUp) - 1
    }
}

/// Deletes the event; the iterator moves to the one after it.
@_cdecl("MusicEventIteratorDeleteEvent")
public func musicEventIteratorDeleteEvent(_ iterator: OpaquePointer?) -> Int32 {
    iteratorCall(iterator, changing: true) { it, t throws(MusicError) in
        guard it.index < t.events.count else { throw .endOfTrack }
        t.events.remove(at: it.index)
    }
}

@_cdecl("MusicEventIteratorHasPreviousEvent")
public func musicEventIteratorHasPreviousEvent(_ iterator: OpaquePointer?, _ out: UnsafeMutablePointer<UInt8>?) -> Int32 {
    iteratorCall(iterator) { it, _ throws(MusicError) in
        guard let out else { throw .parameter }
        out.pointee = it.index > 0 ? 1 : 0
    }
}

/// True while the iterator is on an event (including the last): the loops programs write,
/// `while (HasNextEvent(it, &more), more) { GetEventInfo; NextEvent }`, visit every event.
@_cdecl("MusicEventIteratorHasNextEvent")
public func musicEventIteratorHasNextEvent(_ iterator: OpaquePointer?, _ out: UnsafeMutablePointer<UInt8>?) -> Int32 {
    iteratorCall(iterator) { it, t throws(MusicError) in
        guard let out else { throw .parameter }
        out.pointee = it.index < t.events.count ? 1 : 0
    }
}

@_cdecl("MusicEventIteratorHasCurrentEvent")
public func musicEventIteratorHasCurrentEvent(_ iterator: OpaquePointer?, _ out: UnsafeMutablePointer<UInt8>?) -> Int32 {
    iteratorCall(iterator) { it, t throws(MusicError) in
        guard let out else { throw .parameter }
        out.pointee = it.index < t.events.count ? 1 : 0
    }
}
