import Glibc
import POSIXSupport
import Settings

/// Which ALSA PCM and control device the session uses.
///
/// Precedence: the environment (`AUDIOTOOLBOX_ALSA_PCM`, `AUDIOTOOLBOX_ALSA_CTL`,
/// `AUDIOTOOLBOX_ALSA_JACK_CTLS`), then the configuration file
/// `$XDG_CONFIG_HOME/audiotoolbox/alsa.conf` (default `~/.config/audiotoolbox/alsa.conf`)
/// with lines `pcm = NAME`, `ctl = NAME` and `jacks = NAME, NAME`, then ALSA's `default`
/// for the devices and every hardware card (`hw:N`) for jacks.
public struct ALSADeviceNames: Equatable, Sendable {
    public var pcm: String
    public var control: String
    /// Further control devices whose jack controls count (nil: every hardware card). On
    /// a sound server (PipeWire, PulseAudio) `default` has no jacks: the cards do.
    public var jackControls: [String]?

    public init(pcm: String = "default", control: String = "default") {
        self.pcm = pcm
        self.control = control
    }

    /// The names this process should use under `configuration`.
    public static func resolve(_ configuration: Configuration = .read()) -> ALSADeviceNames {
        var names = ALSADeviceNames()
        if let folder = configuration.configFolder, let text = readText(folder + "/alsa.conf") {
            names.apply(configuration: text)
        }
        if let pcm = configuration.alsaPCM { names.pcm = pcm }
        if let control = configuration.alsaControl { names.control = control }
        if let value = configuration.alsaJackControls { names.jackControls = list(value) }
        return names
    }

    private static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: " \t") }.filter { !$0.isEmpty }
    }

    /// Applies `key = value` lines; `#` starts a comment; unknown keys are ignored.
    public mutating func apply(configuration text: String) {
        for line in text.split(separator: "\n") {
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
            let parts = content.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: " \t") }
            guard parts.count == 2, !parts[1].isEmpty else { continue }
            switch parts[0] {
            case "pcm": pcm = parts[1]
            case "ctl": control = parts[1]
            case "jacks": jackControls = Self.list(parts[1])
            default: continue
            }
        }
    }

    /// A regular file of at most 64 KiB, whole lines (a FIFO or a device there would
    /// block or never end: refused, and the defaults kept).
    private static func readText(_ path: String) -> String? {
        guard let lines = try? SafeFile.lines(path, limit: 64 * 1024, followSymlinks: true) else { return nil }
        return lines.joined(separator: "\n")
    }
}

/// The configuration files' trimming (ALSADeviceNames, ControlNames).
extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        var slice = self[...]
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
