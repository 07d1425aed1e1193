// swift-tools-version: 6.0
//
// AudioToolbox for Linux: the legacy Audio Session Services C API over a Swift core.
// One target per layer of DESIGN.md; see docs/ARCHITECTURE.md for how they fit.
import Foundation
import PackageDescription

/// The toolchain's `usr/lib/swift`, where CoreFoundation's C headers live: the C target
/// includes the public headers, which include <CoreFoundation/...>.
func toolchainSwiftLibDirectory() -> String {
    for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
        let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("swiftc")
        if FileManager.default.isExecutableFile(atPath: candidate.path) {
            return candidate.resolvingSymlinksInPath().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("lib/swift").path
        }
    }
    return "/opt/swift/usr/lib/swift"
}

/// Swift code that imports CAudioToolbox sees the public headers as a C program does.
let publicHeaders: [SwiftSetting] = [.unsafeFlags(["-Xcc", "-I\(Context.packageDirectory)/include"])]

let package = Package(
    name: "AudioToolbox",
    products: [
        // The shared library C programs link: libAudioToolbox.so.
        .library(name: "AudioToolbox", type: .dynamic, targets: ["AudioToolbox"]),
        .executable(name: "audiosessiond", targets: ["audiosessiond"]),
        .executable(name: "audiosession", targets: ["audiosession"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // Pure Swift rules of the API: property table, category policy, state machine,
        // listener registry, event model. No I/O, no CoreFoundation.
        // A pthread-mutex guarded value, shared by the layers (visible to ThreadSanitizer).
        .target(name: "Locking"),
        .target(name: "AudioSessionCore", dependencies: ["Locking"]),
        // The messages between the library, the `audiosession` tool and `audiosessiond`:
        // framing, encoding, a decoder that rejects every malformed frame.
        .target(name: "ArbiterProtocol"),
        // SPEC 7 as one data table and a stack of claims: pure, shared by the daemon.
        .target(name: "Arbitration", dependencies: ["ArbiterProtocol"]),
        // Where the user's daemon lives, starting it, blocking socket helpers.
        .target(name: "CDescriptors"),
        // The POSIX layer the daemon, the client and the tool share: typed errors, EINTR
        // retried in one place, deadlines, peer credentials, private folders, files
        // opened without trusting the path.
        .target(name: "POSIXSupport", dependencies: ["CDescriptors"]),
        .target(name: "ArbiterSocket", dependencies: ["ArbiterProtocol", "CDescriptors", "POSIXSupport"]),
        // The sound server (PipeWire) as the daemon sees it: other programs' streams.
        .systemLibrary(name: "CPipeWire", pkgConfig: "libpipewire-0.3", providers: [.apt(["libpipewire-0.3-dev"])]),
        .target(name: "CSoundServer", dependencies: ["CPipeWire"]),
        // The conversions between the session's, the engine's and the wire's words for
        // the same facts, in one tested place.
        .target(name: "ArbiterVocabulary", dependencies: ["AudioSessionCore", "ArbiterProtocol", "Arbitration"]),
        // The per-user arbitration daemon.
        .executableTarget(name: "audiosessiond",
                          dependencies: ["ArbiterProtocol", "ArbiterSocket", "Arbitration", "ArbiterVocabulary", "SystemSounds",
                                         "CSoundServer", "CDescriptors", "Locking", "POSIXSupport"]),
        // The library's side of audiosessiond: registration, events, reconnection.
        .target(name: "ArbiterClient",
                dependencies: ["AudioSessionCore", "ArbiterProtocol", "ArbiterSocket", "ArbiterVocabulary", "CDescriptors",
                               "Locking", "POSIXSupport"]),
        // The command-line tool: status, watch, call, alarm.
        .executableTarget(name: "audiosession", dependencies: [
            "ArbiterProtocol", "ArbiterSocket", "POSIXSupport",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // The arbiter of a lone program (and of the virtual device's simulated world).
        .target(name: "InProcessArbiter", dependencies: ["AudioSessionCore", "Arbitration", "ArbiterVocabulary", "Locking"]),
        // A deterministic in-memory sound device, driven by the Linux-addition calls.
        .target(name: "VirtualAudioDevice", dependencies: ["AudioSessionCore", "Locking"]),
        // libasound, found through pkg-config.
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        // libsndfile and libsamplerate, found through pkg-config.
        .systemLibrary(name: "CSndfile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CSamplerate", pkgConfig: "samplerate", providers: [.apt(["libsamplerate0-dev"])]),
        // System Sound Services: decoding, conversion, the mixer thread on one ALSA stream.
        .target(name: "SystemSounds", dependencies: ["CALSA", "CSndfile", "CSamplerate", "Locking", "POSIXSupport"]),
        // Real sound cards: PCM negotiation, mixer, jack controls and control events.
        .target(name: "ALSABackend", dependencies: ["AudioSessionCore", "CALSA", "CDescriptors", "Locking", "POSIXSupport"]),
        // Delivery of callbacks on the client's CFRunLoop or through a pollable fd.
        .target(name: "RunLoopDispatch", dependencies: ["Locking", "CDescriptors"]),
        // C: the exported `const CFStringRef` data symbols, and the public headers for Swift.
        .target(
            name: "CAudioToolbox",
            cSettings: [
                .headerSearchPath("../../include"),
                .unsafeFlags(["-I", toolchainSwiftLibDirectory()]),
            ]
        ),
        // The C ABI: @_cdecl entry points, marshalling and result codes only.
        .target(
            name: "AudioToolbox",
            dependencies: ["AudioSessionCore", "VirtualAudioDevice", "ALSABackend", "RunLoopDispatch", "CAudioToolbox",
                           "InProcessArbiter", "ArbiterClient", "ArbiterSocket", "SystemSounds", "Locking",
                           "POSIXSupport"],
            swiftSettings: publicHeaders,
            linkerSettings: [.linkedLibrary("Foundation")]
        ),
        .testTarget(
            name: "AudioSessionCoreTests",
            dependencies: ["AudioSessionCore", "VirtualAudioDevice", "InProcessArbiter"]
        ),
        .testTarget(name: "ArbitrationTests", dependencies: ["Arbitration", "ArbiterProtocol"]),
        .testTarget(name: "POSIXSupportTests", dependencies: ["POSIXSupport"]),
        .testTarget(name: "ALSABackendTests", dependencies: ["ALSABackend", "AudioSessionCore", "POSIXSupport"]),
        .testTarget(name: "ArbiterVocabularyTests",
                    dependencies: ["ArbiterVocabulary", "Arbitration", "ArbiterProtocol", "AudioSessionCore"]),
        .testTarget(name: "ArbiterClientTests",
                    dependencies: ["ArbiterClient", "ArbiterProtocol", "ArbiterSocket", "AudioSessionCore", "RunLoopDispatch",
                                   "POSIXSupport", "audiosessiond"]),
        .testTarget(name: "SystemSoundsTests", dependencies: ["SystemSounds", "CSndfile"]),
        .testTarget(
            name: "AudioToolboxTests",
            dependencies: ["AudioToolbox", "AudioSessionCore", "CAudioToolbox"],
            swiftSettings: publicHeaders
        ),
    ],
    swiftLanguageModes: [.v5]
)
