internal import AudioGraphs
internal import AudioUnits
public import CAudioToolbox
public import Foundation
internal import Runtime

public enum AVAudioEngineManualRenderingMode: Int, Sendable {
    case offline = 0
    case realtime = 1
}

public enum AVAudioEngineManualRenderingStatus: Int, Sendable {
    case error = -1
    case success = 0
    case insufficientDataFromInputNode = 1
    case cannotDoInCurrentContext = 2
}

/// Renders `numberOfFrames` frames into `outBuffer` (in the manual format), on the
/// caller's real-time thread: it takes no lock, allocates nothing and never blocks. A
/// failure's code goes to `outError`.
public typealias AVAudioEngineManualRenderingBlock = (AVAudioFrameCount, UnsafeMutablePointer<AudioBufferList>,
                                                     UnsafeMutablePointer<OSStatus>?) -> AVAudioEngineManualRenderingStatus

public enum AVAudioEngineManualRenderingError: Int32, Sendable {
    case invalidMode = -80800
    case initialized = -80801
    case notRunning = -80802
}

extension NSNotification.Name {
    /// Posted (object: the engine) when the device's rate changed under a running engine,
    /// which stopped and uninitialized first.
    public static let AVAudioEngineConfigurationChange = NSNotification.Name("AVAudioEngineConfigurationChangeNotification")
}

/// iOS's AVAudioEngine: a graph of the library's units (the AUGraph service a C program
/// uses, over units of the program's own), one node a unit. Its output plays in the
/// session as a C program's RemoteIO does, so the session's rules (a start activates it,
/// an interruption stops it before Begin is posted) are the same; by hand
/// (`enableManualRenderingMode(.offline, ...)`) the output is the generic output unit,
/// which `renderOffline` pulls.
///
/// Connecting a node that is not attached to this engine is a programming error, as on
/// iOS (where it raises an exception): it stops the program with a message naming it.
open class AVAudioEngine: NSObject, @unchecked Sendable {
    let graph = AudioGraph(units: ProgramUnits())
    private let lock = NSRecursiveLock()
    private var nodes: [AVAudioNode] = []
    private var output: AVAudioOutputNode?
    private var input: AVAudioInputNode?
    /// Renders the microphone for the input node's taps when nothing pulls it; those
    /// replaced are kept (a period under way may still call one).
    private var drain: InputDrain?
    private var retiredDrains: [InputDrain] = []
    private var mixer: AVAudioMixerNode?
    /// By hand: the mode, format and most frames a render; the timeline; whether started.
    private var manual: (mode: AVAudioEngineManualRenderingMode, format: AVAudioFormat, frames: AVAudioFrameCount)?
    private var manualSampleTime: AVAudioFramePosition = 0
    private var manualRunning = false
    /// In `.realtime` mode: what the rendering block calls, which shares no lock with the
    /// engine.
    private var realtime: RealtimeRenderer?
    /// The device's render times (`lastRenderTime` when not rendering by hand).
    private let clock = RenderClock()

    public override init() {
        super.init()
        try? graph.open()
    }

    deinit { try? graph.close() }

    // MARK: Nodes

    open var attachedNodes: Set<AVAudioNode> { lock.withLock { Set(nodes + (input.map { [$0] } ?? [])) } }

    /// Makes the node's unit in this engine's graph. A node attached to another engine is
    /// a programming error.
    open func attach(_ node: AVAudioNode) {
        lock.withLock {
            if node.attachedEngine === self { return }
            precondition(node.attachedEngine == nil, "AVAudioEngine.attach: the node is attached to another engine")
            add(node, kind: node.kind)
            nodes.append(node)
        }
    }

