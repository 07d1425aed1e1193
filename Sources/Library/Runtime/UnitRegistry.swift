import AudioSessionCore
import AudioStreams
import AudioUnits
import CAudioToolbox
import Locking

// The units a program holds: the components, the instances by handle, their
// connections and their property listeners.

/// The components (one static address each, never freed) and the live instances (by
/// handle: see HandleTable).
package enum UnitHandles {
    package static let components: [(UnitKind, UnsafeMutableRawPointer)] = UnitKind.allCases.map { kind in
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
        guard kind != .multiChannelMixer else {
            let mixer = MixerUnit()
            mixer.handle = key
            instances.fill(key, with: mixer)
            return key
        }
        let unit = OutputUnit(kind: kind, fedWith: Runtime.withoutSession)
        unit.handle = key
        unit.onStoppedBySystem = { UnitListeners.tell(OpaquePointer(bitPattern: key), kAudioOutputUnitProperty_IsRunning) }
        unit.onGranted = { grant in reportGrant(grant) }
        instances.fill(key, with: unit)
        if kind.hasDevice { Runtime.withCurrent { $0.session.attach(unit) } }
        return key
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

    package static func matches(_ kind: UnitKind, _ description: AudioComponentDescription) -> Bool {
        (description.componentType == 0 || description.componentType == kind.type)
            && (description.componentSubType == 0 || description.componentSubType == kind.subtype)
            && (description.componentManufacturer == 0 || description.componentManufacturer == kind.manufacturer)
    }
}

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
        try matchFormat(source, output: connection.sourceOutputNumber, destination, input: input)
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

    /// The destination's input format made the source's output format (a connection
    /// made, a graph initialized after either changed).
    package static func matchFormat(_ source: any AudioUnitInstance, output: UInt32, _ destination: any AudioUnitInstance,
                                    input: UInt32) throws(UnitError) {
        let format = try source.format(scope: .output, element: output)
        guard (try? destination.format(scope: .input, element: input)) != format else { return }
        try destination.setFormat(format, scope: .input, element: input)
    }

}

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

