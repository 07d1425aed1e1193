// A file played through AVAudioEngine as iOS apps do it: a player node into the main
// mixer, the file read with AVAudioFile into a PCM buffer and scheduled, the engine
// started, the player playing. Prints for the test:
//   loaded frames=<n> rate=<Hz>
//   began running=<Bool> main=<Bool>          (interruptible: the engine when Began is posted)
//   restarted <Bool>                          (after Ended: engine.start() and play())
//   finished running=<Bool>                   (the buffer's completion handler ran)
//   tapped frames=<n>                         (tap: the frames the tap wrote to TAPFILE)
// and exits 0 after the handler; 2 if it never ran, 1 on an error.
//   EngineApp FILE [interruptible | tap TAPFILE]
//   EngineApp mic OUTFILE CATEGORY
//   EngineApp sequence MIDIFILE [SOUNDFONT]
//   EngineApp realtime FILE
//   EngineApp fork FILE COUNT
//   EngineApp offline IN OUT
// "tap": the main mixer's output recorded to TAPFILE (CAF) by a tap while it plays, as
// apps record what they play; the player's volume and pan moved meanwhile.
// "mic": a second of the microphone written to OUTFILE by a tap on the input node, in
// the session category CATEGORY (playAndRecord, playback); prints
//   recorded frames=<n> rate=<Hz> channels=<n>
// "realtime": a program with its own audio output (a RemoteIO unit of the C API) renders
// an engine in it: the engine in realtime manual rendering, its block called from the
// unit's render callback; prints
//   realtime rendered=<frames> finished=<Bool>
// "fork": a server tool's pattern: while FILE plays through the engine (a tap on the
// mixer running too), COUNT children are forked; each asks the engine and its nodes
// their state, stops the engine and exits; the parent's sound goes on to its end. Prints
//   fork children=<n> ok=<n> finished=<Bool>
// "offline": Apple's offline processing pattern: IN through an EQ band and a reverb,
// rendered by hand (manual rendering, no device, no run loop) into OUT, a CAF file in
// the engine's format, the player's tail included; prints
//   offline frames=<n> rate=<Hz> statuses=<n>
// "sequence": a standard MIDI file played by AVAudioSequencer into an AVAudioUnitSampler
// (its own sine, or SOUNDFONT's piano) through the main mixer, to its end; prints
//   sequence tracks=<n> seconds=<s>
//   played beats=<b> playing=<Bool>
import AVFoundation

setvbuf(stdout, nil, _IOLBF, 0)
let arguments = CommandLine.arguments

/// The recording pattern of apps: the input node's format for the file and the tap, the
/// tap writing each buffer, the engine started, then stopped once the file holds a second.
func recordMicrophone(to path: String, category: AVAudioSession.Category) throws -> Never {
    try AVAudioSession.sharedInstance().setCategory(category)
    try AVAudioSession.sharedInstance().setActive(true)
    let engine = AVAudioEngine()
    let input = engine.inputNode
    let format = input.outputFormat(forBus: 0)
    let file = try AVAudioFile(forWriting: URL(fileURLWithPath: path), settings: format.settings)
    let done = DispatchSemaphore(value: 0)
    let second = AVAudioFramePosition(format.sampleRate)
    input.installTap(onBus: 0, bufferSize: 1024, format: format) { buffer, _ in
        guard file.length < second else { return }
        try? file.write(from: buffer)
        if file.length >= second { done.signal() }
    }
    engine.prepare()
    try engine.start()
    guard done.wait(timeout: .now() + 20) == .success else { print("no second recorded: \(file.length) frames"); exit(2) }
    engine.stop()
    input.removeTap(onBus: 0)
    print("recorded frames=\(file.length) rate=\(Int(format.sampleRate)) channels=\(format.channelCount)")
    file.close()
    exit(0)
}