    private func add(_ node: AVAudioNode, kind: UnitKind) {
        guard let id = try? graph.addNode(type: kind.type, subtype: kind.subtype, manufacturer: kind.manufacturer, flags: 0,
                                          flagsMask: 0),
              let handle = try? graph.nodeInfo(id).1 else {
            preconditionFailure("AVAudioEngine: no unit of kind \(kind.name)")
        }
        node.attachedEngine = self
        node.graphNode = id
        node.handle = handle
        node.unit = ProgramUnits().unit(handle)
        if let unit = node.unit { node.unitMade(unit) }
        if node is AVAudioOutputNode, kind.hasDevice, let io = node.unit as? OutputUnit {
            try? io.addRenderNotify(clock.callback)
            io.onHardwareFormatChange = { [weak self] in self?.hardwareFormatChanged() }
        }
        if let frames = manual?.frames { try? node.unit?.setMaximumFramesPerSlice(max(4096, frames)) }
    }

    /// Disconnects the node and disposes of its unit.
    open func detach(_ node: AVAudioNode) {
        lock.withLock {
            guard node.attachedEngine === self, let id = node.graphNode, !(node is AVAudioIONode) else { return }
            (node as? AVAudioPlayerNode)?.stop()
            for bus in node.taps.withLock({ Array($0.keys) }) { node.removeTap(onBus: bus) }
            try? graph.removeNode(id)
            if graph.isInitialized { try? graph.update() }
            node.attachedEngine = nil
            node.graphNode = nil
            node.unit = nil
            nodes.removeAll { $0 === node }
            if node === mixer { mixer = nil }
        }
    }

    /// The engine's output: the device (or, by hand, the generic output unit).
    open var outputNode: AVAudioOutputNode {
        lock.withLock {
            if let output { return output }
            let made = AVAudioOutputNode()
            add(made, kind: manual == nil ? .remoteIO : .genericOutput)
            nodes.append(made)
            output = made
            return made
        }
    }

    /// The microphone: the output node's I/O unit with its element 1 enabled, in
    /// deinterleaved Float32 at the hardware's rate and channel count. A tap on it records
    /// whether or not it feeds anything.
    open var inputNode: AVAudioInputNode {
        lock.withLock {
            if let input { return input }
            let made = AVAudioInputNode()
            let io = outputNode
            made.attachedEngine = self
            made.graphNode = io.graphNode
            made.handle = io.handle
            made.unit = io.unit
            input = made
            if let unit = io.unit as? OutputUnit {
                reconfigure {
                    try? unit.setEnabled(true, scope: .input, element: 1)
                    if let device = try? unit.format(scope: .input, element: 1) {
                        try? unit.setFormat(PCMLayout(sampleRate: device.sampleRate, encoding: .float32, channels: device.channels,
                                                      interleaved: false), scope: .output, element: 1)
                    }
                }
            }
            return made
        }
    }

    /// A mixer made on first use and connected to the output at the output's rate and
    /// channel count.
    open var mainMixerNode: AVAudioMixerNode {
        lock.withLock {
            if let mixer { return mixer }
            let made = AVAudioMixerNode()
            attach(made)
            mixer = made
            connect(made, to: outputNode, format: outputSideFormat())
            return made
        }
    }

    /// The format the output takes from the engine: the manual format's rate and channels,
    /// or the device's (deinterleaved Float32).
    private func outputSideFormat() -> AVAudioFormat {
        if let manual {
            return AVAudioFormat(standardFormatWithSampleRate: manual.format.sampleRate, channels: manual.format.channelCount)!
        }
        let device = outputNode.outputFormat(forBus: 0)
        return AVAudioFormat(standardFormatWithSampleRate: device.sampleRate, channels: max(1, min(2, device.channelCount)))!
    }

    // MARK: Connections

    open func connect(_ node1: AVAudioNode, to node2: AVAudioNode, format: AVAudioFormat?) {
        let bus = (node2 as? AVAudioMixerNode).map { firstFreeInput(of: $0) } ?? 0
        connect(node1, to: node2, fromBus: 0, toBus: bus, format: format)
    }

