// Music as iOS apps play it with AVAudioPlayer. Prints for the test:
//   loaded duration=<s> channels=<n>
//   began playing=<Bool> main=<Bool>          (interruption mode)
//   resumed <Bool>                            (after Ended with ShouldResume: play())
//   finished successfully=<Bool> main=<Bool> playing=<Bool>
// and exits 0 after the delegate's call; 2 if it never came.
//   PlayerApp FILE LOOPS [RATE[late]] [interruptible]
// Plain: a game's background music (ambient category, looped). With a RATE other than 1:
// enableRate before prepareToPlay, and the rate set then; RATE followed by "late" (2.0late):
// the rate set only after play(), as a podcast player's speed button does. "interruptible":
// a music player (playback category) that pauses on Began and plays again after Ended when
// it should resume.
import AVFoundation

final class Music: NSObject, AVAudioPlayerDelegate {
    var done = false
    var player: AVAudioPlayer?

    func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool) {
        print("finished successfully=\(flag) main=\(Thread.isMainThread) playing=\(player.isPlaying)")
        done = true
    }

    func interrupted(_ note: Notification) {
        guard let player, let type = note.userInfo?[AVAudioSessionInterruptionTypeKey] as? UInt else { return }
        if type == AVAudioSession.InterruptionType.began.rawValue {
            print("began playing=\(player.isPlaying) main=\(Thread.isMainThread)")
        } else if let options = note.userInfo?[AVAudioSessionInterruptionOptionKey] as? UInt,
                  AVAudioSession.InterruptionOptions(rawValue: options).contains(.shouldResume) {
            print("resumed \(player.play())")
        }
    }
}

setvbuf(stdout, nil, _IOLBF, 0)
let arguments = CommandLine.arguments
let rateText = arguments.count > 3 ? arguments[3] : "1"
let lateRate = rateText.hasSuffix("late")
let rate = Float(lateRate ? String(rateText.dropLast(4)) : rateText) ?? 1
let interruptible = arguments.count > 4 && arguments[4] == "interruptible"
let music = Music()
let observer = NotificationCenter.default.addObserver(forName: AVAudioSession.interruptionNotification,
                                                      object: nil, queue: nil) { music.interrupted($0) }
do {
    try AVAudioSession.sharedInstance().setCategory(interruptible ? .playback : .ambient)
    let player = try AVAudioPlayer(contentsOf: URL(fileURLWithPath: arguments[1]))
    music.player = player
    player.numberOfLoops = Int(arguments[2]) ?? 0
    player.delegate = music
    if rate != 1 {
        player.enableRate = true
        if !lateRate { player.rate = rate }
    }
    print("loaded duration=\(player.duration) channels=\(player.numberOfChannels)")
    player.prepareToPlay()
    guard player.play() else { print("play failed"); exit(1) }
    if lateRate { player.rate = rate }
    let deadline = Date(timeIntervalSinceNow: 30)
    while !music.done && Date() < deadline {
        _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.05))
    }
    NotificationCenter.default.removeObserver(observer)
    exit(music.done ? 0 : 2)
} catch {
    print("error \((error as NSError).domain) \((error as NSError).code)")
    exit(1)
}
