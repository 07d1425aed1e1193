import Synchronization

/// The library's one lock-free ring between exactly one producing thread and one
/// consuming thread: a real-time thread on one side never waits for the other. It holds
/// frames of `channels` plain values each (samples, pointers, small structs), so writing
/// and reading retain nothing and allocate nothing.
///
/// Used for a queue's buffers (one value a frame), its samples (Float frames), the
/// system sounds joining a unit's stream (16-bit stereo frames).
public final class SPSCRing<Element: BitwiseCopyable>: @unchecked Sendable {
    public let channels: Int
    private let storage: UnsafeMutablePointer<Element>
    private let capacity: Int
    /// Frames written and read since the start; their difference is what waits.
    private let written = Atomic<Int>(0)
    private let read = Atomic<Int>(0)
    /// Frames a full ring refused to `write`.
    public let dropped = Atomic<Int>(0)

    public init(frames: Int, channels: Int = 1, filler: Element) {
        capacity = frames
        self.channels = channels
        storage = .allocate(capacity: frames * channels)
        storage.initialize(repeating: filler, count: frames * channels)
    }

    deinit { storage.deallocate() }

    /// Frames waiting (either side may ask).
    public var available: Int { written.load(ordering: .acquiring) - read.load(ordering: .acquiring) }
    public var isEmpty: Bool { available == 0 }
    /// Frames that would fit now (the producer's view).
    public var room: Int { capacity - available }

    /// Producer only: copies as many of `frames` frames as fit; returns how many (the
    /// rest is counted in `dropped`).
    @discardableResult
    public func write(_ from: UnsafePointer<Element>, frames: Int) -> Int {
        let head = written.load(ordering: .relaxed)
        let n = min(frames, capacity - (head - read.load(ordering: .acquiring)))
        if n < frames { dropped.add(frames - n, ordering: .relaxed) }
        var done = 0
        while done < n {
            let at = (head + done) % capacity
            let run = min(n - done, capacity - at)
            (storage + at * channels).update(from: from + done * channels, count: run * channels)
            done += run
        }
        written.store(head + n, ordering: .releasing)
        return n
    }

    /// Consumer only: hands up to `frames` waiting frames to `body` in at most two runs
    /// (ring order; `offset` is the run's first frame among them), then frees them.
    /// Returns how many.
    @discardableResult
    public func consume(upTo frames: Int, _ body: (_ run: UnsafePointer<Element>, _ offset: Int, _ count: Int) -> Void) -> Int {
        let tail = read.load(ordering: .relaxed)
        let n = min(frames, written.load(ordering: .acquiring) - tail)
        var done = 0
        while done < n {
            let at = (tail + done) % capacity
            let run = min(n - done, capacity - at)
            body(storage + at * channels, done, run)
            done += run
        }
        read.store(tail + n, ordering: .releasing)
        return n
    }

    /// Consumer only: copies up to `frames` frames out; returns how many.
    public func take(into out: UnsafeMutablePointer<Element>, frames: Int) -> Int {
        consume(upTo: frames) { run, offset, count in
            (out + offset * channels).update(from: run, count: count * channels)
        }
    }

    /// Producer only, one value a frame. False when full.
    @discardableResult
    public func push(_ element: Element) -> Bool {
        withUnsafePointer(to: element) { write($0, frames: 1) == 1 }
    }

    /// Consumer only, one value a frame.
    public func pop() -> Element? {
        var element: Element?
        consume(upTo: 1) { run, _, _ in element = run.pointee }
        return element
    }

    /// Consumer only: the first waiting frame, left waiting (until `pop` or `consume`);
    /// nil if none.
    public func peek() -> UnsafePointer<Element>? {
        let tail = read.load(ordering: .relaxed)
        guard written.load(ordering: .acquiring) > tail else { return nil }
        return UnsafePointer(storage + (tail % capacity) * channels)
    }

    /// Consumer only: frees the first waiting frame.
    public func drop() { _ = consume(upTo: 1) { _, _, _ in } }

    /// Consumer only (or with the producer stopped): forgets what waits.
    public func clear() { read.store(written.load(ordering: .acquiring), ordering: .releasing) }
}
