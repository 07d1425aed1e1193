// audiosession: see and drive the arbitration of the user's audio sessions
// (audiosessiond). See audiosession(1).
import ArbiterProtocol
import ArbiterSocket
import ArgumentParser
import Glibc

@main
struct AudioSessionTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audiosession",
        abstract: "See and drive the arbitration of this user's audio sessions (audiosessiond).",
        subcommands: [Status.self, Watch.self, Call.self, Alarm.self, Silent.self])
}

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the sessions: program, category, options, state, who interrupted them.")
    @Flag(help: "Print JSON for scripts.") var json = false

    func run() throws {
        guard let fd = ArbiterEndpoint.forCurrentUser().connect() else {
            // No daemon: no session is arbitrated by one.
            print(json ? Report.json(ArbiterStatus(systemInterruptions: [], sessions: []), daemon: false)
                       : "audiosessiond is not running: no sessions.")
            return
        }
        let status = try Exchange(fd).status()
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
            print(json ? "{\"event\":\(Report.quoted(line))}" : line)
        }
    }
}

enum Switch: String, ExpressibleByArgument, CaseIterable {
    case start, end
}

struct Call: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Start or end a simulated phone call: a system interruption of every session that does not mix.")
    @Argument(help: "start or end") var action: Switch
    func run() throws { try systemInterruption(.call, action) }
}

struct Alarm: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Start or end an alarm: a system interruption of every session that does not mix.")
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

/// A greeted connection to the daemon, starting it if needed. A daemon that goes away
/// between the connection and its welcome (killed, or replaced) is tried again, twice.
func connectedExchange() throws -> Exchange {
    var lastError: Error = ToolError(description: "audiosessiond did not answer")
    for _ in 0..<3 {
        do {
            return try Exchange(try connectOrStart())
        } catch let error as ToolError where error.description == "audiosessiond did not answer" {
            lastError = error
            usleep(50_000)
        }
    }
    throw lastError
}

/// The daemon's socket, starting the daemon (from this tool's folder) if none runs.
func connectOrStart() throws -> Int32 {
    let endpoint = ArbiterEndpoint.forCurrentUser()
    guard endpoint.prepareDirectory() else { throw ToolError(description: "cannot use \(endpoint.directory)") }
    let daemon = getenv("AUDIOTOOLBOX_DAEMON").map { String(cString: $0) } ?? siblingExecutable("audiosessiond")
    guard let (fd, _) = DaemonLauncher.startAndConnect(endpoint, executable: daemon) else {
        throw ToolError(description: "cannot reach or start audiosessiond (\(daemon)) at \(endpoint.socketPath)")
    }
    return fd
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

    init(_ fd: Int32) throws {
        self.fd = fd
        try send(.hello(version: ArbiterMessage.version, pid: UInt32(getpid()), program: "audiosession", role: .tool))
        guard case .welcome = try receive() else { throw ToolError(description: "audiosessiond did not answer") }
    }

    func send(_ message: ArbiterMessage) throws {
        guard SocketIO.writeAll(fd, message.frame()) else { throw ToolError(description: "audiosessiond went away") }
    }

    func receive() throws -> ArbiterMessage? {
        while true {
            if let message = try decoder.next() {
                if case .failure(let reason) = message { throw ToolError(description: "audiosessiond: \(reason)") }
                return message
            }
            guard let bytes = SocketIO.readSome(fd) else { return nil }
            decoder.feed(bytes)
        }
    }

    func status() throws -> ArbiterStatus {
        try send(.statusRequest)
        while let message = try receive() {
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
            rows.append(["#\(e.clientID)", "\(e.pid)", e.program, code(e.category), code(e.mode),
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
                lines.append("  node \(s.node) pid \(s.pid) \(s.application)\(s.role.isEmpty ? "" : " (\(s.role))"): "
                             + "\(state), volume \(volume)\(s.action.isEmpty ? "" : ", " + s.action)")
            }
        } else {
            lines.append("sound server: none")
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
        return "{\"daemon\":\(daemon),\"soundServer\":\(server),\"silentSwitch\":\(status.silentSwitch),\"systemInterruptions\":[\(status.systemInterruptions.map { quoted($0.description) }.joined(separator: ","))],"
            + "\"sessions\":[\(sessions.joined(separator: ","))]}"
    }

    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case _ where scalar.value < 0x20: out += String(format4(scalar.value))
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    private static func format4(_ value: UInt32) -> String {
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
