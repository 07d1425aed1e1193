import AudioGraphs
import AudioUnits
import CAudioToolbox
import Runtime

// AUGraph.h: entry points and marshalling only; the graph is an AudioGraph
// (Services/AudioGraphs), found by handle in Runtime.GraphHandles.

/// Runs `body` on the graph `handle` names; its error's code, or 0.
private func graphCall(_ handle: OpaquePointer?, _ body: (AudioGraph) throws(GraphError) -> Void) -> Int32 {
    do throws(GraphError) {
        try body(try GraphHandles.graph(handle))
        return 0
    } catch {
        return error.code
    }
}

private func interactionValue(_ interaction: GraphModel.Interaction) -> AUNodeInteraction {
    var value = AUNodeInteraction()
    switch interaction {
    case .connection(let source, let output, let destination, let input):
        value.nodeInteractionType = UInt32(kAUNodeInteraction_Connection)
        value.nodeInteraction.connection = AUNodeConnection(sourceNode: source, sourceOutputNumber: output,
                                                            destNode: destination, destInputNumber: input)
    case .callback(let destination, let input, let procedure, let refCon):
        value.nodeInteractionType = UInt32(kAUNodeInteraction_InputCallback)
        let proc = unsafeBitCast(Int(bitPattern: procedure), to: AURenderCallback.self)
        value.nodeInteraction.inputCallback = AUNodeRenderCallback(
            destNode: destination, destInputNumber: input,
            cback: AURenderCallbackStruct(inputProc: proc, inputProcRefCon: UnsafeMutableRawPointer(bitPattern: refCon)))
    }
    return value
}

@_cdecl("NewAUGraph")
public func newAUGraph(_ outGraph: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let outGraph else { return GraphError.parameter.code }
    outGraph.pointee = GraphHandles.new()
    return 0
}

@_cdecl("DisposeAUGraph")
public func disposeAUGraph(_ graph: OpaquePointer?) -> Int32 {
    do throws(GraphError) { try GraphHandles.dispose(graph); return 0 } catch { return error.code }
}

@_cdecl("AUGraphAddNode")
public func auGraphAddNode(_ graph: OpaquePointer?, _ description: UnsafePointer<AudioComponentDescription>?,
                           _ outNode: UnsafeMutablePointer<AUNode>?) -> Int32 {
    guard let description, let outNode else { return GraphError.parameter.code }
    let d = description.pointee
    return graphCall(graph) { g throws(GraphError) in
        outNode.pointee = try g.addNode(type: d.componentType, subtype: d.componentSubType,
                                        manufacturer: d.componentManufacturer, flags: d.componentFlags,
                                        flagsMask: d.componentFlagsMask)
    }
}

@_cdecl("AUGraphRemoveNode")
public func auGraphRemoveNode(_ graph: OpaquePointer?, _ node: AUNode) -> Int32 {
    graphCall(graph) { g throws(GraphError) in try g.removeNode(node) }
}

@_cdecl("AUGraphGetNodeCount")
public func auGraphGetNodeCount(_ graph: OpaquePointer?, _ outCount: UnsafeMutablePointer<UInt32>?) -> Int32 {
    guard let outCount else { return GraphError.parameter.code }
    return graphCall(graph) { g in outCount.pointee = UInt32(g.nodes.count) }
}

@_cdecl("AUGraphGetIndNode")
public func auGraphGetIndNode(_ graph: OpaquePointer?, _ index: UInt32, _ outNode: UnsafeMutablePointer<AUNode>?) -> Int32 {
    guard let outNode else { return GraphError.parameter.code }
    return graphCall(graph) { g throws(GraphError) in
        let nodes = g.nodes
        guard Int(index) < nodes.count else { throw .parameter }
        outNode.pointee = nodes[Int(index)].id
    }
}

@_cdecl("AUGraphNodeInfo")
public func auGraphNodeInfo(_ graph: OpaquePointer?, _ node: AUNode,
                            _ outDescription: UnsafeMutablePointer<AudioComponentDescription>?,
                            _ outUnit: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    graphCall(graph) { g throws(GraphError) in
        let (c, unit) = try g.nodeInfo(node)
        outDescription?.pointee = AudioComponentDescription(componentType: c.type, componentSubType: c.subtype,
                                                            componentManufacturer: c.manufacturer,
                                                            componentFlags: c.flags, componentFlagsMask: c.flagsMask)
        outUnit?.pointee = unit.flatMap { OpaquePointer(bitPattern: $0) }
    }
}

