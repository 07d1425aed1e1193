import AudioUnits
import FourCharCodes
import Glibc
import Locking
import Synchronization

/// What a graph asks of the program's units, which the runtime owns (their handle table,
/// the session they play in, their listeners): a graph manages units, it does not hold
/// them apart from the program's own.
public protocol GraphUnits: Sendable {
    /// A new unit of `kind`: its handle.
    func make(_ kind: UnitKind) -> UInt
    func dispose(_ unit: UInt)
    func unit(_ handle: UInt) -> (any AudioUnitInstance)?
    /// Feeds the destination's input from the source's output, as
    /// kAudioUnitProperty_MakeConnection does.
    func connect(_ destination: any AudioUnitInstance, handle: UInt, source: UInt, output: UInt32, input: UInt32)
        throws(UnitError)
    /// Starts an output unit as AudioOutputUnitStart does, under the session's rules: 0,
    /// or the code of the refusal.
    func start(_ handle: UInt, _ unit: OutputUnit) -> Int32
    /// Stops it as AudioOutputUnitStop does (its IsRunning listeners hear of it).
    func stop(_ handle: UInt, _ unit: OutputUnit)
}

/// One AUGraph: its model (GraphModel), the units its nodes are once it is open, and its
/// life. Its connections are the units' own (MakeConnection, render callbacks), so the
/// render thread pulls through them exactly as through a program's hand-made chain, with
/// no graph lock on the way.
public final class AudioGraph: @unchecked Sendable {
    struct State {
        var model = GraphModel()
        /// Each node's unit handle, once the graph is open.
        var units: [Int32: UInt] = [:]
        var open = false
        var initialized = false
        /// The program's render notifies, kept to be put on the output node's unit.
        var notifies: [RenderCallback] = []
    }
    private let state = Locked(State())
    private let load = LoadMeter()
    private let units: any GraphUnits

    public init(units: any GraphUnits) { self.units = units }

    // MARK: nodes

    public var nodes: [GraphModel.Node] { state.withLock { $0.model.nodes } }

    /// The kind of unit a node is.
    private static func kind(_ component: GraphModel.ComponentID) -> UnitKind? {
        UnitKind.named(type: component.type, subtype: component.subtype)
    }

    /// Adds a node of the first kind the description's fields match (0: any).
    public func addNode(type: UInt32, subtype: UInt32, manufacturer: UInt32, flags: UInt32, flagsMask: UInt32)
        throws(GraphError) -> Int32 {
        guard let kind = UnitKind.matching(type: type, subtype: subtype, manufacturer: manufacturer).first else {
            throw .invalidAudioUnit
        }
        let component = GraphModel.ComponentID(type: kind.type, subtype: kind.subtype, manufacturer: kind.manufacturer,
                                               flags: flags, flagsMask: flagsMask)
        return try state.withLock { s throws(GraphError) -> Int32 in
            let id = try s.model.addNode(component, isOutput: kind.isOutput)
            if s.open { s.units[id] = units.make(kind) }
            return id
        }
    }

    /// Takes the node out: what fed it and what it fed are disconnected, and its unit is
    /// disposed of. The output node of a running graph cannot go.
    public func removeNode(_ node: Int32) throws(GraphError) {
        let unit = try state.withLock { s throws(GraphError) -> UInt? in
            guard let found = s.model.node(node) else { throw .nodeNotFound }
            // AUGraph.h's code for the output node of a running graph.
            if found.isOutput, let key = s.units[node], (units.unit(key) as? OutputUnit)?.isRunning == true {
                throw .outputNodeErr
            }
            // What others took from it goes first: a destination must not pull a unit
            // being disposed of.
            for case .connection(_, _, let destination, let input) in s.model.interactions(of: node) where destination != node {
                if let key = s.units[destination], let unit = units.unit(key) {
                    try? unit.setRenderCallback(nil, input: input)
                }
            }
            try s.model.removeNode(node)
            return s.units.removeValue(forKey: node)
        }
        if let unit { units.dispose(unit) }
    }

