import AudioSessionCore
import Glibc
import Locking
import Synchronization
import SystemSounds

/// Plays the rest of a system sound whose program died mid-play
/// (kAudioServicesPropertyCompletePlaybackIfAppDies), on the device it was playing on.
///
/// Decoding is a worker thread's job, never the serving thread's: a dead program's
/// thirty-second sound takes milliseconds to decode, a hundred of them seconds, and a
/// path that is not a regular file could take forever. What it holds is bounded:
/// `maximumPending` requests wait, `maximumSounding` sounds play at once; beyond that a
/// request is refused (and logged). Device names are names, not paths or plugin
/// definitions: ALSA's `file` plugin must not become a way to write where the user did
/// not play.
final class SoundFinisher: @unchecked Sendable {
    static let maximumPending = 16
    static let maximumSounding = 4

    private struct Request {
        let path: String
        let device: String
        let startedAt: Double
    }
    private struct Queue {
        var requests: [Request] = []
        var working = false
    }
    private let queue = Locked(Queue())
    private let sounding = Atomic<Int>(0)
    private var players: [String: SystemSoundPlayer] = [:]  // the worker's own

    /// Whether anything is waiting, decoding or being heard (the daemon stays for it).
    var isBusy: Bool {
        sounding.load(ordering: .acquiring) > 0 || queue.withLock { !$0.requests.isEmpty || $0.working }
    }

    /// Accepts a request, or says why not. Returns at once.
    func finish(_ path: String, device: String, startedAt: Double) {
        guard Self.isDeviceName(device) else {
            Log.error("not finishing \(printable(path)): '\(printable(device))' is not a device name")
            return
        }
        let startWorker = queue.withLock { q -> Bool? in
            guard q.requests.count < Self.maximumPending else { return nil }
            q.requests.append(Request(path: path, device: device, startedAt: startedAt))
            defer { q.working = true }
            return !q.working
        }
        guard let startWorker else {
            Log.error("not finishing \(printable(path)): \(Self.maximumPending) sounds already wait to be finished")
            return
        }
        if startWorker { startThread() }
    }

    /// A bare ALSA device name (`default`, `hw:1,0`, `plughw:CARD=PCH,DEV=0`, `vcard`).
    static func isDeviceName(_ device: String) -> Bool {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:,.=-".utf8)
        return !device.isEmpty && device.utf8.count <= 256 && device.utf8.allSatisfy { allowed.contains($0) }
    }

    private func startThread() {
        let box = Unmanaged.passRetained(self)
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { context in
            let finisher = Unmanaged<SoundFinisher>.fromOpaque(context!).takeRetainedValue()
            finisher.work()
            return nil
        }, box.toOpaque())
        if created == 0 {
            pthread_detach(thread)
        } else {
            box.release()
            queue.withLock { $0.requests = []; $0.working = false }
            Log.error("cannot start the thread that finishes sounds")
        }
    }

    /// Takes requests until none is left, then ends (the next request starts another).
    private func work() {
        while let request = queue.withLock({ q -> Request? in
            guard !q.requests.isEmpty else { q.working = false; return nil }
            return q.requests.removeFirst()
        }) {
            play(request)
        }
    }

    private func play(_ request: Request) {
        guard sounding.load(ordering: .acquiring) < Self.maximumSounding else {
            Log.error("not finishing \(printable(request.path)): \(Self.maximumSounding) sounds are being finished already")
            return
        }
        let sound: DecodedSound
        do throws(DecodedSound.LoadError) {
            sound = try DecodedSound.load(path: request.path)
        } catch {
            Log.error("cannot finish \(printable(request.path)): \(error)")
            return
        }
        // What the program played already is not played again.
        let heard = max(0, Int((monotonicSeconds() - request.startedAt) * Double(sound.sampleRate)))
        guard heard < sound.frameCount else { return }
        let rest = DecodedSound(sampleRate: sound.sampleRate, channels: sound.channels,
                                samples: Array(sound.samples[(heard * sound.channels)...]))
        let player = players[request.device] ?? {
            // The player does not exist yet when its completion handler is made.
            final class Box: @unchecked Sendable { weak var player: SystemSoundPlayer? }
            let box = Box()
            let device = request.device
            // The program is gone: no session feeds this player, only the device.
            let made = SystemSoundPlayer(predefined: [:],
                                         fedWith: AudioServiceSnapshot(active: true, interrupted: false, level: 1,
                                                                       silentSwitch: false, device: .alsa(device),
                                                                       sampleRate: 0, ioBufferDuration: 0),
                                         onFinished: { [unowned self] id in
                                             _ = box.player?.dispose(id)
                                             self.sounding.subtract(1, ordering: .releasing)
                                         })
            box.player = made
            players[request.device] = made
            return made
        }()
        sounding.add(1, ordering: .releasing)
        let id = player.create(rest, path: request.path)
        player.play(id)
        Log.info("finishing \(printable(request.path)) for a program that died (\(sound.frameCount - heard) frames left)")
    }
}
