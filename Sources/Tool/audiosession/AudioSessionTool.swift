// audiosession: see and drive the arbitration of the user's audio sessions
// (audiosessiond). See audiosession(1).
import ArbiterProtocol
import ArbiterSocket
import ArgumentParser
import Glibc
import POSIXSupport

@main
struct AudioSessionTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audiosession",
        abstract: "See and drive the arbitration of this user's audio sessions (audiosessiond).",
        subcommands: [Status.self, Watch.self, Call.self, Alarm.self, Silent.self])

    /// Problems with the daemon are said in one line, "audiosession: ...", exit status 1.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let problem as EndpointProblem {
            fputs("audiosession: \(Report.printable(problem.description))\n", stderr)
            Glibc.exit(1)
        } catch let error as ToolError {
            fputs("audiosession: \(Report.printable(error.description))\n", stderr)
            Glibc.exit(1)
        } catch {
            exit(withError: error)
        }
    }
}

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the sessions: program, category, options, state, who interrupted them.")
    @Flag(help: "Print JSON for scripts.") var json = false

    func run() throws {
        let exchange: Exchange
        do {
            exchange = try Exchange(try connectExisting())
        } catch EndpointProblem.unreachable {
            // No daemon: no session is arbitrated by one.
            print(json ? Report.json(ArbiterStatus(systemInterruptions: [], sessions: []), daemon: false)
                       : "audiosessiond is not running: no sessions.")
            return
        }
        let status = try exchange.status()
        print(json ? Report.json(status, daemon: true) : Report.table(status))
    }
}

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print one line per arbitration event, as it happens.")
    @Flag(help: "Print each event as a JSON object.") var json = false

    func run() throws {
        let exchange = try connectedExchange()
        try exchange.send(.watch)
        setvbuf(stdout, nil, _IOLBF, 0)
        while let message = try exchange.receive() {
            guard case .event(let line) = message else { continue }
            print(json ? "{\"event\":\(Report.quoted(line))}" : Report.printable(line))
        }
    }
}

enum Switch: String, ExpressibleByArgument, CaseIterable {
    case start, end
}

struct Call: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Start or end a simulated phone call: a system interruption of every active session, mixing or not.")
    @Argument(help: "start or end") var action: Switch
    func run() throws { try systemInterruption(.call, action) }
}

struct Alarm: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Start or end an alarm: a system interruption of every active session, mixing or not.")
    @Argument(help: "start or end") var action: Switch
    func run() throws { try systemInterruption(.alarm, action) }
}

enum OnOff: String, ExpressibleByArgument, CaseIterable {
    case on, off
}

struct Silent: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Turn the silent switch on or off: system sounds marked IsUISound stay silent while it is on.")
    @Argument(help: "on or off") var state: OnOff
    func run() throws {
        let exchange = try connectedExchange()
        try exchange.send(.silentSwitch(on: state == .on))
        _ = try exchange.status()
    }
}

func systemInterruption(_ kind: SystemInterruption, _ action: Switch) throws {
    let exchange = try connectedExchange()
    try exchange.send(.system(kind, active: action == .start))
    // The status request is answered after the interruption was applied.
    _ = try exchange.status()
}

struct ToolError: Error, CustomStringConvertible {
    let description: String
}

/// How long the tool waits for the daemon: connect (and start) and its welcome.
let answerDeadlineSeconds = 5.0

/// A greeted connection to the daemon, starting it if needed. A daemon that goes away
/// between the connection and its welcome (killed, or replaced) is tried again within
/// the same time.
func connectedExchange() throws -> Exchange {
    let endpoint = ArbiterEndpoint.forCurrentUser()
    let daemon = getenv("AUDIOTOOLBOX_DAEMON").map { String(cString: $0) } ?? siblingExecutable("audiosessiond")
    let deadline = Deadline(secondsFromNow: answerDeadlineSeconds)
    while true {
        do {
            let fd = try DaemonLauncher.startAndConnect(endpoint, executable: daemon, until: deadline)
            return try Exchange(fd, until: deadline)
        } catch let problem as EndpointProblem where !problem.isPermanent && !deadline.hasPassed {
            if case .foreignDaemon = problem { throw problem }
            usleep(50_000)
        }
    }
}

/// The daemon's socket if a daemon of this user runs (nothing is started).
func connectExisting() throws -> Int32 {
    try ArbiterEndpoint.forCurrentUser().connect(until: Deadline(secondsFromNow: answerDeadlineSeconds))
}

func siblingExecutable(_ name: String) -> String {
    var buffer = [CChar](repeating: 0, count: 4096)
    let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard n > 0 else { return name }
    let path = String(cString: buffer)
    guard let slash = path.lastIndex(of: "/") else { return name }
    return String(path[..<slash]) + "/" + name
}

/// One connection of the tool: hello, then messages.
final class Exchange {
    let fd: Int32
    var decoder = FrameDecoder()

    deinit { close(fd) }

    init(_ fd: Int32, until deadline: Deadline = Deadline(secondsFromNow: answerDeadlineSeconds)) throws {
        self.fd = fd
        try send(.hello(version: ArbiterMessage.version, pid: UInt32(getpid()), program: "audiosession", role: .tool))
        guard case .welcome = try receive(until: deadline) else { throw EndpointProblem.noAnswer }
    }

    func send(_ message: ArbiterMessage) throws {
        guard SocketIO.writeAll(fd, message.frame()) else { throw ToolError(description: "audiosessiond went away") }
    }

