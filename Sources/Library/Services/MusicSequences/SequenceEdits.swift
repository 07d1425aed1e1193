/// What the C calls do to a sequence's state beyond one track: tracks made and disposed,
/// a file read in and written out, the type, reversal, events added under the tempo
/// track's rule. Run under the sequence's lock by the runtime's callers.
extension MusicSequenceModel.State {
    /// A new empty track's ID.
    public mutating func newTrack() -> Int {
        let id = nextID
        nextID += 1
        tracks.append(TrackData(id: id))
        version += 1
        return id
    }

    /// The tempo track cannot be disposed of.
    public mutating func disposeTrack(_ id: Int) throws(MusicError) {
        guard id != 0 else { throw .parameter }
        guard tracks.contains(where: { $0.id == id }) else { throw .trackNotFound }
        tracks.removeAll { $0.id == id }
        version += 1
    }

    /// The tempo track takes tempo and meta events only; no event before 0.
    public mutating func add(_ event: MusicEvent, to id: Int) throws(MusicError) {
        guard event.time.isFinite, event.time >= 0 else { throw .parameter }
        if id == 0 && event.type != .extendedTempo && event.type != .meta { throw .invalidEventType }
        if event.type == .extendedTempo {
            guard let bpm = event.bpm, bpm.isFinite, bpm > 0 else { throw .parameter }
        }
        try update(id) { $0.add(event) }
    }

    /// Replaces the tracks with a MIDI file's (kMusicSequenceFile_MIDIType, or any type
    /// left to the data); returns the IDs of the tracks it replaced.
    public mutating func load(_ bytes: [UInt8], typeHint: UInt32, flags: UInt32) throws(MusicError) -> [Int] {
        guard typeHint == 0 || typeHint == MusicSequenceModel.midiFile else { throw .unsupportedFileType }
        let (read, resolution) = try MIDIFileCodec.read(bytes, channelsToTracks: flags & 1 != 0)
        let old = tracks.dropFirst().map(\.id)
        tracks = [TrackData(id: 0)]
        tracks[0].events = read[0].events
        for track in read.dropFirst() {
            var copy = TrackData(id: nextID)
            nextID += 1
            copy.events = track.events
            copy.explicitLength = track.explicitLength
            tracks.append(copy)
        }
        self.resolution = resolution
        version += 1
        return old
    }

    /// The sequence as a type-1 MIDI file at `resolution` ticks a quarter note (0: the
    /// sequence's own).
    public func file(type: UInt32, resolution: Int16) throws(MusicError) -> [UInt8] {
        guard type == MusicSequenceModel.midiFile else { throw .unsupportedFileType }
        guard resolution >= 0 else { throw .parameter }
        return MIDIFileCodec.write(tracks, resolution: resolution == 0 ? self.resolution : resolution)
    }

    /// Seconds: 60 beats a minute, so a beat is a second; samples: a beat is a frame at
    /// 44.1 kHz. Either replaces the tempo track's tempos.
    public mutating func setType(_ type: UInt32) throws(MusicError) {
        guard [MusicSequenceModel.beats, MusicSequenceModel.seconds, MusicSequenceModel.samples].contains(type) else {
            throw .invalidSequenceType
        }
        self.type = type
        guard type != MusicSequenceModel.beats else { return }
        tracks[0].events.removeAll { $0.type == .extendedTempo }
        let bpm = type == MusicSequenceModel.seconds ? 60.0 : 60.0 * 44100
        tracks[0].add(MusicEvent(time: 0, type: .extendedTempo, data: MusicEvent.tempo(bpm)))
        version += 1
    }

    /// Every track backwards in time: an event at t (lasting d) goes to length - t - d.
    public mutating func reverse() {
        let length = tracks.dropFirst().map(\.length).max() ?? 0
        for i in tracks.indices.dropFirst() {
            let events = tracks[i].events
            tracks[i].events = []
            for var event in events {
                event.time = max(0, length - event.time - event.duration)
                tracks[i].add(event)
            }
        }
        version += 1
    }

    /// The length of the longest track, in beats.
    public var length: Double { tracks.dropFirst().map(\.length).max() ?? 0 }
}

extension MusicSequenceModel {
    public static let midiFile: UInt32 = 0x6D69_6469
}

/// A track's properties as data (kSequenceTrackProperty_...): each one's size, whether it
/// is the tempo track's alone and read-only, how it reads and how it is set, in the C
/// layouts (MusicTrackLoopInfo, MusicTimeStamp, Boolean, UInt32, SInt16).
public enum TrackProperties {
    struct Row {
        let id: UInt32
        let size: Int
        var tempoTrackOnly = false
        let get: (TrackData, MusicSequenceModel.State) -> [UInt8]
        /// nil: read-only.
        var set: ((inout TrackData, UnsafeRawBufferPointer) throws(MusicError) -> Void)?
    }

    private static func bytes<T>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }

    static let rows: [Row] = [
        Row(id: 0, size: 16, get: { t, _ in bytes(t.loopDuration) + bytes(t.loopCount) + bytes(Int32(0)) },
            set: { t, b throws(MusicError) in
                let duration = b.loadUnaligned(as: Double.self), count = b.loadUnaligned(fromByteOffset: 8, as: Int32.self)
                guard duration.isFinite, duration >= 0, count >= 0 else { throw .parameter }
                t.loopDuration = duration
                t.loopCount = count
            }),
        Row(id: 1, size: 8, get: { t, _ in bytes(t.offset) },
            set: { t, b throws(MusicError) in
                let offset = b.loadUnaligned(as: Double.self)
                guard offset.isFinite else { throw .parameter }
                t.offset = offset
            }),
        Row(id: 2, size: 1, get: { t, _ in [t.muted ? 1 : 0] }, set: { t, b in t.muted = b[0] != 0 }),
        Row(id: 3, size: 1, get: { t, _ in [t.solo ? 1 : 0] }, set: { t, b in t.solo = b[0] != 0 }),
        Row(id: 4, size: 4, get: { t, _ in bytes(t.automatedParameters) },
            set: { t, b in t.automatedParameters = b.loadUnaligned(as: UInt32.self) }),
        Row(id: 5, size: 8, get: { t, _ in bytes(t.length) },
            set: { t, b throws(MusicError) in
                let length = b.loadUnaligned(as: Double.self)
                guard length.isFinite, length >= 0 else { throw .parameter }
                t.explicitLength = length
            }),
        Row(id: 6, size: 2, tempoTrackOnly: true, get: { _, s in bytes(s.resolution) }, set: nil),
    ]

    static func row(_ id: UInt32, track: Int) throws(MusicError) -> Row {
        guard let row = rows.first(where: { $0.id == id }), !row.tempoTrackOnly || track == 0 else { throw .parameter }
        return row
    }

    /// The property's size (what a NULL buffer asks).
    public static func size(_ id: UInt32, track: Int) throws(MusicError) -> Int { try row(id, track: track).size }

    public static func value(_ id: UInt32, of track: Int, in state: MusicSequenceModel.State) throws(MusicError) -> [UInt8] {
        let row = try row(id, track: track)
        return row.get(try state.track(track), state)
    }

    /// Sets the property from `bytes` (a Boolean may come as a UInt32, as programs pass it).
    public static func set(_ id: UInt32, of track: Int, in state: inout MusicSequenceModel.State,
                           _ bytes: UnsafeRawBufferPointer) throws(MusicError) {
        let row = try row(id, track: track)
        guard let set = row.set, bytes.count >= row.size else { throw .parameter }
        try state.update(track) { t throws(MusicError) in try set(&t, bytes) }
    }
}
