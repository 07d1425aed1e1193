/// What a CAF, AIFF or WAV file carries besides its audio: chunks of its own (Audio
/// File's "user data", by four-character type and index), markers and regions.
///
/// Read from the file's chunks at open; for a CAF being written, kept here and written
/// after the audio when the file is closed (CAFWriter). Markers and regions follow CAF's
/// model ('mark', 'regn', names in 'strg'); WAV's cue points ('cue ', named by 'labl' and
/// spanned by 'ltxt' in a 'LIST'/'adtl') and AIFF's 'MARK' are read into it.
public struct FileAnnotations: Sendable {
    public struct Chunk: Sendable, Equatable {
        public var type: UInt32
        public var bytes: [UInt8]
    }

    public struct Marker: Sendable, Equatable {
        public var framePosition: Double
        public var name: String?
        public var id: Int32
        /// hours, minutes, seconds, frames, sub-frame sample offset
        public var smpte: (hours: Int8, minutes: UInt8, seconds: UInt8, frames: UInt8, offset: UInt32)
        public var type: UInt32
        public var channel: UInt16

        public init(framePosition: Double, name: String?, id: Int32, type: UInt32 = 0, channel: UInt16 = 0,
                    smpte: (Int8, UInt8, UInt8, UInt8, UInt32) = (0, 0, 0, 0, 0)) {
            self.framePosition = framePosition
            self.name = name
            self.id = id
            self.type = type
            self.channel = channel
            self.smpte = smpte
        }

        public static func == (a: Marker, b: Marker) -> Bool {
            a.framePosition == b.framePosition && a.name == b.name && a.id == b.id && a.type == b.type
                && a.channel == b.channel && a.smpte == b.smpte
        }
    }

    public struct Region: Sendable, Equatable {
        public var id: UInt32
        public var name: String?
        public var flags: UInt32
        public var markers: [Marker]

        public init(id: UInt32, name: String?, flags: UInt32, markers: [Marker]) {
            self.id = id
            self.name = name
            self.flags = flags
            self.markers = markers
        }
    }

    /// Chunks other than the audio and its description, in file order.
    public var chunks: [Chunk] = []
    public var markers: [Marker] = []
    public var regions: [Region] = []
    /// The SMPTE time type the markers' and regions' SMPTE times are in.
    public var smpteTimeType: UInt32 = 0

    public init() {}

    /// The chunks of one type, in order.
    public func chunks(ofType type: UInt32) -> [[UInt8]] { chunks.filter { $0.type == type }.map(\.bytes) }

    /// Sets chunk `index` of `type`: replaces it, or adds one when `index` is the count.
    public mutating func setChunk(_ type: UInt32, index: Int, bytes: [UInt8]) throws(AudioFileStatus) {
        let positions = chunks.indices.filter { chunks[$0].type == type }
        guard !Self.structural.contains(type) else { throw .operationNotSupported }
        if index < positions.count {
            chunks[positions[index]].bytes = bytes
        } else if index == positions.count {
            chunks.append(Chunk(type: type, bytes: bytes))
        } else {
            throw .invalidChunk
        }
    }

    public mutating func removeChunk(_ type: UInt32, index: Int) throws(AudioFileStatus) {
        let positions = chunks.indices.filter { chunks[$0].type == type }
        guard index >= 0, index < positions.count else { throw .invalidChunk }
        chunks.remove(at: positions[index])
    }

    /// The chunk types that describe the audio itself (or its layout, or hold its
    /// markers), which are not the program's user data.
    static let structural: Set<UInt32> = Set(["desc", "data", "pakt", "kuki", "free", "chan", "mark", "regn", "strg",
                                              "fmt ", "fact", "cue ", "COMM", "SSND", "FVER", "MARK"].map(fourCC))

    static func fourCC(_ text: String) -> UInt32 { text.utf8.reduce(0) { $0 << 8 | UInt32($1) } }

    // MARK: reading

