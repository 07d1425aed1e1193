import Arbitration
import ArbiterProtocol
import CSoundServer
import Glibc
import POSIXSupport

/// What happens to the sound server's other streams (other programs: a browser, a music
/// player) while sessions are active: a ducking session lowers them; a session that does
/// not mix lowers, mutes or leaves them, as the user's configuration says
/// (`others = duck | mute | mix` in ~/.config/audiotoolbox/audiosessiond.conf, with
/// `duck = 0.3`, the level streams are lowered to).
///
/// Default `duck`: a desktop plays the user's music for the user, who did not ask a game
/// or a call to silence it; lowering keeps the session audible without taking anything
/// away, where muting would surprise. The phone's behaviour (`mute`) is one line away.
///
/// A session's own streams are spared while it is active, and muted while it is
/// interrupted (the phone stops an interrupted app's audio before its Begin), until it
/// is active again or its interruption ends; then restored exactly.
///
/// Leaves the desktop's saved state alone: only the streams' soft volume and mute are
/// set, never the channel volume and mute the user sets and the policy manager saves.
///
/// Never fights the user: a stream whose volume or mute the user sets after we lowered
/// it plays at theirs again (the node drops our soft values) and is neither changed
/// further nor restored. What was changed is written to a journal next to the socket
/// first, so a daemon killed meanwhile restores it when it starts again.
final class OthersPolicy {
    enum Mode: String { case duck, mute, mix }

    struct Config {
        var others: Mode = .duck
        var duckLevel: Float = 0.3

        /// The configuration file: a regular file of at most `sizeLimit` bytes (a FIFO, a
        /// device or a huge file is refused with a logged reason and the defaults kept),
        /// read whole and split into whole lines, so a long comment stays a comment.
        static let sizeLimit = 64 * 1024

