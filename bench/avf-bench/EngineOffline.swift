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
    let player = AVAudioPlayerNode(), eq = AVAudioUnitEQ(numberOfBands: 1), reverb = AVAudioUnitReverb()
    eq.bands[0].frequency = 1000
    eq.bands[0].gain = -6
    eq.bands[0].bypass = false
    reverb.wetDryMix = 30
    for node in [player, eq, reverb] as [AVAudioNode] { engine.attach(node) }
    engine.connect(player, to: eq, format: buffer.format)
    engine.connect(eq, to: reverb, format: buffer.format)
    engine.connect(reverb, to: engine.mainMixerNode, format: buffer.format)
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
                 description(kAudioUnitType_Output, kAudioUnitSubType_GenericOutput)]
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
    for i in 0..<kinds.count {
        var frames = UInt32(slice)
        AudioUnitSetProperty(units[i]!, AudioUnitPropertyID(kAudioUnitProperty_MaximumFramesPerSlice), AudioUnitScope(kAudioUnitScope_Global), 0, &frames, 4)
        if i > 0 { AudioUnitSetProperty(units[i]!, AudioUnitPropertyID(kAudioUnitProperty_StreamFormat), AudioUnitScope(kAudioUnitScope_Input), 0, &format, size) }
        AudioUnitSetProperty(units[i]!, AudioUnitPropertyID(kAudioUnitProperty_StreamFormat), AudioUnitScope(kAudioUnitScope_Output), 0, &format, size)
    }
    for i in 0..<(kinds.count - 1) { AUGraphConnectNodeInput(graph!, nodes[i], 0, nodes[i + 1], 0) }
    var bands: UInt32 = 1
    AudioUnitSetProperty(units[1]!, AudioUnitPropertyID(kAUNBandEQProperty_NumberOfBands), AudioUnitScope(kAudioUnitScope_Global), 0, &bands, 4)
    AUGraphInitialize(graph!)
    AudioUnitSetParameter(units[1]!, AudioUnitParameterID(kAUNBandEQParam_Frequency), AudioUnitScope(kAudioUnitScope_Global), 0, 1000, 0)
    AudioUnitSetParameter(units[1]!, AudioUnitParameterID(kAUNBandEQParam_Gain), AudioUnitScope(kAudioUnitScope_Global), 0, -6, 0)
    AudioUnitSetParameter(units[1]!, AudioUnitParameterID(kAUNBandEQParam_BypassBand), AudioUnitScope(kAudioUnitScope_Global), 0, 0, 0)
    AudioUnitSetParameter(units[2]!, AudioUnitParameterID(0), AudioUnitScope(kAudioUnitScope_Global), 0, 30, 0)
    var sliceStruct = ScheduledAudioSlice()
    sliceStruct.mTimeStamp.mFlags = UInt32(kAudioTimeStampSampleTimeValid)
    sliceStruct.mNumberFrames = buffer.frameLength
    sliceStruct.mBufferList = UnsafeMutablePointer(mutating: buffer.audioBufferList)
    AudioUnitSetProperty(units[0]!, AudioUnitPropertyID(kAudioUnitProperty_ScheduleAudioSlice), AudioUnitScope(kAudioUnitScope_Global), 0, &sliceStruct,
                         UInt32(MemoryLayout<ScheduledAudioSlice>.size))
    var startStamp = AudioTimeStamp()
    startStamp.mFlags = UInt32(kAudioTimeStampSampleTimeValid)
    startStamp.mSampleTime = -1
    AudioUnitSetProperty(units[0]!, AudioUnitPropertyID(kAudioUnitProperty_ScheduleStartTimeStamp), AudioUnitScope(kAudioUnitScope_Global), 0, &startStamp,
                         UInt32(MemoryLayout<AudioTimeStamp>.size))
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
        AudioUnitRender(units[4]!, &flags, &stamp, 0, UInt32(slice), list.unsafeMutablePointer)
        stamp.mSampleTime += Double(slice)
        done += slice
    }
    let took = now() - start
    loudest["graph"] = (0..<slice).map { abs(left[$0]) }.max()
    DisposeAUGraph(graph!)
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
