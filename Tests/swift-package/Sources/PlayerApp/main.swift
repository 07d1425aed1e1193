// A game's background music as iOS apps play it: ambient category, an AVAudioPlayer
// for a file, looped once more, told to the delegate when it ends. Prints for the test:
//   loaded duration=<s> channels=<n>
//   finished successfully=<Bool> main=<Bool> playing=<Bool>
// and exits 0 after the delegate's call; 2 if it never came.
//   PlayerApp FILE LOOPS
import AVFoundation

final class Music: NSObject, AVAudioPlayerDelegate {
    var done = false
    func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool) {
        print("finished successfully=\(flag) main=\(Thread.isMainThread) playing=\(player.isPlaying)")
        done = true
    }
}

setvbuf(stdout, nil, _IOLBF, 0)
let arguments = CommandLine.arguments
let music = Music()
do {
    try AVAudioSession.sharedInstance().setCategory(.ambient)
    let player = try AVAudioPlayer(contentsOf: URL(fileURLWithPath: arguments[1]))
    player.numberOfLoops = Int(arguments[2]) ?? 0
    player.delegate = music
    print("loaded duration=\(player.duration) channels=\(player.numberOfChannels)")
    player.prepareToPlay()
    guard player.play() else { print("play failed"); exit(1) }
    let deadline = Date(timeIntervalSinceNow: 30)
    while !music.done && Date() < deadline {
        _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.05))
    }
    exit(music.done ? 0 : 2)
} catch {
    print("error \((error as NSError).domain) \((error as NSError).code)")
    exit(1)
}
