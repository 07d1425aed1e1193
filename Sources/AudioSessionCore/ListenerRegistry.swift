import Locking

/// The registered property listeners: one per (property, client data) pair.
///
/// The core stores procedures as opaque addresses; only the ABI layer knows their C
/// type. Dispatch takes a snapshot and re-checks each entry just before calling it, so
/// a listener removed by an earlier callback of the same dispatch is not called.
public final class ListenerRegistry<Procedure: Equatable & Sendable>: Sendable {
    public struct Entry: Sendable {
        public let token: UInt64
        public let id: PropertyID
        public let procedure: Procedure
        public let clientData: UInt
    }

    private struct State {
        var entries: [Entry] = []
        var nextToken: UInt64 = 1
    }
    private let state = Locked(State())

    public init() {}

    /// Adds a listener, replacing the procedure of an existing (id, clientData) pair.
    public func add(_ id: PropertyID, procedure: Procedure, clientData: UInt) {
        state.withLock { state in
            let entry = Entry(token: state.nextToken, id: id, procedure: procedure, clientData: clientData)
            state.nextToken += 1
            if let index = state.entries.firstIndex(where: { $0.id == id && $0.clientData == clientData }) {
                state.entries[index] = entry
            } else {
                state.entries.append(entry)
            }
        }
    }

    /// Removes the (id, clientData) listener if its procedure is `procedure`.
    public func remove(_ id: PropertyID, procedure: Procedure, clientData: UInt) {
        state.withLock { state in
            state.entries.removeAll { $0.id == id && $0.clientData == clientData && $0.procedure == procedure }
        }
    }

    /// Removes every listener of `id`.
    public func removeAll(_ id: PropertyID) {
        state.withLock { state in state.entries.removeAll { $0.id == id } }
    }

    /// The listeners of `id` at this moment, in registration order.
    public func snapshot(_ id: PropertyID) -> [Entry] {
        state.withLock { state in state.entries.filter { $0.id == id } }
    }

    /// Whether the entry is still registered (not removed or replaced since the snapshot).
    public func isCurrent(_ entry: Entry) -> Bool {
        state.withLock { state in state.entries.contains { $0.token == entry.token } }
    }

    public var count: Int { state.withLock { $0.entries.count } }
}
