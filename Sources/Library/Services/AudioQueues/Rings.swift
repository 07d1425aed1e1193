import AudioStreams
import Synchronization

/// A queue's rings are the library's one lock-free ring (AudioStreams.SPSCRing): buffers
/// handed between the program's side and the real-time thread one value at a time, and
/// Float samples between the input thread (or the time/pitch stage) and their reader.
typealias SampleRing = SPSCRing<Float>

extension SPSCRing where Element == Float {
    convenience init(frames: Int, channels: Int) { self.init(frames: frames, channels: channels, filler: 0) }
}

/// An object the real-time thread reads with one atomic load: no lock, and no retain of
/// its own (the owner holds it strongly, and publishes or withdraws it only while the
/// real-time thread is stopped, so the reader never sees it freed).
final class RealTimeReference<Object: AnyObject>: @unchecked Sendable {
    private let bits = Atomic<UInt>(0)

    func publish(_ object: Object?) {
        bits.store(object.map { UInt(bitPattern: Unmanaged.passUnretained($0).toOpaque()) } ?? 0, ordering: .releasing)
    }

    var current: Object? {
        let value = bits.load(ordering: .acquiring)
        guard value != 0 else { return nil }
        return Unmanaged<Object>.fromOpaque(UnsafeRawPointer(bitPattern: value)!).takeUnretainedValue()
    }
}
