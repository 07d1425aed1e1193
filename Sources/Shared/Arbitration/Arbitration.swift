import ArbiterProtocol

/// Who holds an interruption over a session.
public enum Holder: Hashable, Sendable {
    case session(UInt32)
    case system(SystemInterruption)
}

/// What one session's activation does to another, by whether each mixes (SPEC 7).
public enum ActivationEffect: Sendable { case interrupt, leave }

/// The policy of SPEC 7 as data. Every decision of `Arbitration` reads this table.
public enum ArbitrationTable {
    /// (activator mixes, other mixes) → what happens to the other active session.
    public static let onActivation: [Bool: [Bool: ActivationEffect]] = [
        false: [false: .interrupt, true: .leave],
        true: [false: .leave, true: .leave],
    ]
    /// Whether a system interruption (call, alarm) interrupts a session, by whether it
    /// mixes: "the phone always wins", whatever the category and options.
    public static let systemInterrupts: [Bool: Bool] = [false: true, true: true]
    /// Whether a deactivation ends the interruptions it caused, by its notify flag. A
    /// session that exits or dies counts as deactivating with the flag.
    public static let deactivationEnds: [Bool: Bool] = [true: true, false: false]
    /// Whether an active session with these traits lowers the others.
    public static func ducksOthers(_ traits: ClaimTraits) -> Bool { traits.contains(.ducks) }
    /// Whether an active session with these traits is "other audio" to the rest.
    public static func countsAsOtherAudio(_ traits: ClaimTraits) -> Bool { traits.contains(.output) }
}

/// What a client must be told.
public enum Notice: Equatable, Sendable {
    case interruptionBegan(bySystem: Bool)
    case interruptionEnded(shouldResume: Bool)
    case otherAudio(playing: Bool)
    case ducked(Bool)
    case systemState(interrupting: Bool)
    case silentSwitch(on: Bool)
}

/// The sessions of one user and who interrupted whom: a stack of claims, as Android's
/// audio focus keeps one. Pure: every operation returns the notices to send, in order.
public struct Arbitration: Sendable {
    public struct Participant: Sendable {
        public var pid: UInt32
        public var program: String
        public var category: UInt32 = 0
        public var mode: UInt32 = 0
        public var traits: ClaimTraits = [.output]
        public var state: ArbiterStatus.State = .inactive
        /// Everyone whose claim keeps this session interrupted; End comes when it empties.
        public var interruptedBy: Set<Holder> = []
        // What the client was last told, so that only changes are sent.
        var toldOtherAudio = false
        var toldDucked = false
        var toldSystem = false
        var toldSilent = false
    }

    public private(set) var participants: [UInt32: Participant] = [:]
    /// Active claims, oldest first (the top of the stack is the newest).
    public private(set) var stack: [UInt32] = []
    public private(set) var systemInterruptions: [SystemInterruption] = []
    /// The silent switch (a system state): sounds marked IsUISound stay silent.
    public private(set) var silentSwitch = false
    /// The processes with a playback stream running on the sound server (0: unknown).
    public private(set) var soundServerStreams: [Int32] = []

    // Derived state, kept up to date as the stack changes, so that an operation costs
    // the same with 10 sessions or 1,000: each session's other audio and ducking follow
    // from these counts and its own part in them.
    /// Active sessions with output, and those that duck.
    private var activeOutputs: Set<UInt32> = []
    private var activeDuckers: Set<UInt32> = []
    /// Whose sound-server streams count as other audio: nobody's, everyone's but one
    /// process's, or everyone's.
    private enum ServerAudio: Equatable { case none, allBut(UInt32), all }
    private var serverAudio = ServerAudio.none
    /// The sessions each holder keeps interrupted.
    private var heldBy: [Holder: Set<UInt32>] = [:]
    /// How many sessions' derived state was evaluated (tests check that it does not grow
    /// with the number of sessions when nothing shared changes).
    public private(set) var evaluations = 0

    public init() {}

    public typealias Notices = [(client: UInt32, notice: Notice)]

    public mutating func join(_ id: UInt32, pid: UInt32, program: String) -> Notices {
        participants[id] = Participant(pid: pid, program: program)
        return refreshDerived(touching: [id], since: signature)
    }

