internal import AudioUnits
public import Foundation
internal import MusicSequences

public typealias AVMusicTimeStamp = Double

/// Where an Objective-C style call stores its error (Foundation on Linux has no
/// NSErrorPointer): `&error` of an `NSError?` passes it.
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?

/// A span of beats (iOS's AVBeatRange).
public struct AVBeatRange: Equatable, Sendable {
    public var start: AVMusicTimeStamp
    public var length: AVMusicTimeStamp
    public init(start: AVMusicTimeStamp, length: AVMusicTimeStamp) {
        self.start = start
        self.length = length
    }
}

public func AVMakeBeatRange(_ startBeat: AVMusicTimeStamp, _ lengthInBeats: AVMusicTimeStamp) -> AVBeatRange {
    AVBeatRange(start: startBeat, length: lengthInBeats)
}

/// How a standard MIDI file's tracks are read.
public struct AVMusicSequenceLoadOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// The file's tracks as they are.
    public static let smfPreserveTracks = AVMusicSequenceLoadOptions([])
    /// One track a MIDI channel.
    public static let smfChannelsToTracks = AVMusicSequenceLoadOptions(rawValue: 1)
}

public enum AVMusicTrackLoopCount: Int, Sendable {
    case forever = -1
}

/// iOS's AVAudioSequencer: a standard MIDI file played into an engine's instruments, by
/// the library's MusicPlayer (the player a C program's MusicPlayer is): its thread hands
/// each note to its sampler ahead of time, stamped with the frame it sounds at. A track
/// plays on its `destinationAudioUnit`, else on the engine's first instrument.
///
/// `start()` needs the engine running (else it throws kAudioToolboxErr_CannotDoInCurrentContext);
/// an interruption that stops the engine stops the sound, and `isPlaying` is then false.
open class AVAudioSequencer: NSObject, @unchecked Sendable {
    let model = MusicSequenceModel()
    private let host: SequencerHost
    private let player: MusicPlayerEngine
    private var trackNodes: [AVMusicTrack] = []
    private var tempo: AVMusicTrack?
    open var userInfo: [String: Any] = [:]

    /// A sequencer with no engine: it reads, edits and writes files; `start` throws.
    public override init() {
        host = SequencerHost(engine: nil)
        player = MusicPlayerEngine(host: host)
        super.init()
        player.setSequence(model)
    }

    public init(audioEngine engine: AVAudioEngine) {
        host = SequencerHost(engine: engine)
        player = MusicPlayerEngine(host: host)
        super.init()
        player.setSequence(model)
    }

    deinit { player.setSequence(nil) }

    // MARK: Files

    /// Reads a standard MIDI file, replacing the tracks (the player stops).
    open func load(from fileURL: URL, options: AVMusicSequenceLoadOptions = []) throws {
        guard let data = FileManager.default.contents(atPath: fileURL.path) else {
            throw NSError(domain: NSOSStatusErrorDomain, code: Int(MusicError.fileNotFound.rawValue))
        }
        try load(from: data, options: options)
    }

    open func load(from data: Data, options: AVMusicSequenceLoadOptions = []) throws {
        player.stop()
        do throws(MusicError) {
            _ = try model.state.withLock { s throws(MusicError) in
                try s.load([UInt8](data), typeHint: MusicSequenceModel.midiFile, flags: UInt32(options.rawValue))
            }
        } catch {
            throw NSError(domain: NSOSStatusErrorDomain, code: Int(error.rawValue))
        }
        try? player.setTime(0)
        trackNodes = []
        tempo = nil
    }

    /// The sequence as a type-1 standard MIDI file (`resolution`: ticks a quarter note,
    /// 0 for the sequence's own).
    open func data(withSMPTEResolution smpteResolution: Int, error outError: NSErrorPointer) -> Data {
        do throws(MusicError) {
            let bytes = try model.state.withLock { s throws(MusicError) in
                try s.file(type: MusicSequenceModel.midiFile, resolution: Int16(clamping: smpteResolution))
            }
            return Data(bytes)
        } catch {
            outError?.pointee = NSError(domain: NSOSStatusErrorDomain, code: Int(error.rawValue))
            return Data()
        }
    }