        static func load() -> Config {
            var config = Config()
            let home = getenv("XDG_CONFIG_HOME").map { String(cString: $0) }
                ?? (getenv("HOME").map { String(cString: $0) + "/.config" } ?? "/nonexistent")
            let path = home + "/audiotoolbox/audiosessiond.conf"
            let lines: [String]
            do throws(FileProblem) {
                lines = try SafeFile.lines(path, limit: sizeLimit, followSymlinks: true)
            } catch {
                if error != .cannotOpen(.noSuchFileOrDirectory) { Log.error("ignoring \(path): \(error)") }
                return config
            }
            for line in lines {
                let text = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
                let parts = text.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters() }
                guard parts.count == 2 else { continue }
                switch parts[0] {
                case "others":
                    if let mode = Mode(rawValue: parts[1]) { config.others = mode }
                    else { Log.error("\(path): others = \(printable(parts[1])) is not duck, mute or mix") }
                case "duck":
                    if let level = Float(parts[1]), level.isFinite, (0...1).contains(level) { config.duckLevel = level }
                    else { Log.error("\(path): duck = \(printable(parts[1])) is not a level from 0 to 1") }
                default: continue
                }
            }
            return config
        }
    }

    /// A stream we lowered or muted: what we set, and the count of its user's changes
    /// when we set it (one more is the user taking it back).
    private struct Managed {
        let application: String
        let touches: UInt32
        var applied: [Float]
        var appliedMute: Bool
        /// The node's report count when we last set it: one report after is ours; more
        /// is someone else's set (see update).
        var reportsAtSet: UInt32
        /// Sets made again after someone else's same-value set, since the last change.
        var reasserted = 0
    }

    /// After this many sets made again without a change of ours in between, whoever
    /// keeps setting the stream is left to it (and it is logged): never a loop.
    static let reassertLimit = 4

    private let config = Config.load()
    private let journalPath: String
    /// A journal larger than this is not one we wrote.
    static let journalSizeLimit = 256 * 1024
    private var managed: [UInt32: Managed] = [:]
    /// Nodes the user took back: left alone until their stream ends.
    private var released: Set<UInt32> = []
    private var recovered = false
    /// The journal's streams not put back yet: node and application (escaped).
    private var toRecover: [UInt32: String] = [:]
    /// More lines than the server can have streams is not a journal we wrote.
    static let journalLineLimit = 1024

    init(journalPath: String) {
        self.journalPath = journalPath
        Log.info("config: others = \(config.others.rawValue), duck = \(config.duckLevel)")
    }

    /// What the streams should be now, given the active sessions; applies the difference.
    ///
    /// Through the streams' soft volume and mute only: their channel volume and mute are
    /// the user's, and the policy manager (WirePlumber) saves those per role and
    /// application and gives them to the next stream of the kind — a music player lowered
    /// there at the wrong moment would start at 30 % for good. Restoring sets the soft
    /// values back to the channel values: the stream sounds as the user left it.
    /// `complete`: `streams` holds every stream the server had when we connected.
    func update(_ arbitration: Arbitration, streams: [SoundServerStream], complete: Bool, watch: OpaquePointer) {
        recoverJournal(streams: streams, complete: complete, watch: watch)
        let nodes = Set(streams.map(\.node))
        managed = managed.filter { nodes.contains($0.key) }
        released = released.filter { nodes.contains($0) }

        // Which effect, and whose own streams are spared.
        var effect: (volume: Float, mute: Bool)?
        var spared: Set<Int32> = []
        for id in arbitration.stack {
            guard let p = arbitration.participants[id], p.state == .active, p.traits.contains(.output) else { continue }
            let ducks = p.traits.contains(.ducks)
            let mixes = p.traits.contains(.mixes)
            if ducks { effect = (config.duckLevel, false); spared.insert(Int32(bitPattern: p.pid)) }
            else if !mixes {
                spared.insert(Int32(bitPattern: p.pid))
                switch config.others {
                case .duck: if effect == nil || effect!.mute == false { effect = (config.duckLevel, false) }
                case .mute: effect = (1, true)
                case .mix: break
                }
            }
        }

        let interrupted = Set(arbitration.participants.values.filter { $0.state == .interrupted }
            .map { Int32(bitPattern: $0.pid) })
        for stream in streams {
            let volumes = userVolumes(stream)
            let mute = stream.mute != 0
            guard !volumes.isEmpty, !released.contains(stream.node) else { continue }
            // The user set the stream's volume or mute since we lowered it: the node
            // plays at theirs again, and theirs stands.
            if let m = managed[stream.node], m.touches != stream.touches {
                Log.info("stream \(stream.node) changed by the user: left as it is")
                // Their set normally drops our soft values; if it came before ours, ours
                // would stay in force: the soft values become theirs.
                setSoft(watch, stream.node, volumes, mute)
                managed[stream.node] = nil
                released.insert(stream.node)
                writeJournal()
                continue
            }
            // Someone set the stream's volumes to the values they had (WirePlumber
            // restoring a new stream, a volume key at the top): the node dropped our soft
            // values all the same. Set them again.
            if var m = managed[stream.node], stream.reports &- m.reportsAtSet > 1 {
                if m.reasserted < Self.reassertLimit {
                    m.reasserted += 1
                    m.reportsAtSet = stream.reports
                    managed[stream.node] = m
                    Log.info("stream \(stream.node) was set by someone else to its own values: lowered again")
                    setSoft(watch, stream.node, m.applied, m.appliedMute)
                } else if m.reasserted == Self.reassertLimit {
                    m.reasserted += 1
                    managed[stream.node] = m
                    Log.info("stream \(stream.node) is set again and again by someone else: left to them")
                }
            }
            // An interrupted session's own streams are muted until it is active again
            // (SPEC 7: the phone stops an interrupted app's audio). A stream of no known
            // process is someone else's.
            let streamEffect: (volume: Float, mute: Bool)?
            if stream.pid != 0 && interrupted.contains(stream.pid) && !spared.contains(stream.pid) {
                streamEffect = (1, true)
            } else if stream.pid == 0 || !spared.contains(stream.pid) {
                streamEffect = effect
            } else {
                streamEffect = nil
            }
            if var effect = streamEffect {
                let target = effect.mute ? volumes : volumes.map { $0 * effect.volume }
                // The soft values replace the user's mute too: one the user set stays.
                effect.mute = effect.mute || mute
                let current = managed[stream.node]
                if current == nil || !close(current!.applied, target) || current!.appliedMute != effect.mute {
                    managed[stream.node] = Managed(application: cString(stream.application), touches: stream.touches,
                                                   applied: target, appliedMute: effect.mute,
                                                   reportsAtSet: stream.reports)
                    writeJournal()
                    setSoft(watch, stream.node, target, effect.mute)
                }
            } else if managed[stream.node] != nil {
                setSoft(watch, stream.node, volumes, mute)
                managed[stream.node] = nil
                writeJournal()
            }
        }
    }

    /// The connection to the sound server was made again: node ids of the old one mean
    /// nothing now (and are reused), so what we knew of them goes. What the journal
    /// names is still put back by application (recoverJournal).
    func serverReconnected() {
        managed = [:]
        released = []
    }

    /// Puts every stream we changed back (the daemon is leaving).
    func restoreAll(watch: OpaquePointer?, streams: [SoundServerStream]) {
        if let watch {
            for stream in streams where managed[stream.node] != nil {
                setSoft(watch, stream.node, userVolumes(stream), stream.mute != 0)
            }
        }
        managed = [:]
        unlink(journalPath)
    }

    /// What was done to a stream, for `audiosession status`.
    func action(for node: UInt32) -> String {
        if released.contains(node) { return "left to the user" }
        guard let m = managed[node] else { return "" }
        return m.appliedMute ? "muted" : "lowered"
    }

    /// What a description of the policy says in `audiosession status`.
    var summary: String {
        "others: \(config.others.rawValue), duck to \(config.duckLevel); \(managed.count) stream(s) changed"
    }

    private func setSoft(_ watch: OpaquePointer, _ node: UInt32, _ volumes: [Float], _ mute: Bool) {
        _ = volumes.withUnsafeBufferPointer {
            SoundServerWatchSetSoftVolume(watch, node, $0.baseAddress, Int32($0.count), mute ? 1 : 0)
        }
    }

    /// The stream's channel volumes: the user's.
    private func userVolumes(_ stream: SoundServerStream) -> [Float] {
        withUnsafeBytes(of: stream.volumes) { Array($0.bindMemory(to: Float.self).prefix(Int(stream.channels))) }
    }

    // MARK: The journal

    /// One line per changed stream: node and application. Putting a stream back needs
    /// nothing more (its soft values become its channel values again), so a journal
    /// someone else wrote can at most un-lower a stream of theirs. Lines of a previous
    /// daemon not acted on yet are kept.
    private func writeJournal() {
        var lines = managed.map { node, m in
            // The name escaped: a tab or a line break in it must not make a field or a line.
            "\(node)\t\(printable(m.application))"
        }
        lines += toRecover.filter { managed[$0.key] == nil }.map { "\($0.key)\t\($0.value)" }
        guard !lines.isEmpty else { unlink(journalPath); return }
        do throws(Errno) {
            try SafeFile.replacePrivate(journalPath, with: Array((lines.joined(separator: "\n") + "\n").utf8))
        } catch {
            Log.error("cannot write \(journalPath): \(error)")
        }
    }

    /// A daemon killed while streams were lowered left a journal: put them back.
    private func recoverJournal(streams: [SoundServerStream], complete: Bool, watch: OpaquePointer) {
        // Only from a list holding everything the server had: a stream not seen yet
        // would be taken for gone. Whether it does is read with the list, not after it.
        guard complete else { return }
        if !recovered {
            recovered = true
            readJournal(streams: streams)
        }
        guard !toRecover.isEmpty else { return }
        // Each stream once it has told its volumes (a moment after it is seen); one
        // that is gone needs nothing.
        var restored = 0
        for (node, application) in toRecover {
            guard let stream = streams.first(where: { $0.node == node }),
                  printable(cString(stream.application)) == application else {
                toRecover[node] = nil
                continue
            }
            guard stream.channels > 0 else { continue }
            if managed[node] == nil { setSoft(watch, node, userVolumes(stream), stream.mute != 0) }
            toRecover[node] = nil
            restored += 1
        }
        writeJournal()
        if restored > 0 { Log.info("restored \(restored) stream(s) a previous daemon had changed") }
    }

    private func readJournal(streams: [SoundServerStream]) {
        let lines: [String]
        do throws(FileProblem) {
            lines = try SafeFile.lines(journalPath, limit: Self.journalSizeLimit, followSymlinks: false)
        } catch {
            if error != .cannotOpen(.noSuchFileOrDirectory) { Log.error("ignoring \(journalPath): \(error)") }
            unlink(journalPath)
            return
        }
        for line in lines where !line.isEmpty {
            // Only the line's end is trimmed: the application, the last field, is kept as
            // written (it may be empty or end in a space).
            var text = Substring(line)
            while let last = text.last, last == "\r" || last == "\n" { text.removeLast() }
            let fields = text.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 2, let node = UInt32(fields[0]), toRecover.count < Self.journalLineLimit else {
                Log.error("\(journalPath): ignoring a line that is not node<TAB>application")
                continue
            }
            toRecover[node] = String(fields[1])
        }
    }
}

private func close(_ a: [Float], _ b: [Float]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) < 0.001 }
}

extension StringProtocol {
    func trimmingCharacters() -> String {
        var s = Substring(self)
        while let first = s.first, first == " " || first == "\t" || first == "\n" || first == "\r" { s.removeFirst() }
        while let last = s.last, last == " " || last == "\t" || last == "\n" || last == "\r" { s.removeLast() }
        return String(s)
    }
}