/// The music pattern of apps: a sampler attached and connected, its instrument loaded,
/// the engine started, then a sequencer made with the engine plays the file.
func playSequence(_ path: String, soundFont: String?) throws -> Never {
    try AVAudioSession.sharedInstance().setCategory(.playback)
    let engine = AVAudioEngine()
    let sampler = AVAudioUnitSampler()
    engine.attach(sampler)
    engine.connect(sampler, to: engine.mainMixerNode, format: nil)
    if let soundFont {
        try sampler.loadSoundBankInstrument(at: URL(fileURLWithPath: soundFont), program: 0,
                                            bankMSB: UInt8(kAUSampler_DefaultMelodicBankMSB), bankLSB: UInt8(kAUSampler_DefaultBankLSB))
    }
    let sequencer = AVAudioSequencer(audioEngine: engine)
    try sequencer.load(from: URL(fileURLWithPath: path), options: [])
    let seconds = sequencer.tracks.map(\.lengthInSeconds).max() ?? 0
    print("sequence tracks=\(sequencer.tracks.count) seconds=\(seconds)")
    try engine.start()
    sequencer.prepareToPlay()
    try sequencer.start()
    let end = Date(timeIntervalSinceNow: seconds + 0.5)
    while Date() < end { _ = RunLoop.main.run(mode: .default, before: end) }
    print("played beats=\(sequencer.currentPositionInBeats) playing=\(sequencer.isPlaying)")
    sequencer.stop()
    engine.stop()
    exit(0)
}

/// What the C unit's render callback reaches: the engine's rendering block.
final class EngineInOwnOutput {
    let render: AVAudioEngineManualRenderingBlock
    init(_ render: @escaping AVAudioEngineManualRenderingBlock) { self.render = render }
}

func renderInOwnOutput(_ path: String) throws -> Never {
    try AVAudioSession.sharedInstance().setCategory(.playback)
    let file = try AVAudioFile(forReading: URL(fileURLWithPath: path))
    guard let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(file.length)),
          let format = AVAudioFormat(standardFormatWithSampleRate: file.processingFormat.sampleRate, channels: 2)
    else { print("no buffer"); exit(1) }
    try file.read(into: buffer)
    let engine = AVAudioEngine()
    let player = AVAudioPlayerNode()
    engine.attach(player)
    engine.connect(player, to: engine.mainMixerNode, format: buffer.format)
    try engine.enableManualRenderingMode(.realtime, format: format, maximumFrameCount: 4096)
    try engine.start()
    let finished = DispatchSemaphore(value: 0)
    player.scheduleBuffer(buffer) { finished.signal() }
    player.play()

    // The program's own output, through the C API, in the engine's format.
    var description = AudioComponentDescription(componentType: OSType(kAudioUnitType_Output),
                                                componentSubType: OSType(kAudioUnitSubType_RemoteIO),
                                                componentManufacturer: OSType(kAudioUnitManufacturer_Apple),
                                                componentFlags: 0, componentFlagsMask: 0)
    var io: AudioUnit?
    guard let component = AudioComponentFindNext(nil, &description), AudioComponentInstanceNew(component, &io) == noErr,
          let io else { print("no RemoteIO"); exit(1) }
    var stream = format.streamDescription.pointee
    AudioUnitSetProperty(io, AudioUnitPropertyID(kAudioUnitProperty_StreamFormat), AudioUnitScope(kAudioUnitScope_Input), 0,
                         &stream, UInt32(MemoryLayout<AudioStreamBasicDescription>.size))
    let host = Unmanaged.passRetained(EngineInOwnOutput(engine.manualRenderingBlock))
    var callback = AURenderCallbackStruct(inputProc: { refCon, _, _, _, frames, data in
        // Our headers carry no nullability yet: the reference comes as an optional.
        let host = Unmanaged<EngineInOwnOutput>.fromOpaque(refCon!).takeUnretainedValue()
        var status: OSStatus = 0
        guard let data else { return OSStatus(kAudio_ParamError) }
        return host.render(frames, data, &status) == .success ? 0 : status
    }, inputProcRefCon: host.toOpaque())
    AudioUnitSetProperty(io, AudioUnitPropertyID(kAudioUnitProperty_SetRenderCallback), AudioUnitScope(kAudioUnitScope_Input), 0,
                         &callback, UInt32(MemoryLayout<AURenderCallbackStruct>.size))
    guard AudioUnitInitialize(io) == noErr, AudioOutputUnitStart(io) == noErr else { print("RemoteIO did not start"); exit(1) }
    let done = finished.wait(timeout: .now() + 30) == .success
    // The handler comes once the player has taken the data: let the device play it out.
    usleep(300_000)
    print("realtime rendered=\(engine.manualRenderingSampleTime) finished=\(done)")
    // Left running to the exit, as the tap mode: the watch reads the steady state.
    exit(done ? 0 : 2)
}