    open func write(to fileURL: URL, smpteResolution resolution: Int, replaceExisting replace: Bool) throws {
        if !replace && FileManager.default.fileExists(atPath: fileURL.path) {
            throw NSError(domain: NSOSStatusErrorDomain, code: Int(MusicError.fileExists.rawValue))
        }
        var failure: NSError?
        let bytes = data(withSMPTEResolution: resolution, error: &failure)
        if let failure { throw failure }
        try bytes.write(to: fileURL)
    }

    // MARK: Tracks

    /// The tracks after the tempo track, in order.
    open var tracks: [AVMusicTrack] {
        let ids = model.state.withLock { $0.tracks.dropFirst().map(\.id) }
        if trackNodes.map(\.id) != ids { trackNodes = ids.map { AVMusicTrack(sequencer: self, id: $0) } }
        return trackNodes
    }

    open var tempoTrack: AVMusicTrack {
        if let tempo { return tempo }
        let made = AVMusicTrack(sequencer: self, id: 0)
        tempo = made
        return made
    }

    open func seconds(forBeats beats: AVMusicTimeStamp) -> TimeInterval {
        model.state.withLock { $0.tempoMap }.seconds(forBeats: beats)
    }

    open func beats(forSeconds seconds: TimeInterval) -> AVMusicTimeStamp {
        model.state.withLock { $0.tempoMap }.beats(forSeconds: seconds)
    }

    // MARK: Playing

    open func prepareToPlay() { try? player.preroll() }

    open func start() throws {
        do throws(MusicError) {
            try player.start()
        } catch {
            throw NSError(domain: NSOSStatusErrorDomain, code: Int(error.rawValue))
        }
    }

    open func stop() { player.stop() }

    open var isPlaying: Bool { player.isPlaying }

    open var currentPositionInBeats: TimeInterval {
        get { player.time }
        set { try? player.setTime(max(0, newValue)) }
    }

    open var currentPositionInSeconds: TimeInterval {
        get { seconds(forBeats: player.time) }
        set { try? player.setTime(beats(forSeconds: max(0, newValue))) }
    }

    /// 1 is the file's tempo; 2 twice as fast.
    open var rate: Float {
        get { Float(player.rate) }
        set { try? player.setRate(Double(newValue)) }
    }

    open func hostTime(forBeats inBeats: AVMusicTimeStamp) throws -> UInt64 {
        do throws(MusicError) { return try player.hostTime(forBeats: inBeats) } catch {
            throw NSError(domain: NSOSStatusErrorDomain, code: Int(error.rawValue))
        }
    }

    open func beats(forHostTime inHostTime: UInt64) throws -> AVMusicTimeStamp {
        do throws(MusicError) { return try player.beats(forHostTime: inHostTime) } catch {
            throw NSError(domain: NSOSStatusErrorDomain, code: Int(error.rawValue))
        }
    }

    /// Edits a track of the model (the player picks changes up at its next start).
    func edit<T>(_ id: Int, _ change: (inout TrackData) -> T) -> T? {
        model.state.withLock { s in
            guard let index = s.tracks.firstIndex(where: { $0.id == id }) else { return nil }
            let result = change(&s.tracks[index])
            s.version += 1
            return result
        }
    }

    func read<T>(_ id: Int, _ value: (TrackData) -> T) -> T? {
        model.state.withLock { s in s.tracks.first { $0.id == id }.map(value) }
    }
}