    /// Feeds `node2`'s input `bus2` from `node1`'s output `bus1` (what either fed or took
    /// before is disconnected: connections are one to one). A format given is set on the
    /// source's output; the destination's input takes the source's output format.
    open func connect(_ node1: AVAudioNode, to node2: AVAudioNode, fromBus bus1: AVAudioNodeBus, toBus bus2: AVAudioNodeBus,
                      format: AVAudioFormat?) {
        lock.withLock {
            precondition(node1.attachedEngine === self && node2.attachedEngine === self,
                         "AVAudioEngine.connect: both nodes must be attached to this engine first")
            precondition(format == nil || format?.layout != nil,
                         "AVAudioEngine.connect: the format must be linear PCM a unit takes (\(String(describing: format)))")
            guard let from = node1.graphNode, let to = node2.graphNode, let source = node1.unit, let destination = node2.unit,
                  bus1 >= 0, bus2 >= 0, !(node2 is AVAudioInputNode) else { return }
            let output = node1.unitBus(bus1), input = node2.unitBus(bus2)
            reconfigure {
                disconnect(destination: to, input: input)
                for c in connections(from: node1) where c.output == output { disconnect(destination: c.destination, input: c.input) }
                if let mixer = node2 as? AVAudioMixerNode, input >= destination.elementCount(.input) {
                    try? (mixer.unit as? MixerUnit)?.setInputCount(input + 1)
                }
                if let layout = format?.layout { try? source.setFormat(layout, scope: .output, element: output) }
                if let layout = try? source.format(scope: .output, element: output) {
                    try? destination.setFormat(layout, scope: .input, element: input)
                }
                try? graph.connect(source: from, output: output, destination: to, input: input)
            }
            applyMixing(of: node1)
        }
    }

    /// Feeds each connection point's input from `sourceNode`'s output `sourceBus` (what fed
    /// those inputs, and what the source's output fed before, is disconnected). The source
    /// renders once a render time for all of them.
    open func connect(_ sourceNode: AVAudioNode, to destNodes: [AVAudioConnectionPoint], fromBus sourceBus: AVAudioNodeBus,
                      format: AVAudioFormat?) {
        lock.withLock {
            let points = destNodes.compactMap { point in point.node.map { ($0, point.bus) } }
            precondition(sourceNode.attachedEngine === self && points.allSatisfy { $0.0.attachedEngine === self },
                         "AVAudioEngine.connect: the source and every destination must be attached to this engine first")
            precondition(format == nil || format?.layout != nil,
                         "AVAudioEngine.connect: the format must be linear PCM a unit takes (\(String(describing: format)))")
            guard let from = sourceNode.graphNode, let source = sourceNode.unit, sourceBus >= 0 else { return }
            let output = sourceNode.unitBus(sourceBus)
            reconfigure {
                for c in connections(from: sourceNode) where c.output == output { disconnect(destination: c.destination, input: c.input) }
                if let layout = format?.layout { try? source.setFormat(layout, scope: .output, element: output) }
                for (node, bus) in points where bus >= 0 && !(node is AVAudioInputNode) {
                    guard let to = node.graphNode, let destination = node.unit else { continue }
                    let input = node.unitBus(bus)
                    disconnect(destination: to, input: input)
                    if let mixer = node as? AVAudioMixerNode, input >= destination.elementCount(.input) {
                        try? (mixer.unit as? MixerUnit)?.setInputCount(input + 1)
                    }
                    if let layout = try? source.format(scope: .output, element: output) {
                        try? destination.setFormat(layout, scope: .input, element: input)
                    }
                    try? graph.connect(source: from, output: output, destination: to, input: input)
                }
            }
            applyMixing(of: sourceNode)
        }
    }

    /// What feeds `node`'s input `bus`: the source node and its output bus; nil if nothing.
    open func inputConnectionPoint(for node: AVAudioNode, inputBus bus: AVAudioNodeBus) -> AVAudioConnectionPoint? {
        lock.withLock {
            guard let c = connections(into: node).first(where: { $0.input == node.unitBus(bus) }) else { return nil }
            if let input, c.source == output?.graphNode, c.output == 1 { return AVAudioConnectionPoint(node: input, bus: 0) }
            return self.node(c.source).map { AVAudioConnectionPoint(node: $0, bus: AVAudioNodeBus(c.output)) }
        }
    }

