import Glibc

/// Starts `audiosessiond` when nobody answers on the socket. The daemon detaches itself
/// (its own session, every inherited descriptor closed) and takes a lock, so that many
/// programs starting at once make one daemon: the others see the lock and exit.
public enum DaemonLauncher {
    /// Spawns `executable` and waits (a bounded number of short pauses) until the socket
    /// accepts. Returns the connected socket, or nil.
    public static func startAndConnect(_ endpoint: ArbiterEndpoint, executable: String) -> (fd: Int32, pid: pid_t?)? {
        if let fd = endpoint.connect() { return (fd, nil) }
        guard access(executable, X_OK) == 0 else { return nil }
        let pid = spawn(executable)
        // The daemon is ready in milliseconds; give it up to about two seconds.
        var pause: Int = 1_000
        for _ in 0..<20 {
            if let fd = endpoint.connect() { return (fd, pid) }
            if let pid { reapIfExited(pid) }
            usleep(UInt32(pause))
            pause = min(pause * 2, 200_000)
        }
        return nil
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