    /// The next message; nil at the end of the connection. Waits until `deadline`
    /// (forever for nil: `watch`).
    func receive(until deadline: Deadline? = nil) throws -> ArbiterMessage? {
        while true {
            if let message = try decoder.next() {
                if case .failure(let reason) = message {
                    throw ToolError(description: "audiosessiond: \(Report.printable(reason))")
                }
                return message
            }
            guard let bytes = SocketIO.readSome(fd, until: deadline) else { return nil }
            if bytes.isEmpty { throw EndpointProblem.noAnswer }
            decoder.feed(bytes)
        }
    }

    func status() throws -> ArbiterStatus {
        try send(.statusRequest)
        let deadline = Deadline(secondsFromNow: answerDeadlineSeconds)
        while let message = try receive(until: deadline) {
            if case .status(let status) = message { return status }
        }
        throw ToolError(description: "audiosessiond went away")
    }
}

enum Report {
    static func code(_ value: UInt32) -> String {
        let bytes = [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        guard bytes.allSatisfy({ (0x20..<0x7F).contains($0) }) else { return String(value) }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func options(_ traits: ClaimTraits) -> [String] {
        [(ClaimTraits.mixes, "mixes"), (.ducks, "ducks"), (.output, "output"), (.input, "input")]
            .filter { traits.contains($0.0) }.map(\.1)
    }

    static func state(_ entry: ArbiterStatus.Entry) -> String {
        entry.ducked && entry.state == .active ? "ducked" : entry.state.description
    }

    static func by(_ ids: [UInt32]) -> String {
        ids.isEmpty ? "-" : ids.map { $0 == 0 ? "system" : "#\($0)" }.joined(separator: ",")
    }

    static func table(_ status: ArbiterStatus) -> String {
        var rows = [["ID", "PID", "PROGRAM", "CATEGORY", "MODE", "OPTIONS", "STATE", "INTERRUPTED BY"]]
        for e in status.sessions {
            rows.append(["#\(e.clientID)", "\(e.pid)", printable(e.program), code(e.category), code(e.mode),
                         options(e.traits).joined(separator: ","), state(e), by(e.interruptedBy)])
        }
        let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
        var lines = rows.map { row in
            zip(row, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }
                .joined(separator: "  ").trimmingTrailingSpaces()
        }
        if let streams = status.soundServer {
            lines.append("sound server: \(streams.count) other stream(s)")
            for s in streams {
                let state = (s.running ? "running" : "idle") + (s.mute ? ", muted" : "")
                let volume = String(Int((s.volume * 100).rounded())) + "%"
                lines.append("  node \(s.node) pid \(s.pid) \(printable(s.application))"
                             + "\(s.role.isEmpty ? "" : " (\(printable(s.role)))"): "
                             + "\(state), volume \(volume)\(s.action.isEmpty ? "" : ", " + printable(s.action))")
            }
            if status.omittedStreams > 0 { lines.append("  ... and \(status.omittedStreams) more stream(s) not shown") }
        } else {
            lines.append("sound server: none")
        }
        if status.omittedSessions > 0 {
            lines.insert("... and \(status.omittedSessions) more session(s) not shown (too many for one status)",
                         at: status.sessions.count + 1)
        }
        let system = status.systemInterruptions.map(\.description)
        lines.append("system: " + (system.isEmpty ? "no interruption" : system.joined(separator: ", ") + " in progress")
                     + "; silent switch " + (status.silentSwitch ? "on" : "off"))
        return lines.joined(separator: "\n")
    }

    static func json(_ status: ArbiterStatus, daemon: Bool) -> String {
        let sessions = status.sessions.map { e in
            "{\"clientID\":\(e.clientID),\"pid\":\(e.pid),\"program\":\(quoted(e.program)),"
                + "\"category\":\(quoted(code(e.category))),\"mode\":\(quoted(code(e.mode))),"
                + "\"options\":[\(options(e.traits).map(quoted).joined(separator: ","))],"
                + "\"state\":\(quoted(e.state.description)),\"ducked\":\(e.ducked),"
                + "\"interruptedBy\":[\(e.interruptedBy.map(String.init).joined(separator: ","))]}"
        }
        let server = status.soundServer.map { streams in
            "[" + streams.map { s in
                "{\"node\":\(s.node),\"pid\":\(s.pid),\"application\":\(quoted(s.application)),\"role\":\(quoted(s.role)),"
                    + "\"running\":\(s.running),\"volume\":\(s.volume),\"mute\":\(s.mute),\"action\":\(quoted(s.action))}"
            }.joined(separator: ",") + "]"
        } ?? "null"
        return "{\"daemon\":\(daemon),\"omitted\":\(status.omittedSessions),\"omittedStreams\":\(status.omittedStreams),\"soundServer\":\(server),\"silentSwitch\":\(status.silentSwitch),\"systemInterruptions\":[\(status.systemInterruptions.map { quoted($0.description) }.joined(separator: ","))],"
            + "\"sessions\":[\(sessions.joined(separator: ","))]}"
    }

    /// `text` for a terminal (ArbiterProtocol's rule: nothing a terminal obeys).
    static func printable(_ text: String) -> String { text.printable }

    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case _ where scalar.isUnprintable: out += String(format4(scalar.value))
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A JSON `\\uXXXX` escape (a surrogate pair beyond the first plane).
    private static func format4(_ value: UInt32) -> String {
        if value > 0xFFFF {
            let offset = value - 0x10000
            return format4(0xD800 + (offset >> 10)) + format4(0xDC00 + (offset & 0x3FF))
        }
        let hex = String(value, radix: 16)
        return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = self
        while s.last == " " { s.removeLast() }
        return s
    }
}