    /// The annotations of the file `source` holds, a `fileType` container; empty for the
    /// containers that have none (MPEG-4, ADTS, MP3 ...) or when the chunks are damaged.
    /// At most `limit` bytes of chunk bodies are read: more is not a file's annotations.
    public static func read(_ source: ByteSource, fileType: UInt32, limit: Int = 16 << 20) -> FileAnnotations {
        var reader = ChunkWalker(source: source, fileType: fileType, budget: limit)
        guard let list = reader.walk() else { return FileAnnotations() }
        var result = FileAnnotations()
        var strings: [UInt32: String] = [:]
        var cues: [(id: UInt32, frame: UInt32)] = []
        var labels: [UInt32: String] = [:]
        var spans: [(id: UInt32, length: UInt32)] = []
        for (type, body) in list {
            switch (fileType, type) {
            case (FileType.caf, fourCC("strg")): strings = parseStrings(body)
            case (FileType.caf, fourCC("mark")), (FileType.caf, fourCC("regn")),
                 (FileType.wave, fourCC("cue ")), (FileType.aiff, fourCC("MARK")), (FileType.aifc, fourCC("MARK")):
                break  // after the strings, below
            case (FileType.wave, fourCC("LIST")):
                guard body.count >= 4, Array(body[0..<4]) == Array("adtl".utf8) else {
                    result.chunks.append(Chunk(type: type, bytes: body))
                    continue
                }
                parseAssociatedData(Array(body[4...]), labels: &labels, spans: &spans)
            default:
                if !structural.contains(type) { result.chunks.append(Chunk(type: type, bytes: body)) }
            }
        }
        for (type, body) in list {
            switch (fileType, type) {
            case (FileType.caf, fourCC("mark")):
                if let (smpte, markers) = parseCAFMarkers(body, strings: strings) {
                    result.smpteTimeType = smpte
                    result.markers = markers
                }
            case (FileType.caf, fourCC("regn")):
                result.regions = parseCAFRegions(body, strings: strings)
            case (FileType.wave, fourCC("cue ")):
                var b = Bytes(body, bigEndian: false)
                let count = Int(b.u32() ?? 0)
                for _ in 0..<min(count, body.count / 24) {
                    guard let id = b.u32(), b.skip(16), let frame = b.u32() else { break }
                    cues.append((id, frame))
                }
            case (FileType.aiff, fourCC("MARK")), (FileType.aifc, fourCC("MARK")):
                var b = Bytes(body, bigEndian: true)
                let count = Int(b.u16() ?? 0)
                for _ in 0..<count {
                    guard let id = b.u16(), let position = b.u32(), let length = b.u8(),
                          let name = b.take(Int(length)) else { break }
                    if (Int(length) + 1) % 2 == 1 { _ = b.skip(1) }
                    result.markers.append(Marker(framePosition: Double(position), name: String(decoding: name, as: UTF8.self),
                                                 id: Int32(bitPattern: UInt32(id))))
                }
            default:
                continue
            }
        }
        for cue in cues {
            result.markers.append(Marker(framePosition: Double(cue.frame), name: labels[cue.id], id: Int32(bitPattern: cue.id)))
        }
        // A WAV's labelled text with a length spans from its cue point: a region of two markers.
        for span in spans {
            guard let cue = cues.first(where: { $0.id == span.id }) else { continue }
            let start = Marker(framePosition: Double(cue.frame), name: nil, id: Int32(bitPattern: cue.id))
            var end = start
            end.framePosition += Double(span.length)
            result.regions.append(Region(id: span.id, name: labels[span.id], flags: 0, markers: [start, end]))
        }
        return result
    }

    private static func parseStrings(_ body: [UInt8]) -> [UInt32: String] {
        var b = Bytes(body, bigEndian: true)
        guard let count = b.u32(), Int(count) <= body.count / 12 else { return [:] }
        var entries: [(UInt32, Int64)] = []
        for _ in 0..<count {
            guard let id = b.u32(), let offset = b.u64() else { return [:] }
            entries.append((id, Int64(bitPattern: offset)))
        }
        let base = 4 + Int(count) * 12
        var strings: [UInt32: String] = [:]
        for (id, offset) in entries {
            guard offset >= 0, base + Int(offset) < body.count else { continue }
            let start = base + Int(offset)
            let end = body[start...].firstIndex(of: 0) ?? body.count
            strings[id] = String(decoding: body[start..<end], as: UTF8.self)
        }
        return strings
    }

