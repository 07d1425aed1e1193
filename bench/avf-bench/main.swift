// The AVAudioPlayer benchmark.
//   avf-bench FILE
// A file played by AVAudioPlayer as an app plays it (prepareToPlay, then play(), done at
// the delegate's call). Prints "start NS cpu MS": CLOCK_MONOTONIC at play() and the
// process's CPU time at the end, as bench_player_queue.c does for the same file through
// an audio queue directly.
//   avf-bench engine-offline SECONDS
// Offline rendering through effects: SECONDS of stereo sound from a player node through
// an EQ band and a reverb into the main mixer, by AVAudioEngine's manual rendering and
// by the same units in an AUGraph driven through the C API (AUScheduledSoundPlayer ->
// AUNBandEQ -> AUReverb2 -> AUMultiChannelMixer -> GenericOutput, AudioUnitRender).
// Prints each one's time, their ratio (goal: at most 1.1), the fastest of 5 alternated.
//   avf-bench engine-live FILE engine|graph
// FILE from a player through an EQ band and a reverb into the main mixer, to the device:
// by AVAudioEngine, or by the same units in an AUGraph through the C API (RemoteIO at
// the end). Prints "start NS cpu MS" (EngineLive.swift); run-benchmarks.sh reads the
// card for the first loud frame.
//   avf-bench burst FILE COUNT mix|queues
// A game's effects: COUNT players of FILE, one started every 20 ms, each dropped once it
// has finished. "mix" plays them as the library does (the players' mix); "queues" sets
// enableRate on each, which gives every player a queue (and a stream) of its own, as
// before the mix. Prints "cpu MS rss KB" (CPU time and peak resident size at the end).
import AVFoundation

final class Done: NSObject, AVAudioPlayerDelegate {
    var finished = 0
    var players: [AVAudioPlayer] = []
    func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool) {
        finished += 1
        players.removeAll { $0 === player }
    }
}

func usage() -> (cpu: Double, rss: Int) {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e3
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e3
    return (cpu, usage.ru_maxrss)
}

let arguments = CommandLine.arguments
let done = Done()
if arguments.count == 4 && arguments[1] == "engine-live" {
    let file = try! AVAudioFile(forReading: URL(fileURLWithPath: arguments[2]))
    let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(file.length))!
    try! file.read(into: buffer)
    if arguments[3] == "engine" { engineLive(buffer) } else { graphLive(buffer) }
    exit(0)
}
if arguments.count == 3 && arguments[1] == "engine-offline" {
    engineOffline(seconds: Int(arguments[2]) ?? 60)
    exit(0)
}
if arguments.count == 5 && arguments[1] == "burst" {
    let url = URL(fileURLWithPath: arguments[2])
    let count = Int(arguments[3]) ?? 0
    for _ in 0..<count {
        guard let player = try? AVAudioPlayer(contentsOf: url) else { exit(1) }
        player.delegate = done
        if arguments[4] == "queues" { player.enableRate = true }
        done.players.append(player)
        guard player.play() else { exit(1) }
        let turn = Date(timeIntervalSinceNow: 0.02)
        while Date() < turn { _ = RunLoop.main.run(mode: .default, before: turn) }
    }
    while done.finished < count { _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.01)) }
    let (cpu, rss) = usage()
    print(String(format: "cpu %.3f rss %d", cpu, rss))
    exit(0)
}
do {
    let player = try AVAudioPlayer(contentsOf: URL(fileURLWithPath: arguments[1]))
    player.delegate = done
    player.prepareToPlay()
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    let start = Double(now.tv_sec) * 1e9 + Double(now.tv_nsec)
    guard player.play() else { exit(1) }
    while done.finished == 0 { _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.01)) }
    print(String(format: "start %.0f cpu %.3f", start, usage().cpu))
} catch {
    exit(1)
}