    /// The session changed category, mode or options. A session that stops mixing while
    /// active claims again, as if it had just activated.
    public mutating func claim(_ id: UInt32, category: UInt32, mode: UInt32, traits: ClaimTraits) -> Notices {
        guard var p = participants[id] else { return [] }
        let before = signature
        let wasMixing = p.traits.contains(.mixes)
        // Active is on the stack: activation puts it there, and whatever takes it off
        // changes its state first.
        let onStack = p.state == .active
        if onStack { account(id, p.traits, active: false) }
        p.category = category
        p.mode = mode
        p.traits = traits
        participants[id] = p
        if onStack { account(id, traits, active: true) }
        var notices: Notices = []
        var touched: Set<UInt32> = [id]
        if p.state == .active && wasMixing && !traits.contains(.mixes) { notices += interruptOthers(for: id, touched: &touched) }
        return notices + refreshDerived(touching: touched, since: before)
    }

    public mutating func activate(_ id: UInt32) -> Notices {
        guard var p = participants[id] else { return [] }
        let before = signature
        let mixes = p.traits.contains(.mixes)
        // During a system interruption a session it interrupts cannot start: the library
        // refuses with 'what' itself; one that slipped through is interrupted.
        if let system = systemInterruptions.first, ArbitrationTable.systemInterrupts[mixes] == true {
            p.state = .interrupted
            participants[id] = p
            removeFromStack(id)
            hold(id, by: .system(system))
            return [(id, .interruptionBegan(bySystem: true))] + refreshDerived(touching: [id], since: before)
        }
        p.state = .active
        participants[id] = p
        releaseAllHolds(on: id)
        removeFromStack(id)
        pushOnStack(id)
        var touched: Set<UInt32> = [id]
        return interruptOthers(for: id, touched: &touched) + refreshDerived(touching: touched, since: before)
    }

    public mutating func deactivate(_ id: UInt32, notifyOthers: Bool) -> Notices {
        guard var p = participants[id] else { return [] }
        let before = signature
        // An interrupted session that deactivates stays interrupted: its End still comes.
        if p.state == .active { p.state = .inactive }
        participants[id] = p
        removeFromStack(id)
        var touched: Set<UInt32> = [id]
        return release(.session(id), ends: ArbitrationTable.deactivationEnds[notifyOthers] ?? false, touched: &touched)
            + refreshDerived(touching: touched, since: before)
    }

    /// The client exited or died: a deactivation with the flag, then it is forgotten.
    public mutating func leave(_ id: UInt32) -> Notices {
        guard participants[id] != nil else { return [] }
        var notices = deactivate(id, notifyOthers: true)
        releaseAllHolds(on: id)
        participants[id] = nil
        notices.removeAll { $0.client == id }
        return notices
    }

    public mutating func system(_ kind: SystemInterruption, active: Bool) -> Notices {
        var notices: Notices = []
        if active {
            guard !systemInterruptions.contains(kind) else { return [] }
            systemInterruptions.append(kind)
            notices += refreshSystemState()
            for id in stack {
                guard var p = participants[id], ArbitrationTable.systemInterrupts[p.traits.contains(.mixes)] == true
                else { continue }
                p.state = .interrupted
                participants[id] = p
                hold(id, by: .system(kind))
                notices.append((id, .interruptionBegan(bySystem: true)))
            }
            removeInactiveFromStack()
        } else {
            guard systemInterruptions.contains(kind) else { return [] }
            systemInterruptions.removeAll { $0 == kind }
            // The state first: an End handler that reactivates must find the call over.
            notices += refreshSystemState()
            // The sessions resume when no call or alarm is left (an alarm during a call
            // holds them too), always with ShouldResume.
            if systemInterruptions.isEmpty {
                var touched: Set<UInt32> = []
                for each in SystemInterruption.allCases { notices += release(.system(each), ends: true, touched: &touched) }
            }
        }
        // Every session hears of the system state: all are refreshed.
        return notices + refreshDerived(touching: [], since: nil)
    }

