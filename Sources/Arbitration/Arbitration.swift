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
    /// Whether a system interruption (call, alarm) interrupts a session, by whether it mixes.
    public static let systemInterrupts: [Bool: Bool] = [false: true, true: false]
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

    public init() {}

    public typealias Notices = [(client: UInt32, notice: Notice)]

    public mutating func join(_ id: UInt32, pid: UInt32, program: String) -> Notices {
        participants[id] = Participant(pid: pid, program: program)
        return refreshDerived()
    }

    /// The session changed category, mode or options. A session that stops mixing while
    /// active claims again, as if it had just activated.
    public mutating func claim(_ id: UInt32, category: UInt32, mode: UInt32, traits: ClaimTraits) -> Notices {
        guard var p = participants[id] else { return [] }
        let wasMixing = p.traits.contains(.mixes)
        p.category = category
        p.mode = mode
        p.traits = traits
        participants[id] = p
        var notices: Notices = []
        if p.state == .active && wasMixing && !traits.contains(.mixes) { notices += interruptOthers(for: id) }
        return notices + refreshDerived()
    }

    public mutating func activate(_ id: UInt32) -> Notices {
        guard var p = participants[id] else { return [] }
        let mixes = p.traits.contains(.mixes)
        // During a system interruption a session it would interrupt cannot start: the
        // library refuses with 'what' itself; one that slipped through is interrupted.
        if let system = systemInterruptions.first, ArbitrationTable.systemInterrupts[mixes] == true {
            p.state = .interrupted
            p.interruptedBy.insert(.system(system))
            participants[id] = p
            return [(id, .interruptionBegan(bySystem: true))] + refreshDerived()
        }
        p.state = .active
        p.interruptedBy = []
        participants[id] = p
        stack.removeAll { $0 == id }
        stack.append(id)
        return interruptOthers(for: id) + refreshDerived()
    }

    public mutating func deactivate(_ id: UInt32, notifyOthers: Bool) -> Notices {
        guard var p = participants[id] else { return [] }
        // An interrupted session that deactivates stays interrupted: its End still comes.
        if p.state == .active { p.state = .inactive }
        participants[id] = p
        stack.removeAll { $0 == id }
        return release(.session(id), ends: ArbitrationTable.deactivationEnds[notifyOthers] ?? false)
            + refreshDerived()
    }

    /// The client exited or died: a deactivation with the flag, then it is forgotten.
    public mutating func leave(_ id: UInt32) -> Notices {
        guard participants[id] != nil else { return [] }
        var notices = deactivate(id, notifyOthers: true)
        participants[id] = nil
        notices.removeAll { $0.client == id }
        return notices + refreshDerived()
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
                p.interruptedBy.insert(.system(kind))
                participants[id] = p
                notices.append((id, .interruptionBegan(bySystem: true)))
            }
            stack.removeAll { participants[$0]?.state != .active }
        } else {
            guard systemInterruptions.contains(kind) else { return [] }
            systemInterruptions.removeAll { $0 == kind }
            // The state first: an End handler that reactivates must find the call over.
            notices += refreshSystemState()
            // The sessions resume when no call or alarm is left (an alarm during a call
            // holds them too), always with ShouldResume.
            if systemInterruptions.isEmpty {
                for each in SystemInterruption.allCases { notices += release(.system(each), ends: true) }
            }
        }
        return notices + refreshDerived()
    }

    /// The sound server's running playback streams changed: they are other audio to
    /// every session but their own program's.
    public mutating func setSoundServerStreams(_ owners: [Int32]) -> Notices {
        soundServerStreams = owners
        return refreshDerived()
    }

    public mutating func setSilentSwitch(_ on: Bool) -> Notices {
        silentSwitch = on
        return refreshDerived()
    }

    // MARK: Rules

    private mutating func interruptOthers(for id: UInt32) -> Notices {
        guard let activator = participants[id] else { return [] }
        var notices: Notices = []
        for other in stack where other != id {
            guard var p = participants[other], p.state == .active else { continue }
            let effect = ArbitrationTable.onActivation[activator.traits.contains(.mixes)]?[p.traits.contains(.mixes)]
            guard effect == .interrupt else { continue }
            p.state = .interrupted
            p.interruptedBy.insert(.session(id))
            participants[other] = p
            notices.append((other, .interruptionBegan(bySystem: false)))
        }
        stack.removeAll { participants[$0]?.state != .active }
        return notices
    }

    /// `holder` lets go of the sessions it interrupted; those it held last get End if `ends`.
    private mutating func release(_ holder: Holder, ends: Bool) -> Notices {
        var notices: Notices = []
        for id in participants.keys.sorted() {
            guard var p = participants[id], p.interruptedBy.contains(holder) else { continue }
            p.interruptedBy.remove(holder)
            if p.interruptedBy.isEmpty && ends {
                p.state = .inactive
                notices.append((id, .interruptionEnded(shouldResume: true)))
            }
            participants[id] = p
        }
        return notices
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

    /// Other audio, ducking and the system state follow from the stack; tell each client
    /// what changed for it.
    private mutating func refreshDerived() -> Notices {
        var notices: Notices = []
        let active = stack.compactMap { id in participants[id].map { (id, $0) } }
        let interrupting = !systemInterruptions.isEmpty
        for id in participants.keys.sorted() {
            guard var p = participants[id] else { continue }
            let others = active.filter { $0.0 != id }
            let otherAudio = others.contains { ArbitrationTable.countsAsOtherAudio($0.1.traits) }
                || soundServerStreams.contains { $0 == 0 || UInt32(bitPattern: $0) != p.pid }
            let ducked = others.contains { ArbitrationTable.ducksOthers($0.1.traits) }
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
        }
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
