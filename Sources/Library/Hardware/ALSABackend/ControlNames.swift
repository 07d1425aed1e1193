import AudioSessionCore
import Locking
import POSIXSupport

/// What the names of ALSA controls mean to the session: which jack controls stand for
/// which ports, which controls are the volume and the input gain, what the items of a
/// "Capture Source" name. Data, not code (data/alsa-controls.conf, installed under
/// share/audiotoolbox/), so a card whose controls have other names — a front panel, a
/// dock, a USB or HDMI device — is taught with a line in the user's own file.
public struct ControlNames: Sendable, Equatable {
    public var jacks: [String: Set<Port>] = [:]
    public var jackPrefixes: [String: Set<Port>] = [:]
    /// Microphone jacks: a card with one has a microphone only while one is plugged.
    public var micJacks: Set<String> = []
    /// In order of preference.
    public var playbackVolumes: [String] = []
    public var captureVolumes: [String] = []
    public var captureSources: [String: Port] = [:]

    public init() {}

    /// The ports a jack control stands for (nil: not a jack we know).
    public func ports(ofJack name: String) -> Set<Port>? {
        if let ports = jacks[name] { return ports }
        return jackPrefixes.first { name.hasPrefix($0.key) }?.value
    }

    /// Adds what `lines` say; returns a description of each line it could not read.
    public mutating func read(_ lines: [String]) -> [String] {
        var problems: [String] = []
        for (index, raw) in lines.enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
                .trimmingCharacters(in: " \t\r")
            guard !line.isEmpty else { continue }
            let kindEnd = line.firstIndex(where: { $0 == " " || $0 == "\t" }) ?? line.endIndex
            let kind = String(line[..<kindEnd])
            let rest = line[kindEnd...].trimmingCharacters(in: " \t")
            let parts = rest.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: " \t") }
            let name = parts.first ?? ""
            let value = parts.count == 2 ? parts[1] : nil
            func portList() -> Set<Port>? {
                guard let value else { return nil }
                let ports = value.split(separator: ",").map { Self.port(named: $0.trimmingCharacters(in: " \t")) }
                return ports.contains(where: { $0 == nil }) || ports.isEmpty ? nil : Set(ports.compactMap { $0 })
            }
            var understood = !name.isEmpty
            switch kind {
            case "jack": if let ports = portList() { jacks[name] = ports } else { understood = false }
            case "jack-prefix": if let ports = portList() { jackPrefixes[name] = ports } else { understood = false }
            case "mic-jack": understood = understood && value == nil; if understood { micJacks.insert(name) }
            case "playback-volume": understood = understood && value == nil; if understood { playbackVolumes.append(name) }
            case "capture-volume": understood = understood && value == nil; if understood { captureVolumes.append(name) }
            case "capture-source":
                if let value, let port = Self.port(named: value) { captureSources[name] = port } else { understood = false }
            default: understood = false
            }
            if !understood { problems.append("line \(index + 1): '\(raw)'") }
        }
        return problems
    }

    /// The ports by the names the file uses (the Port cases' own names).
    static func port(named name: String) -> Port? {
        Port.allCases.first { "\($0)" == name }
    }

    // MARK: The table in effect

    private static let table = Locked(ControlNames())

    /// What reads the files, until the first card asks for the names: a program whose
    /// session runs on the virtual device never reads them.
    private static let deferred = Locked<(@Sendable () -> Void)?>(nil)

    /// Has `loader` (which calls `load`) run when the names are first needed.
    public static func loadOnFirstUse(_ loader: @escaping @Sendable () -> Void) {
        deferred.withLock { $0 = loader }
    }

    /// The names every ALSA card of this process is read with.
    public static var current: ControlNames {
        // Under the deferred loader's lock: a second thread waits for the first's load.
        deferred.withLock { loader in
            if let run = loader {
                loader = nil
                run()
            }
        }
        return table.withLock { $0 }
    }

    /// Reads `files` in order (a missing one is skipped, a bad line logged through
    /// `report`) and makes the result the table in effect. Returns whether any was read.
    @discardableResult
    public static func load(files: [String], report: (String) -> Void) -> Bool {
        var names = ControlNames()
        var read = false
        for file in files {
            let lines: [String]
            do throws(FileProblem) {
                lines = try SafeFile.lines(file, limit: 256 * 1024, followSymlinks: true)
            } catch {
                if error != .cannotOpen(.noSuchFileOrDirectory) { report("\(file): \(error)") }
                continue
            }
            read = true
            for problem in names.read(lines) { report("\(file): cannot read \(problem)") }
        }
        table.withLock { $0 = names }
        return read
    }
}