    /// The node's component and, once the graph is open, its unit's handle.
    public func nodeInfo(_ node: Int32) throws(GraphError) -> (GraphModel.ComponentID, UInt?) {
        try state.withLock { s throws(GraphError) in
            guard let found = s.model.node(node) else { throw .nodeNotFound }
            return (found.component, s.units[node])
        }
    }

    // MARK: interactions

    /// The inputs and outputs a node's unit has: a mixer takes as many inputs as its
    /// unit counts (before the graph is open, up to its most), every other unit one (0);
    /// an I/O unit's element 1 is its microphone, which a connection may take from.
    ///
    /// An initialized graph's edits wait for AUGraphUpdate, and so does the element check
    /// (`elements: false` at the call): a program may add buses to a running mixer between
    /// the edit and the update, and AUGraph.h says an edit's errors come from the update.
    private func checkEnds(_ s: State, source: Int32?, output: UInt32, destination: Int32,
                           input: UInt32, elements: Bool = true) throws(GraphError) {
        guard let to = s.model.node(destination) else { throw .nodeNotFound }
        if let source, s.model.node(source) == nil { throw .nodeNotFound }
        guard elements else { return }
        // What feeds a unit: its one input, or the buses a mixer has (its own count once
        // it exists, else the most it can have).
        let destinationKind = Self.kind(to.component)
        var inputs = destinationKind?.inputLimit ?? 1
        if destinationKind?.traits.contains(.countedInputs) == true, let key = s.units[destination],
           let unit = units.unit(key) {
            inputs = unit.elementCount(.input)
        }
        guard input < inputs else { throw .invalidElement }
        if let source {
            guard let from = s.model.node(source) else { throw .nodeNotFound }
            guard output < (Self.kind(from.component)?.outputLimit ?? 1) else { throw .invalidElement }
        }
    }

    public func connect(source: Int32, output: UInt32, destination: Int32, input: UInt32) throws(GraphError) {
        try state.withLock { s throws(GraphError) in
            try checkEnds(s, source: source, output: output, destination: destination, input: input,
                          elements: !s.initialized)
            try s.model.connect(source: source, output: output, destination: destination, input: input)
            if !s.initialized { try apply(&s) }
        }
    }

    /// Feeds the input from a render callback (procedure 0: disconnects it).
    public func setCallback(destination: Int32, input: UInt32, procedure: UInt, refCon: UInt) throws(GraphError) {
        try state.withLock { s throws(GraphError) in
            try checkEnds(s, source: nil, output: 0, destination: destination, input: input, elements: !s.initialized)
            if procedure == 0 {
                try s.model.disconnect(destination: destination, input: input)
            } else {
                try s.model.setCallback(destination: destination, input: input, procedure: procedure, refCon: refCon)
            }
            if !s.initialized { try apply(&s) }
        }
    }

    public func disconnect(destination: Int32, input: UInt32) throws(GraphError) {
        try state.withLock { s throws(GraphError) in
            try s.model.disconnect(destination: destination, input: input)
            if !s.initialized { try apply(&s) }
        }
    }

    public func clear() throws(GraphError) {
        try state.withLock { s throws(GraphError) in
            s.model.clearInteractions()
            if !s.initialized { try apply(&s) }
        }
    }

    /// Every interaction the graph wants, or those of one node.
    public func interactions(of node: Int32? = nil) throws(GraphError) -> [GraphModel.Interaction] {
        try state.withLock { s throws(GraphError) in
            guard let node else { return s.model.wanted }
            guard s.model.node(node) != nil else { throw .nodeNotFound }
            return s.model.interactions(of: node)
        }
    }

    /// AUGraphUpdate: what changed since the units were last told is applied now. The
    /// units take it under their configuration lock, which their render thread copies
    /// from between two periods: a running graph changes at a buffer boundary.
    public func update() throws(GraphError) {
        try state.withLock { s throws(GraphError) in try apply(&s) }
    }

