import Glibc

public enum DescriptorLimit {
    /// Raises this process's soft limit on open descriptors to its hard limit (a server
    /// inherits whatever its starter had, often 1,024). Returns the soft limit now.
    @discardableResult
    public static func raiseToHard() -> Int {
        var limits = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return 0 }
        if limits.rlim_cur < limits.rlim_max {
            var raised = limits
            raised.rlim_cur = limits.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limits = raised }
        }
        return limits.rlim_cur >= rlim_t(Int.max) ? Int.max : Int(limits.rlim_cur)
    }
}
