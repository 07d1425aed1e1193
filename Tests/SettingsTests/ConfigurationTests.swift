import Settings
import Testing

/// The library's variables, read from a table instead of the process's environment.
struct ConfigurationTests {
    private func configuration(_ variables: [String: String]) -> Configuration {
        Configuration { variables[$0] }
    }

    @Test func nothingSetIsTheDefaults() {
        let c = configuration([:])
        #expect(c.backend == .automatic)
        #expect(c.arbiter == nil)
        #expect(!c.arbitratesInProcess)
        #expect(c.stream == .automatic)
        #expect(c.realTime)
        #expect(c.log == nil)
        #expect(c.configFolder == nil)
        #expect(!c.soundServerPresent)
    }

    @Test(arguments: [
        ("virtual", Configuration.Backend.virtual), ("alsa", .alsa), ("", .automatic), ("something", .automatic),
    ])
    func backend(_ value: String, _ expected: Configuration.Backend) {
        #expect(configuration(["AUDIOTOOLBOX_BACKEND": value]).backend == expected)
    }

    /// The virtual device arbitrates in-process unless the daemon is asked for.
    @Test func arbiterFollowsTheBackendUnlessAskedFor() {
        #expect(configuration(["AUDIOTOOLBOX_BACKEND": "virtual"]).arbitratesInProcess)
        #expect(!configuration(["AUDIOTOOLBOX_BACKEND": "virtual", "AUDIOTOOLBOX_ARBITER": "daemon"]).arbitratesInProcess)
        #expect(configuration(["AUDIOTOOLBOX_ARBITER": "local"]).arbitratesInProcess)
        #expect(!configuration(["AUDIOTOOLBOX_BACKEND": "alsa"]).arbitratesInProcess)
    }

    @Test func configFolderPrefersXDG() {
        #expect(configuration(["HOME": "/home/u"]).configFolder == "/home/u/.config/audiotoolbox")
        #expect(configuration(["HOME": "/home/u", "XDG_CONFIG_HOME": "/c"]).configFolder == "/c/audiotoolbox")
        #expect(configuration(["HOME": "/home/u", "XDG_CONFIG_HOME": ""]).configFolder == "/home/u/.config/audiotoolbox")
    }

    @Test func realTimeIsOffOnlyForZero() {
        #expect(!configuration(["AUDIOTOOLBOX_REALTIME": "0"]).realTime)
        #expect(configuration(["AUDIOTOOLBOX_REALTIME": "1"]).realTime)
        #expect(configuration(["AUDIOTOOLBOX_REALTIME": ""]).realTime)
    }

    @Test func pipeWireSocketFromItsFolderOrTheRuntimeFolder() {
        #expect(configuration(["XDG_RUNTIME_DIR": "/run/user/5"]).pipeWireSocket == "/run/user/5/pipewire-0")
        #expect(configuration(["XDG_RUNTIME_DIR": "/run/user/5", "PIPEWIRE_RUNTIME_DIR": "/p"]).pipeWireSocket == "/p/pipewire-0")
        #expect(configuration(["PIPEWIRE_REMOTE": "x"]).soundServerPresent)
        #expect(!configuration(["XDG_RUNTIME_DIR": "/nonexistent-folder"]).soundServerPresent)
    }

    /// An empty AUDIOTOOLBOX_LOG is kept (it means "off"), unlike other empty values.
    @Test func emptyLogIsAChoice() {
        #expect(configuration(["AUDIOTOOLBOX_LOG": ""]).log == "")
        #expect(configuration(["AUDIOTOOLBOX_DAEMON": ""]).daemonExecutable == nil)
        #expect(configuration(["AUDIOTOOLBOX_ALSA_PCM": "hw:1"]).alsaPCM == "hw:1")
    }
}