    /// Puts the model's pending changes on the units (an open graph's; a closed one keeps
    /// them for its opening).
    private func apply(_ s: inout State) throws(GraphError) {
        guard s.open else { return }
        let (removed, added) = s.model.changes()
        // Edits made while initialized were taken without their elements checked: checked
        // now, against the units as they are, before anything is applied.
        for interaction in added {
            switch interaction {
            case .connection(let source, let output, let destination, let input):
                try checkEnds(s, source: source, output: output, destination: destination, input: input)
            case .callback(let destination, let input, _, _):
                try checkEnds(s, source: nil, output: 0, destination: destination, input: input)
            }
        }
        for interaction in removed {
            if let key = s.units[interaction.destination], let unit = units.unit(key),
               !added.contains(where: { $0.destination == interaction.destination && $0.input == interaction.input }) {
                try? unit.setRenderCallback(nil, input: interaction.input)
            }
        }
        for interaction in added {
            guard let key = s.units[interaction.destination], let unit = units.unit(key) else {
                throw .invalidAudioUnit
            }
            switch interaction {
            case .connection(let source, let output, _, let input):
                guard let sourceKey = s.units[source] else { throw .invalidAudioUnit }
                do throws(UnitError) {
                    try units.connect(unit, handle: key, source: sourceKey, output: output, input: input)
                } catch {
                    throw .invalidConnection
                }
            case .callback(_, let input, let procedure, let refCon):
                let proc = unsafeBitCast(Int(bitPattern: procedure), to: RenderCallback.Procedure.self)
                do throws(UnitError) {
                    try unit.setRenderCallback(RenderCallback(procedure: proc, refCon: UnsafeMutableRawPointer(bitPattern: refCon)),
                                               input: input)
                } catch {
                    throw .invalidConnection
                }
            }
        }
        s.model.markApplied()
    }

    // MARK: life

    public var isOpen: Bool { state.withLock { $0.open } }
    public var isInitialized: Bool { state.withLock { $0.initialized } }

    /// Whether the output node's unit runs: false once the session stopped it.
    public var isRunning: Bool { outputUnit()?.1.isRunning ?? false }

    private func outputUnit() -> (UInt, OutputUnit)? {
        state.withLock { s in
            guard let node = s.model.outputNode, let key = s.units[node.id],
                  let unit = units.unit(key) as? OutputUnit else { return nil }
            return (key, unit)
        }
    }

    /// Makes every node's unit, with what feeds each, and the render notifies.
    public func open() throws(GraphError) {
        try state.withLock { s throws(GraphError) in
            guard !s.open else { return }
            for node in s.model.nodes {
                guard let kind = Self.kind(node.component) else { throw .invalidAudioUnit }
                s.units[node.id] = units.make(kind)
            }
            s.open = true
            try apply(&s)
            if let output = s.model.outputNode, let key = s.units[output.id], let unit = units.unit(key) as? OutputUnit {
                attachLoadMeter(unit)
                for notify in s.notifies { try? unit.addRenderNotify(notify) }
            }
        }
    }

    /// Uninitializes if needed and disposes of every node's unit.
    public func close() throws(GraphError) {
        try uninitialize()
        let made = state.withLock { s -> [UInt] in
            defer {
                s.units.removeAll()
                s.open = false
                // The units that held the applied interactions are gone: all is to apply again.
                s.model.forgetApplied()
            }
            return Array(s.units.values)
        }
        for key in made { units.dispose(key) }
    }

