import ArbiterProtocol
import Glibc
import POSIXSupport

/// Starts `audiosessiond` when nobody answers on the socket. The daemon detaches itself
/// (its own session, every inherited descriptor closed) and takes a lock, so that many
/// programs starting at once make one daemon: the others see the lock and leave.
public enum DaemonLauncher {
    /// A connected socket, spawning `executable` when nobody answers and waiting for it
    /// until `deadline`.
    public static func startAndConnect(_ endpoint: ArbiterEndpoint, executable: String,
                                       until deadline: Deadline) throws(EndpointProblem) -> Int32 {
        do throws(EndpointProblem) {
            return try endpoint.connect(until: deadline)
        } catch {
            guard case .unreachable = error else { throw error }
        }
        guard access(executable, X_OK) == 0 else { throw .cannotStart(executable) }
        // The process spawned forks the daemon and leaves at once (--detach): collected
        // here, it leaves no zombie; the daemon itself is init's child.
        if let spawned = spawn(executable) { _ = retryingInterrupts { waitpid(spawned, nil, 0) } }
        // The daemon is ready in milliseconds; short pauses at first. One that saw the
        // lock still held by a daemon on its way out may have left: after a second with
        // nobody answering, another is started (a spare one sees the lock and leaves).
        var pause: UInt32 = 1_000
        var respawnAt = Deadline(secondsFromNow: 1)
        while true {
            if respawnAt.hasPassed {
                if let spawned = spawn(executable) { _ = retryingInterrupts { waitpid(spawned, nil, 0) } }
                respawnAt = Deadline(secondsFromNow: 1)
            }
            do throws(EndpointProblem) {
                return try endpoint.connect(until: deadline)
            } catch {
                guard case .unreachable = error, !deadline.hasPassed else {
                    if case .unreachable = error { throw .noAnswer }
                    throw error
                }
            }
            usleep(min(pause, UInt32(max(1, deadline.remainingMilliseconds)) * 1000))
            pause = min(pause * 2, 100_000)
        }
    }

    /// Connects, then hello and the welcome, all before `deadline`. Returns the socket,
    /// what came with the welcome (the daemon's first state), and the decoder holding
    /// any part of a frame read with them, to go on reading the stream in step.
    public static func greet(_ endpoint: ArbiterEndpoint, executable: String?, hello: ArbiterMessage,
                             until deadline: Deadline) throws(EndpointProblem)
        -> (fd: Int32, early: [ArbiterMessage], decoder: FrameDecoder) {
        let fd: Int32
        if let executable {
            fd = try startAndConnect(endpoint, executable: executable, until: deadline)
        } else {
            fd = try endpoint.connect(until: deadline)
        }
        do throws(EndpointProblem) {
            let (early, decoder) = try handshake(fd, hello: hello, until: deadline)
            return (fd, early, decoder)
        } catch {
            close(fd)
            throw error
        }
    }

    private static func handshake(_ fd: Int32, hello: ArbiterMessage,
                                  until deadline: Deadline) throws(EndpointProblem) -> ([ArbiterMessage], FrameDecoder) {
        guard SocketIO.writeAll(fd, hello.frame()) else { throw .noAnswer }
        var decoder = FrameDecoder()
        while true {
            guard let bytes = SocketIO.readSome(fd, until: deadline) else { throw .noAnswer }
            if bytes.isEmpty { throw .noAnswer }
            decoder.feed(bytes)
            while true {
                let message: ArbiterMessage?
                do throws(ProtocolError) {
                    message = try decoder.next()
                } catch {
                    throw .refused("not the protocol (\(error))")
                }
                guard let message else { break }
                if case .failure(let reason) = message { throw .refused(reason) }
                guard case .welcome = message else { continue }
                // What came with the welcome is the daemon's first state.
                var early: [ArbiterMessage] = []
                do throws(ProtocolError) {
                    while let next = try decoder.next() { early.append(next) }
                } catch {
                    throw .refused("not the protocol (\(error))")
                }
                return (early, decoder)
            }
        }
    }

    private static func spawn(_ executable: String) -> pid_t? {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Default signal handling and an empty mask, whatever the program had set.
        var none = sigset_t()
        sigemptyset(&none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGUSR1, SIGUSR2] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let arguments = [executable, "--detach"]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let status = posix_spawn(&pid, executable, nil, &attributes, &argv, environ)
        return status == 0 ? pid : nil
    }
}
