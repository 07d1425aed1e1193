// A game's sound effects as iOS games play them: a player per effect, made when the
// effect is needed and dropped when it is done, many of them at once. Prints for the test:
//   pair finished=<n> main=<Bool>                    (two players at once, panned apart)
//   burst finished=<n> of <count> main=<Bool>        (short players, one every SPACING ms)
// and exits 0 once every delegate call came; 2 if one never did.
//   EffectsApp pair LEFT_FILE RIGHT_FILE
//   EffectsApp burst FILE COUNT SPACING_MS
//   EffectsApp fork FILE COUNT
//   EffectsApp controls FILE
// "controls": a music player's buttons on a 2 s FILE: play for 0.5 s, pause for 0.5 s,
// seek to 1.5 s, volume 0.5, play to the end. Prints "controls paused=<Bool>
// at=<seconds> finished=<n>" (at: currentTime read while paused).
// "fork": a server tool's pattern: while FILE plays it forks COUNT children, each of which
// asks the player its state (playing in the parent, not in the child) and exits; the
// parent's sound goes on to its end. Prints "fork children=<n> ok=<n> finished=<n>".
import AVFoundation

final class Effects: NSObject, AVAudioPlayerDelegate {
    var finished = 0
    var allOnMain = true
    var playing: [AVAudioPlayer] = []

    func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool) {
        if flag { finished += 1 }
        allOnMain = allOnMain && Thread.isMainThread
        playing.removeAll { $0 === player }
    }

    func play(_ path: String, pan: Float = 0) -> Bool {
        guard let player = try? AVAudioPlayer(contentsOf: URL(fileURLWithPath: path)) else { return false }
        player.delegate = self
        player.pan = pan
        playing.append(player)
        return player.play()
    }
}

func runMain(until done: () -> Bool) -> Bool {
    let deadline = Date(timeIntervalSinceNow: 20)
    while !done() && Date() < deadline { _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.01)) }
    return done()
}

setvbuf(stdout, nil, _IOLBF, 0)
let arguments = CommandLine.arguments
let effects = Effects()
try? AVAudioSession.sharedInstance().setCategory(.ambient)
switch arguments.count > 1 ? arguments[1] : "" {
case "pair" where arguments.count == 4:
    guard effects.play(arguments[2], pan: -1), effects.play(arguments[3], pan: 1) else { print("play failed"); exit(1) }
    let done = runMain { effects.finished == 2 }
    print("pair finished=\(effects.finished) main=\(effects.allOnMain)")
    exit(done ? 0 : 2)
case "burst" where arguments.count == 5:
    let count = Int(arguments[3]) ?? 0
    let spacing = (Double(arguments[4]) ?? 50) / 1000
    for _ in 0..<count {
        guard effects.play(arguments[2]) else { print("play failed"); exit(1) }
        let turn = Date(timeIntervalSinceNow: spacing)
        while Date() < turn { _ = RunLoop.main.run(mode: .default, before: turn) }
    }
    let done = runMain { effects.finished == count }
    print("burst finished=\(effects.finished) of \(count) main=\(effects.allOnMain)")
    exit(done ? 0 : 2)
case "fork" where arguments.count == 4:
    let count = Int(arguments[3]) ?? 0
    guard let player = try? AVAudioPlayer(contentsOf: URL(fileURLWithPath: arguments[2])) else { print("no file"); exit(1) }
    player.delegate = effects
    guard player.play() else { print("play failed"); exit(1) }
    let settle = Date(timeIntervalSinceNow: 0.3)
    while Date() < settle { _ = RunLoop.main.run(mode: .default, before: settle) }
    var ok = 0
    for _ in 0..<count {
        let child = fork()
        if child == 0 {
            // The child's copy plays nothing, and answers without waiting on the parent's threads.
            _exit(!player.isPlaying && player.currentTime >= 0 && player.duration > 0 ? 0 : 1)
        }
        var status: Int32 = 0
        if child > 0 && waitpid(child, &status, 0) == child && status == 0 { ok += 1 }
    }
    let done = runMain { effects.finished == 1 }
    print("fork children=\(count) ok=\(ok) finished=\(effects.finished)")
    exit(done && ok == count ? 0 : 2)
case "controls" where arguments.count == 3:
    guard let player = try? AVAudioPlayer(contentsOf: URL(fileURLWithPath: arguments[2])) else { print("no file"); exit(1) }
    player.delegate = effects
    guard player.play() else { print("play failed"); exit(1) }
    var until = Date(timeIntervalSinceNow: 0.5)
    while Date() < until { _ = RunLoop.main.run(mode: .default, before: until) }
    player.pause()
    let paused = !player.isPlaying
    until = Date(timeIntervalSinceNow: 0.5)
    while Date() < until { _ = RunLoop.main.run(mode: .default, before: until) }
    let at = player.currentTime
    player.currentTime = 1.5
    player.volume = 0.5
    guard player.play() else { print("play failed"); exit(1) }
    let done = runMain { effects.finished == 1 }
    print(String(format: "controls paused=%@ at=%.2f finished=%d", paused ? "true" : "false", at, effects.finished))
    exit(done ? 0 : 2)
default:
    print("usage: EffectsApp pair LEFT_FILE RIGHT_FILE | burst FILE COUNT SPACING_MS | fork FILE COUNT | controls FILE")
    exit(64)
}
