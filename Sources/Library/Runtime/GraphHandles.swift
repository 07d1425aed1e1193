import AudioGraphs
import AudioUnits
import CAudioToolbox

// The graphs a program holds (AUGraph), by handle. Each is an AudioGraph (the service,
// in Services/AudioGraphs) over the program's own units, which stay the runtime's.

package enum GraphHandles {
    package static let graphs = HandleTable<AudioGraph>(.graph)

    package static func new() -> OpaquePointer { graphs.add(AudioGraph(units: ProgramUnits())) }

    package static func graph(_ handle: OpaquePointer?) throws(GraphError) -> AudioGraph {
        guard let graph = graphs.get(handle) else { throw .parameter }
        return graph
    }

    /// Stops, uninitializes and closes the graph, then forgets it.
    package static func dispose(_ handle: OpaquePointer?) throws(GraphError) {
        try graph(handle).close()
        _ = graphs.remove(handle)
    }
}

/// A graph's nodes are units of the program's, in its handle table, attached to its
/// session and heard by its listeners, as AudioComponentInstanceNew's are (an AUGraph's,
/// and AVAudioEngine's).
package struct ProgramUnits: GraphUnits {
    package init() {}
    package func make(_ kind: UnitKind) -> UInt { UnitHandles.make(kind) }
    package func dispose(_ unit: UInt) { _ = UnitHandles.dispose(unit) }
    package func unit(_ handle: UInt) -> (any AudioUnitInstance)? { UnitHandles.instances.get(handle) }

    package func connect(_ destination: any AudioUnitInstance, handle: UInt, source: UInt, output: UInt32, input: UInt32)
        throws(UnitError) {
        let connection = AudioUnitConnection(sourceAudioUnit: OpaquePointer(bitPattern: source),
                                             sourceOutputNumber: output, destInputNumber: input)
        try UnitConnections.connect(destination, OpaquePointer(bitPattern: handle), connection)
    }

    package func start(_ handle: UInt, _ unit: OutputUnit) -> Int32 { UnitHandles.start(OpaquePointer(bitPattern: handle), unit) }

    package func stop(_ handle: UInt, _ unit: OutputUnit) { _ = UnitHandles.stop(OpaquePointer(bitPattern: handle), unit) }
}