    /// The inputs `node`'s output `bus` feeds.
    open func outputConnectionPoints(for node: AVAudioNode, outputBus bus: AVAudioNodeBus) -> [AVAudioConnectionPoint] {
        lock.withLock {
            connections(from: node).filter { $0.output == node.unitBus(bus) }.compactMap { c in
                self.node(c.destination).map { AVAudioConnectionPoint(node: $0, bus: AVAudioNodeBus(c.input)) }
            }
        }
    }

    open func disconnectNodeInput(_ node: AVAudioNode, bus: AVAudioNodeBus) {
        lock.withLock {
            guard let id = node.graphNode, bus >= 0, !(node is AVAudioInputNode) else { return }
            reconfigure { disconnect(destination: id, input: node.unitBus(bus)) }
        }
    }

    open func disconnectNodeInput(_ node: AVAudioNode) {
        lock.withLock {
            guard !(node is AVAudioInputNode) else { return }
            reconfigure { for c in connections(into: node) { disconnect(destination: c.destination, input: c.input) } }
        }
    }

    open func disconnectNodeOutput(_ node: AVAudioNode, bus: AVAudioNodeBus) {
        lock.withLock {
            guard bus >= 0 else { return }
            reconfigure {
                for c in connections(from: node) where c.output == node.unitBus(bus) {
                    disconnect(destination: c.destination, input: c.input)
                }
            }
        }
    }

    open func disconnectNodeOutput(_ node: AVAudioNode) {
        lock.withLock {
            reconfigure { for c in connections(from: node) { disconnect(destination: c.destination, input: c.input) } }
        }
    }

    private func disconnect(destination: Int32, input: UInt32) { try? graph.disconnect(destination: destination, input: input) }

    /// One connection of the graph, by node numbers and unit elements.
    private struct Connection {
        let source: Int32, output: UInt32, destination: Int32, input: UInt32
    }

    /// The connections the node's outputs feed. The input and output nodes are one unit:
    /// the input node's are those from element 1, the output node has none.
    private func connections(from node: AVAudioNode) -> [Connection] {
        guard let id = node.graphNode, !(node is AVAudioOutputNode) else { return [] }
        return connections(of: id).filter { $0.source == id && (!(node is AVAudioInputNode) || $0.output == 1) }
    }

    /// The connections feeding the node's inputs.
    private func connections(into node: AVAudioNode) -> [Connection] {
        guard let id = node.graphNode, !(node is AVAudioInputNode) else { return [] }
        return connections(of: id).filter { $0.destination == id }
    }

    private func connections(of id: Int32) -> [Connection] {
        ((try? graph.interactions(of: id)) ?? []).compactMap { interaction in
            guard case .connection(let s, let o, let d, let i) = interaction else { return nil }
            return Connection(source: s, output: o, destination: d, input: i)
        }
    }

    /// The node of a graph number (the output node for the I/O unit's).
    private func node(_ id: Int32) -> AVAudioNode? { nodes.first { $0.graphNode == id } }

    /// A sequencer track's instrument: the node numbered `id`, else the first instrument
    /// attached.
    func instrumentUnit(_ id: Int32?) -> (any AudioUnitInstance)? {
        lock.withLock {
            if let id { return node(id)?.unit }
            return nodes.first { $0 is AVAudioUnitMIDIInstrument }?.unit
        }
    }

    /// A change of connections or formats: the units take formats only uninitialized, so
    /// a prepared engine is taken down for it and brought back as it was (running again if
    /// it ran).
    private func reconfigure(_ change: () -> Void) {
        let wasPrepared = graph.isInitialized, wasRunning = isRunning
        if wasPrepared {
            try? graph.stop()
            try? graph.uninitialize()
        }
        change()
        updateInputDrain()
        if wasPrepared { try? graph.initialize() }
        if wasRunning { try? startGraph() }
    }

