/// Standard MIDI files (types 0, 1 and 2) to tracks and back.
///
/// Reading: a note on and the note off that ends it become one MIDINoteMessage with its
/// duration (a note left on ends with its track); other channel messages become
/// MIDIChannelMessages, system-exclusive messages MIDIRawData (with their F0), meta events
/// MIDIMetaEvents. Tempo changes go to the tempo track as ExtendedTempo events, with the
/// time and key signatures; a type-1 file's first track (its conductor) adds no track of
/// its own unless it holds channel messages. A track's end-of-track time is its length.
/// Every read is checked against the data's end: a file that lies is refused, never
/// overrun.
///
/// Writing: a type-1 file, the tempo track first.
public enum MIDIFileCodec {
    private struct Reader {
        let bytes: [UInt8]
        var at: Int
        let end: Int

        mutating func byte() throws(MusicError) -> UInt8 {
            guard at < end else { throw .invalidFile }
            defer { at += 1 }
            return bytes[at]
        }

        mutating func word(_ count: Int) throws(MusicError) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<count { value = value << 8 | UInt32(try byte()) }
            return value
        }

        /// A variable-length quantity: at most four bytes.
        mutating func variable() throws(MusicError) -> Int {
            var value = 0
            for _ in 0..<4 {
                let b = try byte()
                value = value << 7 | Int(b & 0x7F)
                if b & 0x80 == 0 { return value }
            }
            throw .invalidFile
        }

