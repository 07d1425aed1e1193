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
/// Never fights the user: a stream whose volume or mute changes after we set it is the
/// user's again and is neither changed further nor restored. What was changed is written
/// to a journal next to the socket first, so a daemon killed meanwhile restores it when
/// it starts again.
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
                if error != .cannotOpen(.noSuchFile) { Log.error("ignoring \(path): \(error)") }
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

    private enum Phase { case applying, applied }
    private struct Managed {
        let application: String
        let original: [Float]
        let originalMute: Bool
        var applied: [Float]
        var appliedMute: Bool
        var phase: Phase
    }

    private let config = Config.load()
    private let journalPath: String
    /// A journal larger than this is not one we wrote.
    static let journalSizeLimit = 256 * 1024
    /// Volumes read back must be finite and no louder than this (PipeWire's channel
    /// volumes are linear; the desktop's sliders reach 1.5 on the cubic scale, 3.4 here).
    static let loudestVolume: Float = 16
    private var managed: [UInt32: Managed] = [:]
    /// Nodes the user took back: left alone until their stream ends.
    private var released: Set<UInt32> = []
    private var recovered = false

    init(journalPath: String) {
        self.journalPath = journalPath
        Log.info("config: others = \(config.others.rawValue), duck = \(config.duckLevel)")
    }

    /// What the streams should be now, given the active sessions; applies the difference.
    func update(_ arbitration: Arbitration, streams: [SoundServerStream], watch: OpaquePointer) {
        recoverJournal(streams: streams, watch: watch)
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
            let volumes = withUnsafeBytes(of: stream.volumes) { Array($0.bindMemory(to: Float.self).prefix(Int(stream.channels))) }
            let mute = stream.mute != 0
            guard !volumes.isEmpty, !released.contains(stream.node) else { continue }
            if var m = managed[stream.node] {
                // The user's change since ours: theirs stands.
                let matches = close(volumes, m.applied) && mute == m.appliedMute
                if m.phase == .applying && matches { m.phase = .applied; managed[stream.node] = m }
                else if m.phase == .applied && !matches {
                    Log.info("stream \(stream.node) changed by the user: left as it is")
                    managed[stream.node] = nil
                    released.insert(stream.node)
                    writeJournal()
                    continue
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
            if let effect = streamEffect {
                let original = managed[stream.node]
                let base = original?.original ?? volumes
                let target = effect.mute ? base : base.map { $0 * effect.volume }
                if original == nil || !close(original!.applied, target) || original!.appliedMute != effect.mute {
                    managed[stream.node] = Managed(application: cString(stream.application),
                                                   original: base, originalMute: original?.originalMute ?? mute,
                                                   applied: target, appliedMute: effect.mute, phase: .applying)
                    writeJournal()
                    set(watch, stream.node, target, effect.mute)
                }
            } else if let m = managed[stream.node] {
                set(watch, stream.node, m.original, m.originalMute)
                managed[stream.node] = nil
                writeJournal()
            }
        }
    }

    /// Puts every stream we changed back (the daemon is leaving).
    func restoreAll(watch: OpaquePointer?) {
        if let watch { for (node, m) in managed { set(watch, node, m.original, m.originalMute) } }
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

    private func set(_ watch: OpaquePointer, _ node: UInt32, _ volumes: [Float], _ mute: Bool) {
        _ = volumes.withUnsafeBufferPointer {
            SoundServerWatchSetStream(watch, node, $0.baseAddress, Int32($0.count), mute ? 1 : 0)
        }
    }

    // MARK: The journal

    /// One line per changed stream: node, application, mute, original volumes.
    private func writeJournal() {
        guard !managed.isEmpty else { unlink(journalPath); return }
        let text = managed.map { node, m in
            // The name escaped: a tab or a line break in it must not make a field or a line.
            "\(node)\t\(printable(m.application))\t\(m.originalMute ? 1 : 0)\t"
                + m.original.map { String($0) }.joined(separator: ",")
        }.joined(separator: "\n") + "\n"
        do throws(Errno) {
            try SafeFile.replacePrivate(journalPath, with: Array(text.utf8))
        } catch {
            Log.error("cannot write \(journalPath): \(error)")
        }
    }

    /// A daemon killed while streams were lowered left a journal: put them back.
    private func recoverJournal(streams: [SoundServerStream], watch: OpaquePointer) {
        // Only once the server has shown everything it has: a stream not seen yet
        // would be taken for gone.
        guard !recovered, SoundServerWatchSynced(watch) != 0 else { return }
        recovered = true
        let lines: [String]
        do throws(FileProblem) {
            lines = try SafeFile.lines(journalPath, limit: Self.journalSizeLimit, followSymlinks: false)
        } catch {
            if error != .cannotOpen(.noSuchFile) { Log.error("ignoring \(journalPath): \(error)") }
            unlink(journalPath)
            return
        }
        var restored = 0
        for line in lines {
            let fields = line.trimmingCharacters().split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 4, let node = UInt32(fields[0]), fields[2] == "0" || fields[2] == "1" else { continue }
            let values = fields[3].split(separator: ",", omittingEmptySubsequences: false).map { Float($0) }
            // Every volume a real one, or the line is not ours: nothing of it is set.
            let volumes = values.compactMap { $0 }
            guard !volumes.isEmpty, volumes.count == values.count, volumes.count <= 64,
                  volumes.allSatisfy({ $0.isFinite && $0 >= 0 && $0 <= Self.loudestVolume }) else {
                Log.error("\(journalPath): ignoring the line for node \(node): volumes out of range")
                continue
            }
            guard let stream = streams.first(where: { $0.node == node }), printable(cString(stream.application)) == fields[1]
            else { continue }
            set(watch, node, volumes, fields[2] == "1")
            restored += 1
        }
        unlink(journalPath)
        if restored > 0 { Log.info("restored \(restored) stream(s) a previous daemon had changed") }
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
