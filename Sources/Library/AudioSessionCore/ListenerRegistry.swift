import Locking

/// Registered property listeners: the session's (by property), a unit's or a queue's (by
/// the object and its property): the one listener list of the library.
///
/// Procedures and client data are opaque addresses here; only the ABI layer knows their
/// C types. Dispatch takes a snapshot and re-checks each entry just before calling it,
/// so a listener removed (or replaced) by an earlier callback of the same dispatch is
/// not called.
public final class ListenerRegistry<Key: Hashable & Sendable>: Sendable {
    /// What makes two registrations the same listener.
    public enum Identity: Sendable {
        /// One per (key, client data): a new procedure replaces the old one (the Audio
        /// Session's rule).
        case clientData
        /// One per (key, procedure, client data): adding it again changes nothing (units'
        /// and queues').
        case procedureAndClientData
    }

    public struct Entry: Sendable {
        public let token: UInt64
        public let id: Key
        /// The listener procedure's address.
        public let procedure: UInt
        public let clientData: UInt
    }

    private struct State {
        var entries: [Entry] = []
        var liveTokens: Set<UInt64> = []
        var nextToken: UInt64 = 1

        mutating func remove(where matches: (Entry) -> Bool) {
            for entry in entries where matches(entry) { liveTokens.remove(entry.token) }
            entries.removeAll(where: matches)
        }
    }
    private let state = Locked(State())
    private let identity: Identity

    public init(identity: Identity = .clientData) { self.identity = identity }

    /// Adds a listener (see Identity for one already there).
    public func add(_ id: Key, procedure: UInt, clientData: UInt) {
        state.withLock { state in
            let same = { (e: Entry) in
                e.id == id && e.clientData == clientData && (self.identity == .clientData || e.procedure == procedure)
            }
            if identity == .procedureAndClientData, state.entries.contains(where: same) { return }
            let entry = Entry(token: state.nextToken, id: id, procedure: procedure, clientData: clientData)
            state.nextToken += 1
            state.liveTokens.insert(entry.token)
            if let index = state.entries.firstIndex(where: same) {
                state.liveTokens.remove(state.entries[index].token)
                state.entries[index] = entry
            } else {
                state.entries.append(entry)
            }
        }
    }

    /// Removes the (id, clientData) listener if its procedure is `procedure`; whether
    /// there was one.
    @discardableResult
    public func remove(_ id: Key, procedure: UInt, clientData: UInt) -> Bool {
        state.withLock { state -> Bool in
            let before = state.entries.count
            state.remove { $0.id == id && $0.clientData == clientData && $0.procedure == procedure }
            return state.entries.count != before
        }
    }

    /// Removes every listener of `id`.
    public func removeAll(_ id: Key) {
        state.withLock { state in state.remove { $0.id == id } }
    }

    /// Removes every listener whose key `matches` (those of a disposed object).
    public func removeAll(where matches: (Key) -> Bool) {
        state.withLock { state in state.remove { matches($0.id) } }
    }

    /// The listeners of `id` at this moment, in registration order.
    public func snapshot(_ id: Key) -> [Entry] {
        state.withLock { state in state.entries.filter { $0.id == id } }
    }

    /// Whether the entry is still registered (not removed or replaced since the snapshot).
    public func isCurrent(_ entry: Entry) -> Bool {
        state.withLock { state in state.liveTokens.contains(entry.token) }
    }

    public var count: Int { state.withLock { $0.entries.count } }

    /// In the child of a fork: the lock may have been held by a thread of the parent's.
    public func reinitializeAfterFork() { state.reinitializeAfterFork() }
}

/// The session's listeners: by property, one per client data.
public typealias SessionListeners = ListenerRegistry<PropertyID>
