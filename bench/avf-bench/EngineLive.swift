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
    let player = AVAudioPlayerNode(), eq = AVAudioUnitEQ(numberOfBands: 1), reverb = AVAudioUnitReverb()
    eq.bands[0].frequency = 1000
    eq.bands[0].gain = -6
    eq.bands[0].bypass = false
    reverb.wetDryMix = 30
    for node in [player, eq, reverb] as [AVAudioNode] { engine.attach(node) }
    engine.connect(player, to: eq, format: buffer.format)
    engine.connect(eq, to: reverb, format: buffer.format)
    engine.connect(reverb, to: engine.mainMixerNode, format: buffer.format)
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
    func description(_ type: Int, _ subtype: Int) -> AudioComponentDescription {
        AudioComponentDescription(componentType: OSType(type), componentSubType: OSType(subtype),
                                  componentManufacturer: OSType(kAudioUnitManufacturer_Apple), componentFlags: 0,
                                  componentFlagsMask: 0)
    }
    var graph: AUGraph?
    NewAUGraph(&graph)
    let kinds = [description(kAudioUnitType_Generator, kAudioUnitSubType_ScheduledSoundPlayer),
                 description(kAudioUnitType_Effect, kAudioUnitSubType_NBandEQ),
                 description(kAudioUnitType_Effect, 0x7276_6232),
                 description(kAudioUnitType_Mixer, kAudioUnitSubType_MultiChannelMixer),
                 description(kAudioUnitType_Output, kAudioUnitSubType_RemoteIO)]
    var nodes = [AUNode](repeating: 0, count: kinds.count)
    for i in 0..<kinds.count {
        var d = kinds[i]
        AUGraphAddNode(graph!, &d, &nodes[i])
    }
    AUGraphOpen(graph!)
    var units = [AudioUnit?](repeating: nil, count: kinds.count)
    for i in 0..<kinds.count { AUGraphNodeInfo(graph!, nodes[i], nil, &units[i]) }
    var format = buffer.format.streamDescription.pointee
    let size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
    for i in 0..<(kinds.count - 1) {
        if i > 0 { AudioUnitSetProperty(units[i]!, AudioUnitPropertyID(kAudioUnitProperty_StreamFormat), AudioUnitScope(kAudioUnitScope_Input), 0, &format, size) }
        AudioUnitSetProperty(units[i]!, AudioUnitPropertyID(kAudioUnitProperty_StreamFormat), AudioUnitScope(kAudioUnitScope_Output), 0, &format, size)
    }
    AudioUnitSetProperty(units[4]!, AudioUnitPropertyID(kAudioUnitProperty_StreamFormat), AudioUnitScope(kAudioUnitScope_Input), 0, &format, size)
    for i in 0..<(kinds.count - 1) { AUGraphConnectNodeInput(graph!, nodes[i], 0, nodes[i + 1], 0) }
    var bands: UInt32 = 1
    AudioUnitSetProperty(units[1]!, AudioUnitPropertyID(kAUNBandEQProperty_NumberOfBands), AudioUnitScope(kAudioUnitScope_Global), 0, &bands, 4)
    AUGraphInitialize(graph!)
    AudioUnitSetParameter(units[1]!, AudioUnitParameterID(kAUNBandEQParam_Frequency), AudioUnitScope(kAudioUnitScope_Global), 0, 1000, 0)
    AudioUnitSetParameter(units[1]!, AudioUnitParameterID(kAUNBandEQParam_Gain), AudioUnitScope(kAudioUnitScope_Global), 0, -6, 0)
    AudioUnitSetParameter(units[1]!, AudioUnitParameterID(kAUNBandEQParam_BypassBand), AudioUnitScope(kAudioUnitScope_Global), 0, 0, 0)
    AudioUnitSetParameter(units[2]!, AudioUnitParameterID(0), AudioUnitScope(kAudioUnitScope_Global), 0, 30, 0)
    AUGraphStart(graph!)
    var slice = ScheduledAudioSlice()
    slice.mTimeStamp.mFlags = UInt32(kAudioTimeStampSampleTimeValid)
    slice.mNumberFrames = buffer.frameLength
    slice.mBufferList = UnsafeMutablePointer(mutating: buffer.audioBufferList)
    AudioUnitSetProperty(units[0]!, AudioUnitPropertyID(kAudioUnitProperty_ScheduleAudioSlice), AudioUnitScope(kAudioUnitScope_Global), 0, &slice,
                         UInt32(MemoryLayout<ScheduledAudioSlice>.size))
    usleep(200_000)   // the stream runs
    var startStamp = AudioTimeStamp()
    startStamp.mFlags = UInt32(kAudioTimeStampSampleTimeValid)
    startStamp.mSampleTime = -1
    let start = monotonic(), cpu = cpuMilliseconds()
    AudioUnitSetProperty(units[0]!, AudioUnitPropertyID(kAudioUnitProperty_ScheduleStartTimeStamp), AudioUnitScope(kAudioUnitScope_Global), 0, &startStamp,
                         UInt32(MemoryLayout<AudioTimeStamp>.size))
    waitPlayed { withUnsafePointer(to: &slice) { $0.pointee.mFlags & UInt32(kScheduledAudioSliceFlag_Complete) != 0 } }
    print(String(format: "start %.0f cpu %.3f", start, cpuMilliseconds() - cpu))
    AUGraphStop(graph!)
    DisposeAUGraph(graph!)
}