@_cdecl("AUGraphConnectNodeInput")
public func auGraphConnectNodeInput(_ graph: OpaquePointer?, _ source: AUNode, _ output: UInt32, _ destination: AUNode,
                                    _ input: UInt32) -> Int32 {
    graphCall(graph) { g throws(GraphError) in
        try g.connect(source: source, output: output, destination: destination, input: input)
    }
}

@_cdecl("AUGraphSetNodeInputCallback")
public func auGraphSetNodeInputCallback(_ graph: OpaquePointer?, _ destination: AUNode, _ input: UInt32,
                                        _ callback: UnsafePointer<AURenderCallbackStruct>?) -> Int32 {
    guard let callback else { return GraphError.parameter.code }
    return graphCall(graph) { g throws(GraphError) in
        let procedure = callback.pointee.inputProc.map { UInt(bitPattern: unsafeBitCast($0, to: Int.self)) } ?? 0
        try g.setCallback(destination: destination, input: input, procedure: procedure,
                          refCon: UInt(bitPattern: callback.pointee.inputProcRefCon))
    }
}

@_cdecl("AUGraphDisconnectNodeInput")
public func auGraphDisconnectNodeInput(_ graph: OpaquePointer?, _ destination: AUNode, _ input: UInt32) -> Int32 {
    graphCall(graph) { g throws(GraphError) in try g.disconnect(destination: destination, input: input) }
}

@_cdecl("AUGraphClearConnections")
public func auGraphClearConnections(_ graph: OpaquePointer?) -> Int32 {
    graphCall(graph) { g throws(GraphError) in try g.clear() }
}

@_cdecl("AUGraphGetNumberOfInteractions")
public func auGraphGetNumberOfInteractions(_ graph: OpaquePointer?, _ outCount: UnsafeMutablePointer<UInt32>?) -> Int32 {
    guard let outCount else { return GraphError.parameter.code }
    return graphCall(graph) { g throws(GraphError) in outCount.pointee = UInt32(try g.interactions().count) }
}

@_cdecl("AUGraphGetInteractionInfo")
public func auGraphGetInteractionInfo(_ graph: OpaquePointer?, _ index: UInt32,
                                      _ outInteraction: UnsafeMutablePointer<AUNodeInteraction>?) -> Int32 {
    guard let outInteraction else { return GraphError.parameter.code }
    return graphCall(graph) { g throws(GraphError) in
        let all = try g.interactions()
        guard Int(index) < all.count else { throw .parameter }
        outInteraction.pointee = interactionValue(all[Int(index)])
    }
}

@_cdecl("AUGraphCountNodeInteractions")
public func auGraphCountNodeInteractions(_ graph: OpaquePointer?, _ node: AUNode,
                                         _ outCount: UnsafeMutablePointer<UInt32>?) -> Int32 {
    guard let outCount else { return GraphError.parameter.code }
    return graphCall(graph) { g throws(GraphError) in
        outCount.pointee = UInt32(try g.interactions(of: node).count)
    }
}

@_cdecl("AUGraphGetNodeInteractions")
public func auGraphGetNodeInteractions(_ graph: OpaquePointer?, _ node: AUNode, _ ioCount: UnsafeMutablePointer<UInt32>?,
                                       _ outInteractions: UnsafeMutablePointer<AUNodeInteraction>?) -> Int32 {
    guard let ioCount, let outInteractions else { return GraphError.parameter.code }
    return graphCall(graph) { g throws(GraphError) in
        let all = try g.interactions(of: node)
        let count = min(Int(ioCount.pointee), all.count)
        for i in 0..<count { outInteractions[i] = interactionValue(all[i]) }
        ioCount.pointee = UInt32(count)
    }
}

