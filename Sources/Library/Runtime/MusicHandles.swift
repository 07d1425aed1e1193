import AudioGraphs
import Glibc
import AudioUnits
import Locking
import MusicSequences

// The MusicPlayer.h objects a program holds, by handle: sequences, their tracks, event
// iterators and players. A sequence plays through a graph of the runtime's own (made on
// first need: a General MIDI sampler into RemoteIO) or the one the program sets.

/// A track as the program names it: its sequence and its ID there.
package final class TrackRef: @unchecked Sendable {
    package let sequence: MusicSequenceModel
    package let id: Int
    init(_ sequence: MusicSequenceModel, _ id: Int) {
        self.sequence = sequence
        self.id = id
    }
}

/// An event iterator: a track and a position in it (the event's index; the track's count
/// is past its end). GetEventInfo's data stays valid until the iterator's next call.
package final class IteratorRef: @unchecked Sendable {
    package let track: TrackRef
    package var index = 0
    package var data: [UInt8] = []
    package init(_ track: TrackRef) { self.track = track }
}

package enum MusicHandles {
    package static let sequences = HandleTable<MusicSequenceModel>(.sequence)
    package static let tracks = HandleTable<TrackRef>(.track)
    package static let iterators = HandleTable<IteratorRef>(.eventIterator)
    package static let players = HandleTable<MusicPlayerEngine>(.player)
    /// Each sequence's handle, and each track's: GetIndTrack gives the same handle each time.
    private static let names = Locked<(sequences: [ObjectIdentifier: UInt], tracks: [TrackKey: UInt])>(([:], [:]))
    private struct TrackKey: Hashable {
        let sequence: ObjectIdentifier
        let id: Int
    }
    package static let host = GraphPlayerHost()

    private static let forkStep: Void = {
        ForkCoordinator.register(.music) {
            names.reinitializeAfterFork()
            players.reinitializeAfterFork()
            sequences.reinitializeAfterFork()
            tracks.reinitializeAfterFork()
            iterators.reinitializeAfterFork()
            for handle in playerHandles.withLock({ $0 }) { players.get(handle)?.resetAfterFork() }
            for handle in sequenceList.withLock({ $0 }) { sequences.get(handle)?.state.reinitializeAfterFork() }
        }
    }()
    private static let playerHandles = Locked<Set<UInt>>([])
    private static let sequenceList = Locked<Set<UInt>>([])

    package static func newSequence() -> OpaquePointer {
        _ = forkStep
        let model = MusicSequenceModel()
        let handle = sequences.add(model)
        names.withLock { $0.sequences[ObjectIdentifier(model)] = UInt(bitPattern: handle) }
        sequenceList.withLock { _ = $0.insert(UInt(bitPattern: handle)) }
        return handle
    }

    package static func handle(of sequence: MusicSequenceModel) -> OpaquePointer? {
        names.withLock { $0.sequences[ObjectIdentifier(sequence)] }.flatMap { OpaquePointer(bitPattern: $0) }
    }

    /// The handle of a track, made on first asking.
    package static func track(_ sequence: MusicSequenceModel, _ id: Int) -> OpaquePointer {
        let key = TrackKey(sequence: ObjectIdentifier(sequence), id: id)
        if let known = names.withLock({ $0.tracks[key] }), tracks.get(known) != nil { return OpaquePointer(bitPattern: known)! }
        let handle = tracks.add(TrackRef(sequence, id))
        names.withLock { $0.tracks[key] = UInt(bitPattern: handle) }
        return handle
    }

    /// Forgets a track's handle and its iterators' (MusicSequenceDisposeTrack).
    package static func forget(_ sequence: MusicSequenceModel, track id: Int) {
        let key = TrackKey(sequence: ObjectIdentifier(sequence), id: id)
        if let handle = names.withLock({ $0.tracks.removeValue(forKey: key) }) { _ = tracks.remove(handle) }
        iterators.removeAll { $0.track.sequence === sequence && $0.track.id == id }
    }

    /// DisposeMusicSequence: its players stop and let it go, its tracks' handles go, and
    /// the graph it made is disposed of.
    package static func dispose(_ handle: OpaquePointer?) -> Bool {
        guard let sequence = sequences.remove(handle) else { return false }
        sequenceList.withLock { _ = $0.remove(UInt(bitPattern: handle)) }
        for player in playerHandles.withLock({ $0 }).compactMap({ players.get($0) }) where player.sequence === sequence {
            player.setSequence(nil)
        }
        let ids = sequence.state.withLock { $0.tracks.map(\.id) }
        for id in ids { forget(sequence, track: id) }
        names.withLock { _ = $0.sequences.removeValue(forKey: ObjectIdentifier(sequence)) }
        let (graph, owned) = sequence.state.withLock { ($0.graph, $0.ownsGraph) }
        if owned, let graph { try? GraphHandles.dispose(OpaquePointer(bitPattern: graph)) }
        return true
    }

    package static func newIterator(_ track: TrackRef) -> OpaquePointer { iterators.add(IteratorRef(track)) }

    package static func newPlayer() -> OpaquePointer {
        _ = forkStep
        let handle = players.add(MusicPlayerEngine(host: host))
        playerHandles.withLock { _ = $0.insert(UInt(bitPattern: handle)) }
        return handle
    }

    package static func disposePlayer(_ handle: OpaquePointer?) -> Bool {
        guard let player = players.remove(handle) else { return false }
        playerHandles.withLock { _ = $0.remove(UInt(bitPattern: handle)) }
        player.setSequence(nil)
        return true
    }

    /// The General MIDI SoundFonts looked for, in order (Debian's fluid-soundfont-gm).
    static let generalMIDIFonts = ["/usr/share/sounds/sf2/default-GM.sf2", "/usr/share/sounds/sf2/FluidR3_GM.sf2"]
}

