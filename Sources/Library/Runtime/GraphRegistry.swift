import AudioGraphs
import AudioUnits
import CAudioToolbox
import FourCharCodes
import Glibc
import Locking
import Synchronization

// The graphs a program holds (AUGraph): each one's model (AudioGraphs.GraphModel), the
// units its nodes are once it is open, and its life. A graph is a manager of units: its
// connections are the units' own (kAudioUnitProperty_MakeConnection, render callbacks),
// so the render thread pulls through them exactly as it pulls a program's hand-made
// chain, with no graph lock on the way.

package final class GraphRecord: @unchecked Sendable {
    struct State {
        var model = GraphModel()
        /// Each node's unit handle, once the graph is open.
        var units: [Int32: UInt] = [:]
        var open = false
        var initialized = false
        /// The program's render notifies, kept to be put on the output node's unit.
        var notifies: [RenderCallback] = []
    }
    let state = Locked(State())
    let load = LoadMeter()
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

package enum GraphHandles {
    package static let graphs = HandleTable<GraphRecord>(.graph)

    package static func new() -> OpaquePointer { graphs.add(GraphRecord()) }

    package static func record(_ handle: OpaquePointer?) throws(GraphError) -> GraphRecord {
        guard let record = graphs.get(handle) else { throw .parameter }
        return record
    }

    /// Stops, uninitializes and closes the graph, then forgets it.
    package static func dispose(_ handle: OpaquePointer?) throws(GraphError) {
        let record = try record(handle)
        try close(record)
        _ = graphs.remove(handle)
    }

    // MARK: nodes

    package static func nodes(_ record: GraphRecord) -> [GraphModel.Node] { record.state.withLock { $0.model.nodes } }

    /// The kind of unit a description names, the first one it matches.
    static func kind(_ description: AudioComponentDescription) -> UnitKind? {
        UnitKind.allCases.first { UnitHandles.matches($0, description) }
    }

    package static func addNode(_ record: GraphRecord, _ description: AudioComponentDescription) throws(GraphError) -> Int32 {
        guard let kind = kind(description) else { throw .invalidAudioUnit }
        let component = GraphModel.ComponentID(type: kind.type, subtype: kind.subtype, manufacturer: kind.manufacturer,
                                               flags: description.componentFlags,
                                               flagsMask: description.componentFlagsMask)
        return try record.state.withLock { s throws(GraphError) -> Int32 in
            let id = try s.model.addNode(component, isOutput: kind.isOutput)
            if s.open { s.units[id] = UnitHandles.make(kind) }
            return id
        }
    }

    /// Takes the node out: what fed it and what it fed are disconnected, and its unit is
    /// disposed of. The output node of a running graph cannot go.
    package static func removeNode(_ record: GraphRecord, _ node: Int32) throws(GraphError) {
        let unit = try record.state.withLock { s throws(GraphError) -> UInt? in
            guard let found = s.model.node(node) else { throw .nodeNotFound }
            // AUGraph.h's code for the output node of a running graph.
            if found.isOutput, let key = s.units[node], UnitHandles.outputUnit(key)?.isRunning == true {
                throw .outputNodeErr
            }
            // What others took from it goes first: a destination must not pull a unit
            // being disposed of.
            for case .connection(_, _, let destination, let input) in s.model.interactions(of: node) where destination != node {
                if let key = s.units[destination], let unit = UnitHandles.instances.get(key) {
                    try? unit.setRenderCallback(nil, input: input)
                }
            }
            try s.model.removeNode(node)
            return s.units.removeValue(forKey: node)
        }
        if let unit { _ = UnitHandles.dispose(unit) }
    }

    package static func nodeInfo(_ record: GraphRecord, _ node: Int32) throws(GraphError)
        -> (AudioComponentDescription, OpaquePointer?) {
        try record.state.withLock { s throws(GraphError) in
            guard let found = s.model.node(node) else { throw .nodeNotFound }
            let c = found.component
            let description = AudioComponentDescription(componentType: c.type, componentSubType: c.subtype,
                                                        componentManufacturer: c.manufacturer,
                                                        componentFlags: c.flags, componentFlagsMask: c.flagsMask)
            return (description, s.units[node].map { OpaquePointer(bitPattern: $0) } ?? nil)
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
    static func checkEnds(_ s: GraphRecord.State, source: Int32?, output: UInt32, destination: Int32,
                          input: UInt32, elements: Bool = true) throws(GraphError) {
        guard let to = s.model.node(destination) else { throw .nodeNotFound }
        if let source, s.model.node(source) == nil { throw .nodeNotFound }
        guard elements else { return }
        let inputs: UInt32
        if to.component.subtype != UnitKind.multiChannelMixer.subtype {
            inputs = 1
        } else if let key = s.units[destination], let unit = UnitHandles.instances.get(key) {
            inputs = unit.elementCount(.input)
        } else {
            inputs = MixerUnit.maximumBuses
        }
        guard input < inputs else { throw .invalidElement }
        if let source {
            guard let from = s.model.node(source) else { throw .nodeNotFound }
            let hasDevice = from.component.subtype == UnitKind.remoteIO.subtype
                || from.component.subtype == UnitKind.voiceProcessingIO.subtype
            guard output == 0 || (hasDevice && output == 1) else { throw .invalidElement }
        }
    }

    package static func connect(_ record: GraphRecord, source: Int32, output: UInt32, destination: Int32,
                                input: UInt32) throws(GraphError) {
        try record.state.withLock { s throws(GraphError) in
            try checkEnds(s, source: source, output: output, destination: destination, input: input,
                          elements: !s.initialized)
            try s.model.connect(source: source, output: output, destination: destination, input: input)
            if !s.initialized { try apply(&s) }
        }
    }

    package static func setCallback(_ record: GraphRecord, destination: Int32, input: UInt32,
                                    _ callback: AURenderCallbackStruct) throws(GraphError) {
        try record.state.withLock { s throws(GraphError) in
            try checkEnds(s, source: nil, output: 0, destination: destination, input: input, elements: !s.initialized)
            let procedure = callback.inputProc.map { UInt(bitPattern: unsafeBitCast($0, to: Int.self)) } ?? 0
            let refCon = UInt(bitPattern: callback.inputProcRefCon)
            if procedure == 0 {
                try s.model.disconnect(destination: destination, input: input)
            } else {
                try s.model.setCallback(destination: destination, input: input, procedure: procedure, refCon: refCon)
            }
            if !s.initialized { try apply(&s) }
        }
    }

    package static func disconnect(_ record: GraphRecord, destination: Int32, input: UInt32) throws(GraphError) {
        try record.state.withLock { s throws(GraphError) in
            try s.model.disconnect(destination: destination, input: input)
            if !s.initialized { try apply(&s) }
        }
    }

    package static func clear(_ record: GraphRecord) throws(GraphError) {
        try record.state.withLock { s throws(GraphError) in
            s.model.clearInteractions()
            if !s.initialized { try apply(&s) }
        }
    }

    package static func interactions(_ record: GraphRecord, of node: Int32? = nil) throws(GraphError)
        -> [GraphModel.Interaction] {
        try record.state.withLock { s throws(GraphError) in
            guard let node else { return s.model.wanted }
            guard s.model.node(node) != nil else { throw .nodeNotFound }
            return s.model.interactions(of: node)
        }
    }

    /// AUGraphUpdate: what changed since the units were last told is applied now. The
    /// units take it under their configuration lock, which their render thread copies
    /// from between two periods: a running graph changes at a buffer boundary.
    package static func update(_ record: GraphRecord) throws(GraphError) {
        try record.state.withLock { s throws(GraphError) in try apply(&s) }
    }

    /// Puts the model's pending changes on the units (an open graph's; a closed one keeps
    /// them for its opening).
    private static func apply(_ s: inout GraphRecord.State) throws(GraphError) {
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
            if let key = s.units[interaction.destination], let unit = UnitHandles.instances.get(key),
               !added.contains(where: { $0.destination == interaction.destination && $0.input == interaction.input }) {
                try? unit.setRenderCallback(nil, input: interaction.input)
            }
        }
        for interaction in added {
            guard let key = s.units[interaction.destination], let unit = UnitHandles.instances.get(key) else {
                throw .invalidAudioUnit
            }
            switch interaction {
            case .connection(let source, let output, _, let input):
                guard let sourceKey = s.units[source] else { throw .invalidAudioUnit }
                let connection = AudioUnitConnection(sourceAudioUnit: OpaquePointer(bitPattern: sourceKey),
                                                     sourceOutputNumber: output, destInputNumber: input)
                do throws(UnitError) {
                    try UnitConnections.connect(unit, OpaquePointer(bitPattern: key), connection)
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

    package static func isOpen(_ record: GraphRecord) -> Bool { record.state.withLock { $0.open } }
    package static func isInitialized(_ record: GraphRecord) -> Bool { record.state.withLock { $0.initialized } }

    /// Whether the output node's unit runs: false once the session stopped it.
    package static func isRunning(_ record: GraphRecord) -> Bool {
        guard let unit = outputUnit(record) else { return false }
        return unit.1.isRunning
    }

    static func outputUnit(_ record: GraphRecord) -> (UInt, OutputUnit)? {
        record.state.withLock { s in
            guard let node = s.model.outputNode, let key = s.units[node.id],
                  let unit = UnitHandles.outputUnit(key) else { return nil }
            return (key, unit)
        }
    }

    /// Makes every node's unit, with what feeds each, and the render notifies.
    package static func open(_ record: GraphRecord) throws(GraphError) {
        try record.state.withLock { s throws(GraphError) in
            guard !s.open else { return }
            for node in s.model.nodes {
                guard let kind = UnitKind.allCases.first(where: { $0.subtype == node.component.subtype
                    && $0.type == node.component.type }) else { throw .invalidAudioUnit }
                s.units[node.id] = UnitHandles.make(kind)
            }
            s.open = true
            try apply(&s)
            if let output = s.model.outputNode, let key = s.units[output.id], let unit = UnitHandles.outputUnit(key) {
                attachLoadMeter(record, unit)
                for notify in s.notifies { try? unit.addRenderNotify(notify) }
            }
        }
    }

    /// Uninitializes if needed and disposes of every node's unit.
    package static func close(_ record: GraphRecord) throws(GraphError) {
        try uninitialize(record)
        let units = record.state.withLock { s -> [UInt] in
            defer {
                s.units.removeAll()
                s.open = false
                // The units that held the applied interactions are gone: all is to apply again.
                s.model.forgetApplied()
            }
            return Array(s.units.values)
        }
        for key in units { _ = UnitHandles.dispose(key) }
    }

    /// Opens if needed, applies what is pending, and initializes the units, each after
    /// the units that feed it. A graph with no output node is kAUGraphErr_OutputNodeErr.
    package static func initialize(_ record: GraphRecord) throws(GraphError) {
        try open(record)
        try record.state.withLock { s throws(GraphError) in
            guard !s.initialized else { return }
            guard s.model.outputNode != nil else { throw .outputNodeErr }
            try apply(&s)
            var done: [any AudioUnitInstance] = []
            for node in s.model.initializationOrder() {
                guard let key = s.units[node], let unit = UnitHandles.instances.get(key) else { continue }
                do throws(UnitError) {
                    // Each input takes the format its source's output has now (set since
                    // the connection, as programs do); sources are initialized first.
                    for case .connection(let source, let output, node, let input) in s.model.interactions(of: node) {
                        guard let sourceKey = s.units[source], let from = UnitHandles.instances.get(sourceKey) else { continue }
                        try UnitConnections.matchFormat(from, output: output, unit, input: input)
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
    package static func uninitialize(_ record: GraphRecord) throws(GraphError) {
        try stop(record)
        let units = record.state.withLock { s -> [any AudioUnitInstance] in
            guard s.initialized else { return [] }
            s.initialized = false
            return s.units.values.compactMap { UnitHandles.instances.get($0) }
        }
        for unit in units { _ = unit.uninitialize() }
    }

    /// Starts the output node's unit, as AudioOutputUnitStart does (activating the
    /// session). Outside the graph's lock: a render callback asking the graph anything
    /// must not wait for a start that waits for it.
    package static func start(_ record: GraphRecord) throws(GraphError) {
        guard isInitialized(record) else { throw .unit(.uninitialized) }
        guard let (key, unit) = outputUnit(record) else { throw .outputNodeErr }
        let status = UnitHandles.start(OpaquePointer(bitPattern: key), unit)
        if status != 0 { throw .status(status) }
    }

    package static func stop(_ record: GraphRecord) throws(GraphError) {
        guard let (key, unit) = outputUnit(record) else { return }
        if unit.stop() { UnitListeners.tell(OpaquePointer(bitPattern: key), kAudioOutputUnitProperty_IsRunning) }
    }

    // MARK: render notifies and load

    package static func addRenderNotify(_ record: GraphRecord, _ callback: RenderCallback) throws(GraphError) {
        let unit = record.state.withLock { s -> (any AudioUnitInstance)? in
            if !s.notifies.contains(where: { $0.same(callback) }) { s.notifies.append(callback) }
            guard let node = s.model.outputNode, let key = s.units[node.id] else { return nil }
            return UnitHandles.instances.get(key)
        }
        do throws(UnitError) { try unit?.addRenderNotify(callback) } catch { throw .unit(error) }
    }

    package static func removeRenderNotify(_ record: GraphRecord, _ callback: RenderCallback) {
        let unit = record.state.withLock { s -> (any AudioUnitInstance)? in
            s.notifies.removeAll { $0.same(callback) }
            guard let node = s.model.outputNode, let key = s.units[node.id] else { return nil }
            return UnitHandles.instances.get(key)
        }
        unit?.removeRenderNotify(callback)
    }

    /// The graph's own notify on its output unit: the time from PreRender to PostRender
    /// over the period's length. Reads the clock and stores atomics only.
    private static func attachLoadMeter(_ record: GraphRecord, _ unit: OutputUnit) {
        let meter = record.load
        let rate = unit.sessionSnapshot.sampleRate
        if rate > 0 { meter.rateBits.store(rate.bitPattern, ordering: .relaxed) }
        unit.keepAlive(meter)
        let notify = RenderCallback(procedure: { refCon, flags, _, _, frames, _ in
            let meter = Unmanaged<LoadMeter>.fromOpaque(refCon!).takeUnretainedValue()
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let nanoseconds = now.tv_sec * 1_000_000_000 + now.tv_nsec
            if flags.pointee & UInt32(kAudioUnitRenderAction_PreRender) != 0 {
                meter.renderStart.store(nanoseconds, ordering: .relaxed)
            } else if flags.pointee & UInt32(kAudioUnitRenderAction_PostRender) != 0, frames > 0 {
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
    package static func averageLoad(_ record: GraphRecord) -> Float {
        let sum = record.load.sum.exchange(0, ordering: .relaxed)
        let count = record.load.count.exchange(0, ordering: .relaxed)
        return count > 0 ? Float(Double(sum) / 1e6 / Double(count)) : 0
    }

    /// The highest load since the last read, reset by reading.
    package static func maximumLoad(_ record: GraphRecord) -> Float {
        Float(bitPattern: record.load.most.exchange(0, ordering: .relaxed))
    }
}

// MARK: CAShow

extension GraphHandles {
    /// What CAShow prints for a graph: its nodes and their units, the interactions the
    /// units have (with the format each connection carries), what waits for
    /// AUGraphUpdate, and the graph's state. One line each; no trailing newline.
    package static func show(_ record: GraphRecord, handle: OpaquePointer?) -> String {
        let (model, units, open, initialized) = record.state.withLock { ($0.model, $0.units, $0.open, $0.initialized) }
        var running = false
        if let output = model.outputNode, let key = units[output.id] { running = UnitHandles.outputUnit(key)?.isRunning ?? false }
        var lines = ["AUGraph \(pointerText(handle)): \(model.nodes.count) node\(model.nodes.count == 1 ? "" : "s"), "
                     + "\(open ? "open" : "closed"), \(initialized ? "initialized" : "uninitialized"), "
                     + "\(running ? "running" : "stopped")"]
        lines.append("  nodes:")
        for node in model.nodes {
            let c = node.component
            var line = "    node \(node.id): \(FourCharCode.describe(c.type)) \(FourCharCode.describe(c.subtype)) \(FourCharCode.describe(c.manufacturer))"
            if let key = units[node.id] { line += ", unit \(pointerText(OpaquePointer(bitPattern: key)))" }
            if node.isOutput { line += ", output node" }
            lines.append(line)
        }
        let applied = model.wanted
        lines.append("  interactions:")
        if applied.isEmpty { lines.append("    none") }
        for interaction in applied {
            var format = ""
            if let key = units[interaction.destination], let unit = UnitHandles.instances.get(key),
               let layout = try? unit.format(scope: .input, element: inputOf(interaction)) {
                format = "  [\(describe(layout))]"
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

    private static func inputOf(_ interaction: GraphModel.Interaction) -> UInt32 {
        switch interaction {
        case .connection(_, _, _, let input), .callback(_, let input, _, _): input
        }
    }
}

/// A handle as C prints a pointer.
package func pointerText(_ handle: OpaquePointer?) -> String {
    "0x" + String(UInt(bitPattern: handle.map { Int(bitPattern: $0) } ?? 0), radix: 16)
}

/// A unit format as CAShow gives it: channels, rate, sample type, interleaving.
package func describe(_ layout: PCMLayout) -> String {
    let sample: String
    switch layout.encoding {
    case .float32: sample = "32-bit float"
    case .int16: sample = "16-bit integer"
    case .int32: sample = "32-bit integer"
    case .fixed824: sample = "8.24 fixed point"
    }
    return "\(layout.channels) ch, \(Int(layout.sampleRate)) Hz, 'lpcm' \(sample), "
        + (layout.interleaved || layout.channels == 1 ? "interleaved" : "non-interleaved")
}