@_cdecl("AUGraphUpdate")
public func auGraphUpdate(_ graph: OpaquePointer?, _ outIsUpdated: UnsafeMutablePointer<UInt8>?) -> Int32 {
    graphCall(graph) { g throws(GraphError) in
        try g.update()
        outIsUpdated?.pointee = 1
    }
}

@_cdecl("AUGraphOpen")
public func auGraphOpen(_ graph: OpaquePointer?) -> Int32 {
    graphCall(graph) { g throws(GraphError) in try g.open() }
}

@_cdecl("AUGraphClose")
public func auGraphClose(_ graph: OpaquePointer?) -> Int32 {
    graphCall(graph) { g throws(GraphError) in try g.close() }
}

@_cdecl("AUGraphInitialize")
public func auGraphInitialize(_ graph: OpaquePointer?) -> Int32 {
    graphCall(graph) { g throws(GraphError) in try g.initialize() }
}

@_cdecl("AUGraphUninitialize")
public func auGraphUninitialize(_ graph: OpaquePointer?) -> Int32 {
    graphCall(graph) { g throws(GraphError) in try g.uninitialize() }
}

@_cdecl("AUGraphStart")
public func auGraphStart(_ graph: OpaquePointer?) -> Int32 {
    graphCall(graph) { g throws(GraphError) in try g.start() }
}

@_cdecl("AUGraphStop")
public func auGraphStop(_ graph: OpaquePointer?) -> Int32 {
    graphCall(graph) { g throws(GraphError) in try g.stop() }
}

@_cdecl("AUGraphIsOpen")
public func auGraphIsOpen(_ graph: OpaquePointer?, _ out: UnsafeMutablePointer<UInt8>?) -> Int32 {
    guard let out else { return GraphError.parameter.code }
    return graphCall(graph) { g in out.pointee = g.isOpen ? 1 : 0 }
}

@_cdecl("AUGraphIsInitialized")
public func auGraphIsInitialized(_ graph: OpaquePointer?, _ out: UnsafeMutablePointer<UInt8>?) -> Int32 {
    guard let out else { return GraphError.parameter.code }
    return graphCall(graph) { g in out.pointee = g.isInitialized ? 1 : 0 }
}

@_cdecl("AUGraphIsRunning")
public func auGraphIsRunning(_ graph: OpaquePointer?, _ out: UnsafeMutablePointer<UInt8>?) -> Int32 {
    guard let out else { return GraphError.parameter.code }
    return graphCall(graph) { g in out.pointee = g.isRunning ? 1 : 0 }
}

@_cdecl("AUGraphGetCPULoad")
public func auGraphGetCPULoad(_ graph: OpaquePointer?, _ out: UnsafeMutablePointer<Float32>?) -> Int32 {
    guard let out else { return GraphError.parameter.code }
    return graphCall(graph) { g in out.pointee = g.averageLoad() }
}

@_cdecl("AUGraphGetMaxCPULoad")
public func auGraphGetMaxCPULoad(_ graph: OpaquePointer?, _ out: UnsafeMutablePointer<Float32>?) -> Int32 {
    guard let out else { return GraphError.parameter.code }
    return graphCall(graph) { g in out.pointee = g.maximumLoad() }
}

@_cdecl("AUGraphAddRenderNotify")
public func auGraphAddRenderNotify(_ graph: OpaquePointer?, _ callback: AURenderCallback?,
                                   _ refCon: UnsafeMutableRawPointer?) -> Int32 {
    guard let callback else { return GraphError.parameter.code }
    let notify = RenderCallback(procedure: unsafeBitCast(callback, to: RenderCallback.Procedure.self), refCon: refCon)
    return graphCall(graph) { g throws(GraphError) in try g.addRenderNotify(notify) }
}

@_cdecl("AUGraphRemoveRenderNotify")
public func auGraphRemoveRenderNotify(_ graph: OpaquePointer?, _ callback: AURenderCallback?,
                                      _ refCon: UnsafeMutableRawPointer?) -> Int32 {
    guard let callback else { return GraphError.parameter.code }
    let notify = RenderCallback(procedure: unsafeBitCast(callback, to: RenderCallback.Procedure.self), refCon: refCon)
    return graphCall(graph) { g in g.removeRenderNotify(notify) }
}