    /// A tap was installed or removed on `node`.
    func tapsChanged(on node: AVAudioNode) {
        guard node is AVAudioInputNode else { return }
        lock.withLock { updateInputDrain() }
    }

    /// The input node's taps hear the microphone only if something renders it: a
    /// connection from it does, else the drain does, as the I/O unit's input callback.
    private func updateInputDrain() {
        guard let input, let unit = output?.unit as? OutputUnit else { return }
        let wanted = input.taps.withLock { !$0.isEmpty } && connections(from: input).isEmpty
        let buffers = Int(input.outputFormat(forBus: 0).channelCount)
        if wanted, let drain, drain.buffers == buffers { return }
        if !wanted && drain == nil { return }
        if let drain { retiredDrains.append(drain) }
        drain = wanted ? InputDrain(unit: unit, buffers: buffers) : nil
        try? unit.setInputCallback(drain?.callback)
    }

    /// The first input bus of the mixer nothing feeds.
    func firstFreeInput(of mixer: AVAudioMixerNode) -> AVAudioNodeBus {
        lock.withLock {
            let fed = Set(connections(into: mixer).map(\.input))
            var bus: UInt32 = 0
            while fed.contains(bus) { bus += 1 }
            return AVAudioNodeBus(bus)
        }
    }

    /// A source's volume and pan, on the input bus of each mixer it feeds.
    func applyMixing(of node: AVAudioNode) {
        guard let source = node as? AVAudioMixing else { return }
        lock.withLock {
            for c in connections(from: node) {
                guard let mixer = self.node(c.destination) as? AVAudioMixerNode else { continue }
                try? mixer.unit?.setParameter(0, scope: .input, element: c.input, value: source.volume, offset: 0)
                try? mixer.unit?.setParameter(2, scope: .input, element: c.input, value: source.pan, offset: 0)
            }
        }
    }

    // MARK: Life

    /// Makes what rendering needs (the units initialized).
    open func prepare() {
        lock.withLock { _ = outputNode; try? graph.initialize() }
    }

    /// Starts rendering: to the device, in the session (which the start activates; a
    /// refusal, such as a call in progress, is thrown as an NSError with the session's
    /// code), or by hand, ready for `renderOffline`.
    open func start() throws {
        try lock.withLock {
            _ = outputNode
            do throws(GraphError) {
                try graph.initialize()
            } catch {
                throw NSError(domain: NSOSStatusErrorDomain, code: Int(error.code))
            }
            if manual != nil {
                manualRunning = true
                realtime?.running.store(true, ordering: .releasing)
                return
            }
            try startGraph()
        }
    }

    private func startGraph() throws {
        do throws(GraphError) {
            try graph.start()
        } catch {
            throw NSError(domain: NSOSStatusErrorDomain, code: Int(error.code))
        }
    }

    /// Stops the flow; what `prepare` made stays.
    open func pause() {
        lock.withLock {
            manualRunning = false
            realtime?.running.store(false, ordering: .releasing)
            try? graph.stop()
        }
    }

    /// Stops the flow and frees what `prepare` made.
    open func stop() {
        lock.withLock {
            manualRunning = false
            realtime?.running.store(false, ordering: .releasing)
            try? graph.stop()
            try? graph.uninitialize()
        }
    }

    /// Clears every node's sound so far; by hand, the timeline goes back to 0.
    open func reset() {
        lock.withLock {
            for node in nodes { node.reset() }
            manualSampleTime = 0
            realtime?.sampleTime.store(0, ordering: .releasing)
        }
    }

    /// Rendering now: by hand, since `start`; to the device, while the output unit runs
    /// (an interruption, which stops it, makes this false before Begin is posted).
    open var isRunning: Bool {
        lock.withLock {
            if manual != nil { return manualRunning }
            return (output?.unit as? OutputUnit)?.isRunning ?? false
        }
    }