    /// The sound server's running playback streams changed: they are other audio to
    /// every session but their own program's.
    public mutating func setSoundServerStreams(_ owners: [Int32]) -> Notices {
        let before = signature
        soundServerStreams = owners
        let distinct = Set(owners)
        if distinct.isEmpty { serverAudio = .none }
        else if distinct.count == 1, let only = distinct.first, only != 0 { serverAudio = .allBut(UInt32(bitPattern: only)) }
        else { serverAudio = .all }
        return refreshDerived(touching: [], since: before)
    }

    public mutating func setSilentSwitch(_ on: Bool) -> Notices {
        let before = signature
        silentSwitch = on
        return refreshDerived(touching: [], since: before)
    }

    // MARK: Rules

    private mutating func interruptOthers(for id: UInt32, touched: inout Set<UInt32>) -> Notices {
        guard let activator = participants[id] else { return [] }
        let effects = ArbitrationTable.onActivation[activator.traits.contains(.mixes)] ?? [:]
        // An activator that interrupts nobody (it mixes) need not look at anyone.
        guard effects.values.contains(.interrupt) else { return [] }
        var notices: Notices = []
        for other in stack where other != id {
            guard var p = participants[other], p.state == .active,
                  effects[p.traits.contains(.mixes)] == .interrupt else { continue }
            p.state = .interrupted
            participants[other] = p
            hold(other, by: .session(id))
            touched.insert(other)
            notices.append((other, .interruptionBegan(bySystem: false)))
        }
        if !notices.isEmpty { removeInactiveFromStack() }
        return notices
    }

    /// `holder` lets go of the sessions it interrupted; those it held last get End if `ends`.
    /// Without `ends` nothing changes: the sessions stay interrupted, still held by
    /// `holder`, so a later deactivation of it with the flag ends their interruption.
    private mutating func release(_ holder: Holder, ends: Bool, touched: inout Set<UInt32>) -> Notices {
        guard ends else { return [] }
        var notices: Notices = []
        // Only the sessions this holder kept: the index says which.
        for id in (heldBy.removeValue(forKey: holder) ?? []).sorted() {
            guard var p = participants[id] else { continue }
            p.interruptedBy.remove(holder)
            if p.interruptedBy.isEmpty && ends {
                p.state = .inactive
                notices.append((id, .interruptionEnded(shouldResume: true)))
            }
            participants[id] = p
            touched.insert(id)
        }
        return notices
    }

    // MARK: Bookkeeping of the derived state

    private mutating func hold(_ id: UInt32, by holder: Holder) {
        participants[id]?.interruptedBy.insert(holder)
        heldBy[holder, default: []].insert(id)
    }

    /// `id` is no longer interrupted by anyone (it activated, or left).
    private mutating func releaseAllHolds(on id: UInt32) {
        guard let holders = participants[id]?.interruptedBy else { return }
        for holder in holders {
            heldBy[holder]?.remove(id)
            if heldBy[holder]?.isEmpty == true { heldBy[holder] = nil }
        }
        participants[id]?.interruptedBy = []
    }

    private mutating func pushOnStack(_ id: UInt32) {
        stack.append(id)
        if let traits = participants[id]?.traits { account(id, traits, active: true) }
    }

    private mutating func removeFromStack(_ id: UInt32) {
        guard let index = stack.lastIndex(of: id) else { return }
        stack.remove(at: index)
        if let traits = participants[id]?.traits { account(id, traits, active: false) }
    }

    private mutating func removeInactiveFromStack() {
        for id in stack where participants[id]?.state != .active { removeFromStack(id) }
    }

    private mutating func account(_ id: UInt32, _ traits: ClaimTraits, active: Bool) {
        if ArbitrationTable.countsAsOtherAudio(traits) {
            if active { activeOutputs.insert(id) } else { activeOutputs.remove(id) }
        }
        if ArbitrationTable.ducksOthers(traits) {
            if active { activeDuckers.insert(id) } else { activeDuckers.remove(id) }
        }
    }

    /// What every session's derived state depends on besides its own part.
    private struct Signature: Equatable {
        var outputs: Int
        var duckers: Int
        var server: ServerAudio
        var interrupting: Bool
        var silent: Bool
    }

    private var signature: Signature {
        Signature(outputs: activeOutputs.count, duckers: activeDuckers.count, server: serverAudio,
                  interrupting: !systemInterruptions.isEmpty, silent: silentSwitch)
    }

