import AudioSessionCore
import AudioStreams
import AudioUnits
import CAudioToolbox
import Locking

/// Connections (kAudioUnitProperty_MakeConnection): the destination's input pulls the
/// source unit's output through its render, as a render callback would. The destination
/// keeps its links as long as it lives (and a running unit's thread keeps the unit), so a
/// render under way never loses its source, even to a graph disposed of from inside it.
package enum UnitConnections {
    package final class Link {
        package let source: any AudioUnitInstance
        /// The source when it is an I/O unit: its element 1 (the microphone) is pulled.
        package let device: OutputUnit?
        package let output: UInt32
        /// The source output's render shared with the other destinations it feeds.
        let shared: SharedOutput
        init(source: any AudioUnitInstance, output: UInt32, shared: SharedOutput) {
            self.source = source
            device = (source as? OutputUnit).flatMap { $0.kind.hasDevice ? $0 : nil }
            self.output = output
            self.shared = shared
        }
    }

    /// One output of a source as its destinations share it (a connection point fanning out,
    /// as AVAudioEngine's `connect(_:to:[points]...)` makes): fed to one destination it is
    /// rendered straight into that destination's buffers; fed to more, it is rendered once
    /// a render time into buffers of its own, made when the second destination connects,
    /// and each destination copies them. A source pulled twice would otherwise advance
    /// twice (a player would skip half its frames).
    final class SharedOutput {
        let output: UInt32
        /// The inputs it was connected to, by unit and element (a disconnection does not
        /// take one out: once shared it stays so, at the cost of a copy). Set on the
        /// program's thread; `cache` is set once, before the second input is connected, so
        /// a render never sees it change under it.
        var inputs: Set<[UInt]> = []
        private(set) var cache: UnsafeMutableRawPointer?
        private var cacheBuffers = 0, cacheBytes = 0, channelsPerBuffer = 1
        /// The render the cache holds: its sample time and frames.
        var time = -1.0, frames: UInt32 = 0
        init(output: UInt32) { self.output = output }
        deinit { cache?.deallocate() }

        /// Buffers for `frames` frames of `layout`, made on the program's thread.
        func prepare(_ layout: PCMLayout, frames: Int) {
            cache?.deallocate()
            cacheBuffers = layout.bufferCount
            channelsPerBuffer = layout.channelsPerBuffer
            cacheBytes = max(1, frames) * layout.bytesPerFrame
            cache = .allocate(byteCount: 8 + 16 * cacheBuffers + cacheBuffers * cacheBytes, alignment: 16)
            time = -1
        }

        /// The list over the cache, sized for `frames` (nil if they do not fit).
        func list(frames: UInt32, bytesPerFrame: Int, count: Int) -> UnsafeMutableRawPointer? {
            guard let cache, count == cacheBuffers, Int(frames) * bytesPerFrame <= cacheBytes else { return nil }
            cache.storeBytes(of: UInt32(count), as: UInt32.self)
            let data = cache + 8 + 16 * count
            for b in 0..<count {
                let entry = cache + 8 + 16 * b
                entry.storeBytes(of: UInt32(channelsPerBuffer), as: UInt32.self)
                entry.storeBytes(of: UInt32(Int(frames) * bytesPerFrame), toByteOffset: 4, as: UInt32.self)
                entry.storeBytes(of: data + b * cacheBytes, toByteOffset: 8, as: UnsafeMutableRawPointer?.self)
            }
            return cache
        }
    }

    /// Pulls the source with no lock taken: the link holds it.
    package static let pull: RenderCallback.Procedure = { refCon, flags, stamp, _, frames, list in
        let link = Unmanaged<Link>.fromOpaque(refCon!).takeUnretainedValue()
        guard let list else { return UnitError.parameter.rawValue }
        do throws(UnitError) {
            if link.shared.cache != nil {
                try pullShared(link, flags: flags, stamp: stamp, frames: frames, list: list)
            } else {
                try render(link, flags: flags, stamp: stamp, frames: frames, list: list)
            }
            return 0
        } catch {
            return error.rawValue
        }
    }

    private static func render(_ link: Link, flags: UnsafeMutablePointer<UInt32>, stamp: UnsafeRawPointer, frames: UInt32,
                               list: UnsafeMutableRawPointer) throws(UnitError) {
        if let device = link.device {
            guard link.output == 1 else { throw .invalidElement }
            try device.renderInput(frames: frames, list: list)
        } else {
            try link.source.renderPulled(flags: flags, timeStamp: stamp, bus: link.output, frames: frames, list: list)
        }
    }

    /// A shared output: rendered into its cache the first time a render time asks for it,
    /// then copied into each destination's buffers (or lent, where they pass none).
    private static func pullShared(_ link: Link, flags: UnsafeMutablePointer<UInt32>, stamp: UnsafeRawPointer,
                                   frames: UInt32, list: UnsafeMutableRawPointer) throws(UnitError) {
        let shared = link.shared
        let count = Int(list.load(as: UInt32.self))
        let bytes = Int((list + 8).load(fromByteOffset: 4, as: UInt32.self))
        let bytesPerFrame = frames > 0 ? bytes / Int(frames) : 0
        let timed = stamp.load(fromByteOffset: 56, as: UInt32.self) & 1 != 0
        guard timed, let cache = shared.list(frames: frames, bytesPerFrame: bytesPerFrame, count: count) else {
            try render(link, flags: flags, stamp: stamp, frames: frames, list: list)
            return
        }
        let time = stamp.load(as: Double.self)
        if shared.time != time || shared.frames != frames {
            try render(link, flags: flags, stamp: stamp, frames: frames, list: cache)
            shared.time = time
            shared.frames = frames
        }
        for b in 0..<count {
            let from = (cache + 8 + 16 * b).load(fromByteOffset: 8, as: UnsafeMutableRawPointer?.self)
            let entry = list + 8 + 16 * b
            if let to = entry.load(fromByteOffset: 8, as: UnsafeMutableRawPointer?.self), let from {
                to.copyMemory(from: from, byteCount: Int(frames) * bytesPerFrame)
            } else {
                entry.storeBytes(of: from, toByteOffset: 8, as: UnsafeMutableRawPointer?.self)
            }
            entry.storeBytes(of: UInt32(Int(frames) * bytesPerFrame), toByteOffset: 4, as: UInt32.self)
        }
    }

    /// Connects (or, with no source, disconnects) the destination's input. The
    /// destination's input takes the source's output format, as the phone's units do.
    package static func connect(_ destination: any AudioUnitInstance, _ handle: OpaquePointer?,
                                _ connection: AudioUnitConnection) throws(UnitError) {
        let input = connection.destInputNumber
        guard input < destination.elementCount(.input) else { throw .invalidElement }
        guard let sourceHandle = connection.sourceAudioUnit else {
            try destination.setRenderCallback(nil, input: input)
            return
        }
        guard let source = UnitHandles.unit(sourceHandle), source !== destination else { throw .invalidPropertyValue }
        guard connection.sourceOutputNumber < source.elementCount(.output) else { throw .invalidElement }
        try destination.takeFormat(input: input, from: source, output: connection.sourceOutputNumber)
        // The same source connected again (a graph updated back and forth) reuses its
        // link: the links a unit keeps grow only with the pairs it was ever fed by.
        // The source keeps one SharedOutput an output; a second input fed from it (of
        // another unit, or another bus of the same) makes it render once for all.
        let output = connection.sourceOutputNumber
        let shared: SharedOutput
        if let kept = source.keptObjects.lazy.compactMap({ $0 as? SharedOutput }).first(where: { $0.output == output }) {
            shared = kept
        } else {
            shared = SharedOutput(output: output)
            source.keepAlive(shared)
        }
        shared.inputs.insert([UInt(bitPattern: ObjectIdentifier(destination).hashValue), UInt(input)])
        if shared.inputs.count >= 2 && shared.cache == nil, let layout = try? source.format(scope: .output, element: output) {
            shared.prepare(layout, frames: Int(max(4096, source.maximumFramesPerSlice)))
        }
        let link: Link
        if let known = destination.keptObjects.lazy.compactMap({ $0 as? Link })
            .first(where: { $0.source === source && $0.output == output }) {
            link = known
        } else {
            link = Link(source: source, output: output, shared: shared)
            destination.keepAlive(link)
        }
        try destination.setRenderCallback(RenderCallback(procedure: pull, refCon: Unmanaged.passUnretained(link).toOpaque()),
                                          input: input)
    }
}
