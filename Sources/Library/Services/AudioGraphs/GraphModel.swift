/// What an audio graph is, without its units: the nodes (numbered, with the component
/// each is made from), what feeds each node's inputs (another node's output, or the
/// program's render callback), and the rules a change must keep (one output node, one
/// feed per input, no cycle). Pure: no unit, no I/O, so every rule is tested alone. The
/// runtime makes the units and applies what `changes()` lists to them.
///
/// The interactions come twice: as the program last set them (`wanted`), and as they were
/// last applied to the units (`applied`). A graph that is not initialized applies them
/// when it is; an initialized one waits for AUGraphUpdate, as Apple's does.
public struct GraphModel: Sendable {
    public struct Node: Equatable, Sendable {
        public let id: Int32
        public let component: ComponentID
        /// The output unit the graph is pulled through (RemoteIO, VoiceProcessingIO,
        /// GenericOutput).
        public let isOutput: Bool
    }

    /// A component description's five fields.
    public struct ComponentID: Equatable, Sendable {
        public var type: UInt32, subtype: UInt32, manufacturer: UInt32, flags: UInt32, flagsMask: UInt32
        public init(type: UInt32, subtype: UInt32, manufacturer: UInt32, flags: UInt32 = 0, flagsMask: UInt32 = 0) {
            self.type = type
            self.subtype = subtype
            self.manufacturer = manufacturer
            self.flags = flags
            self.flagsMask = flagsMask
        }
    }

    /// What feeds one input of one node.
    public enum Interaction: Equatable, Sendable {
        case connection(source: Int32, output: UInt32, destination: Int32, input: UInt32)
        /// The callback as addresses (procedure, reference): what the runtime hands the unit.
        case callback(destination: Int32, input: UInt32, procedure: UInt, refCon: UInt)

        public var destination: Int32 {
            switch self {
            case .connection(_, _, let node, _), .callback(let node, _, _, _): node
            }
        }
        public var input: UInt32 {
            switch self {
            case .connection(_, _, _, let input), .callback(_, let input, _, _): input
            }
        }
        /// Whether `node` is at either end.
        public func involves(_ node: Int32) -> Bool {
            if case .connection(let source, _, _, _) = self, source == node { return true }
            return destination == node
        }
    }

    public private(set) var nodes: [Node] = []
    public private(set) var wanted: [Interaction] = []
    public private(set) var applied: [Interaction] = []
    private var nextID: Int32 = 1

    public init() {}

    public func node(_ id: Int32) -> Node? { nodes.first { $0.id == id } }
    public var outputNode: Node? { nodes.first { $0.isOutput } }

    // MARK: nodes

    /// A new node; a second output node is refused (kAUGraphErr_OutputNodeErr).
    public mutating func addNode(_ component: ComponentID, isOutput: Bool) throws(GraphError) -> Int32 {
        if isOutput && outputNode != nil { throw .outputNodeErr }
        let id = nextID
        nextID += 1
        nodes.append(Node(id: id, component: component, isOutput: isOutput))
        return id
    }

    /// Takes a node out with everything that feeds it or that it feeds.
    public mutating func removeNode(_ id: Int32) throws(GraphError) {
        guard node(id) != nil else { throw .nodeNotFound }
        nodes.removeAll { $0.id == id }
        wanted.removeAll { $0.involves(id) }
        applied.removeAll { $0.involves(id) }
    }

    // MARK: interactions

    /// Connects `source`'s output to `destination`'s input. The input must be free, and
    /// the connection must not close a loop (a node feeding itself, directly or not). An
    /// output node's output 1 is the device's microphone, which depends on nothing the
    /// graph feeds: a connection from it closes no loop, even into the same node (the
    /// play-through graph, microphone to speaker).
    public mutating func connect(source: Int32, output: UInt32, destination: Int32, input: UInt32) throws(GraphError) {
        guard node(source) != nil, node(destination) != nil else { throw .nodeNotFound }
        guard isMicrophone(source, output) || (source != destination && !feeds(destination, into: source)) else {
            throw .invalidConnection
        }
        guard feed(of: destination, input: input) == nil else { throw .invalidConnection }
        wanted.append(.connection(source: source, output: output, destination: destination, input: input))
    }

