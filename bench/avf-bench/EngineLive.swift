import AVFoundation

// The live benchmark: a file from a player through an EQ band and a reverb into the
// main mixer, to the device, through AVAudioEngine and through the same units in an
// AUGraph driven by the C API. Each run prints "start NS cpu MS": CLOCK_MONOTONIC when
// the sound is asked for (play(), or the player unit's start time stamp), the stream
// already running, and the process's CPU time from then to the end, when the file and
// the reverb's tail have played (what playing costs, set-up left out).

private func monotonic() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) * 1e9 + Double(t.tv_nsec)
}

private func cpuMilliseconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e3
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e3
}

/// Waits for `done` while the main run loop turns, then for the reverb's tail to play out.
private func waitPlayed(_ done: () -> Bool) {
    while !done() { _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.01)) }
    let tail = Date(timeIntervalSinceNow: 0.3)
    while Date() < tail { _ = RunLoop.main.run(mode: .default, before: tail) }
}

private final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var set = false
    func raise() { lock.withLock { set = true } }
    var isRaised: Bool { lock.withLock { set } }
}

func engineLive(_ buffer: AVAudioPCMBuffer) {
    let engine = AVAudioEngine()
    let player = effectEngine(engine, format: buffer.format)
    try! engine.start()
    let finished = Flag()
    player.scheduleBuffer(buffer) { finished.raise() }
    usleep(200_000)   // the stream runs
    let start = monotonic(), cpu = cpuMilliseconds()
    player.play()
    waitPlayed { finished.isRaised }
    print(String(format: "start %.0f cpu %.3f", start, cpuMilliseconds() - cpu))
}

func graphLive(_ buffer: AVAudioPCMBuffer) {
    let (graph, units) = effectGraph(format: buffer.format, output: kAudioUnitSubType_RemoteIO)
    AUGraphStart(graph)
    let slice = UnsafeMutablePointer<ScheduledAudioSlice>.allocate(capacity: 1)
    defer { slice.deallocate() }
    scheduleOnPlayer(units[0], buffer, slice: slice)
    usleep(200_000)   // the stream runs
    let start = monotonic(), cpu = cpuMilliseconds()
    startPlayer(units[0])
    waitPlayed { slice.pointee.mFlags & UInt32(kScheduledAudioSliceFlag_Complete) != 0 }
    print(String(format: "start %.0f cpu %.3f", start, cpuMilliseconds() - cpu))
    AUGraphStop(graph)
    DisposeAUGraph(graph)
}
