import AudioGraphs
import Testing

// The graph's rules, without units: one output node, one feed per input, no loop,
// removals that take a node's interactions with it, and changes listed for the units.

private let rio = GraphModel.ComponentID(type: 0x6175_6F75, subtype: 0x7269_6F63, manufacturer: 0x6170_706C)
private let converter = GraphModel.ComponentID(type: 0x6175_6663, subtype: 0x636F_6E76, manufacturer: 0x6170_706C)

@Suite("Graph model")
struct GraphModelTests {
    @Test("nodes are numbered from 1, never reused; a second output node is refused")
    func nodes() throws {
        var graph = GraphModel()
        let output = try graph.addNode(rio, isOutput: true)
        let a = try graph.addNode(converter, isOutput: false)
        #expect(output == 1 && a == 2)
        #expect(throws: GraphError.outputNodeErr) { _ = try graph.addNode(rio, isOutput: true) }
        try graph.removeNode(a)
        let b = try graph.addNode(converter, isOutput: false)
        #expect(b == 3)
        #expect(throws: GraphError.nodeNotFound) { try graph.removeNode(a) }
        #expect(graph.nodes.map(\.id) == [1, 3])
    }

    @Test("one feed per input; a connection that would close a loop is refused and changes nothing")
    func connections() throws {
        var graph = GraphModel()
        let output = try graph.addNode(rio, isOutput: true)
        let a = try graph.addNode(converter, isOutput: false)
        let b = try graph.addNode(converter, isOutput: false)
        try graph.connect(source: a, output: 0, destination: output, input: 0)
        try graph.connect(source: b, output: 0, destination: a, input: 0)
        let before = graph.wanted
        // b <- output would be a loop (output <- a <- b <- output); a <- a is one too.
        #expect(throws: GraphError.invalidConnection) { try graph.connect(source: output, output: 0, destination: b, input: 0) }
        #expect(throws: GraphError.invalidConnection) { try graph.connect(source: a, output: 0, destination: a, input: 1) }
        // The output's input is taken: a second feed there is refused, callback or not.
        #expect(throws: GraphError.invalidConnection) { try graph.connect(source: b, output: 0, destination: output, input: 0) }
        #expect(throws: GraphError.invalidConnection) {
            try graph.setCallback(destination: output, input: 0, procedure: 0x1000, refCon: 0)
        }
        #expect(throws: GraphError.nodeNotFound) { try graph.connect(source: 99, output: 0, destination: output, input: 1) }
        #expect(graph.wanted == before)
        #expect(graph.initializationOrder() == [b, a, output])
    }

    @Test("an output node's microphone (output 1) feeds the graph without closing a loop; its output 0 still would")
    func microphone() throws {
        var graph = GraphModel()
        let output = try graph.addNode(rio, isOutput: true)
        let a = try graph.addNode(converter, isOutput: false)
        // aurioTouch's play-through: the microphone straight into the same node's speaker.
        try graph.connect(source: output, output: 1, destination: output, input: 0)
        try graph.disconnect(destination: output, input: 0)
        // The engine's form: microphone -> a -> speaker.
        try graph.connect(source: output, output: 1, destination: a, input: 0)
        try graph.connect(source: a, output: 0, destination: output, input: 0)
        #expect(graph.initializationOrder() == [a, output])
        // A generic output's output 0 is what it was fed: a -> output -> a is a loop.
        try graph.disconnect(destination: a, input: 0)
        #expect(throws: GraphError.invalidConnection) { try graph.connect(source: output, output: 0, destination: a, input: 0) }
    }

    @Test("a callback replaces a callback; disconnecting frees the input; removing a node takes its interactions")
    func callbacks() throws {
        var graph = GraphModel()
        let output = try graph.addNode(rio, isOutput: true)
        let a = try graph.addNode(converter, isOutput: false)
        try graph.setCallback(destination: a, input: 0, procedure: 0x1000, refCon: 7)
        try graph.setCallback(destination: a, input: 0, procedure: 0x2000, refCon: 8)
        #expect(graph.feed(of: a, input: 0) == .callback(destination: a, input: 0, procedure: 0x2000, refCon: 8))
        try graph.connect(source: a, output: 0, destination: output, input: 0)
        #expect(graph.interactions(of: a).count == 2)
        try graph.disconnect(destination: output, input: 0)
        #expect(graph.feed(of: output, input: 0) == nil)
        try graph.connect(source: a, output: 0, destination: output, input: 0)
        try graph.removeNode(a)
        #expect(graph.wanted.isEmpty)
    }

    @Test("changes list what to undo and what to make; applied, nothing is pending")
    func changes() throws {
        var graph = GraphModel()
        let output = try graph.addNode(rio, isOutput: true)
        let a = try graph.addNode(converter, isOutput: false)
        try graph.setCallback(destination: a, input: 0, procedure: 0x1000, refCon: 0)
        #expect(graph.isPending)
        #expect(graph.changes().added.count == 1 && graph.changes().removed.isEmpty)
        graph.markApplied()
        #expect(!graph.isPending)
        try graph.disconnect(destination: a, input: 0)
        try graph.connect(source: a, output: 0, destination: output, input: 0)
        let (removed, added) = graph.changes()
        #expect(removed == [.callback(destination: a, input: 0, procedure: 0x1000, refCon: 0)])
        #expect(added == [.connection(source: a, output: 0, destination: output, input: 0)])
        graph.markApplied()
        graph.forgetApplied()
        #expect(graph.changes().added.count == 1)
    }
}
