// The AVAudioPlayer benchmark: a file played by AVAudioPlayer as an app plays it
// (prepareToPlay, then play(), done at the delegate's call). Prints "start NS cpu MS":
// CLOCK_MONOTONIC at play() and the process's CPU time at the end, as
// bench_player_queue.c does for the same file through an audio queue directly.
//   avf-bench FILE
import AVFoundation

final class Done: NSObject, AVAudioPlayerDelegate {
    var finished = false
    func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool) { finished = true }
}

let done = Done()
do {
    let player = try AVAudioPlayer(contentsOf: URL(fileURLWithPath: CommandLine.arguments[1]))
    player.delegate = done
    player.prepareToPlay()
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    let start = Double(now.tv_sec) * 1e9 + Double(now.tv_nsec)
    guard player.play() else { exit(1) }
    while !done.finished { _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.01)) }
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e3
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e3
    print(String(format: "start %.0f cpu %.3f", start, cpu))
} catch {
    exit(1)
}
