import AudioGraphs
import AudioSessionCore
import AudioUnits
import Locking
import Testing

// The graph service over real units, without the C API: the units are a table of the
// test's own (as the runtime's handle table is), so what a graph does to its nodes'
// units is seen from outside it.

/// The units a graph makes, by handle, and what was done to them.
private final class TableUnits: GraphUnits, @unchecked Sendable {
    struct State {
        var units: [UInt: any AudioUnitInstance] = [:]
        var next: UInt = 1
        var made = 0
        var disposed = 0
    }
    let state = Locked(State())

    func make(_ kind: UnitKind) -> UInt {
        let unit = kind.make(AudioServiceSnapshot(active: false, interrupted: false, level: 1, silentSwitch: false,
                                                  device: .none, sampleRate: 0, ioBufferDuration: 0))
        return state.withLock { s in
            let handle = s.next
            s.next += 1
            unit.handle = handle
            s.units[handle] = unit
            s.made += 1
            return handle
        }
    }

    func dispose(_ unit: UInt) {
        let removed = state.withLock { s in
            s.disposed += 1
            return s.units.removeValue(forKey: unit)
        }
        _ = removed?.uninitialize()
    }

    func unit(_ handle: UInt) -> (any AudioUnitInstance)? { state.withLock { $0.units[handle] } }

    /// The destination's input pulls the source's output, as a connection does.
    func connect(_ destination: any AudioUnitInstance, handle: UInt, source: UInt, output: UInt32, input: UInt32)
        throws(UnitError) {
        guard let from = unit(source) else { throw .invalidPropertyValue }
        try destination.takeFormat(input: input, from: from, output: output)
        destination.keepAlive(from)
        try destination.setRenderCallback(RenderCallback(procedure: { refCon, flags, stamp, bus, frames, list in
            let source = Unmanaged<AnyObject>.fromOpaque(refCon!).takeUnretainedValue() as! any AudioUnitInstance
            do throws(UnitError) {
                try source.renderPulled(flags: flags, timeStamp: stamp, bus: bus, frames: frames, list: list!)
                return 0
            } catch {
                return error.rawValue
            }
        }, refCon: Unmanaged.passUnretained(from as AnyObject).toOpaque()), input: input)
    }

    func start(_ handle: UInt, _ unit: OutputUnit) -> Int32 {
        do throws(UnitError) { _ = try unit.start(); return 0 } catch { return error.rawValue }
    }

    func stop(_ handle: UInt, _ unit: OutputUnit) { _ = unit.stop() }
}

private func addNode(_ graph: AudioGraph, _ kind: UnitKind) throws -> Int32 {
    try graph.addNode(type: kind.type, subtype: kind.subtype, manufacturer: kind.manufacturer, flags: 0, flagsMask: 0)
}

@Suite("Audio graph service")
struct AudioGraphTests {
    @Test("a graph's nodes are units of its owner's: opening makes one per node, closing disposes of each")
    func nodesAreTheOwnersUnits() throws {
        let units = TableUnits()
        let graph = AudioGraph(units: units)
        let output = try addNode(graph, .genericOutput)
        let mixer = try addNode(graph, .multiChannelMixer)
        #expect(units.state.withLock { $0.made } == 0, "a closed graph makes no unit")
        try graph.open()
        #expect(units.state.withLock { $0.made } == 2)
        let (_, outputUnit) = try graph.nodeInfo(output)
        let (component, mixerUnit) = try graph.nodeInfo(mixer)
        #expect(component.subtype == UnitKind.multiChannelMixer.subtype)
        let outputKey = try #require(outputUnit), mixerKey = try #require(mixerUnit)
        #expect(units.unit(outputKey)?.kind == .genericOutput)
        #expect(units.unit(mixerKey)?.kind == .multiChannelMixer)
        // A node added to an open graph gets its unit at once.
        _ = try addNode(graph, .converter)
        #expect(units.state.withLock { $0.made } == 3)
        try graph.close()
        #expect(units.state.withLock { ($0.disposed, $0.units.count) } == (3, 0))
        #expect(!graph.isOpen)
    }

    @Test("an initialized graph takes an edit naming a bus its mixer lacks, and refuses it at AUGraphUpdate")
    func elementErrorsComeFromTheUpdate() throws {
        let units = TableUnits()
        let graph = AudioGraph(units: units)
        let output = try addNode(graph, .genericOutput)
        let mixer = try addNode(graph, .multiChannelMixer)
        let source = try addNode(graph, .converter)
        try graph.connect(source: mixer, output: 0, destination: output, input: 0)
        try graph.initialize()
        let (_, mixerHandle) = try graph.nodeInfo(mixer)
        let mixerKey = try #require(mixerHandle)
        let mixerUnit = try #require(units.unit(mixerKey) as? MixerUnit)
        let buses = mixerUnit.elementCount(.input)
        // Taken at the call (the program may add buses before it updates) ...
        try graph.connect(source: source, output: 0, destination: mixer, input: buses + 3)
        // ... and refused by the update while the mixer has too few.
        #expect(throws: GraphError.invalidElement) { try graph.update() }
        // More buses on the initialized mixer, and the same update goes through.
        try mixerUnit.setInputCount(buses + 4)
        try graph.update()
        #expect(try graph.interactions(of: mixer).count == 2)
        // Before the graph is initialized, the same edit is refused at the call.
        try graph.uninitialize()
        #expect(throws: GraphError.invalidElement) {
            try graph.connect(source: source, output: 0, destination: mixer, input: buses + 10)
        }
        try graph.close()
    }

    @Test("an unknown component is no node, and a graph without an output node does not initialize")
    func refusals() throws {
        let graph = AudioGraph(units: TableUnits())
        #expect(throws: GraphError.invalidAudioUnit) {
            _ = try graph.addNode(type: 0x6175_6678, subtype: 0x7878_7878, manufacturer: 0, flags: 0, flagsMask: 0)
        }
        _ = try addNode(graph, .converter)
        #expect(throws: GraphError.outputNodeErr) { try graph.initialize() }
        #expect(!graph.isInitialized)
    }
}
