import CDescriptors
import Glibc
import Locking
import Synchronization

/// Has the rest of a system sound played whose program died mid-play
/// (kAudioServicesPropertyCompletePlaybackIfAppDies), on the device it was playing on.
///
/// The daemon decodes nothing: it is the user's security boundary, and a sound file is
/// whatever a program named. Each play is finished by `audiosessiond-finisher`, a short
/// program of the library's run as the user under resource limits of its own (see its
/// main.swift), which the daemon starts with nothing of its own but the log and kills if
/// it outlives any sound the phone accepts. What the daemon holds is bounded:
/// `maximumPending` requests (a dead program's plays on one device) wait,
/// `maximumSounding` finishers run at once; beyond that a request is refused (and logged). Device names are names, not paths or plugin
/// definitions: ALSA's `file` plugin must not become a way to write where the user did
/// not play.
final class SoundFinisher: @unchecked Sendable {
    static let maximumPending = 16
    static let maximumSounding = 4
    /// A finisher still running after this long is killed: sounds are at most 30 s, and
    /// decoding one takes well under a second.
    static let longestRun = 45.0

    /// One dead program's plays on one device: one finisher mixes them on one stream, as
    /// the program's own player did.
    private struct Request {
        let device: String
        let plays: [(path: String, startedAt: Double)]
    }
    private struct State {
        var requests: [Request] = []
        var running = 0
    }
    private let state = Locked(State())
    /// The finisher's executable (AUDIOSESSIOND_FINISHER, else beside the daemon's
    /// installation: libexec/audiotoolbox/, or the same folder in a build tree).
    let executable: String

    init(executable: String = SoundFinisher.locateExecutable()) {
        self.executable = executable
    }

    /// Whether anything is waiting or being heard (the daemon stays for it).
    var isBusy: Bool { state.withLock { !$0.requests.isEmpty || $0.running > 0 } }

    /// Accepts a dead program's plays (path, device, start), or says why not. Returns at
    /// once.
    func finish(_ plays: [(path: String, device: String, startedAt: Double)]) {
        var byDevice: [String: [(path: String, startedAt: Double)]] = [:]
        for play in plays {
            guard Self.isDeviceName(play.device) else {
                Log.error("not finishing \(printable(play.path)): '\(printable(play.device))' is not a device name")
                continue
            }
            byDevice[play.device, default: []].append((play.path, play.startedAt))
        }
        for (device, plays) in byDevice.sorted(by: { $0.key < $1.key }) {
            let accepted = state.withLock { s -> Bool in
                guard s.requests.count < Self.maximumPending else { return false }
                s.requests.append(Request(device: device, plays: plays))
                return true
            }
            if !accepted {
                Log.error("not finishing \(plays.count) sound(s) on \(device): \(Self.maximumPending) finishers already wait")
            }
        }
        startWaiting()
    }

    /// A bare ALSA device name (`default`, `hw:1,0`, `plughw:CARD=PCH,DEV=0`, `vcard`).
    static func isDeviceName(_ device: String) -> Bool {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:,.=-".utf8)
        return !device.isEmpty && device.utf8.count <= 256 && device.utf8.allSatisfy { allowed.contains($0) }
    }

    static func locateExecutable() -> String {
        if let path = getenv("AUDIOSESSIOND_FINISHER").map({ String(cString: $0) }), !path.isEmpty { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let daemon = length > 0 ? String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        let folder = daemon.lastIndex(of: "/").map { String(daemon[..<$0]) } ?? "."
        let installed = folder + "/../libexec/audiotoolbox/audiosessiond-finisher"
        return access(installed, X_OK) == 0 ? installed : folder + "/audiosessiond-finisher"
    }

    /// Starts a finisher for each waiting request while fewer than `maximumSounding` run.
    private func startWaiting() {
        while let request = state.withLock({ s -> Request? in
            guard s.running < Self.maximumSounding, !s.requests.isEmpty else { return nil }
            s.running += 1
            return s.requests.removeFirst()
        }) {
            guard let pid = spawn(request) else {
                state.withLock { $0.running -= 1 }
                continue
            }
            watch(pid, path: request.plays.map(\.path).joined(separator: ", "))
        }
    }

    private func spawn(_ request: Request) -> pid_t? {
        let arguments = [executable, request.device] + request.plays.flatMap { [String($0.startedAt), $0.path] }
        var pointers = arguments.map { strdup($0) }
        pointers.append(nil)
        defer { for pointer in pointers { free(pointer) } }
        let pid = DescriptorsSpawnHelper(executable, pointers)
        guard pid > 0 else {
            Log.error("cannot finish \(request.plays.count) sound(s) on \(request.device): cannot start "
                      + "\(printable(executable)): " + String(cString: strerror(errno)))
            return nil
        }
        return pid
    }

    /// A thread waits for the finisher (killing it past `longestRun`), then lets the next
    /// request run. Polled: the thread has nothing else to do, and a pidfd would need a
    /// newer C library than Debian 12's headers declare.
    private func watch(_ pid: pid_t, path: String) {
        final class Context {
            let finisher: SoundFinisher
            let pid: pid_t
            let path: String
            init(_ finisher: SoundFinisher, _ pid: pid_t, _ path: String) {
                self.finisher = finisher
                self.pid = pid
                self.path = path
            }
        }
        let context = Unmanaged.passRetained(Context(self, pid, path))
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { raw in
            let context = Unmanaged<Context>.fromOpaque(raw!).takeRetainedValue()
            context.finisher.reap(context.pid, path: context.path)
            return nil
        }, context.toOpaque())
        if created == 0 {
            pthread_detach(thread)
        } else {
            context.release()
            // Without a thread, the daemon's own thread waits: rare, and bounded.
            reap(pid, path: path)
        }
    }

    private func reap(_ pid: pid_t, path: String) {
        let deadline = monotonicSeconds() + Self.longestRun
        var status: Int32 = 0
        while true {
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid || (done < 0 && errno != EINTR) { break }
            if monotonicSeconds() >= deadline {
                Log.error("the finisher of \(printable(path)) ran \(Int(Self.longestRun)) s: killed")
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                break
            }
            usleep(50_000)
        }
        let exitedWell = (status & 0x7f) == 0 && ((status >> 8) & 0xff) == 0
        if !exitedWell { Log.error("the finisher of \(printable(path)) ended with status \(status)") }
        state.withLock { $0.running -= 1 }
        startWaiting()
    }
}