    private static func parseCAFMarker(_ b: inout Bytes, strings: [UInt32: String]) -> Marker? {
        guard let type = b.u32(), let position = b.u64(), let id = b.u32(), let hours = b.u8(), let minutes = b.u8(),
              let seconds = b.u8(), let frames = b.u8(), let offset = b.u32(), let channel = b.u32() else { return nil }
        return Marker(framePosition: Double(bitPattern: position), name: strings[id], id: Int32(bitPattern: id), type: type,
                      channel: UInt16(truncatingIfNeeded: channel),
                      smpte: (Int8(bitPattern: hours), minutes, seconds, frames, offset))
    }

    private static func parseCAFMarkers(_ body: [UInt8], strings: [UInt32: String]) -> (UInt32, [Marker])? {
        var b = Bytes(body, bigEndian: true)
        guard let smpte = b.u32(), let count = b.u32(), Int(count) <= body.count / 28 else { return nil }
        var markers: [Marker] = []
        for _ in 0..<count {
            guard let marker = parseCAFMarker(&b, strings: strings) else { return nil }
            markers.append(marker)
        }
        return (smpte, markers)
    }

    private static func parseCAFRegions(_ body: [UInt8], strings: [UInt32: String]) -> [Region] {
        var b = Bytes(body, bigEndian: true)
        guard b.u32() != nil, let count = b.u32(), Int(count) <= body.count / 12 else { return [] }
        var regions: [Region] = []
        for _ in 0..<count {
            guard let id = b.u32(), let flags = b.u32(), let number = b.u32(), Int(number) <= body.count / 28 else { break }
            var markers: [Marker] = []
            for _ in 0..<number {
                guard let marker = parseCAFMarker(&b, strings: strings) else { return regions }
                markers.append(marker)
            }
            regions.append(Region(id: id, name: strings[id], flags: flags, markers: markers))
        }
        return regions
    }

    /// A WAV's associated data list: 'labl' names a cue point, 'ltxt' gives it a length.
    private static func parseAssociatedData(_ body: [UInt8], labels: inout [UInt32: String],
                                            spans: inout [(id: UInt32, length: UInt32)]) {
        var b = Bytes(body, bigEndian: false)
        while let tag = b.take(4), let size = b.u32(), let sub = b.take(Int(size)) {
            if size % 2 == 1 { _ = b.skip(1) }
            var s = Bytes(sub, bigEndian: false)
            guard let id = s.u32() else { continue }
            switch String(decoding: tag, as: UTF8.self) {
            case "labl":
                let text = sub[4...]
                labels[id] = String(decoding: text.prefix { $0 != 0 }, as: UTF8.self)
            case "ltxt":
                if let length = s.u32() { spans.append((id, length)) }
            default:
                continue
            }
        }
    }

    // MARK: writing (CAF)

    /// The chunks a CAF carries for these annotations, in order: user chunks, then the
    /// names ('strg'), markers ('mark') and regions ('regn').
    func cafChunks() -> [(type: UInt32, bytes: [UInt8])] {
        var out = chunks.map { ($0.type, $0.bytes) }
        // Names are strings by ID: markers name themselves by their ID, regions by theirs.
        var names: [(UInt32, String)] = []
        for marker in markers + regions.flatMap(\.markers) {
            if let name = marker.name, !names.contains(where: { $0.0 == UInt32(bitPattern: marker.id) }) {
                names.append((UInt32(bitPattern: marker.id), name))
            }
        }
        for region in regions {
            if let name = region.name, !names.contains(where: { $0.0 == region.id }) { names.append((region.id, name)) }
        }
        if !names.isEmpty {
            var table = Writer()
            var text: [UInt8] = []
            table.u32(UInt32(names.count))
            for (id, name) in names {
                table.u32(id)
                table.u64(UInt64(text.count))
                text += Array(name.utf8) + [0]
            }
            out.append((Self.fourCC("strg"), table.bytes + text))
        }
        if !markers.isEmpty {
            var w = Writer()
            w.u32(smpteTimeType)
            w.u32(UInt32(markers.count))
            for marker in markers { w.marker(marker) }
            out.append((Self.fourCC("mark"), w.bytes))
        }
        if !regions.isEmpty {
            var w = Writer()
            w.u32(smpteTimeType)
            w.u32(UInt32(regions.count))
            for region in regions {
                w.u32(region.id)
                w.u32(region.flags)
                w.u32(UInt32(region.markers.count))
                for marker in region.markers { w.marker(marker) }
            }
            out.append((Self.fourCC("regn"), w.bytes))
        }
        return out
    }
}

