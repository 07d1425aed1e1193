// A music app's audio session code as iOS apps write it: playback category, activation,
// and an interruption observer that pauses on Began and resumes after Ended when told
// it should. Prints one line per event for the test (Tests/swift-package/run.sh):
//   active <category> <sample rate>
//   began type=<UInt> main=<Bool>
//   ended type=<UInt> options=<UInt> main=<Bool> reactivated=<Bool>
// and exits 0 after Ended; 2 if nothing came within 30 s.
//   SessionApp interrupter: activates PlayAndRecord (interrupting a player of another
// program), gives the audio back after half a second with notifyOthersOnDeactivation:
//   active <category>
//   deactivated notifying others
//   SessionApp services: waits instead for the media services to be lost and reset (the
// daemon killed), and sets its session up again on Reset, as Apple asks apps to:
//   lost main=<Bool>
//   reset main=<Bool> category=<category> reactivated=<Bool>
import AVFoundation

final class Player {
    var playing = false
    var finished = false

    func start() throws {
        let session = AVAudioSession.sharedInstance()
        try session.setCategory(.playback, mode: .default, options: [])
        try session.setActive(true)
        playing = true
        print("active \(session.category.rawValue) \(session.sampleRate)")
    }

    func interrupted(_ notification: Notification) {
        guard let info = notification.userInfo,
              let typeValue = info[AVAudioSessionInterruptionTypeKey] as? UInt,
              let type = AVAudioSession.InterruptionType(rawValue: typeValue) else { return }
        switch type {
        case .began:
            playing = false
            print("began type=\(typeValue) main=\(Thread.isMainThread)")
        case .ended:
            let optionsValue = info[AVAudioSessionInterruptionOptionKey] as? UInt ?? 0
            let options = AVAudioSession.InterruptionOptions(rawValue: optionsValue)
            var reactivated = false
            if options.contains(.shouldResume) {
                reactivated = (try? AVAudioSession.sharedInstance().setActive(true)) != nil
                playing = reactivated
            }
            print("ended type=\(typeValue) options=\(optionsValue) main=\(Thread.isMainThread) reactivated=\(reactivated)")
            finished = true
        @unknown default:
            break
        }
    }
}

setvbuf(stdout, nil, _IOLBF, 0)
if CommandLine.arguments.dropFirst().first == "interrupter" {
    // A voice-note app taking the audio from whoever plays, for a moment, and then giving
    // it back: deactivated with notifyOthersOnDeactivation, so the interrupted resume.
    let session = AVAudioSession.sharedInstance()
    do {
        try session.setCategory(.playAndRecord, mode: .default, options: [])
        try session.setActive(true)
        print("active \(session.category.rawValue)")
        let moment = Date(timeIntervalSinceNow: 0.5)
        while Date() < moment { _ = RunLoop.main.run(mode: .default, before: moment) }
        try session.setActive(false, options: .notifyOthersOnDeactivation)
        print("deactivated notifying others")
        exit(0)
    } catch {
        print("failed \(error)")
        exit(1)
    }
}
if CommandLine.arguments.dropFirst().first == "services" {
    let session = AVAudioSession.sharedInstance()
    var reset = false
    let lost = NotificationCenter.default.addObserver(forName: AVAudioSession.mediaServicesWereLostNotification,
                                                      object: session, queue: nil) { _ in
        print("lost main=\(Thread.isMainThread)")
    }
    let back = NotificationCenter.default.addObserver(forName: AVAudioSession.mediaServicesWereResetNotification,
                                                      object: session, queue: nil) { _ in
        let reactivated = (try? session.setCategory(.playback)) != nil && (try? session.setActive(true)) != nil
        print("reset main=\(Thread.isMainThread) category=\(session.category.rawValue) reactivated=\(reactivated)")
        reset = true
    }
    do {
        try session.setCategory(.playback)
        try session.setActive(true)
        print("active \(session.category.rawValue) \(session.sampleRate)")
    } catch {
        print("failed \(error)")
        exit(1)
    }
    let deadline = Date(timeIntervalSinceNow: 30)
    while !reset && Date() < deadline { _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.05)) }
    NotificationCenter.default.removeObserver(lost)
    NotificationCenter.default.removeObserver(back)
    exit(reset ? 0 : 2)
}
let player = Player()
let observer = NotificationCenter.default.addObserver(forName: AVAudioSession.interruptionNotification,
                                                      object: AVAudioSession.sharedInstance(), queue: nil) { note in
    player.interrupted(note)
}
do {
    try player.start()
} catch {
    print("failed \(error)")
    exit(1)
}
let deadline = Date(timeIntervalSinceNow: 30)
while !player.finished && Date() < deadline {
    _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.05))
}
NotificationCenter.default.removeObserver(observer)
exit(player.finished ? 0 : 2)