    /// The program's callback feeds `destination`'s input, replacing a callback there; an
    /// input fed by a connection is refused until it is disconnected.
    public mutating func setCallback(destination: Int32, input: UInt32, procedure: UInt, refCon: UInt) throws(GraphError) {
        guard node(destination) != nil else { throw .nodeNotFound }
        if case .connection = feed(of: destination, input: input) { throw .invalidConnection }
        wanted.removeAll { $0.destination == destination && $0.input == input }
        wanted.append(.callback(destination: destination, input: input, procedure: procedure, refCon: refCon))
    }

    /// Whatever feeds `destination`'s input goes (nothing there is no error).
    public mutating func disconnect(destination: Int32, input: UInt32) throws(GraphError) {
        guard node(destination) != nil else { throw .nodeNotFound }
        wanted.removeAll { $0.destination == destination && $0.input == input }
    }

    public mutating func clearInteractions() { wanted.removeAll() }

    /// What feeds `node`'s `input`, as the program set it.
    public func feed(of node: Int32, input: UInt32) -> Interaction? {
        wanted.first { $0.destination == node && $0.input == input }
    }

    /// The interactions `node` takes part in, as the program set them.
    public func interactions(of node: Int32) -> [Interaction] { wanted.filter { $0.involves(node) } }

    /// Whether `from` feeds `to`, directly or through other nodes.
    private func feeds(_ from: Int32, into to: Int32) -> Bool {
        var seen: Set<Int32> = [], frontier = [from]
        while let node = frontier.popLast() {
            if node == to { return true }
            guard seen.insert(node).inserted else { continue }
            for case .connection(let source, let output, let destination, _) in wanted
                where source == node && !isMicrophone(source, output) { frontier.append(destination) }
        }
        return false
    }

    /// Whether `output` of node `id` is an output node's microphone side (element 1).
    private func isMicrophone(_ id: Int32, _ output: UInt32) -> Bool { output == 1 && node(id)?.isOutput == true }

    // MARK: applying

    /// Changes not applied to the units yet.
    public var isPending: Bool { wanted != applied }

    /// What to undo (interactions applied and no longer wanted, by their inputs) and what
    /// to make, in that order.
    public func changes() -> (removed: [Interaction], added: [Interaction]) {
        (applied.filter { !wanted.contains($0) }, wanted.filter { !applied.contains($0) })
    }

    public mutating func markApplied() { applied = wanted }

    /// The units that held what was applied are gone (the graph closed): everything is
    /// to be applied again when it opens.
    public mutating func forgetApplied() { applied = [] }

    /// The order to initialize in: every node after the nodes that feed it (sources
    /// first), the output node last.
    public func initializationOrder() -> [Int32] {
        var order: [Int32] = []
        var placed: Set<Int32> = []
        func place(_ id: Int32) {
            guard !placed.contains(id) else { return }
            placed.insert(id)
            for case .connection(let source, let output, let destination, _) in wanted
                where destination == id && !isMicrophone(source, output) { place(source) }
            order.append(id)
        }
        for node in nodes where !node.isOutput { place(node.id) }
        if let output = outputNode { place(output.id) }
        return order
    }
}

/// The graph's result codes (AUGraph.h), and those it shares with the units.
public struct GraphError: Error, Equatable, Sendable {
    public let code: Int32
    public init(_ code: Int32) { self.code = code }

    public static let nodeNotFound = GraphError(-10860)
    public static let invalidConnection = GraphError(-10861)
    public static let outputNodeErr = GraphError(-10862)
    public static let cannotDoInCurrentContext = GraphError(-10863)
    public static let invalidAudioUnit = GraphError(-10864)
    /// kAudioUnitErr_InvalidElement: an input or output the node's unit does not have.
    public static let invalidElement = GraphError(-10877)
    /// kAudio_ParamError: no such graph, a NULL pointer.
    public static let parameter = GraphError(-50)
}
