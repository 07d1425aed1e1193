import Glibc
import POSIXSupport
import Testing

/// A fresh folder under /tmp for one test, removed after.
private func scratch(_ body: (String) throws -> Void) rethrows {
    var template = Array("/tmp/posix-support-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    let path = String(cString: made!)
    defer { _ = system("rm -rf '\(path)'") }
    try body(path)
}

private func write(_ path: String, _ text: String) {
    let file = fopen(path, "w")!
    fputs(text, file)
    fclose(file)
}

@Suite("Private folders are checked, never repaired")
struct PrivateFolderTests {
    @Test("A missing folder is made 0700 whatever the umask")
    func createsPrivate() throws {
        try scratch { base in
            let previous = umask(0)
            defer { umask(previous) }
            try PrivateFolder.prepare(base + "/made")
            var info = stat()
            #expect(lstat(base + "/made", &info) == 0)
            #expect(info.st_mode & 0o777 == 0o700)
        }
    }

    @Test("Refused, and left as found", arguments: [0o777, 0o750, 0o701, 0o1777])
    func openModes(mode: Int) throws {
        try scratch { base in
            let folder = base + "/open"
            mkdir(folder, 0o700)
            chmod(folder, mode_t(mode))
            #expect(throws: FolderProblem.openToOthers(mode: UInt32(mode & 0o777))) { try PrivateFolder.prepare(folder) }
            var info = stat()
            lstat(folder, &info)
            #expect(Int(info.st_mode & 0o7777) == mode)
        }
    }

    @Test("A symlink to a private folder is refused")
    func symlinkRefused() throws {
        try scratch { base in
            mkdir(base + "/real", 0o700)
            symlink(base + "/real", base + "/link")
            #expect(throws: FolderProblem.symlink) { try PrivateFolder.prepare(base + "/link") }
        }
    }

    @Test("A file is not a folder")
    func file() throws {
        try scratch { base in
            write(base + "/file", "x")
            #expect(throws: FolderProblem.notADirectory) { try PrivateFolder.prepare(base + "/file") }
        }
    }

    @Test("Another user's folder is refused (needs root to make one)")
    func foreignOwner() throws {
        guard getuid() == 0 else { return }
        try scratch { base in
            mkdir(base + "/theirs", 0o700)
            chown(base + "/theirs", 65534, 65534)
            #expect(throws: FolderProblem.ownedBy(65534)) { try PrivateFolder.prepare(base + "/theirs") }
        }
    }
}

@Suite("Files are read only when regular and small")
struct SafeFileTests {
    @Test("A FIFO is refused at once, not waited on")
    func fifo() throws {
        try scratch { base in
            mkfifo(base + "/fifo", 0o600)
            #expect(throws: FileProblem.notARegularFile) {
                try SafeFile.readRegular(base + "/fifo", limit: 1024, followSymlinks: true)
            }
        }
    }

    @Test("A symlink to /dev/zero is refused")
    func deviceLink() throws {
        try scratch { base in
            symlink("/dev/zero", base + "/zero")
            #expect(throws: FileProblem.notARegularFile) {
                try SafeFile.readRegular(base + "/zero", limit: 1024, followSymlinks: true)
            }
        }
    }

    @Test("No symlink is followed where the caller says so")
    func noFollow() throws {
        try scratch { base in
            write(base + "/target", "secret\n")
            symlink(base + "/target", base + "/link")
            #expect(throws: FileProblem.cannotOpen(.tooManySymbolicLinkLevels)) {
                try SafeFile.readRegular(base + "/link", limit: 1024, followSymlinks: false)
            }
            let followed = try SafeFile.readRegular(base + "/link", limit: 1024, followSymlinks: true)
            #expect(followed == Array("secret\n".utf8))
        }
    }

    @Test("Larger than the limit is refused")
    func tooLarge() throws {
        try scratch { base in
            write(base + "/big", String(repeating: "x", count: 2000))
            #expect(throws: FileProblem.tooLarge(limit: 1999)) {
                try SafeFile.readRegular(base + "/big", limit: 1999, followSymlinks: false)
            }
            let whole = try SafeFile.readRegular(base + "/big", limit: 2000, followSymlinks: false)
            #expect(whole.count == 2000)
        }
    }

    @Test("A long line stays one line")
    func longLine() throws {
        try scratch { base in
            let comment = "# " + String(repeating: "c", count: 600) + " others = mute"
            write(base + "/conf", comment + "\nduck = 0.5\n")
            let lines = try SafeFile.lines(base + "/conf", limit: 4096, followSymlinks: false)
            #expect(lines == [comment, "duck = 0.5", ""])
        }
    }

    @Test("A private file is made 0600 under umask 000, and replaces a planted symlink rather than writing through it")
    func replacePrivate() throws {
        try scratch { base in
            let previous = umask(0)
            defer { umask(previous) }
            write(base + "/victim", "untouched")
            symlink(base + "/victim", base + "/journal")
            try SafeFile.replacePrivate(base + "/journal", with: Array("new\n".utf8))
            var info = stat()
            lstat(base + "/journal", &info)
            #expect(info.st_mode & S_IFMT == S_IFREG)
            #expect(info.st_mode & 0o777 == 0o600)
            let victim = try SafeFile.readRegular(base + "/victim", limit: 100, followSymlinks: false)
            #expect(victim == Array("untouched".utf8))
        }
    }

    @Test("openPrivate never writes through a symlink")
    func openPrivateNoFollow() throws {
        try scratch { base in
            write(base + "/victim", "untouched")
            symlink(base + "/victim", base + "/log")
            #expect(throws: Errno.tooManySymbolicLinkLevels) { try SafeFile.openPrivate(base + "/log", flags: O_WRONLY | O_APPEND) }
        }
    }
}

@Suite("Deadlines bound waits")
struct DeadlineTests {
    @Test("A wait on a silent descriptor ends when the deadline passes, with nothing")
    func silent() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let deadline = Deadline(secondsFromNow: 0.05)
        let revents = try deadline.wait(for: ends[0], events: Int16(POLLIN))
        #expect(revents == 0)
        #expect(deadline.hasPassed)
    }

    @Test("A ready descriptor is reported")
    func ready() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        var byte: UInt8 = 1
        #expect(write(ends[1], &byte, 1) == 1)
        let revents = try Deadline(secondsFromNow: 5).wait(for: ends[0], events: Int16(POLLIN))
        #expect(revents & Int16(POLLIN) != 0)
    }

    @Test("Peer credentials of a socket pair are this process's")
    func peer() throws {
        var ends: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let peer = try PeerCredentials.of(ends[0])
        #expect(peer.uid == getuid())
        #expect(peer.pid == getpid())
    }
}
