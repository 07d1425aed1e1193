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
        package init(source: any AudioUnitInstance, output: UInt32) {
            self.source = source
            device = (source as? OutputUnit).flatMap { $0.kind.hasDevice ? $0 : nil }
            self.output = output
        }
    }

    /// Pulls the source with no lock taken: the link holds it.
    package static let pull: RenderCallback.Procedure = { refCon, flags, stamp, _, frames, list in
        let link = Unmanaged<Link>.fromOpaque(refCon!).takeUnretainedValue()
        guard let list else { return UnitError.parameter.rawValue }
        do throws(UnitError) {
            if let device = link.device {
                guard link.output == 1 else { throw .invalidElement }
                try device.renderInput(frames: frames, list: list)
            } else {
                try link.source.renderPulled(flags: flags, timeStamp: stamp, bus: link.output, frames: frames, list: list)
            }
            return 0
        } catch {
            return error.rawValue
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
        let link: Link
        if let known = destination.keptObjects.lazy.compactMap({ $0 as? Link })
            .first(where: { $0.source === source && $0.output == connection.sourceOutputNumber }) {
            link = known
        } else {
            link = Link(source: source, output: connection.sourceOutputNumber)
            destination.keepAlive(link)
        }
        try destination.setRenderCallback(RenderCallback(procedure: pull, refCon: Unmanaged.passUnretained(link).toOpaque()),
                                          input: input)
    }
}
