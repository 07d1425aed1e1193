internal import AudioUnits
public import Foundation

/// The engine's microphone (iOS's AVAudioInputNode). It is no unit of its own: it is the
/// output node's I/O unit seen from its element 1, as on the phone, where one RemoteIO
/// both plays and records. Its bus 0 is that unit's element 1, so a connection from it is
/// the graph's connection from the I/O node's output 1, and its tap is a render notify
/// of element 1.
///
/// The session's rule holds because it is the C unit's: outside a recording category
/// (`.playAndRecord`, `.record`, `.multiRoute`) the node gives silence.
open class AVAudioInputNode: AVAudioIONode, AVAudioMixing, @unchecked Sendable {
    init() { super.init(kind: .remoteIO) }

    override func unitBus(_ bus: AVAudioNodeBus) -> UInt32 { 1 }
    open override var numberOfInputs: Int { 0 }
    open override var numberOfOutputs: Int { 1 }

    open var volume: Float {
        get { mixing.withLock { $0.volume } }
        set { setMixing(volume: newValue) }
    }

    open var pan: Float {
        get { mixing.withLock { $0.pan } }
        set { setMixing(pan: newValue) }
    }
}

/// What renders the microphone when nothing in the graph pulls it (a tap on the input
/// node alone, the recording pattern): the I/O unit's input callback, which renders
/// element 1 into the unit's own buffers, so the element's render notifies (the tap) see
/// each slice. Real time: the list is made here, the callback allocates nothing.
final class InputDrain: @unchecked Sendable {
    private let unit: OutputUnit
    private let list: UnsafeMutableRawPointer
    let buffers: Int

    init(unit: OutputUnit, buffers: Int) {
        self.unit = unit
        self.buffers = max(1, buffers)
        list = .allocate(byteCount: 8 + 16 * self.buffers, alignment: 8)
        list.storeBytes(of: UInt32(self.buffers), as: UInt32.self)
    }

    deinit { list.deallocate() }

    var callback: RenderCallback { RenderCallback(procedure: InputDrain.render, refCon: Unmanaged.passUnretained(self).toOpaque()) }

    private static let render: RenderCallback.Procedure = { refCon, _, _, _, frames, _ in
        let drain = Unmanaged<InputDrain>.fromOpaque(refCon!).takeUnretainedValue()
        for b in 0..<drain.buffers {
            // No data pointers: the unit lends its own buffers, sized for the slice.
            let entry = drain.list + 8 + 16 * b
            entry.storeBytes(of: 1, as: UInt32.self)
            entry.storeBytes(of: 0, toByteOffset: 4, as: UInt32.self)
            entry.storeBytes(of: nil, toByteOffset: 8, as: UnsafeMutableRawPointer?.self)
        }
        do throws(UnitError) {
            try drain.unit.renderInput(frames: frames, list: drain.list)
            return 0
        } catch {
            return error.rawValue
        }
    }
}
