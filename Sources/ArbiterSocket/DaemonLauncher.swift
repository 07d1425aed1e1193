import ArbiterProtocol
import Glibc
import POSIXSupport

/// Starts `audiosessiond` when nobody answers on the socket. The daemon detaches itself
/// (its own session, every inherited descriptor closed) and takes a lock, so that many
/// programs starting at once make one daemon: the others see the lock and leave.
public enum DaemonLauncher {
    /// A connected socket, spawning `executable` when nobody answers and waiting for it
    /// until `deadline`. Returns the socket and the pid spawned, if any.
    public static func startAndConnect(_ endpoint: ArbiterEndpoint, executable: String,
                                       until deadline: Deadline) throws(EndpointProblem) -> (fd: Int32, pid: pid_t?) {
        do throws(EndpointProblem) {
            return (try endpoint.connect(until: deadline), nil)
        } catch {
            guard case .unreachable = error else { throw error }
        }
        guard access(executable, X_OK) == 0 else { throw .cannotStart(executable) }
        let pid = spawn(executable)
        // The daemon is ready in milliseconds; short pauses at first.
        var pause: UInt32 = 1_000
        while true {
            do throws(EndpointProblem) {
                return (try endpoint.connect(until: deadline), pid)
            } catch {
                guard case .unreachable = error, !deadline.hasPassed else {
                    if let pid { reapIfExited(pid) }
                    if case .unreachable = error { throw .noAnswer }
                    throw error
                }
            }
            if let pid { reapIfExited(pid) }
            usleep(min(pause, UInt32(max(1, deadline.remainingMilliseconds)) * 1000))
            pause = min(pause * 2, 100_000)
        }
    }

    /// Connects, then hello and the welcome, all before `deadline`; what came with the
    /// welcome (the daemon's first state) is returned with the socket.
    public static func greet(_ endpoint: ArbiterEndpoint, executable: String?, hello: ArbiterMessage,
                             until deadline: Deadline) throws(EndpointProblem)
        -> (fd: Int32, pid: pid_t?, early: [ArbiterMessage]) {
        let (fd, pid): (Int32, pid_t?)
        if let executable {
            (fd, pid) = try startAndConnect(endpoint, executable: executable, until: deadline)
        } else {
            (fd, pid) = (try endpoint.connect(until: deadline), nil)
        }
        do throws(EndpointProblem) {
            return (fd, pid, try handshake(fd, hello: hello, until: deadline))
        } catch {
            close(fd)
            throw error
        }
    }

    private static func handshake(_ fd: Int32, hello: ArbiterMessage,
                                  until deadline: Deadline) throws(EndpointProblem) -> [ArbiterMessage] {
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
                return early
            }
        }
    }

    /// Collects the daemon's exit status if it has exited, so no zombie is left.
    public static func reapIfExited(_ pid: pid_t) {
        var status: Int32 = 0
        _ = waitpid(pid, &status, WNOHANG)
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
