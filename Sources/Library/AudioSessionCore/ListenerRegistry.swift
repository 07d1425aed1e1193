import Locking

/// The registered property listeners: one per (property, client data) pair.
///
/// Procedures and client data are opaque addresses here; only the ABI layer knows their
/// C types. Dispatch takes a snapshot and re-checks each entry just before calling it,
/// so a listener removed (or replaced) by an earlier callback of the same dispatch is
/// not called.
public final class ListenerRegistry: Sendable {
    public struct Entry: Sendable {
        public let token: UInt64
        public let id: PropertyID
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

    public init() {}

    /// Adds a listener, replacing the procedure of an existing (id, clientData) pair.
    public func add(_ id: PropertyID, procedure: UInt, clientData: UInt) {
        state.withLock { state in
            let entry = Entry(token: state.nextToken, id: id, procedure: procedure, clientData: clientData)
            state.nextToken += 1
            state.liveTokens.insert(entry.token)
            if let index = state.entries.firstIndex(where: { $0.id == id && $0.clientData == clientData }) {
                state.liveTokens.remove(state.entries[index].token)
                state.entries[index] = entry
            } else {
                state.entries.append(entry)
            }
        }
    }

    /// Removes the (id, clientData) listener if its procedure is `procedure`.
    public func remove(_ id: PropertyID, procedure: UInt, clientData: UInt) {
        state.withLock { state in
            state.remove { $0.id == id && $0.clientData == clientData && $0.procedure == procedure }
        }
    }

    /// Removes every listener of `id`.
    public func removeAll(_ id: PropertyID) {
        state.withLock { state in state.remove { $0.id == id } }
    }

    /// The listeners of `id` at this moment, in registration order.
    public func snapshot(_ id: PropertyID) -> [Entry] {
        state.withLock { state in state.entries.filter { $0.id == id } }
    }

    /// Whether the entry is still registered (not removed or replaced since the snapshot).
    public func isCurrent(_ entry: Entry) -> Bool {
        state.withLock { state in state.liveTokens.contains(entry.token) }
    }

    public var count: Int { state.withLock { $0.entries.count } }
}