/// Graphs for players: the sequence's own, made on first need.
package final class GraphPlayerHost: MusicPlayerHost, @unchecked Sendable {
    /// The sequence's graph, made if it has none: a sampler playing General MIDI (Debian's
    /// FluidR3 SoundFont; the sampler's sine if no SoundFont is installed) into RemoteIO,
    /// opened, as the phone's default graph is when a program asks for it.
    package func graph(of sequence: MusicSequenceModel) throws(MusicError) -> AudioGraph {
        if let handle = sequence.state.withLock({ $0.graph }) {
            guard let graph = try? GraphHandles.graph(OpaquePointer(bitPattern: handle)) else { throw .noSequence }
            return graph
        }
        let handle = GraphHandles.new()
        do throws(GraphError) {
            let graph = try GraphHandles.graph(handle)
            let synth = try graph.addNode(type: UnitKind.sampler.type, subtype: UnitKind.sampler.subtype,
                                          manufacturer: UnitKind.sampler.manufacturer, flags: 0, flagsMask: 0)
            let output = try graph.addNode(type: UnitKind.remoteIO.type, subtype: UnitKind.remoteIO.subtype,
                                           manufacturer: UnitKind.remoteIO.manufacturer, flags: 0, flagsMask: 0)
            try graph.connect(source: synth, output: 0, destination: output, input: 0)
            try graph.open()
            if let font = MusicHandles.generalMIDIFonts.first(where: { access($0, R_OK) == 0 }),
               let key = try graph.nodeInfo(synth).1, let sampler = UnitHandles.instances.get(key) as? SamplerUnit {
                try? sampler.load(.generalMIDI(path: font))
            }
            sequence.state.withLock { s in
                s.graph = UInt(bitPattern: handle)
                s.ownsGraph = true
            }
            return graph
        } catch {
            try? GraphHandles.dispose(handle)
            throw .cannotDoInCurrentContext
        }
    }

    package func prepareGraph(of sequence: MusicSequenceModel) throws(MusicError) {
        let graph = try graph(of: sequence)
        do throws(GraphError) {
            if !graph.isOpen { try graph.open() }
            if !graph.isInitialized { try graph.initialize() }
        } catch {
            throw .cannotDoInCurrentContext
        }
    }

    package func startGraph(of sequence: MusicSequenceModel) throws(MusicError) {
        try prepareGraph(of: sequence)
        let graph = try graph(of: sequence)
        guard !graph.isRunning else { return }
        do throws(GraphError) { try graph.start() } catch { throw .cannotDoInCurrentContext }
    }

    package func isRunning(_ sequence: MusicSequenceModel) -> Bool {
        guard let handle = sequence.state.withLock({ $0.graph }),
              let graph = try? GraphHandles.graph(OpaquePointer(bitPattern: handle)) else { return false }
        return graph.isRunning
    }

    package func unit(of sequence: MusicSequenceModel, node: Int32?) -> (any AudioUnitInstance)? {
        guard let handle = sequence.state.withLock({ $0.graph }),
              let graph = try? GraphHandles.graph(OpaquePointer(bitPattern: handle)) else { return nil }
        let chosen = node ?? graph.nodes.first { UnitKind.named(type: $0.component.type, subtype: $0.component.subtype)?
            .traits.contains(.instrument) == true }?.id
        guard let chosen, let key = try? graph.nodeInfo(chosen).1 else { return nil }
        return UnitHandles.instances.get(key)
    }

    package func sampler(of sequence: MusicSequenceModel, node: Int32?) -> SamplerUnit? {
        unit(of: sequence, node: node) as? SamplerUnit
    }

    /// The program's MusicSequenceUserCallback, on the player's thread.
    package func userEvent(_ sequence: MusicSequenceModel, trackID: Int, time: Double, data: [UInt8], slice: (Double, Double)) {
        typealias Callback = @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, OpaquePointer?, Double,
                                             UnsafeRawPointer?, Double, Double) -> Void
        guard let (procedure, clientData) = sequence.state.withLock({ $0.callback }), procedure != 0 else { return }
        let callback = unsafeBitCast(procedure, to: Callback.self)
        let track = MusicHandles.track(sequence, trackID)
        let bytes = withUnsafeBytes(of: UInt32(data.count)) { Array($0) } + data
        bytes.withUnsafeBytes { raw in
            callback(UnsafeMutableRawPointer(bitPattern: clientData), MusicHandles.handle(of: sequence), track, time,
                     raw.baseAddress, slice.0, slice.1)
        }
    }
}
