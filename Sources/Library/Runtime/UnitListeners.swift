import AudioSessionCore
import AudioStreams
import AudioUnits
import CAudioToolbox
import Locking

/// Property listeners, by unit handle: called on the caller's thread after the change,
/// with no lock held.
package enum UnitListeners {
    /// A unit (by handle) and one of its properties.
    package struct Key: Hashable, Sendable {
        package let unit: UInt
        package let id: UInt32
        package init(_ unit: OpaquePointer, _ id: UInt32) {
            self.unit = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(unit)))
            self.id = id
        }
    }
    package static let all = ListenerRegistry<Key>(identity: .procedureAndClientData)

    package static func address(of proc: AudioUnitPropertyListenerProc) -> UInt { UInt(bitPattern: unsafeBitCast(proc, to: Int.self)) }

    package static func tell(_ unit: OpaquePointer?, _ id: Int) { tell(unit, UInt32(id)) }

    package static func tell(_ unit: OpaquePointer?, _ id: UInt32) {
        guard let unit else { return }
        // A listener removed by an earlier one of this batch is not called.
        for listener in all.snapshot(Key(unit, id)) where all.isCurrent(listener) {
            let proc = unsafeBitCast(UnsafeRawPointer(bitPattern: listener.procedure)!, to: AudioUnitPropertyListenerProc.self)
            proc(UnsafeMutableRawPointer(bitPattern: listener.clientData), unit, id, UInt32(kAudioUnitScope_Global), 0)
        }
    }
}
