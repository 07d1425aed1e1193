import AVFoundation

// The offline benchmark: the same chain through AVAudioEngine and through the C API.

private let rate = 44100.0, slice = 1024

/// A stereo buffer of `frames` frames of a tone with some noise in it.
private func source(_ frames: Int) -> AVAudioPCMBuffer {
    let format = AVAudioFormat(standardFormatWithSampleRate: rate, channels: 2)!
    let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(frames))!
    var seed: UInt32 = 1
    for i in 0..<frames {
        seed = seed &* 1_664_525 &+ 1_013_904_223
        let noise = Float(Double(seed >> 8) / Double(1 << 24) - 0.5) * 0.1
        buffer.floatChannelData![0][i] = Float(0.4 * sin(2 * Double.pi * 440 * Double(i) / rate)) + noise
        buffer.floatChannelData![1][i] = Float(0.4 * sin(2 * Double.pi * 660 * Double(i) / rate)) - noise
    }
    buffer.frameLength = AVAudioFrameCount(frames)
    return buffer
}

private func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) * 1e9 + Double(t.tv_nsec)
}

/// The loudest sample of the last runs, to show both paths made sound.
private var loudest: [String: Float] = [:]

/// AVAudioEngine: player -> EQ -> reverb -> main mixer, rendered by hand. Nanoseconds.
private func throughEngine(_ buffer: AVAudioPCMBuffer) -> Double {
    let engine = AVAudioEngine()
    let player = effectEngine(engine, format: buffer.format)
    try! engine.enableManualRenderingMode(.offline, format: buffer.format, maximumFrameCount: AVAudioFrameCount(slice))
    try! engine.start()
    player.scheduleBuffer(buffer)
    player.play()
    let out = AVAudioPCMBuffer(pcmFormat: buffer.format, frameCapacity: AVAudioFrameCount(slice))!
    let start = now()
    var done = 0
    while done < Int(buffer.frameLength) {
        _ = try! engine.renderOffline(AVAudioFrameCount(slice), to: out)
        done += slice
    }
    let took = now() - start
    loudest["engine"] = (0..<slice).map { abs(out.floatChannelData![0][$0]) }.max()
    engine.stop()
    return took
}

/// The same units as an AUGraph through the C API. Nanoseconds.
private func throughGraph(_ buffer: AVAudioPCMBuffer) -> Double {
    let (graph, units) = effectGraph(format: buffer.format, output: kAudioUnitSubType_GenericOutput,
                                     maximumFrames: UInt32(slice))
    let sliceStruct = UnsafeMutablePointer<ScheduledAudioSlice>.allocate(capacity: 1)
    defer { sliceStruct.deallocate() }
    scheduleOnPlayer(units[0], buffer, slice: sliceStruct)
    startPlayer(units[0])
    let list = UnsafeMutableAudioBufferListPointer.allocate(maximumBuffers: 2)
    let left = UnsafeMutablePointer<Float>.allocate(capacity: slice), right = UnsafeMutablePointer<Float>.allocate(capacity: slice)
    var stamp = AudioTimeStamp()
    stamp.mFlags = UInt32(kAudioTimeStampSampleTimeValid)
    let start = now()
    var done = 0
    while done < Int(buffer.frameLength) {
        list[0] = AudioBuffer(mNumberChannels: 1, mDataByteSize: UInt32(slice * 4), mData: left)
        list[1] = AudioBuffer(mNumberChannels: 1, mDataByteSize: UInt32(slice * 4), mData: right)
        var flags = AudioUnitRenderActionFlags(0)
        AudioUnitRender(units[4], &flags, &stamp, 0, UInt32(slice), list.unsafeMutablePointer)
        stamp.mSampleTime += Double(slice)
        done += slice
    }
    let took = now() - start
    loudest["graph"] = (0..<slice).map { abs(left[$0]) }.max()
    DisposeAUGraph(graph)
    free(list.unsafeMutablePointer)
    left.deallocate()
    right.deallocate()
    return took
}

func engineOffline(seconds: Int) {
    let buffer = source(Int(rate) * seconds)
    var engine: [Double] = [], graph: [Double] = []
    for _ in 0..<5 {
        engine.append(throughEngine(buffer))
        graph.append(throughGraph(buffer))
    }
    let e = engine.min()!, g = graph.min()!
    print(String(format: "engine-offline: %d s through EQ and reverb: AVAudioEngine %.1f ms, AUGraph in C %.1f ms: ratio %.2f (goal <= 1.1); last slice's peak %.3f and %.3f",
                 seconds, e / 1e6, g / 1e6, e / g, loudest["engine"] ?? 0, loudest["graph"] ?? 0))
}
