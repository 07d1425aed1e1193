internal import AudioUnits
internal import Synchronization

/// The engine's last render time (`lastRenderTime` while it plays to the device): the
/// output unit's render notify keeps each render's sample and host time in atomics (on
/// the render thread: no lock, no allocation), which any thread reads.
final class RenderClock: @unchecked Sendable {
    private let sample = Atomic<Int64>(Int64.min)
    private let host = Atomic<UInt64>(0)

    var callback: RenderCallback { RenderCallback(procedure: RenderClock.notify, refCon: Unmanaged.passUnretained(self).toOpaque()) }

    /// The last render's (sample time, host time); nil before the first.
    var last: (sample: Int64, host: UInt64)? {
        let at = sample.load(ordering: .acquiring)
        return at == Int64.min ? nil : (at, host.load(ordering: .acquiring))
    }

    func clear() { sample.store(Int64.min, ordering: .releasing) }

    private static let notify: RenderCallback.Procedure = { refCon, flags, stamp, bus, _, _ in
        // kAudioUnitRenderAction_PreRender of the output (element 0).
        guard let refCon, bus == 0, flags.pointee & 4 != 0 else { return 0 }
        let clock = Unmanaged<RenderClock>.fromOpaque(refCon).takeUnretainedValue()
        let valid = stamp.load(fromByteOffset: 56, as: UInt32.self)
        if valid & 2 != 0 { clock.host.store(stamp.load(fromByteOffset: 8, as: UInt64.self), ordering: .releasing) }
        if valid & 1 != 0 { clock.sample.store(Int64(stamp.load(as: Double.self)), ordering: .releasing) }
        return 0
    }
}
