@testable import ALSABackend
import AudioSessionCore
import POSIXSupport
import Testing

@Suite("ALSA control names are data (data/alsa-controls.conf)")
struct ControlNamesTests {
    /// The file the installation ships, from this checkout.
    static let shipped: String = {
        var path = #filePath
        for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path + "/data/alsa-controls.conf"
    }()

    @Test("The shipped table reads without a problem and knows the front panel, docks and HDMI")
    func shipped() throws {
        var names = ControlNames()
        let problems = names.read(try SafeFile.lines(Self.shipped, limit: 1 << 20, followSymlinks: false))
        #expect(problems == [])
        #expect(names.ports(ofJack: "Headphone Jack") == [.headphones])
        #expect(names.ports(ofJack: "Front Headphone Jack") == [.headphones])
        #expect(names.ports(ofJack: "Dock Headphone Jack") == [.headphones])
        #expect(names.ports(ofJack: "HDMI/DP,pcm=3 Jack") == [.hdmi])
        #expect(names.ports(ofJack: "Speaker Phantom Jack") == nil)
        #expect(names.micJacks.isSuperset(of: ["Mic Jack", "Front Mic Jack"]))
        #expect(names.playbackVolumes.first == "Master Playback Volume")
        #expect(names.captureSources["Front Mic"] == .builtInMic)
    }

    @Test("Bad lines are reported with their number and change nothing",
          arguments: ["jack Headphone Jack", "jack = headphones", "jack Headphone Jack = ears", "mic-jack Mic Jack = builtInMic",
                      "capture-source Mic", "speaker-volume Master", "jack-prefix HDMI = hdmi, nothing"])
    func badLines(_ line: String) {
        var names = ControlNames()
        let problems = names.read(["# a comment", line])
        #expect(problems == ["line 2: '\(line)'"])
        #expect(names == ControlNames())
    }

    @Test("A later file's line replaces an earlier one's meaning, and adds new names")
    func laterFileWins() {
        var names = ControlNames()
        _ = names.read(["jack Line Out Jack = lineOut", "playback-volume Master Playback Volume"])
        _ = names.read(["jack Line Out Jack = headphones", "jack Amp Jack = headphones, lineOut  # two ports"])
        #expect(names.ports(ofJack: "Line Out Jack") == [.headphones])
        #expect(names.ports(ofJack: "Amp Jack") == [.headphones, .lineOut])
    }
}