    /// By hand, the sample time the next render starts at; to the device, the last
    /// render's sample and host time; nil while the engine does not run.
    var lastRenderTime: AVAudioTime? {
        lock.withLock {
            if let manual {
                return manualRunning ? AVAudioTime(sampleTime: manualRenderingSampleTime, atRate: manual.format.sampleRate) : nil
            }
            guard (output?.unit as? OutputUnit)?.isRunning == true, let last = clock.last,
                  let rate = output?.inputFormat(forBus: 0).sampleRate else { return nil }
            return AVAudioTime(hostTime: last.host, sampleTime: last.sample, atRate: rate)
        }
    }

    /// The device's rate changed under the running engine: as on the phone, the engine
    /// stops and uninitializes, then posts AVAudioEngineConfigurationChange (off the
    /// session's thread, on a queue of its own), so an app's handler can connect again
    /// at the new rate and start.
    private func hardwareFormatChanged() {
        DispatchQueue.global().async { [weak self] in
            guard let self else { return }
            self.stop()
            NotificationCenter.default.post(name: .AVAudioEngineConfigurationChange, object: self)
        }
    }

    // MARK: Manual rendering

    /// From now on the engine renders only when asked: its output node becomes the generic
    /// output unit in `format` (linear PCM), rendering at most `maximumFrameCount` frames
    /// a call: by `renderOffline` (`.offline`), or by `manualRenderingBlock` on the
    /// caller's real-time thread (`.realtime`). The engine must be stopped (else -80801).
    /// Connections stay; the main mixer's output follows the format.
    open func enableManualRenderingMode(_ mode: AVAudioEngineManualRenderingMode, format pcmFormat: AVAudioFormat,
                                        maximumFrameCount: AVAudioFrameCount) throws {
        try lock.withLock {
            guard !isRunning else { throw Self.error(.initialized) }
            guard let layout = pcmFormat.layout, maximumFrameCount >= 1, maximumFrameCount <= 65536 else {
                throw NSError(domain: NSOSStatusErrorDomain, code: Int(kAudio_ParamError))
            }
            try? graph.uninitialize()
            manual = (mode, pcmFormat, maximumFrameCount)
            manualSampleTime = 0
            manualRunning = false
            replaceOutput(kind: .genericOutput)
            try? output?.unit?.setFormat(layout, scope: .output, element: 0)
            for node in nodes { try? node.unit?.setMaximumFramesPerSlice(max(4096, maximumFrameCount)) }
            if let mixer { connect(mixer, to: outputNode, format: outputSideFormat()) }
            realtime = mode == .realtime ? output?.unit.map { RealtimeRenderer(unit: $0, maximumFrames: maximumFrameCount) } : nil
        }
    }

    /// `.realtime` mode's renderer: a block a real-time thread calls (the engine's output
    /// pulled into the caller's list, at the manual timeline's sample time). Outside that
    /// mode, or before `start`, it renders nothing and answers `.error` (-80800, -80802).
    open var manualRenderingBlock: AVAudioEngineManualRenderingBlock {
        let renderer = lock.withLock { realtime }
        return { frames, list, error in
            guard let renderer else {
                error?.pointee = AVAudioEngineManualRenderingError.invalidMode.rawValue
                return .error
            }
            return renderer.render(frames, list, error)
        }
    }

    /// Back to the device: the engine stops and is reset; connections stay.
    open func disableManualRenderingMode() {
        lock.withLock {
            guard manual != nil else { return }
            stop()
            reset()
            manual = nil
            realtime = nil
            replaceOutput(kind: .remoteIO)
            if let mixer { connect(mixer, to: outputNode, format: outputSideFormat()) }
        }
    }

