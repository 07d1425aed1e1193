/// The result codes of MusicPlayer.h this layer answers with.
public enum MusicError: Int32, Error, Sendable {
    case invalidSequenceType = -10846
    case trackIndex = -10859
    case trackNotFound = -10858
    case endOfTrack = -10857
    case startOfTrack = -10856
    case illegalTrackDestination = -10855
    case noSequence = -10854
    case invalidEventType = -10853
    case invalidPlayerState = -10852
    case cannotDoInCurrentContext = -10863
    case parameter = -50
    /// fnfErr: a MIDI file that is not there.
    case fileNotFound = -43
    /// kAudioFileInvalidFileError ('dta?'): data that is not a standard MIDI file.
    case invalidFile = 0x6474_613F
    /// kAudioFileUnsupportedFileTypeError ('typ?'): a file type other than MIDI.
    case unsupportedFileType = 0x7479_703F
    /// dupFNErr: MusicSequenceFileCreate over a file without kMusicSequenceFileFlags_EraseFile.
    case fileExists = -48
    /// kAudio_UnimplementedError: a CoreMIDI endpoint, which Linux has not.
    case unimplemented = -4
}

/// A MusicEventType (kMusicEventType_...).
public enum MusicEventType: UInt32, Sendable {
    case null = 0, extendedNote = 1, extendedTempo = 3, user = 4, meta = 5, note = 6, channel = 7, raw = 8,
         parameter = 9, auPreset = 10
}

/// An event of a track: its time in beats, its type and its C structure as the program
/// gave it (a MIDINoteMessage, a MIDIMetaEvent with its data, ...), so that an iterator
/// hands back exactly those bytes. An AUPresetEvent's dictionary is kept alive by `kept`.
public struct MusicEvent: Sendable {
    public var time: Double
    public var type: MusicEventType
    public var data: [UInt8]
    public var kept: AnyObjectBox?

    public init(time: Double, type: MusicEventType, data: [UInt8], kept: AnyObjectBox? = nil) {
        self.time = time
        self.type = type
        self.data = data
        self.kept = kept
    }

    /// How long a note (MIDINoteMessage or ExtendedNoteOnEvent) lasts, in beats.
    public var duration: Double {
        switch type {
        case .note where data.count >= 8: return Double(Float(bitPattern: word(4)))
        case .extendedNote where data.count >= 12: return Double(Float(bitPattern: word(8)))
        default: return 0
        }
    }

    func word(_ at: Int) -> UInt32 {
        UInt32(data[at]) | UInt32(data[at + 1]) << 8 | UInt32(data[at + 2]) << 16 | UInt32(data[at + 3]) << 24
    }

    /// A MIDINoteMessage's bytes.
    public static func note(channel: UInt8, key: UInt8, velocity: UInt8, release: UInt8, duration: Float) -> [UInt8] {
        [channel, key, velocity, release] + withUnsafeBytes(of: duration) { Array($0) }
    }

    /// A MIDIMetaEvent's bytes.
    public static func meta(type: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [type, 0, 0, 0] + withUnsafeBytes(of: UInt32(payload.count)) { Array($0) } + payload
    }

    /// A MIDIRawData's (or MusicEventUserData's) bytes.
    public static func raw(_ payload: [UInt8]) -> [UInt8] { withUnsafeBytes(of: UInt32(payload.count)) { Array($0) } + payload }

    /// An ExtendedTempoEvent's bytes.
    public static func tempo(_ bpm: Double) -> [UInt8] { withUnsafeBytes(of: bpm) { Array($0) } }

    /// The tempo of an ExtendedTempoEvent.
    public var bpm: Double? {
        guard type == .extendedTempo, data.count >= 8 else { return nil }
        return data.withUnsafeBytes { $0.loadUnaligned(as: Double.self) }
    }

    /// A meta event's type and data.
    public var metaContent: (type: UInt8, data: [UInt8])? {
        guard type == .meta, data.count >= 8 else { return nil }
        let length = min(Int(word(4)), data.count - 8)
        return (data[0], Array(data[8..<8 + length]))
    }

    /// A raw-data or user event's bytes.
    public var payload: [UInt8] {
        guard data.count >= 4 else { return [] }
        return Array(data[4..<min(data.count, 4 + Int(word(0)))])
    }
}

/// An object (a CF value from C) an event keeps alive.
public final class AnyObjectBox: @unchecked Sendable {
    public let object: AnyObject
    public init(_ object: AnyObject) { self.object = object }
}