        mutating func take(_ count: Int) throws(MusicError) -> [UInt8] {
            guard count >= 0, count <= end - at else { throw .invalidFile }
            defer { at += count }
            return Array(bytes[at..<at + count])
        }
    }

    /// The tracks of `bytes` (the tempo track first) and the file's ticks per quarter note.
    public static func read(_ bytes: [UInt8], channelsToTracks: Bool) throws(MusicError) -> (tracks: [TrackData], resolution: Int16) {
        var reader = Reader(bytes: bytes, at: 0, end: bytes.count)
        guard try reader.take(4) == Array("MThd".utf8) else { throw .invalidFile }
        let headerLength = Int(try reader.word(4))
        guard headerLength >= 6, headerLength <= bytes.count else { throw .invalidFile }
        let format = try reader.word(2), declared = try reader.word(2), division = try reader.word(2)
        reader.at = 8 + headerLength
        guard format <= 2, division != 0 else { throw .invalidFile }
        // Beats for a tick: by the quarter note, or by SMPTE frames (as seconds at 120 bpm).
        let beatsPerTick: Double
        if division & 0x8000 == 0 {
            beatsPerTick = 1 / Double(division)
        } else {
            let fps = Double(-Int(Int8(bitPattern: UInt8(division >> 8)))), ticks = Double(division & 0xFF)
            guard fps > 0, ticks > 0 else { throw .invalidFile }
            beatsPerTick = 2 / (fps * ticks)
        }
        var tempo = TrackData(id: 0)
        var tracks: [TrackData] = []
        var index = 0
        while reader.at + 8 <= reader.end, index < max(Int(declared), 1) * 4 + 64 {
            let id = try reader.take(4), length = Int(try reader.word(4))
            guard length <= reader.end - reader.at else { throw .invalidFile }
            let chunkEnd = reader.at + length
            defer { reader.at = chunkEnd }
            guard id == Array("MTrk".utf8) else { continue }
            var track = TrackData(id: index + 1)
            var chunk = Reader(bytes: bytes, at: reader.at, end: chunkEnd)
            try readTrack(&chunk, into: &track, tempo: &tempo, beatsPerTick: beatsPerTick)
            let conductorOnly = format == 1 && index == 0 && !track.events.contains { $0.type != .meta }
            if conductorOnly {
                for event in track.events { tempo.add(event) }
            } else {
                tracks.append(track)
            }
            index += 1
        }
        guard index > 0 else { throw .invalidFile }
        if channelsToTracks { tracks = splitByChannel(tracks) }
        let resolution = division & 0x8000 == 0 ? Int16(truncatingIfNeeded: division) : 480
        return ([tempo] + tracks, resolution)
    }

    private static func readTrack(_ r: inout Reader, into track: inout TrackData, tempo: inout TrackData,
                                  beatsPerTick: Double) throws(MusicError) {
        var tick = 0, running: UInt8 = 0
        var open: [Int: [(tick: Int, velocity: UInt8)]] = [:]
        var ended = false
        func beats(_ t: Int) -> Double { Double(t) * beatsPerTick }
        while r.at < r.end && !ended {
            tick += try r.variable()
            var status = try r.byte()
            if status < 0x80 {
                guard running != 0 else { throw .invalidFile }
                status = running
                r.at -= 1
            }
            switch status {
            case 0xFF:
                running = 0
                let type = try r.byte(), data = try r.take(try r.variable())
                switch type {
                case 0x2F:
                    ended = true
                    track.explicitLength = beats(tick)
                case 0x51 where data.count == 3:
                    let micros = Int(data[0]) << 16 | Int(data[1]) << 8 | Int(data[2])
                    if micros > 0 { tempo.add(MusicEvent(time: beats(tick), type: .extendedTempo, data: MusicEvent.tempo(60_000_000 / Double(micros)))) }
                case 0x58, 0x59, 0x54:
                    tempo.add(MusicEvent(time: beats(tick), type: .meta, data: MusicEvent.meta(type: type, data)))
                default:
                    track.add(MusicEvent(time: beats(tick), type: .meta, data: MusicEvent.meta(type: type, data)))
                }
            case 0xF0, 0xF7:
                running = 0
                let data = try r.take(try r.variable())
                track.add(MusicEvent(time: beats(tick), type: .raw, data: MusicEvent.raw(status == 0xF0 ? [0xF0] + data : data)))
            case 0xF1...0xFE:
                throw .invalidFile
            default:
                running = status
                let kind = status & 0xF0, channel = status & 0x0F
                let d1 = try r.byte(), d2 = kind == 0xC0 || kind == 0xD0 ? 0 : try r.byte()
                guard d1 < 0x80, d2 < 0x80 else { throw .invalidFile }
                let key = Int(channel) << 7 | Int(d1)
                if kind == 0x90 && d2 > 0 {
                    open[key, default: []].append((tick, d2))
                } else if kind == 0x80 || kind == 0x90 {
                    if var pending = open[key], !pending.isEmpty {
                        let start = pending.removeFirst()
                        open[key] = pending
                        track.add(MusicEvent(time: beats(start.tick), type: .note,
                                             data: MusicEvent.note(channel: channel, key: d1, velocity: start.velocity,
                                                                   release: kind == 0x80 ? d2 : 0,
                                                                   duration: Float(beats(tick - start.tick)))))
                    }
                } else {
                    track.add(MusicEvent(time: beats(tick), type: .channel, data: [status, d1, d2, 0]))
                }
            }
        }
        // Notes still on end with the track.
        for (key, pending) in open {
            for start in pending {
                track.add(MusicEvent(time: beats(start.tick), type: .note,
                                     data: MusicEvent.note(channel: UInt8(key >> 7), key: UInt8(key & 0x7F), velocity: start.velocity,
                                                           release: 0, duration: Float(beats(tick - start.tick)))))
            }
        }
    }

    /// kMusicSequenceLoadSMF_ChannelsToTracks: a track for each channel used, in channel
    /// order, after one for what belongs to no channel (meta and system-exclusive events).
    private static func splitByChannel(_ tracks: [TrackData]) -> [TrackData] {
        var shared = TrackData(id: 1)
        var channels: [UInt8: TrackData] = [:]
        for track in tracks {
            for event in track.events {
                switch event.type {
                case .note: channels[event.data[0] & 0x0F, default: TrackData(id: 0)].add(event)
                case .channel: channels[event.data[0] & 0x0F, default: TrackData(id: 0)].add(event)
                default: shared.add(event)
                }
            }
        }
        var result = shared.events.isEmpty ? [] : [shared]
        for channel in channels.keys.sorted() {
            var track = TrackData(id: result.count + 1)
            track.events = channels[channel]!.events
            result.append(track)
        }
        return result
    }

    // MARK: Writing

    /// A type-1 standard MIDI file of `tracks` (the tempo track first) at `resolution`
    /// ticks per quarter note. Events a MIDI file cannot hold (user, parameter, extended
    /// note, preset events) are left out.
    public static func write(_ tracks: [TrackData], resolution: Int16) -> [UInt8] {
        let ticksPerBeat = Double(max(1, resolution))
        var out = Array("MThd".utf8)
        put(&out, 6, 4)
        put(&out, 1, 2)
        put(&out, tracks.count, 2)
        put(&out, Int(max(1, resolution)), 2)
        for track in tracks {
            // (tick, order, bytes): note offs first where several share a tick.
            var events: [(Int, Int, [UInt8])] = []
            func tick(_ beats: Double) -> Int { Int((beats * ticksPerBeat).rounded()) }
            for event in track.events {
                let at = tick(event.time)
                switch event.type {
                case .note where event.data.count >= 8:
                    let d = event.data
                    events.append((at, 1, [0x90 | (d[0] & 0x0F), d[1] & 0x7F, max(1, d[2] & 0x7F)]))
                    events.append((tick(event.time + event.duration), 0, [0x80 | (d[0] & 0x0F), d[1] & 0x7F, d[3] & 0x7F]))
                case .channel where event.data.count >= 3 && event.data[0] >= 0x80 && event.data[0] < 0xF0:
                    let d = event.data, kind = d[0] & 0xF0
                    events.append((at, 1, kind == 0xC0 || kind == 0xD0 ? [d[0], d[1] & 0x7F] : [d[0], d[1] & 0x7F, d[2] & 0x7F]))
                case .raw:
                    let payload = event.payload
                    if payload.first == 0xF0 {
                        events.append((at, 1, [0xF0] + variable(payload.count - 1) + payload.dropFirst()))
                    } else if !payload.isEmpty {
                        events.append((at, 1, [0xF7] + variable(payload.count) + payload))
                    }
                case .meta:
                    if let (type, data) = event.metaContent, type != 0x2F {
                        events.append((at, 1, [0xFF, type] + variable(data.count) + data))
                    }
                case .extendedTempo:
                    if let bpm = event.bpm, bpm > 0 {
                        let micros = min(0xFF_FFFF, Int((60_000_000 / bpm).rounded()))
                        events.append((at, 1, [0xFF, 0x51, 3, UInt8(micros >> 16), UInt8(micros >> 8 & 0xFF), UInt8(micros & 0xFF)]))
                    }
                default:
                    break
                }
            }
            events = events.enumerated().sorted { ($0.element.0, $0.element.1, $0.offset) < ($1.element.0, $1.element.1, $1.offset) }
                .map(\.element)
            var body: [UInt8] = [], now = 0
            for (at, _, bytes) in events {
                body += variable(at - now) + bytes
                now = at
            }
            body += variable(max(0, tick(track.length) - now)) + [0xFF, 0x2F, 0]
            out += Array("MTrk".utf8)
            put(&out, body.count, 4)
            out += body
        }
        return out
    }

    private static func put(_ out: inout [UInt8], _ value: Int, _ count: Int) {
        for i in (0..<count).reversed() { out.append(UInt8(truncatingIfNeeded: value >> (8 * i))) }
    }

    private static func variable(_ value: Int) -> [UInt8] {
        var value = max(0, min(value, 0x0FFF_FFFF))
        var bytes = [UInt8(value & 0x7F)]
        value >>= 7
        while value > 0 {
            bytes.insert(UInt8(value & 0x7F) | 0x80, at: 0)
            value >>= 7
        }
        return bytes
    }
}