    /// The output node's unit made again as `kind`, fed by what fed it.
    private func replaceOutput(kind: UnitKind) {
        guard let output, let id = output.graphNode else { return }
        let feeding = connections(into: output)
        try? graph.removeNode(id)
        add(output, kind: kind)
        if let input {
            input.graphNode = output.graphNode
            input.handle = output.handle
            input.unit = output.unit
        }
        for c in feeding where c.source != id {
            guard let from = node(c.source) else { continue }
            connect(from, to: output, fromBus: AVAudioNodeBus(c.output), toBus: AVAudioNodeBus(c.input), format: nil)
        }
    }

    open var isInManualRenderingMode: Bool { lock.withLock { manual != nil } }
    open var manualRenderingMode: AVAudioEngineManualRenderingMode { lock.withLock { manual?.mode ?? .offline } }
    /// Outside manual rendering, a format of no rate and no channels, as iOS's.
    open var manualRenderingFormat: AVAudioFormat {
        lock.withLock {
            if let manual { return manual.format }
            var none = AudioStreamBasicDescription()
            none.mFormatID = kAudioFormatLinearPCM
            return AVAudioFormat(unchecked: none)
        }
    }
    open var manualRenderingMaximumFrameCount: AVAudioFrameCount { lock.withLock { manual?.frames ?? 0 } }
    open var manualRenderingSampleTime: AVAudioFramePosition {
        lock.withLock { realtime.map { $0.sampleTime.load(ordering: .acquiring) } ?? manualSampleTime }
    }

    /// Renders `numberOfFrames` frames into `buffer` (in the manual format, that many
    /// frames of capacity at least), in slices of the maximum frame count. Throws -80800
    /// outside offline rendering, -80802 before `start`, kAudio_ParamError for a buffer
    /// that cannot take them, a unit's code when one fails (`frameLength` then holds the
    /// frames made).
    open func renderOffline(_ numberOfFrames: AVAudioFrameCount, to buffer: AVAudioPCMBuffer) throws
        -> AVAudioEngineManualRenderingStatus {
        try lock.withLock {
            guard let manual, manual.mode == .offline else { throw Self.error(.invalidMode) }
            guard manualRunning else { throw Self.error(.notRunning) }
            guard buffer.format.isEqual(manual.format), numberOfFrames <= buffer.frameCapacity,
                  let unit = output?.unit else {
                throw NSError(domain: NSOSStatusErrorDomain, code: Int(kAudio_ParamError))
            }
            let slice = UnsafeMutableAudioBufferListPointer.allocate(maximumBuffers: buffer.bufferCount)
            defer { free(slice.unsafeMutablePointer) }
            var done = 0
            buffer.frameLength = 0
            while done < Int(numberOfFrames) {
                let n = min(Int(manual.frames), Int(numberOfFrames) - done)
                for b in 0..<buffer.bufferCount {
                    slice[b] = AudioBuffer(mNumberChannels: UInt32(buffer.bufferCount == 1 ? Int(buffer.format.channelCount) : 1),
                                           mDataByteSize: UInt32(n * buffer.bytesPerFrame),
                                           mData: buffer.data(b) + done * buffer.bytesPerFrame)
                }
                var stamp = AudioTimeStamp()
                stamp.mSampleTime = Double(manualSampleTime)
                stamp.mFlags = AVAudioTime.sampleValid
                var flags: UInt32 = 0
                do throws(UnitError) {
                    try withUnsafePointer(to: &stamp) { stamp throws(UnitError) in
                        try unit.renderPulled(flags: &flags, timeStamp: UnsafeRawPointer(stamp), bus: 0, frames: UInt32(n),
                                              list: UnsafeMutableRawPointer(slice.unsafeMutablePointer))
                    }
                } catch {
                    buffer.frameLength = AVAudioFrameCount(done)
                    throw NSError(domain: NSOSStatusErrorDomain, code: Int(error.rawValue))
                }
                done += n
                manualSampleTime += AVAudioFramePosition(n)
                buffer.frameLength = AVAudioFrameCount(done)
            }
            return .success
        }
    }

    static func error(_ code: AVAudioEngineManualRenderingError) -> NSError {
        NSError(domain: NSOSStatusErrorDomain, code: Int(code.rawValue))
    }
}
