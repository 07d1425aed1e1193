import Synchronization

/// A fixed ring between exactly one producing thread and one consuming thread, with no
/// lock: the real-time side of a queue never waits for the program's. Elements are
/// plain values (pointers and numbers), so pushing and popping retain nothing.
final class HandOffRing<Element: BitwiseCopyable>: @unchecked Sendable {
    private let slots: UnsafeMutablePointer<Element>
    private let capacity: Int
    /// Counts of pushes and pops since the start; their difference is what waits.
    private let pushed = Atomic<Int>(0)
    private let popped = Atomic<Int>(0)

    init(capacity: Int, filler: Element) {
        self.capacity = capacity
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: filler, count: capacity)
    }

    deinit { slots.deallocate() }

    var count: Int { pushed.load(ordering: .acquiring) - popped.load(ordering: .acquiring) }
    var isEmpty: Bool { count == 0 }

    /// Producer only. False when full.
    @discardableResult
    func push(_ element: Element) -> Bool {
        let head = pushed.load(ordering: .relaxed)
        guard head - popped.load(ordering: .acquiring) < capacity else { return false }
        slots[head % capacity] = element
        pushed.store(head + 1, ordering: .releasing)
        return true
    }

    /// Consumer only.
    func pop() -> Element? {
        let tail = popped.load(ordering: .relaxed)
        guard pushed.load(ordering: .acquiring) > tail else { return nil }
        let element = slots[tail % capacity]
        popped.store(tail + 1, ordering: .releasing)
        return element
    }
}

/// Interleaved Float frames from the input thread to the queue's thread: a ring of
/// samples with the same one-producer, one-consumer rule. A producer that finds it full
/// drops the newest frames (counted), never waits.
final class SampleRing: @unchecked Sendable {
    private let samples: UnsafeMutablePointer<Float>
    private let capacityFrames: Int
    let channels: Int
    private let written = Atomic<Int>(0)
    private let read = Atomic<Int>(0)
    let dropped = Atomic<Int>(0)

    init(frames: Int, channels: Int) {
        capacityFrames = frames
        self.channels = channels
        samples = .allocate(capacity: frames * channels)
        samples.initialize(repeating: 0, count: frames * channels)
    }

    deinit { samples.deallocate() }

    var available: Int { written.load(ordering: .acquiring) - read.load(ordering: .acquiring) }

    /// Producer only.
    func write(_ from: UnsafePointer<Float>, frames: Int) {
        let head = written.load(ordering: .relaxed)
        let room = capacityFrames - (head - read.load(ordering: .acquiring))
        let n = min(frames, room)
        if n < frames { dropped.add(frames - n, ordering: .relaxed) }
        var done = 0
        while done < n {
            let at = (head + done) % capacityFrames
            let run = min(n - done, capacityFrames - at)
            (samples + at * channels).update(from: from + done * channels, count: run * channels)
            done += run
        }
        written.store(head + n, ordering: .releasing)
    }

    /// Consumer only: up to `frames` frames; returns how many.
    func take(into out: UnsafeMutablePointer<Float>, frames: Int) -> Int {
        let tail = read.load(ordering: .relaxed)
        let n = min(frames, written.load(ordering: .acquiring) - tail)
        var done = 0
        while done < n {
            let at = (tail + done) % capacityFrames
            let run = min(n - done, capacityFrames - at)
            (out + done * channels).update(from: samples + at * channels, count: run * channels)
            done += run
        }
        read.store(tail + n, ordering: .releasing)
        return n
    }

    /// Consumer only (or with the producer stopped): forgets what waits.
    func clear() { read.store(written.load(ordering: .acquiring), ordering: .releasing) }
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
