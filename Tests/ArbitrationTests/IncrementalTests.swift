import ArbiterProtocol
import Arbitration
import Testing

/// What every session should have been told, worked out from the status table alone
/// (who is active, with which traits), independently of how Arbitration keeps it.
private func expectedTold(_ a: Arbitration) -> [UInt32: (otherAudio: Bool, ducked: Bool)] {
    let status = a.status
    let active = status.sessions.filter { $0.state == .active }
    var told: [UInt32: (Bool, Bool)] = [:]
    for entry in status.sessions {
        let others = active.filter { $0.clientID != entry.clientID }
        let server = a.soundServerStreams.contains { $0 == 0 || UInt32(bitPattern: $0) != entry.pid }
        told[entry.clientID] = (others.contains { $0.traits.contains(.output) } || server,
                                others.contains { $0.traits.contains(.ducks) })
    }
    return told
}

/// What each client was told, replayed from the notices.
private struct Listener {
    var otherAudio: [UInt32: Bool] = [:]
    var ducked: [UInt32: Bool] = [:]
    mutating func hear(_ notices: Arbitration.Notices) {
        for (client, notice) in notices {
            switch notice {
            case .otherAudio(let playing): otherAudio[client] = playing
            case .ducked(let on): ducked[client] = on
            default: break
            }
        }
    }
}

@Suite("Arbitration keeps its derived state incrementally")
struct IncrementalTests {
    @Test("Joining, activating and leaving among 1,000 sessions evaluates a bounded number of them")
    func boundedWork() {
        var a = Arbitration()
        for id in UInt32(1)...1000 {
            _ = a.join(id, pid: id, program: "p")
            _ = a.claim(id, category: 1, mode: 0, traits: [.output, .mixes])
        }
        // Two sessions already play: one more changes nobody's other audio.
        _ = a.activate(1)
        _ = a.activate(2)
        for (name, step) in [("join", { (a: inout Arbitration) in _ = a.join(1001, pid: 1001, program: "late") }),
                             ("claim", { (a: inout Arbitration) in _ = a.claim(1001, category: 1, mode: 0, traits: [.output, .mixes]) }),
                             ("activate", { (a: inout Arbitration) in _ = a.activate(3) }),
                             ("deactivate", { (a: inout Arbitration) in _ = a.deactivate(3, notifyOthers: true) }),
                             ("leave", { (a: inout Arbitration) in _ = a.leave(1001) })] {
            let before = a.evaluations
            step(&a)
            #expect(a.evaluations - before <= 4, "\(name) evaluated \(a.evaluations - before) sessions")
        }
    }

    @Test("One active output becoming two (and back) evaluates the active ones, not all 1,000")
    func crossingOneAndTwo() {
        var a = Arbitration()
        for id in UInt32(1)...1000 {
            _ = a.join(id, pid: id, program: "p")
            _ = a.claim(id, category: 1, mode: 0, traits: [.output, .mixes, .ducks])
        }
        _ = a.activate(1)
        for _ in 0..<3 {
            let before = a.evaluations
            _ = a.activate(2)
            _ = a.deactivate(2, notifyOthers: true)
            #expect(a.evaluations - before <= 8, "a 1-2-1 crossing evaluated \(a.evaluations - before) sessions")
        }
    }

    @Test("Told state matches the table after every step of a random history")
    func matchesTable() {
        var generator = SystemRandomNumberGenerator()
        let traitChoices: [ClaimTraits] = [[.output], [.output, .mixes], [.output, .mixes, .ducks], [.mixes], [.input]]
        for _ in 0..<20 {
            var a = Arbitration()
            var listener = Listener()
            var joined: [UInt32] = []
            var next: UInt32 = 1
            for _ in 0..<300 {
                let roll = Int.random(in: 0..<100, using: &generator)
                let someone = joined.randomElement(using: &generator)
                switch roll {
                case 0..<15:
                    joined.append(next)
                    listener.hear(a.join(next, pid: next % 7, program: "p"))
                    next += 1
                case 15..<35: if let id = someone {
                    listener.hear(a.claim(id, category: 1, mode: 0, traits: traitChoices.randomElement(using: &generator)!))
                }
                case 35..<60: if let id = someone { listener.hear(a.activate(id)) }
                case 60..<75: if let id = someone { listener.hear(a.deactivate(id, notifyOthers: Bool.random())) }
                case 75..<82: if let id = someone {
                    listener.hear(a.leave(id))
                    joined.removeAll { $0 == id }
                    listener.otherAudio[id] = nil
                    listener.ducked[id] = nil
                }
                case 82..<88: listener.hear(a.system(.call, active: Bool.random()))
                case 88..<94:
                    let owners = (0..<Int.random(in: 0...2)).map { _ in Int32.random(in: 0...7) }
                    listener.hear(a.setSoundServerStreams(owners))
                default: listener.hear(a.setSilentSwitch(Bool.random()))
                }
                for (id, told) in expectedTold(a) {
                    #expect((listener.otherAudio[id] ?? false) == told.otherAudio, "other audio of \(id)")
                    #expect((listener.ducked[id] ?? false) == told.ducked, "ducked of \(id)")
                }
            }
        }
    }
}