/// Big-endian fields appended, for CAF's chunks.
private struct Writer {
    var bytes: [UInt8] = []
    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u32(_ v: UInt32) { bytes += [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    mutating func u64(_ v: UInt64) { u32(UInt32(v >> 32)); u32(UInt32(v & 0xFFFF_FFFF)) }
    mutating func marker(_ m: FileAnnotations.Marker) {
        u32(m.type)
        u64(m.framePosition.bitPattern)
        u32(UInt32(bitPattern: m.id))
        u8(UInt8(bitPattern: m.smpte.hours)); u8(m.smpte.minutes); u8(m.smpte.seconds); u8(m.smpte.frames)
        u32(m.smpte.offset)
        u32(UInt32(m.channel))
    }
}

/// Fields read in order from a chunk body, nil past its end.
private struct Bytes {
    let data: [UInt8]
    let bigEndian: Bool
    var at = 0
    init(_ data: [UInt8], bigEndian: Bool) {
        self.data = data
        self.bigEndian = bigEndian
    }
    mutating func take(_ n: Int) -> [UInt8]? {
        guard n >= 0, at + n <= data.count else { return nil }
        defer { at += n }
        return Array(data[at..<at + n])
    }
    mutating func skip(_ n: Int) -> Bool { take(n) != nil }
    mutating func u8() -> UInt8? { take(1)?[0] }
    mutating func number(_ n: Int) -> UInt64? {
        guard let b = take(n) else { return nil }
        return (bigEndian ? b : b.reversed()).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }
    mutating func u16() -> UInt16? { number(2).map { UInt16($0) } }
    mutating func u32() -> UInt32? { number(4).map { UInt32($0) } }
    mutating func u64() -> UInt64? { number(8) }
}

/// The top-level chunks of a CAF, AIFF/AIFC or WAV file: (type, body), the audio data's
/// body left out (it is not read). nil for other containers or a damaged chunk list.
private struct ChunkWalker {
    let source: ByteSource
    let fileType: UInt32
    var budget: Int

    init(source: ByteSource, fileType: UInt32, budget: Int) {
        self.source = source
        self.fileType = fileType
        self.budget = budget
    }

    mutating func walk() -> [(UInt32, [UInt8])]? {
        let big: Bool, sizeBytes: Int, pad: Bool
        var position: Int64
        var end = source.size ?? Int64.max
        switch fileType {
        case FileType.caf:
            big = true; sizeBytes = 8; pad = false; position = 8
        case FileType.aiff, FileType.aifc:
            big = true; sizeBytes = 4; pad = true; position = 12
            if let head = source.bytes(at: 4, count: 4) {
                end = min(end, 8 + Int64(head.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }))
            }
        case FileType.wave:
            big = false; sizeBytes = 4; pad = true; position = 12
            if let head = source.bytes(at: 4, count: 4) {
                end = min(end, 8 + Int64(head.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }))
            }
        default:
            return nil
        }
        var list: [(UInt32, [UInt8])] = []
        let audio: Set<UInt32> = [FileAnnotations.fourCC("data"), FileAnnotations.fourCC("SSND")]
        while position < end, list.count < 4096 {
            guard let head = source.bytes(at: position, count: 4 + sizeBytes) else { break }
            let type = head[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let field = Array(head[4...])
            let raw = (big ? field : field.reversed()).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let size = sizeBytes == 8 ? Int64(bitPattern: raw) : Int64(raw)
            let bodyStart = position + 4 + Int64(sizeBytes)
            // A CAF's data chunk of size -1 runs to the end: nothing follows it.
            if size < 0 { break }
            if !audio.contains(type) {
                guard size <= Int64(budget), let body = source.bytes(at: bodyStart, count: Int(size)) else { return list }
                budget -= Int(size)
                list.append((type, body))
            }
            position = bodyStart + size + (pad && size % 2 == 1 ? 1 : 0)
        }
        return list
    }
}
