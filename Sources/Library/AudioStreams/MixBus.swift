import AudioSessionCore
import Glibc
import Locking
import Synchronization

/// Where the program's other sounds join a running I/O unit's stream: while a unit plays
/// on a device, the system sounds of the same program are mixed into its periods rather
/// than opening a second stream, which an exclusive device (`hw:N`) would refuse and
/// which would play a period out of step anyway — as on the phone, where they mix.
///
/// One writer (the system sounds' mixer thread) and one reader (the unit's I/O thread):
/// an SPSCRing of 16-bit stereo frames at the device's rate. The reader takes what is
/// there and never waits; the writer waits (sleeping a millisecond) while the ring is
/// full.
public final class MixBus: @unchecked Sendable {
    public let device: AudioOutputDevice
    public let sampleRate: Double
    /// Frames the device holds after the ring (its queued buffer).
    public let deviceLatency: Int
    private let ring: SPSCRing<Int16>
    private let open = Atomic<Bool>(true)

    private static let offered = Locked<[MixBus]>([])

    private init(device: AudioOutputDevice, sampleRate: Double, deviceLatency: Int, capacity: Int) {
        self.device = device
        self.sampleRate = sampleRate
        self.deviceLatency = deviceLatency
        ring = SPSCRing(frames: capacity, channels: 2, filler: 0)
    }

    /// A unit's stream offers its periods (when its stream opens; the first on a device
    /// wins).
    public static func offer(device: AudioOutputDevice, sampleRate: Double, deviceLatency: Int) -> MixBus? {
        offered.withLock { list in
            guard !list.contains(where: { $0.device == device }) else { return nil }
            let bus = MixBus(device: device, sampleRate: sampleRate, deviceLatency: deviceLatency, capacity: 8192)
            list.append(bus)
            return bus
        }
    }

    /// The stream closes: writers find the bus closed and stop.
    public func withdraw() {
        open.store(false, ordering: .releasing)
        MixBus.offered.withLock { list in list.removeAll { $0 === self } }
    }

    /// The bus of a unit playing on `device` now, if any.
    public static func joining(_ device: AudioOutputDevice) -> MixBus? {
        offered.withLock { list in list.first { $0.device == device } }
    }

    /// Frames written and not yet heard: in the ring, then in the device.
    public var delay: Int { ring.available + deviceLatency }

    /// Writes `frames` stereo frames, waiting for room; false once the stream has closed
    /// (what was not written is dropped).
    public func write(_ frames: UnsafePointer<Int16>, count: Int) -> Bool {
        var done = 0
        while done < count {
            guard open.load(ordering: .acquiring) else { return false }
            let room = ring.room
            if room == 0 {
                usleep(1000)
                continue
            }
            done += ring.write(frames + 2 * done, frames: min(room, count - done))
        }
        return true
    }

    /// The I/O thread: adds what is there (up to `frames`) to its period, saturating.
    public func mix(into period: UnsafeMutablePointer<Int16>, frames: Int) {
        ring.consume(upTo: frames) { run, offset, count in
            for i in 0..<(count * 2) {
                period[offset * 2 + i] = Int16(clamping: Int32(period[offset * 2 + i]) + Int32(run[i]))
            }
        }
    }
}
