import AVFoundation

// The chain both engine benchmarks measure, built once each way: a player through an EQ
// band (1 kHz, -6 dB) and a reverb (30% wet) into a mixer, by AVAudioEngine and by the
// same units as an AUGraph through the C API.

/// AVAudioEngine: player -> EQ -> reverb -> main mixer, not started. Returns the player.
func effectEngine(_ engine: AVAudioEngine, format: AVAudioFormat) -> AVAudioPlayerNode {
    let player = AVAudioPlayerNode(), eq = AVAudioUnitEQ(numberOfBands: 1), reverb = AVAudioUnitReverb()
    eq.bands[0].frequency = 1000
    eq.bands[0].gain = -6
    eq.bands[0].bypass = false
    reverb.wetDryMix = 30
    for node in [player, eq, reverb] as [AVAudioNode] { engine.attach(node) }
    engine.connect(player, to: eq, format: format)
    engine.connect(eq, to: reverb, format: format)
    engine.connect(reverb, to: engine.mainMixerNode, format: format)
    return player
}

/// The same as an AUGraph ending in `output` (GenericOutput or RemoteIO), every unit in
/// `format`, initialized, not started. `maximumFrames`: each unit's slice, when given.
/// Returns the graph and its units (the player first, the output last).
func effectGraph(format: AVAudioFormat, output: Int, maximumFrames: UInt32? = nil) -> (AUGraph, [AudioUnit]) {
    func description(_ type: Int, _ subtype: Int) -> AudioComponentDescription {
        AudioComponentDescription(componentType: OSType(type), componentSubType: OSType(subtype),
                                  componentManufacturer: OSType(kAudioUnitManufacturer_Apple), componentFlags: 0,
                                  componentFlagsMask: 0)
    }
    var made: AUGraph?
    NewAUGraph(&made)
    let graph = made!
    let kinds = [description(kAudioUnitType_Generator, kAudioUnitSubType_ScheduledSoundPlayer),
                 description(kAudioUnitType_Effect, kAudioUnitSubType_NBandEQ),
                 description(kAudioUnitType_Effect, 0x7276_6232),
                 description(kAudioUnitType_Mixer, kAudioUnitSubType_MultiChannelMixer),
                 description(kAudioUnitType_Output, output)]
    var nodes = [AUNode](repeating: 0, count: kinds.count)
    for i in 0..<kinds.count {
        var d = kinds[i]
        AUGraphAddNode(graph, &d, &nodes[i])
    }
    AUGraphOpen(graph)
    var found = [AudioUnit?](repeating: nil, count: kinds.count)
    for i in 0..<kinds.count { AUGraphNodeInfo(graph, nodes[i], nil, &found[i]) }
    let units = found.map { $0! }
    var stream = format.streamDescription.pointee
    let size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
    let generic = output == kAudioUnitSubType_GenericOutput
    for (i, unit) in units.enumerated() {
        if var frames = maximumFrames {
            AudioUnitSetProperty(unit, AudioUnitPropertyID(kAudioUnitProperty_MaximumFramesPerSlice),
                                 AudioUnitScope(kAudioUnitScope_Global), 0, &frames, 4)
        }
        if i > 0 {
            AudioUnitSetProperty(unit, AudioUnitPropertyID(kAudioUnitProperty_StreamFormat), AudioUnitScope(kAudioUnitScope_Input),
                                 0, &stream, size)
        }
        // A device unit's output side is the hardware's: only the generic output takes one.
        if i < units.count - 1 || generic {
            AudioUnitSetProperty(unit, AudioUnitPropertyID(kAudioUnitProperty_StreamFormat), AudioUnitScope(kAudioUnitScope_Output),
                                 0, &stream, size)
        }
    }
    for i in 0..<(kinds.count - 1) { AUGraphConnectNodeInput(graph, nodes[i], 0, nodes[i + 1], 0) }
    var bands: UInt32 = 1
    AudioUnitSetProperty(units[1], AudioUnitPropertyID(kAUNBandEQProperty_NumberOfBands), AudioUnitScope(kAudioUnitScope_Global), 0,
                         &bands, 4)
    AUGraphInitialize(graph)
    AudioUnitSetParameter(units[1], AudioUnitParameterID(kAUNBandEQParam_Frequency), AudioUnitScope(kAudioUnitScope_Global), 0, 1000, 0)
    AudioUnitSetParameter(units[1], AudioUnitParameterID(kAUNBandEQParam_Gain), AudioUnitScope(kAudioUnitScope_Global), 0, -6, 0)
    AudioUnitSetParameter(units[1], AudioUnitParameterID(kAUNBandEQParam_BypassBand), AudioUnitScope(kAudioUnitScope_Global), 0, 0, 0)
    AudioUnitSetParameter(units[2], AudioUnitParameterID(0), AudioUnitScope(kAudioUnitScope_Global), 0, 30, 0)
    return (graph, units)
}

/// `buffer` as one slice on the player, and the player's start at the next render.
func scheduleOnPlayer(_ player: AudioUnit, _ buffer: AVAudioPCMBuffer, slice: UnsafeMutablePointer<ScheduledAudioSlice>) {
    slice.pointee = ScheduledAudioSlice()
    slice.pointee.mTimeStamp.mFlags = UInt32(kAudioTimeStampSampleTimeValid)
    slice.pointee.mNumberFrames = buffer.frameLength
    slice.pointee.mBufferList = UnsafeMutablePointer(mutating: buffer.audioBufferList)
    AudioUnitSetProperty(player, AudioUnitPropertyID(kAudioUnitProperty_ScheduleAudioSlice), AudioUnitScope(kAudioUnitScope_Global), 0,
                         slice, UInt32(MemoryLayout<ScheduledAudioSlice>.size))
}

func startPlayer(_ player: AudioUnit) {
    var stamp = AudioTimeStamp()
    stamp.mFlags = UInt32(kAudioTimeStampSampleTimeValid)
    stamp.mSampleTime = -1
    AudioUnitSetProperty(player, AudioUnitPropertyID(kAudioUnitProperty_ScheduleStartTimeStamp), AudioUnitScope(kAudioUnitScope_Global), 0,
                         &stamp, UInt32(MemoryLayout<AudioTimeStamp>.size))
}
