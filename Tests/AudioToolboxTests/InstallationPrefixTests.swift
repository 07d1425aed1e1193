import Runtime
import Testing

// Where the library finds its daemon and data: the prefix above the folder it was loaded
// from, for `make install`'s layout and for Debian's multiarch one.
@Suite("The installation prefix from the library's own path")
struct InstallationPrefixTests {
    static let cases: [(library: String, prefix: String)] = [
        ("/usr/local/lib/libAudioToolbox.so.0", "/usr/local"),
        ("/usr/lib/x86_64-linux-gnu/libAudioToolbox.so.0", "/usr"),
        ("/usr/lib/aarch64-linux-gnu/libAudioToolbox.so.0", "/usr"),
        ("/home/u/build/prefix/lib/libAudioToolbox.so.0.1.0", "/home/u/build/prefix"),
        ("/lib/x86_64-linux-gnu/libAudioToolbox.so.0", ""),
        ("/opt/at/libAudioToolbox.so.0", "/opt/at/.."),
        // A folder named like a triplet but not under lib is no multiarch folder.
        ("/opt/x86_64-linux-gnu/libAudioToolbox.so.0", "/opt/x86_64-linux-gnu/.."),
        ("lib/libAudioToolbox.so.0", "."),
        ("libAudioToolbox.so.0", ".."),
    ]

    @Test("each layout", arguments: cases)
    func prefix(_ entry: (library: String, prefix: String)) {
        #expect(Runtime.installationPrefix(ofLibraryAt: entry.library) == entry.prefix)
    }
}