    /// Opens if needed, applies what is pending, and initializes the units, each after
    /// the units that feed it. A graph with no output node is kAUGraphErr_OutputNodeErr.
    public func initialize() throws(GraphError) {
        try open()
        try state.withLock { s throws(GraphError) in
            guard !s.initialized else { return }
            guard s.model.outputNode != nil else { throw .outputNodeErr }
            try apply(&s)
            var done: [any AudioUnitInstance] = []
            for node in s.model.initializationOrder() {
                guard let key = s.units[node], let unit = units.unit(key) else { continue }
                do throws(UnitError) {
                    // Each input takes the format its source's output has now (set since
                    // the connection, as programs do); sources are initialized first.
                    for case .connection(let source, let output, node, let input) in s.model.interactions(of: node) {
                        guard let sourceKey = s.units[source], let from = units.unit(sourceKey) else { continue }
                        try unit.takeFormat(input: input, from: from, output: output)
                    }
                    try unit.initialize()
                    done.append(unit)
                } catch {
                    for made in done { _ = made.uninitialize() }
                    throw .unit(error)
                }
            }
            s.initialized = true
        }
    }

    /// Stops if running, then uninitializes every unit.
    public func uninitialize() throws(GraphError) {
        try stop()
        let made = state.withLock { s -> [any AudioUnitInstance] in
            guard s.initialized else { return [] }
            s.initialized = false
            return s.units.values.compactMap { units.unit($0) }
        }
        for unit in made { _ = unit.uninitialize() }
    }

    /// Starts the output node's unit, as AudioOutputUnitStart does (activating the
    /// session). Outside the graph's lock: a render callback asking the graph anything
    /// must not wait for a start that waits for it.
    public func start() throws(GraphError) {
        guard isInitialized else { throw .unit(.uninitialized) }
        guard let (key, unit) = outputUnit() else { throw .outputNodeErr }
        let status = units.start(key, unit)
        if status != 0 { throw .status(status) }
    }

    public func stop() throws(GraphError) {
        guard let (key, unit) = outputUnit() else { return }
        units.stop(key, unit)
    }

    // MARK: render notifies and load

    public func addRenderNotify(_ callback: RenderCallback) throws(GraphError) {
        let unit = state.withLock { s -> (any AudioUnitInstance)? in
            if !s.notifies.contains(where: { $0.same(callback) }) { s.notifies.append(callback) }
            guard let node = s.model.outputNode, let key = s.units[node.id] else { return nil }
            return units.unit(key)
        }
        do throws(UnitError) { try unit?.addRenderNotify(callback) } catch { throw .unit(error) }
    }

    public func removeRenderNotify(_ callback: RenderCallback) {
        let unit = state.withLock { s -> (any AudioUnitInstance)? in
            s.notifies.removeAll { $0.same(callback) }
            guard let node = s.model.outputNode, let key = s.units[node.id] else { return nil }
            return units.unit(key)
        }
        unit?.removeRenderNotify(callback)
    }

    /// The graph's own notify on its output unit: the time from PreRender to PostRender
    /// over the period's length. Reads the clock and stores atomics only.
    private func attachLoadMeter(_ unit: OutputUnit) {
        let meter = load
        let rate = unit.sessionSnapshot.sampleRate
        if rate > 0 { meter.rateBits.store(rate.bitPattern, ordering: .relaxed) }
        unit.keepAlive(meter)
        let notify = RenderCallback(procedure: { refCon, flags, _, _, frames, _ in
            let meter = Unmanaged<LoadMeter>.fromOpaque(refCon!).takeUnretainedValue()
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let nanoseconds = now.tv_sec * 1_000_000_000 + now.tv_nsec
            if flags.pointee & RenderAction.preRender != 0 {
                meter.renderStart.store(nanoseconds, ordering: .relaxed)
            } else if flags.pointee & RenderAction.postRender != 0, frames > 0 {
                let rate = Double(bitPattern: meter.rateBits.load(ordering: .relaxed))
                let period = Double(frames) / rate * 1e9
                let load = Float(Double(nanoseconds - meter.renderStart.load(ordering: .relaxed)) / period)
                meter.sum.add(UInt64(max(0, load) * 1e6), ordering: .relaxed)
                meter.count.add(1, ordering: .relaxed)
                if load > Float(bitPattern: meter.most.load(ordering: .relaxed)) {
                    meter.most.store(load.bitPattern, ordering: .relaxed)
                }
            }
            return 0
        }, refCon: Unmanaged.passUnretained(meter).toOpaque())
        try? unit.addRenderNotify(notify)
    }

