import AudioSessionCore
import AudioStreams
import AudioUnits
import CAudioToolbox
import Locking

// The units a program holds: the components, and the instances by handle from their
// making to their disposal.

/// The components (one static address each, never freed) and the live instances (by
/// handle: see HandleTable).
package enum UnitHandles {
    package static let components: [(UnitKind, UnsafeMutableRawPointer)] = UnitKind.all.map { kind in
        (kind, UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 16))
    }
    package static let instances = HandleTable<any AudioUnitInstance>(.unit)

    /// Registered with the first instance: in the child of a fork the units stay, stopped
    /// (their threads are the parent's), and the locks the parent's threads may have held
    /// are made usable again.
    package static let installForkHandler: Void = {
        ForkCoordinator.register(.units) {
            instances.reinitializeAfterFork()
            UnitListeners.all.reinitializeAfterFork()
            for unit in instances.objects { unit.resetAfterFork() }
        }
    }()

    /// A new instance of `kind` (AudioComponentInstanceNew, a graph's node): its handle.
    package static func make(_ kind: UnitKind) -> UInt {
        _ = installForkHandler
        let key = instances.reserve()
        let unit = kind.make(Runtime.withoutSession)
        unit.handle = key
        // An output unit's stops by the system reach the program; a device unit plays
        // in the session.
        let io = unit as? OutputUnit
        io?.onStoppedBySystem = { UnitListeners.tell(OpaquePointer(bitPattern: key), kAudioOutputUnitProperty_IsRunning) }
        instances.fill(key, with: unit)
        if kind.hasDevice, let io { playInSession(io) }
        return key
    }

    /// A device unit no handle names, playing in the session as a program's RemoteIO
    /// does: what the Swift classes' players mix into. nil for a kind without a device.
    package static func sessionUnit(_ kind: UnitKind) -> OutputUnit? {
        guard kind.hasDevice, let unit = kind.make(Runtime.withoutSession) as? OutputUnit else { return nil }
        playInSession(unit)
        return unit
    }

    /// What makes a device unit (a program's, the players', a queue's stream) the
    /// session's: its grants are told to the session, and the session feeds it.
    package static func playInSession(_ unit: OutputUnit) {
        unit.onGranted = { grant in reportGrant(grant) }
        Runtime.withCurrent { $0.session.attach(unit) }
    }

    /// Disposes of the instance `key`; false when there is none.
    package static func dispose(_ key: UInt) -> Bool {
        guard let removed = instances.remove(key) else { return false }
        removed.markDisposed()
        removed.uninitialize()
        if let io = removed as? OutputUnit { Runtime.withCurrent { $0.session.detach(io) } }
        UnitListeners.all.removeAll { $0.unit == key }
        return true
    }

    /// Starts an output unit (AudioOutputUnitStart, AUGraphStart): an I/O unit plays in
    /// the session, so starting one activates an inactive session, and a refused
    /// activation (a call, a non-mixing program that will not yield) refuses the start
    /// with the session's code. Listeners of IsRunning hear of a change.
    package static func start(_ handle: OpaquePointer?, _ u: OutputUnit) -> Int32 {
        guard u.kind.isOutput else { return UnitError.unimplemented.rawValue }
        if u.kind.hasDevice, u.isInitialized, !u.isRunning {
            let refusal = Runtime.startingService(u)
            if refusal != 0 { return refusal }
        }
        do throws(UnitError) {
            if try u.start() { UnitListeners.tell(handle, kAudioOutputUnitProperty_IsRunning) }
            return 0
        } catch {
            return error.rawValue
        }
    }

    /// Stops an output unit (AudioOutputUnitStop, AUGraphStop); listeners of IsRunning
    /// hear of a change. Stopping a unit that is not running is done.
    package static func stop(_ handle: OpaquePointer?, _ u: OutputUnit) -> Int32 {
        guard u.kind.isOutput else { return UnitError.unimplemented.rawValue }
        if u.stop() { UnitListeners.tell(handle, kAudioOutputUnitProperty_IsRunning) }
        return 0
    }

    package static func kind(_ component: OpaquePointer?) -> UnitKind? {
        guard let component else { return nil }
        return components.first { OpaquePointer($0.1) == component }?.0
    }

    package static func unit(_ handle: OpaquePointer?) -> (any AudioUnitInstance)? {
        instances.get(handle)
    }

    /// The I/O, generic or converter unit `handle` names; nil for a mixer or none.
    package static func outputUnit(_ handle: OpaquePointer?) -> OutputUnit? {
        instances.get(handle) as? OutputUnit
    }

    package static func outputUnit(_ key: UInt) -> OutputUnit? {
        instances.get(key) as? OutputUnit
    }

    /// What a stream was granted, told to the session (IOBufferDuration, latencies).
    package static func reportGrant(_ grant: StreamGrant) {
        let period = Float(Double(grant.periodFrames) / grant.sampleRate)
        let format = StreamFormat(sampleRate: grant.sampleRate, ioBufferDuration: period,
                                  inputLatency: grant.captureChannels > 0 ? period : 0,
                                  outputLatency: grant.playbackChannels > 0
                                      ? Float(Double(grant.bufferFrames) / grant.sampleRate) : 0)
        Runtime.withCurrent { $0.session.streamGranted(format) }
    }

    /// The kinds a description matches (0 in a field: any), in AudioComponentFindNext's order.
    package static func matching(_ description: AudioComponentDescription) -> [UnitKind] {
        UnitKind.matching(type: description.componentType, subtype: description.componentSubType,
                          manufacturer: description.componentManufacturer)
    }
}
