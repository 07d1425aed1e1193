import ALSABackend
import ArbiterClient
import ArbiterSocket
import AudioSessionCore
import AudioStreams
import CAudioToolbox
import CoreFoundation
import Glibc
import InProcessArbiter
import Locking
import RunLoopDispatch
import Settings
import Synchronization
import VirtualAudioDevice

// What the runtime chooses from the configuration: the hardware, the arbiter, where the
// installation and its files are, and what services obey before any session.

extension Runtime {
    /// `AUDIOTOOLBOX_BACKEND=virtual` or `=alsa` insists on one (an ALSA card that does
    /// not open is then an initialisation error); by default the ALSA card named by the
    /// configuration (see `ALSADeviceNames`) when it opens, else the virtual device.
    package static func chooseBackend(_ configuration: Configuration) throws(ResultCode) -> (HardwareBackend, VirtualAudioDevice?) {
        let choice = configuration.backend
        if choice != .virtual {
            let names = ALSADeviceNames.resolve(configuration)
            if let alsa = ALSABackend(names: names) {
                Log.debug("using ALSA pcm '\(names.pcm)' ctl '\(names.control)'")
                return (alsa, nil)
            }
            guard choice != .alsa else {
                Log.error("AUDIOTOOLBOX_BACKEND=alsa but no ALSA card at ctl '\(names.control)'")
                throw .initializationError
            }
            // Sound still goes to a sound server where one runs (a desktop without a
            // card of its own: a network or Bluetooth sink).
            let output: AudioOutputDevice = configuration.soundServerPresent ? .soundServer : .none
            Log.notice("no ALSA card at ctl '\(names.control)': using the virtual device"
                       + (output == .soundServer ? ", its sound to the sound server" : ""))
            let device = VirtualAudioDevice(output: output)
            return (device, device)
        }
        let device = VirtualAudioDevice()
        return (device, device)
    }

    /// `AUDIOTOOLBOX_ARBITER=local` (the in-process arbiter) or `=daemon`
    /// (audiosessiond, started on demand). By default the daemon — except with
    /// `AUDIOTOOLBOX_BACKEND=virtual`, whose simulated world includes its other programs
    /// and interruptions. When no daemon can be reached or started, the in-process
    /// arbiter takes over, said once in the log.
    package static func chooseArbiter(_ configuration: Configuration) -> (Arbiter, InProcessArbiter?) {
        if !configuration.arbitratesInProcess {
            let endpoint = ArbiterEndpoint.forUser(runtimeDirectory: configuration.runtimeDirectory)
            let executable = daemonExecutable(configuration)
            do throws(EndpointProblem) {
                let daemon = try DaemonArbiter(endpoint: endpoint, daemonExecutable: executable, program: programName())
                if let problem = daemon.firstProblem {
                    Log.notice("audiosessiond at \(endpoint.socketPath) (\(executable)): \(problem): this program's "
                               + "session is arbitrated alone until it answers")
                } else {
                    Log.debug("arbitrated by audiosessiond at \(endpoint.socketPath)")
                }
                return (daemon, nil)
            } catch {
                Log.notice("\(error): this program's session is arbitrated alone")
            }
        }
        let local = InProcessArbiter()
        return (local, local)
    }

    /// `AUDIOTOOLBOX_DAEMON`; else `audiosessiond` in the `bin` folder beside the
    /// library's `lib` folder (where `make install` and the packages put both); else, for
    /// a program built from source by SwiftPM and never installed, the one beside the
    /// program (SwiftPM's build folder) or the first on PATH. When none is there, the
    /// installation's path is returned: starting it fails, and the log names it.
    package static func daemonExecutable(_ configuration: Configuration) -> String {
        if let named = configuration.daemonExecutable { return named }
        let installed = installationPrefix() + "/bin/audiosessiond"
        var candidates = [installed]
        if let program = AudioToolboxProgramPath() {
            let path = String(cString: program)
            if let slash = path.lastIndex(of: "/") { candidates.append(path[..<slash] + "/audiosessiond") }
        }
        candidates += configuration.searchPath.map { $0 + "/audiosessiond" }
        return candidates.first { access($0, X_OK) == 0 } ?? installed
    }

    /// The installation's prefix: the folder above the library's `lib` folder, or above
    /// `lib/<multiarch triplet>` (where Debian's package puts it).
    package static func installationPrefix() -> String {
        guard let file = AudioToolboxLibraryPath() else { return "/usr/local" }
        return installationPrefix(ofLibraryAt: String(cString: file))
    }

    package static func installationPrefix(ofLibraryAt file: String) -> String {
        var folders = file.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        if folders.count >= 2, folders[folders.endIndex - 2] == "lib", folders.last!.contains("-linux-") {
            folders = folders.dropLast()
        }
        guard folders.last == "lib" else { return folders.isEmpty ? ".." : folders.joined(separator: "/") + "/.." }
        let prefix = folders.dropLast().joined(separator: "/")
        return prefix.isEmpty && !file.hasPrefix("/") ? "." : prefix
    }

    /// What ALSA control names mean (ControlNames): `AUDIOTOOLBOX_ALSA_CONTROLS`, else
    /// share/audiotoolbox/alsa-controls.conf of the installation, else (a program built
    /// from source by SwiftPM, never installed) the source checkout's data/ file; then
    /// the user's $XDG_CONFIG_HOME/audiotoolbox/alsa-controls.conf, which adds to it.
    package static func loadControlNames(_ configuration: Configuration) {
        var installed = configuration.alsaControlsFile ?? installationPrefix() + "/share/audiotoolbox/alsa-controls.conf"
        if configuration.alsaControlsFile == nil, access(installed, F_OK) != 0, let checkout = sourceCheckoutControlNames(),
           access(checkout, R_OK) == 0 {
            installed = checkout
        }
        let chosen = installed
        let files = [installed] + (configuration.configFolder.map { [$0 + "/alsa-controls.conf"] } ?? [])
        ControlNames.loadOnFirstUse {
            let read = ControlNames.load(files: files) { Log.error("ALSA control names: \($0)") }
            guard !read else { return }
            Log.error("no ALSA control names read (\(chosen) is missing?): jacks and volumes are not recognised")
        }
    }

    /// data/alsa-controls.conf of the checkout this file was compiled from (this file is
    /// Sources/Library/Runtime/RuntimeChoices.swift in it).
    static func sourceCheckoutControlNames() -> String? {
        let folders = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
        guard folders.count > 5, folders.suffix(4) == ["Sources", "Library", "Runtime", "RuntimeChoices.swift"] else {
            return nil
        }
        return folders.dropLast(4).joined(separator: "/") + "/data/alsa-controls.conf"
    }

    /// The program's name as `audiosession status` shows it.
    package static func programName() -> String {
        guard let name = AudioToolboxProgramName() else { return "?" }
        return String(cString: name)
    }

    /// What a service obeys while no session feeds it (system sounds need none; a unit
    /// or queue before its start makes the default session): full level, no silent
    /// switch known, and the device the configuration names, or none with
    /// AUDIOTOOLBOX_BACKEND=virtual (the virtual device has no speaker). Read once: a
    /// forked child reuses the parent's, reading no file.
    package static let withoutSession: AudioServiceSnapshot = {
        let configuration = Configuration.current
        return AudioServiceSnapshot(active: false, interrupted: false, level: 1, silentSwitch: false,
                                    device: configuration.backend == .virtual ? .none
                                        : .alsa(ALSADeviceNames.resolve(configuration).pcm),
                                    sampleRate: 0, ioBufferDuration: 0)
    }()
}
