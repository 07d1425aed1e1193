// audiosessiond-finisher: plays the rest of the system sounds a program was playing when
// it died (kAudioServicesPropertyCompletePlaybackIfAppDies), for audiosessiond, which
// decodes nothing itself.
//
//   audiosessiond-finisher DEVICE STARTED_AT PATH [STARTED_AT PATH ...]
//
// DEVICE is the ALSA PCM the program played on, each STARTED_AT the CLOCK_MONOTONIC
// second a play started (what was heard already is not played again), PATH its sound
// file. The plays are mixed on one stream, as the program's player mixed them.
// Runs as the user, started by the daemon with only its log as standard error; before
// touching the file it limits itself (CPU time, memory, descriptors, no core, no new
// privileges), so a file made to hurt a decoder hurts this short-lived
// process alone. Exits 0 once the sounds have been heard (a file that cannot be read is
// logged and left out), 2 on a usage error.
import AudioSessionCore
import CDescriptors
import Glibc
import SystemSounds

func say(_ level: String, _ text: String) {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    let milliseconds = now.tv_nsec / 1_000_000
    let clean = String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7f ? "?" : Character($0) })
    fputs("audiosessiond-finisher[\(getpid())] \(now.tv_sec).\(milliseconds < 10 ? "00" : milliseconds < 100 ? "0" : "")"
          + "\(milliseconds) \(level): \(clean)\n", stderr)
}

func limit(_ resource: Int32, _ value: rlim_t) {
    var limit = rlimit(rlim_cur: value, rlim_max: value)
    if setrlimit(__rlimit_resource_t(UInt32(resource)), &limit) != 0 {
        say("error", "cannot limit resource \(resource): \(String(cString: strerror(errno)))")
        exit(1)
    }
}

let arguments = CommandLine.arguments
var requests: [(startedAt: Double, path: String)] = []
if arguments.count >= 4, arguments.count % 2 == 0, arguments.count <= 2 + 2 * 64 {
    for index in stride(from: 2, to: arguments.count, by: 2) {
        guard let startedAt = Double(arguments[index]) else { break }
        requests.append((startedAt, arguments[index + 1]))
    }
}
guard !requests.isEmpty, requests.count == (arguments.count - 2) / 2 else {
    fputs("usage: audiosessiond-finisher DEVICE STARTED_AT PATH [STARTED_AT PATH ...]\n", stderr)
    exit(2)
}
let device = arguments[1]

// Limits first: CPU for a 30 s sound's decoding and mixing many times over; memory for the
// largest 30 s sound decoded whole (8 channels at 192 kHz); a few descriptors (the file,
// the PCM, the mixer thread's wake-up); no core of a crash. (Not a file size limit: the
// log is a file, and so is what the virtual card records; the device name, checked by
// the daemon, is what keeps ALSA's `file` plugin out.)
limit(Int32(RLIMIT_CPU.rawValue), 60)
limit(Int32(RLIMIT_DATA.rawValue), 1 << 30)
limit(Int32(RLIMIT_NOFILE.rawValue), 64)
limit(Int32(RLIMIT_CORE.rawValue), 0)
_ = DescriptorsForbidNewPrivileges()
// And a wall-clock bound of its own (the daemon kills it then too, but may be gone):
// SIGALRM's default action ends the process.
alarm(45)

func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

// The program is gone: no session feeds this player, only the device. Each play that
// ends (or is found to be over) counts down; the last one ends the process.
let finished = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)  // posted by the mixer thread
sem_init(finished, 0, 0)
let player = SystemSoundPlayer(predefined: [:],
                               fedWith: AudioServiceSnapshot(active: true, interrupted: false, level: 1,
                                                             silentSwitch: false, device: .alsa(device),
                                                             sampleRate: 0, ioBufferDuration: 0),
                               onFinished: { _ in sem_post(finished) })
var playing = 0
for (startedAt, path) in requests {
    // Decoded one at a time, each kept only as long as it plays: the player holds the rest.
    let sound: DecodedSound
    do throws(DecodedSound.LoadError) {
        sound = try DecodedSound.load(path: path)
    } catch {
        say("error", "cannot finish \(path): \(error)")
        continue
    }
    let heard = max(0, Int((monotonicSeconds() - startedAt) * Double(sound.sampleRate)))
    guard heard < sound.frameCount else { continue }
    let id = player.create(DecodedSound(sampleRate: sound.sampleRate, channels: sound.channels,
                                        samples: Array(sound.samples[(heard * sound.channels)...])), path: path)
    say("info", "finishing \(path) for a program that died (\(sound.frameCount - heard) frames left)")
    player.play(id)
    playing += 1
}
for _ in 0..<playing {
    while sem_wait(finished) != 0 && errno == EINTR {}
}
exit(0)