/// Forks while the engine plays; each child's copy must answer without waiting on the
/// parent's threads (none of them is in the child) and stop.
func forkWhilePlaying(_ path: String, children: Int) throws -> Never {
    try AVAudioSession.sharedInstance().setCategory(.playback)
    let file = try AVAudioFile(forReading: URL(fileURLWithPath: path))
    guard let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(file.length))
    else { print("no buffer"); exit(1) }
    try file.read(into: buffer)
    let engine = AVAudioEngine()
    let player = AVAudioPlayerNode()
    engine.attach(player)
    engine.connect(player, to: engine.mainMixerNode, format: buffer.format)
    engine.mainMixerNode.installTap(onBus: 0, bufferSize: 4096, format: nil) { _, _ in }
    try engine.start()
    let finished = DispatchSemaphore(value: 0)
    player.scheduleBuffer(buffer) { finished.signal() }
    player.play()
    usleep(300_000)
    var ok = 0
    for _ in 0..<children {
        let child = fork()
        if child == 0 {
            let answers = !engine.isRunning && engine.mainMixerNode.outputVolume == 1 && engine.attachedNodes.count >= 3
            engine.mainMixerNode.removeTap(onBus: 0)
            engine.stop()
            _exit(answers && !engine.isRunning ? 0 : 1)
        }
        var status: Int32 = 0
        if child > 0 && waitpid(child, &status, 0) == child && status == 0 { ok += 1 }
    }
    let done = finished.wait(timeout: .now() + 30) == .success
    usleep(300_000)   // the device plays out what the player handed over
    print("fork children=\(children) ok=\(ok) finished=\(done) running=\(engine.isRunning)")
    exit(done && ok == children ? 0 : 2)
}

/// Renders IN through effects into OUT faster than real time, as the offline sample does:
/// the file scheduled on a player, manual rendering enabled while stopped, then
/// renderOffline into a buffer written to the output file until the source and a second
/// of the reverb's tail have been rendered.
func renderOffline(_ input: String, to output: String) throws -> Never {
    let source = try AVAudioFile(forReading: URL(fileURLWithPath: input))
    let format = source.processingFormat
    let engine = AVAudioEngine()
    let player = AVAudioPlayerNode(), eq = AVAudioUnitEQ(numberOfBands: 1), reverb = AVAudioUnitReverb()
    eq.bands[0].filterType = .parametric
    eq.bands[0].frequency = 1000
    eq.bands[0].gain = -6
    eq.bands[0].bypass = false
    reverb.loadFactoryPreset(.mediumHall)
    reverb.wetDryMix = 30
    for node in [player, eq, reverb] as [AVAudioNode] { engine.attach(node) }
    engine.connect(player, to: eq, format: format)
    engine.connect(eq, to: reverb, format: format)
    engine.connect(reverb, to: engine.mainMixerNode, format: format)
    player.scheduleFile(source, at: nil)
    try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: 4096)
    try engine.start()
    player.play()
    guard let buffer = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat,
                                        frameCapacity: engine.manualRenderingMaximumFrameCount) else { exit(1) }
    let out = try AVAudioFile(forWriting: URL(fileURLWithPath: output), settings: format.settings)
    let total = source.length + AVAudioFramePosition(format.sampleRate)
    var statuses = 0
    while engine.manualRenderingSampleTime < total {
        let frames = min(AVAudioFrameCount(total - engine.manualRenderingSampleTime), buffer.frameCapacity)
        switch try engine.renderOffline(frames, to: buffer) {
        case .success:
            try out.write(from: buffer)
            statuses += 1
        default:
            print("render status not success")
            exit(2)
        }
    }
    player.stop()
    engine.stop()
    let written = out.length
    out.close()
    print("offline frames=\(written) rate=\(Int(format.sampleRate)) statuses=\(statuses)")
    exit(written == total ? 0 : 2)
}

if arguments.count > 3 && arguments[1] == "offline" {
    do {
        try renderOffline(arguments[2], to: arguments[3])
    } catch {
        print("error \((error as NSError).domain) \((error as NSError).code)")
        exit(1)
    }
}

