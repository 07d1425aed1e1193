/// A track's events and properties (MusicTrack). Events are kept in time order; events
/// at the same time stay in the order they were added.
public struct TrackData: Sendable {
    public let id: Int
    public var events: [MusicEvent] = []
    /// kSequenceTrackProperty_LoopInfo: the length looped (0: none) and how many times it
    /// plays (0: for ever).
    public var loopDuration = 0.0, loopCount: Int32 = 0
    /// kSequenceTrackProperty_OffsetTime, in beats.
    public var offset = 0.0
    public var muted = false, solo = false
    public var automatedParameters: UInt32 = 0
    /// A length the program set, or the end of the file's track; else the end of the
    /// last event (with its duration).
    public var explicitLength: Double?
    /// The node of the sequence's graph its events go to (nil: the graph's first music device).
    public var destination: Int32?

    public init(id: Int) { self.id = id }

    public var length: Double {
        let end = events.reduce(0.0) { max($0, $1.time + $1.duration) }
        return max(explicitLength ?? 0, end)
    }

    /// Where an event at `time` goes: after every event at that time or earlier.
    func insertionIndex(_ time: Double) -> Int {
        var low = 0, high = events.count
        while low < high {
            let middle = (low + high) / 2
            if events[middle].time <= time { low = middle + 1 } else { high = middle }
        }
        return low
    }

    public mutating func add(_ event: MusicEvent) { events.insert(event, at: insertionIndex(event.time)) }

    /// The first event at or after `time`.
    public func index(atOrAfter time: Double) -> Int {
        var low = 0, high = events.count
        while low < high {
            let middle = (low + high) / 2
            if events[middle].time < time { low = middle + 1 } else { high = middle }
        }
        return low
    }

    // MARK: Edits (MusicTrackClear, Cut, CopyInsert, Merge, MoveEvents)

    /// The events from `start` up to (not including) `end`.
    public func events(from start: Double, to end: Double) -> [MusicEvent] {
        events.filter { $0.time >= start && $0.time < end }
    }

    public mutating func clear(from start: Double, to end: Double) {
        events.removeAll { $0.time >= start && $0.time < end }
    }

    /// Clears the range and moves what follows it back by its length.
    public mutating func cut(from start: Double, to end: Double) {
        clear(from: start, to: end)
        for i in events.indices where events[i].time >= end { events[i].time -= end - start }
    }

    /// Puts `inserted` (times from 0) at `at`, moving what was at or after `at` later by
    /// `length` when `shifting`.
    public mutating func insert(_ inserted: [MusicEvent], at: Double, length: Double, shifting: Bool) {
        if shifting { for i in events.indices where events[i].time >= at { events[i].time += length } }
        for var event in inserted {
            event.time += at
            add(event)
        }
    }

    /// Moves the events of a range by `amount` beats (none before 0).
    public mutating func move(from start: Double, to end: Double, by amount: Double) throws(MusicError) {
        let moving = events(from: start, to: end)
        guard moving.allSatisfy({ $0.time + amount >= 0 }) else { throw .parameter }
        clear(from: start, to: end)
        for var event in moving {
            event.time += amount
            add(event)
        }
    }
}