    /// The average load since the last read (0 when nothing rendered), reset by reading.
    public func averageLoad() -> Float {
        let sum = load.sum.exchange(0, ordering: .relaxed)
        let count = load.count.exchange(0, ordering: .relaxed)
        return count > 0 ? Float(Double(sum) / 1e6 / Double(count)) : 0
    }

    /// The highest load since the last read, reset by reading.
    public func maximumLoad() -> Float {
        Float(bitPattern: load.most.exchange(0, ordering: .relaxed))
    }

    // MARK: CAShow

    /// What CAShow prints for the graph `handle` names: its nodes and their units, the
    /// interactions the units have (with the format each connection carries), what waits
    /// for AUGraphUpdate, and the graph's state. One line each; no trailing newline.
    public func show(handle: UInt) -> String {
        let (model, made, open, initialized) = state.withLock { ($0.model, $0.units, $0.open, $0.initialized) }
        let running = isRunning
        var lines = ["AUGraph \(ShowText.handle(handle)): \(model.nodes.count) node\(model.nodes.count == 1 ? "" : "s"), "
                     + "\(open ? "open" : "closed"), \(initialized ? "initialized" : "uninitialized"), "
                     + "\(running ? "running" : "stopped")"]
        lines.append("  nodes:")
        for node in model.nodes {
            let c = node.component
            var line = "    node \(node.id): \(FourCharCode.describe(c.type)) \(FourCharCode.describe(c.subtype)) \(FourCharCode.describe(c.manufacturer))"
            if let key = made[node.id] { line += ", unit \(ShowText.handle(key))" }
            if node.isOutput { line += ", output node" }
            lines.append(line)
        }
        let applied = model.wanted
        lines.append("  interactions:")
        if applied.isEmpty { lines.append("    none") }
        for interaction in applied {
            var format = ""
            if let key = made[interaction.destination], let unit = units.unit(key),
               let layout = try? unit.format(scope: .input, element: interaction.input) {
                format = "  [\(ShowText.format(layout))]"
            }
            switch interaction {
            case .connection(let source, let output, let destination, let input):
                lines.append("    node \(source) output \(output) -> node \(destination) input \(input)\(format)")
            case .callback(let destination, let input, let procedure, let refCon):
                lines.append("    callback 0x\(String(procedure, radix: 16)) (refCon 0x\(String(refCon, radix: 16))) "
                             + "-> node \(destination) input \(input)\(format)")
            }
        }
        let (removed, added) = model.changes()
        if open && (!removed.isEmpty || !added.isEmpty) {
            lines.append("  waiting for AUGraphUpdate: \(added.count) to make, \(removed.count) to undo")
        }
        return lines.joined(separator: "\n")
    }
}

/// The render's share of its period, measured by the graph's own notify on the output
/// unit (PreRender to PostRender): the running sum and count since the last read, and
/// the highest, as Float bits; the start of the render under way. The output unit keeps
/// it alive as long as itself: a graph disposed of from inside its own render leaves the
/// period under way a meter to write to.
final class LoadMeter: Sendable {
    let sum = Atomic<UInt64>(0)
    let count = Atomic<Int>(0)
    let most = Atomic<UInt32>(0)
    let renderStart = Atomic<Int>(0)
    /// The output unit's rate, as Double bits: a period's length.
    let rateBits = Atomic<UInt64>(Double(44100).bitPattern)
}

extension GraphError {
    static func unit(_ error: UnitError) -> GraphError { GraphError(error.rawValue) }
    static func status(_ status: Int32) -> GraphError { GraphError(status) }
}
