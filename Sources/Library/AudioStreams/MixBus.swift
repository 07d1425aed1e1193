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
/// a ring of 16-bit stereo frames at the device's rate, with two counters. The reader
/// takes what is there and never waits; the writer waits (sleeping a millisecond) while
/// the ring is full.
public final class MixBus: @unchecked Sendable {
    public let device: AudioOutputDevice
    public let sampleRate: Double
    /// Frames the device holds after the ring (its queued buffer).
    public let deviceLatency: Int
    private let samples: UnsafeMutablePointer<Int16>
    private let capacity: Int
    private let written = Atomic<Int>(0)
    private let taken = Atomic<Int>(0)
    private let open = Atomic<Bool>(true)

    private static let offered = Locked<[MixBus]>([])

    private init(device: AudioOutputDevice, sampleRate: Double, deviceLatency: Int, capacity: Int) {
        self.device = device
        self.sampleRate = sampleRate
        self.deviceLatency = deviceLatency
        self.capacity = capacity
        samples = .allocate(capacity: capacity * 2)
        samples.initialize(repeating: 0, count: capacity * 2)
    }

    deinit { samples.deallocate() }

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
    public var delay: Int { written.load(ordering: .acquiring) - taken.load(ordering: .acquiring) + deviceLatency }

    /// Writes `frames` stereo frames, waiting for room; false once the stream has closed
    /// (what was not written is dropped).
    public func write(_ frames: UnsafePointer<Int16>, count: Int) -> Bool {
        var done = 0
        while done < count {
            guard open.load(ordering: .acquiring) else { return false }
            let head = written.load(ordering: .relaxed)
            let room = capacity - (head - taken.load(ordering: .acquiring))
            if room == 0 {
                usleep(1000)
                continue
            }
            let n = min(room, count - done)
            for i in 0..<n {
                let at = (head + i) % capacity
                samples[2 * at] = frames[2 * (done + i)]
                samples[2 * at + 1] = frames[2 * (done + i) + 1]
            }
            written.store(head + n, ordering: .releasing)
            done += n
        }
        return true
    }

    /// The I/O thread: adds what is there (up to `frames`) to its period, saturating.
    public func mix(into period: UnsafeMutablePointer<Int16>, frames: Int) {
        let tail = taken.load(ordering: .relaxed)
        let available = min(frames, written.load(ordering: .acquiring) - tail)
        guard available > 0 else { return }
        for i in 0..<available {
            let at = (tail + i) % capacity
            for c in 0..<2 {
                let sum = Int32(period[2 * i + c]) + Int32(samples[2 * at + c])
                period[2 * i + c] = Int16(clamping: sum)
            }
        }
        taken.store(tail + available, ordering: .releasing)
    }
}
