import POSIXSupport
import ArbiterClient
import ArbiterProtocol
import ArbiterSocket
import AudioSessionCore
import CoreFoundation
import Foundation
import RunLoopDispatch
import Synchronization
import Testing

/// What one session heard from the daemon, in order, whichever thread reported it.
private final class Heard: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [String] = []
    let begins = Atomic<Int>(0)
    let ends = Atomic<Int>(0)
    let died = Atomic<Int>(0)
    /// Which thread reported: the run loop's (the doorbell path) or the reader's.
    let runLoopThread = Atomic<UInt>(0)
    let onRunLoop = Atomic<Int>(0)
    let onReader = Atomic<Int>(0)

    func record(_ event: ArbiterEvent) {
        if UInt(pthread_self()) == runLoopThread.load(ordering: .acquiring) {
            onRunLoop.add(1, ordering: .relaxed)
        } else {
            onReader.add(1, ordering: .relaxed)
        }
        let name: String
        switch event {
        case .interruptionBegan:
            name = "begin"
            begins.add(1, ordering: .releasing)
        case .interruptionEnded:
            name = "end"
            ends.add(1, ordering: .releasing)
        case .serverDied:
            name = "died"
            died.add(1, ordering: .relaxed)
        default:
            return
        }
        lock.withLock { events.append(name) }
    }

    var sequence: [String] { lock.withLock { events } }
}

/// The daemon built beside these tests (the test target depends on it).
private func builtDaemon() -> String? {
    var path = [CChar](repeating: 0, count: 4096)
    let n = readlink("/proc/self/exe", &path, path.count - 1)
    guard n > 0 else { return nil }
    var directory = String(cString: path)
    while !directory.isEmpty && !FileManager.default.isExecutableFile(atPath: directory + "/audiosessiond") {
        guard let slash = directory.lastIndex(of: "/") else { return nil }
        directory = String(directory[..<slash])
    }
    return directory.isEmpty ? nil : directory + "/audiosessiond"
}

/// Each session's state as the daemon sees it, by program name (asked as the tool asks).
private func daemonStates(_ endpoint: ArbiterEndpoint) -> [String: ArbiterStatus.State] {
    guard let fd = try? endpoint.connect(until: Deadline(secondsFromNow: 2)) else { return [:] }
    defer { close(fd) }
    let hello = ArbiterMessage.hello(version: ArbiterMessage.version, pid: UInt32(getpid()), program: "stress-status",
                                     role: .tool)
    guard SocketIO.writeAll(fd, hello.frame() + ArbiterMessage.statusRequest.frame()) else { return [:] }
    var decoder = FrameDecoder()
    while let bytes = SocketIO.readSome(fd, until: Deadline(secondsFromNow: 2)), !bytes.isEmpty {
        decoder.feed(bytes)
        while let message = try? decoder.next() {
            guard case .status(let status) = message else { continue }
            return Dictionary(status.sessions.map { ($0.program, $0.state) }, uniquingKeysWith: { first, _ in first })
        }
    }
    return [:]
}

private func waitUntil(_ seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > deadline { return false }
        usleep(200)
    }
    return true
}

/// The doorbell path under load, for ThreadSanitizer (`make tsan`): session A's run
/// loop reads the daemon's messages while it waits, its reader thread whenever it does
/// not, and a busy timer keeps the run loop away from its wait a third of the time, so
/// the two readers hand the socket back and forth all the time. Every interruption must
/// arrive exactly once and in order.
@Suite("Stress: the run loop and the reader thread share the daemon's socket")
struct DoorbellStressTests {
    static let rounds = 300