if arguments.count > 3 && arguments[1] == "fork" {
    do {
        try forkWhilePlaying(arguments[2], children: Int(arguments[3]) ?? 1)
    } catch {
        print("error \((error as NSError).domain) \((error as NSError).code)")
        exit(1)
    }
}

if arguments.count > 2 && arguments[1] == "realtime" {
    do {
        try renderInOwnOutput(arguments[2])
    } catch {
        print("error \((error as NSError).domain) \((error as NSError).code)")
        exit(1)
    }
}

if arguments.count > 2 && arguments[1] == "sequence" {
    do {
        try playSequence(arguments[2], soundFont: arguments.count > 3 ? arguments[3] : nil)
    } catch {
        print("error \((error as NSError).domain) \((error as NSError).code)")
        exit(1)
    }
}

if arguments.count > 3 && arguments[1] == "mic" {
    do {
        try recordMicrophone(to: arguments[2], category: AVAudioSession.Category(rawValue: "AVAudioSessionCategory"
            + arguments[3].prefix(1).uppercased() + arguments[3].dropFirst()))
    } catch {
        print("error \((error as NSError).domain) \((error as NSError).code)")
        exit(1)
    }
}
let interruptible = arguments.count > 2 && arguments[2] == "interruptible"
let tapPath = arguments.count > 3 && arguments[2] == "tap" ? arguments[3] : nil
let engine = AVAudioEngine()
let player = AVAudioPlayerNode()
var finished = false
let observer = NotificationCenter.default.addObserver(forName: AVAudioSession.interruptionNotification, object: nil,
                                                      queue: nil) { note in
    guard let type = note.userInfo?[AVAudioSessionInterruptionTypeKey] as? UInt else { return }
    if type == AVAudioSession.InterruptionType.began.rawValue {
        print("began running=\(engine.isRunning) main=\(Thread.isMainThread)")
    } else {
        // As apps do after an interruption: the engine again, then the player.
        let started = (try? engine.start()) != nil
        player.play()
        print("restarted \(started && engine.isRunning)")
    }
}
do {
    try AVAudioSession.sharedInstance().setCategory(interruptible ? .playback : .ambient)
    let file = try AVAudioFile(forReading: URL(fileURLWithPath: arguments[1]))
    guard let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(file.length))
    else { print("no buffer"); exit(1) }
    try file.read(into: buffer)
    print("loaded frames=\(buffer.frameLength) rate=\(Int(file.processingFormat.sampleRate))")
    engine.attach(player)
    engine.connect(player, to: engine.mainMixerNode, format: buffer.format)
    engine.prepare()
    try engine.start()
    var tapFile: AVAudioFile?
    if let tapPath {
        let format = engine.mainMixerNode.outputFormat(forBus: 0)
        let file = try AVAudioFile(forWriting: URL(fileURLWithPath: tapPath), settings: format.settings)
        tapFile = file
        engine.mainMixerNode.installTap(onBus: 0, bufferSize: 4096, format: format) { tapped, _ in
            try? file.write(from: tapped)
        }
    }
    player.scheduleBuffer(buffer) { DispatchQueue.main.async { finished = true } }
    player.play()
    let deadline = Date(timeIntervalSinceNow: 30)
    var turn = 0
    while !finished && Date() < deadline {
        _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.05))
        if tapPath != nil {
            // A listener's hand on the controls while the tap records.
            turn += 1
            player.volume = turn % 2 == 0 ? 1 : 0.8
            player.pan = turn % 3 == 0 ? -0.2 : 0.2
        }
    }
    // The handler comes once the player has taken the data: let the device play it out.
    let tail = Date(timeIntervalSinceNow: 0.3)
    while Date() < tail { _ = RunLoop.main.run(mode: .default, before: tail) }
    print("finished running=\(engine.isRunning)")
    if let tapFile {
        engine.mainMixerNode.removeTap(onBus: 0)
        print("tapped frames=\(tapFile.length)")
        tapFile.close()
        // The engine is left running to the exit: what the real-time watch reads is the
        // steady state, not the I/O thread's teardown after its last period.
        exit(finished ? 0 : 2)
    }
    engine.stop()
    NotificationCenter.default.removeObserver(observer)
    exit(finished ? 0 : 2)
} catch {
    print("error \((error as NSError).domain) \((error as NSError).code)")
    exit(1)
}