    /// Who must be looked at again after a change from `before`: everyone when what all
    /// share changed (no active output or ducker before and some now, or the reverse;
    /// the sound server, a call, the silent switch); when only the number of active
    /// outputs (duckers) went between one and more, the active ones themselves (a
    /// session's own part is at most one, so only theirs can change); and the touched.
    private func sessionsToRefresh(touched: Set<UInt32>, since before: Signature?) -> [UInt32] {
        let now = signature
        guard let before, min(before.outputs, 1) == min(now.outputs, 1), min(before.duckers, 1) == min(now.duckers, 1),
              before.server == now.server, before.interrupting == now.interrupting, before.silent == now.silent
        else { return participants.keys.sorted() }
        var ids = touched
        if min(before.outputs, 2) != min(now.outputs, 2) { ids.formUnion(activeOutputs) }
        if min(before.duckers, 2) != min(now.duckers, 2) { ids.formUnion(activeDuckers) }
        return ids.sorted()
    }

    /// Tells each client whether a system interruption is in progress, if that changed.
    private mutating func refreshSystemState() -> Notices {
        let interrupting = !systemInterruptions.isEmpty
        var notices: Notices = []
        for id in participants.keys.sorted() where participants[id]?.toldSystem != interrupting {
            participants[id]?.toldSystem = interrupting
            notices.append((id, .systemState(interrupting: interrupting)))
        }
        return notices
    }

    /// Other audio, ducking and the system state follow from the stack; tells each
    /// client what changed for it. Looks at every session only when what they share
    /// changed since `before` (nil: always); otherwise at the `touched` ones.
    private mutating func refreshDerived(touching touched: Set<UInt32>, since before: Signature?) -> Notices {
        let ids = sessionsToRefresh(touched: touched, since: before)
        var notices: Notices = []
        for id in ids { notices += refreshDerived(of: id) }
        return notices
    }

    private mutating func refreshDerived(of id: UInt32) -> Notices {
        guard var p = participants[id] else { return [] }
        evaluations += 1
        let onStack = p.state == .active
        let ownOutput = onStack && ArbitrationTable.countsAsOtherAudio(p.traits) ? 1 : 0
        let ownDucking = onStack && ArbitrationTable.ducksOthers(p.traits) ? 1 : 0
        let server: Bool
        switch serverAudio {
        case .none: server = false
        case .all: server = true
        case .allBut(let pid): server = pid != p.pid
        }
        let otherAudio = activeOutputs.count - ownOutput > 0 || server
        let ducked = activeDuckers.count - ownDucking > 0
        let interrupting = !systemInterruptions.isEmpty
        var notices: Notices = []
        // Ducking first: the OtherAudioIsPlaying listener that follows is then a point
        // where the program's sounds are already lowered.
        if ducked != p.toldDucked { notices.append((id, .ducked(ducked))) }
        if otherAudio != p.toldOtherAudio { notices.append((id, .otherAudio(playing: otherAudio))) }
        if interrupting != p.toldSystem { notices.append((id, .systemState(interrupting: interrupting))) }
        if silentSwitch != p.toldSilent { notices.append((id, .silentSwitch(on: silentSwitch))) }
        p.toldSilent = silentSwitch
        p.toldOtherAudio = otherAudio
        p.toldDucked = ducked
        p.toldSystem = interrupting
        participants[id] = p
        return notices
    }

    /// Whether `id` is being lowered by a ducking session.
    public func isDucked(_ id: UInt32) -> Bool { participants[id]?.toldDucked ?? false }

    /// The table `audiosession status` shows, in client order.
    public var status: ArbiterStatus {
        ArbiterStatus(
            systemInterruptions: systemInterruptions, silentSwitch: silentSwitch,
            sessions: participants.keys.sorted().compactMap { id in
                guard let p = participants[id] else { return nil }
                let by = p.interruptedBy.map { holder -> UInt32 in
                    if case .session(let other) = holder { return other }
                    return 0
                }.sorted()
                return .init(clientID: id, pid: p.pid, program: p.program, category: p.category, mode: p.mode,
                             traits: p.traits, state: p.state, ducked: p.toldDucked, interruptedBy: by)
            })
    }
}