    @Test("every Begin and End reaches session A once, in order, while its run loop and thread take turns")
    func interruptionsUnderHandOffs() throws {
        guard let daemon = builtDaemon() else {
            Issue.record("no audiosessiond beside the test binary")
            return
        }
        var template = Array("/tmp/atb-doorbell-XXXXXX".utf8CString)
        guard let runtime = mkdtemp(&template) else {
            Issue.record("mkdtemp failed")
            return
        }
        let directory = String(cString: runtime)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A daemon of this test's own, in its own runtime folder (the environment of the
        // test process is shared with other tests: it is left alone).
        let endpoint = ArbiterEndpoint(directory: directory + "/audiotoolbox")
        let server = Process()
        server.executableURL = URL(fileURLWithPath: daemon)
        server.environment = ["XDG_RUNTIME_DIR": directory, "AUDIOSESSIOND_IDLE_SECONDS": "5"]
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        guard waitUntil(10, { (try? endpoint.connect(until: Deadline(secondsFromNow: 1))).map { close($0) } != nil }) else {
            Issue.record("the test's audiosessiond did not start")
            return
        }
        let media = SessionClaim(category: 0x6D65_6469, mode: 0x6466_6C74, mixes: false, ducks: false, output: true,
                                 input: false)

        let heardA = Heard()
        let a = try DaemonArbiter(endpoint: endpoint, daemonExecutable: daemon, program: "stress-a")
        let b = try DaemonArbiter(endpoint: endpoint, daemonExecutable: daemon, program: "stress-b")
        #expect(a.firstProblem == nil && b.firstProblem == nil, "both reached the test's daemon at once")
        _ = a.claimChanged(media)
        _ = b.claimChanged(media)

        // A's run loop, on a thread of its own, with the doorbell and a busy timer.
        let runLoopReady = Atomic<Bool>(false)
        let stop = Atomic<Bool>(false)
        nonisolated(unsafe) var runLoop: CFRunLoop?
        nonisolated(unsafe) var doorbell: RunLoopDoorbell?
        let thread = Thread {
            runLoop = CFRunLoopGetCurrent()
            heardA.runLoopThread.store(UInt(pthread_self()), ordering: .releasing)
            doorbell = RunLoopDoorbell(runLoop: runLoop!, mode: kCFRunLoopDefaultMode,
                                       willWait: { a.runLoopWillWait() }, didWake: { a.runLoopDidWake() },
                                       rang: { a.readFromRunLoop() })
            // Busy for a third of each millisecond: the run loop is often away from its
            // wait, and the reader thread takes the messages then.
            let timer = CFRunLoopTimerCreateWithHandler(nil, CFAbsoluteTimeGetCurrent() + 0.001, 0.001, 0, 0) { _ in
                usleep(300)
            }
            CFRunLoopAddTimer(runLoop, timer, kCFRunLoopDefaultMode)
            runLoopReady.store(true, ordering: .releasing)
            while !stop.load(ordering: .acquiring) {
                _ = CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.05, false)
            }
            CFRunLoopTimerInvalidate(timer)
        }
        thread.start()
        #expect(waitUntil(10) { runLoopReady.load(ordering: .acquiring) })
        a.attachDoorbell(try #require(doorbell).fileDescriptor)

        // A reactivates on each End, from whichever thread reported it, as ported code does.
        a.start { event in
            heardA.record(event)
            if case .interruptionEnded = event { _ = a.activated() }
        }
        b.start { _ in }
        _ = a.activated()

        for round in 1...Self.rounds {
            // A's activation (or reactivation) travels on another connection: B acts only
            // once the daemon has it, or B's activation could come first.
            guard waitUntil(10, { daemonStates(endpoint)["stress-a"] == .active }) else {
                Issue.record("round \(round): the daemon never saw A active (heard \(heardA.sequence.suffix(6)))")
                break
            }
            _ = b.activated()
            guard waitUntil(10, { heardA.begins.load(ordering: .acquiring) >= round }) else {
                Issue.record("round \(round): A's Begin never came (heard \(heardA.sequence.suffix(6)))")
                break
            }
            _ = b.deactivated(notifyOthers: true)
            guard waitUntil(10, { heardA.ends.load(ordering: .acquiring) >= round }) else {
                Issue.record("round \(round): A's End never came (heard \(heardA.sequence.suffix(6)))")
                break
            }
        }

        stop.store(true, ordering: .releasing)
        CFRunLoopWakeUp(runLoop)
        while !thread.isFinished { usleep(1000) }
        a.shutDown()
        b.shutDown()
        doorbell = nil

        let expected = Array(repeating: ["begin", "end"], count: Self.rounds).flatMap { $0 }
        #expect(heardA.sequence == expected)
        #expect(heardA.died.load(ordering: .relaxed) == 0)
        // Both readers took part: the run loop (woken by its doorbell) and the thread
        // (while the run loop was busy with its timer).
        let byRunLoop = heardA.onRunLoop.load(ordering: .relaxed), byReader = heardA.onReader.load(ordering: .relaxed)
        #expect(byRunLoop > 0 && byReader > 0, "events reported on the run loop \(byRunLoop), on the reader \(byReader)")
        print("doorbell stress: \(Self.rounds) rounds; events reported on the run loop \(byRunLoop), by the reader thread \(byReader)")
    }
}