/// One track of a sequencer (iOS's AVMusicTrack): where it plays, its loop, offset, mute
/// and solo, its length. A loop always starts at the track's beginning (MusicTrack's loop
/// has no start): a `loopRange` starting later is taken from the beginning.
open class AVMusicTrack: NSObject, @unchecked Sendable {
    private weak var sequencer: AVAudioSequencer?
    let id: Int
    private var looping = false
    private var range = AVBeatRange(start: 0, length: 0)
    private var loops = AVMusicTrackLoopCount.forever.rawValue

    init(sequencer: AVAudioSequencer, id: Int) {
        self.sequencer = sequencer
        self.id = id
    }

    /// The instrument the track plays on; nil: the engine's first.
    open var destinationAudioUnit: AVAudioUnit? {
        didSet { sequencer?.edit(id) { $0.destination = destinationAudioUnit?.graphNode } }
    }

    open var offsetTime: AVMusicTimeStamp {
        get { sequencer?.read(id) { $0.offset } ?? 0 }
        set { sequencer?.edit(id) { $0.offset = max(0, newValue) } }
    }

    open var isMuted: Bool {
        get { sequencer?.read(id) { $0.muted } ?? false }
        set { sequencer?.edit(id) { $0.muted = newValue } }
    }

    open var isSoloed: Bool {
        get { sequencer?.read(id) { $0.solo } ?? false }
        set { sequencer?.edit(id) { $0.solo = newValue } }
    }

    open var lengthInBeats: AVMusicTimeStamp {
        get { sequencer?.read(id) { $0.length } ?? 0 }
        set { sequencer?.edit(id) { $0.explicitLength = max(0, newValue) } }
    }

    open var lengthInSeconds: TimeInterval {
        get { sequencer.map { $0.seconds(forBeats: lengthInBeats) } ?? 0 }
        set { if let sequencer { lengthInBeats = sequencer.beats(forSeconds: newValue) } }
    }

    /// Ticks a quarter note of the file read.
    open var timeResolution: Int { sequencer?.model.state.withLock { Int($0.resolution) } ?? 480 }

    open var loopRange: AVBeatRange {
        get { range }
        set { range = newValue; applyLoop() }
    }

    open var isLoopingEnabled: Bool {
        get { looping }
        set { looping = newValue; applyLoop() }
    }

    /// Times the loop plays; `AVMusicTrackLoopCount.forever` (-1): until stopped.
    open var numberOfLoops: Int {
        get { loops }
        set { loops = newValue; applyLoop() }
    }

    private func applyLoop() {
        let length = range.length > 0 ? range.start + range.length : lengthInBeats
        sequencer?.edit(id) { track in
            track.loopDuration = looping ? length : 0
            track.loopCount = looping ? Int32(clamping: max(0, loops)) : 0
        }
    }
}

/// What the library's MusicPlayer asks of its graph, answered by an engine: it is
/// prepared by `prepareToPlay`, must already run to start, and its instruments are the
/// tracks' destinations.
final class SequencerHost: MusicPlayerHost, @unchecked Sendable {
    private weak var engine: AVAudioEngine?

    init(engine: AVAudioEngine?) { self.engine = engine }

    func prepareGraph(of sequence: MusicSequenceModel) throws(MusicError) {
        guard let engine else { throw .cannotDoInCurrentContext }
        engine.prepare()
    }

    func startGraph(of sequence: MusicSequenceModel) throws(MusicError) {
        guard let engine, engine.isRunning else { throw .cannotDoInCurrentContext }
    }

    func isRunning(_ sequence: MusicSequenceModel) -> Bool { engine?.isRunning ?? false }

    func sampler(of sequence: MusicSequenceModel, node: Int32?) -> SamplerUnit? { unit(of: sequence, node: node) as? SamplerUnit }

    func unit(of sequence: MusicSequenceModel, node: Int32?) -> (any AudioUnitInstance)? { engine?.instrumentUnit(node) }

    func userEvent(_ sequence: MusicSequenceModel, trackID: Int, time: Double, data: [UInt8], slice: (Double, Double)) {}
}
