// swift-tools-version: 6.0
//
// AudioToolbox for Linux: the iPhone's AudioToolbox C API (session, system sounds, units,
// files, converters, queues) over a Swift core.
// One target per layer of DESIGN.md; see docs/ARCHITECTURE.md for how they fit.
//
// Sources/ is grouped so that its folders show the architecture; `path:` maps each
// target to its folder:
//   Library/   what runs inside the program: ABI (the C entry points), Settings (the
//              environment and the log), AudioSessionCore (the session's rules),
//              RunLoopDispatch (callbacks on run loops), Hardware (ALSA, the virtual
//              device), Arbiters (the daemon's client, the in-process arbiter, their
//              vocabulary), Services (the audio the session feeds: system sounds, units,
//              files, queues), AudioStreams (device streams and their real-time threads)
//   Daemon/    audiosessiond and its finisher          Tool/  the audiosession command
//   Shared/    what the library, the daemon and the tool share (the SPEC 7 engine, the
//              protocol, the socket, the POSIX layer, locking)
//   CLibraries/ C libraries and the small C layers over them
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
let publicHeaders: [SwiftSetting] = [.unsafeFlags([
    "-Xcc", "-I\(Context.packageDirectory)/include",
    "-Xcc", "-I\(Context.packageDirectory)/include/AudioToolbox/compat/linux",
])]

let package = Package(
    name: "AudioToolbox",
    products: [
        // The shared library C programs link: libAudioToolbox.so.
        .library(name: "AudioToolbox", type: .dynamic, targets: ["AudioToolbox"]),
        // AVFoundation's audio classes for Swift programs (SPEC 14): `import AVFoundation`.
        .library(name: "AVFAudio", targets: ["AVFAudio"]),
        .library(name: "AVFoundation", targets: ["AVFoundation"]),
        .executable(name: "audiosessiond", targets: ["audiosessiond"]),
        .executable(name: "audiosession", targets: ["audiosession"]),
        .executable(name: "audiosessiond-finisher", targets: ["audiosessiond-finisher"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // A pthread-mutex guarded value, shared by the layers (visible to ThreadSanitizer).
        .target(name: "Locking", path: "Sources/Shared/Locking"),
        // Four-character codes made and printed: the one printer of the library, the
        // daemon and the tool.
        .target(name: "FourCharCodes", path: "Sources/Shared/FourCharCodes"),
        // The line handler for swift-log that the library and the daemon log through (the
        // daemon's with a rate limit).
        .target(name: "LogLines", dependencies: [.product(name: "Logging", package: "swift-log")],
                path: "Sources/Shared/LogLines"),
        // What the library takes from its environment (read in one file, Configuration)
        // and its one log, for every layer.
        .target(name: "Settings", dependencies: ["LogLines", "Locking", .product(name: "Logging", package: "swift-log")],
                path: "Sources/Library/Settings"),
        // Pure Swift rules of the API: property table, category policy, state machine,
        // listener registry, event model. No I/O, no CoreFoundation.
        .target(name: "AudioSessionCore", dependencies: ["FourCharCodes", "Locking"], path: "Sources/Library/AudioSessionCore"),
        // The messages between the library, the `audiosession` tool and `audiosessiond`:
        // framing, encoding, a decoder that rejects every malformed frame.
        .target(name: "ArbiterProtocol", path: "Sources/Shared/ArbiterProtocol"),
        // SPEC 7 as one data table and a stack of claims: pure, shared by the daemon.
        .target(name: "Arbitration", dependencies: ["ArbiterProtocol"], path: "Sources/Shared/Arbitration"),
        // The C calls Swift cannot make (variadic or macro-shaped): descriptor passing,
        // eventfd, accept4, O_PATH, spawning the daemon's helper, no new privileges.
        .target(name: "CDescriptors", path: "Sources/CLibraries/CDescriptors"),
        // The POSIX layer the daemon, the client and the tool share: typed errors, EINTR
        // retried in one place, deadlines, peer credentials, private folders, files
        // opened without trusting the path.
        .target(name: "POSIXSupport", dependencies: ["CDescriptors", .product(name: "SystemPackage", package: "swift-system")],
                path: "Sources/Shared/POSIXSupport"),
        .target(name: "ArbiterSocket", dependencies: ["ArbiterProtocol", "CDescriptors", "POSIXSupport"], path: "Sources/Shared/ArbiterSocket"),
        // The sound server (PipeWire) as the daemon sees it: other programs' streams.
        .systemLibrary(name: "CPipeWire", path: "Sources/CLibraries/CPipeWire", pkgConfig: "libpipewire-0.3", providers: [.apt(["libpipewire-0.3-dev"])]),
        .target(name: "CSoundServer", dependencies: ["CPipeWire"], path: "Sources/CLibraries/CSoundServer"),
        // The conversions between the session's, the engine's and the wire's words for
        // the same facts that the library's two arbiters make, in one tested place (the
        // daemon's one, a notice onto the wire, is Arbitration's).
        .target(name: "ArbiterVocabulary", dependencies: ["AudioSessionCore", "ArbiterProtocol", "Arbitration"], path: "Sources/Library/Arbiters/ArbiterVocabulary"),
        // The per-user arbitration daemon: Shared modules and C libraries only, no codec.
        .executableTarget(name: "audiosessiond",
                          dependencies: ["ArbiterProtocol", "ArbiterSocket", "Arbitration", "FourCharCodes",
                                         "CSoundServer", "CDescriptors", "Locking", "POSIXSupport", "LogLines",
                                         .product(name: "Logging", package: "swift-log")],
                          path: "Sources/Daemon/audiosessiond"),
        // Plays the rest of a dead program's system sound, for the daemon, which decodes
        // nothing: a short-lived process under its own resource limits.
        .executableTarget(name: "audiosessiond-finisher", dependencies: ["AudioSessionCore", "CDescriptors", "SystemSounds"],
                          path: "Sources/Daemon/audiosessiond-finisher"),
        // The library's side of audiosessiond: registration, events, reconnection.
        .target(name: "ArbiterClient",
                dependencies: ["AudioSessionCore", "ArbiterProtocol", "ArbiterSocket", "ArbiterVocabulary", "CDescriptors",
                               "Locking", "POSIXSupport", "Settings"], path: "Sources/Library/Arbiters/ArbiterClient"),
        // The command-line tool: status, watch, call, alarm.
        .executableTarget(name: "audiosession", dependencies: [
            "ArbiterProtocol", "ArbiterSocket", "POSIXSupport",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], path: "Sources/Tool/audiosession"),
        // The arbiter of a lone program (and of the virtual device's simulated world).
        .target(name: "InProcessArbiter", dependencies: ["AudioSessionCore", "Arbitration", "ArbiterVocabulary", "Locking"], path: "Sources/Library/Arbiters/InProcessArbiter"),
        // A deterministic in-memory sound device, driven by the Linux-addition calls.
        .target(name: "VirtualAudioDevice", dependencies: ["AudioSessionCore", "Locking"], path: "Sources/Library/Hardware/VirtualAudioDevice"),
        // libasound, found through pkg-config.
        .systemLibrary(name: "CALSA", path: "Sources/CLibraries/CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        // libsndfile, for the tests alone: an encoder independent of ours makes their media.
        .systemLibrary(name: "CSndfile", path: "Sources/CLibraries/CSndfile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        // libsamplerate, loaded by SONAME on first use (not linked).
        .target(name: "CResampler", path: "Sources/CLibraries/CResampler", linkerSettings: [.linkedLibrary("dl")]),
        // The one sample-rate converter (libsamplerate), pushed or pulled, for every service.
        .target(name: "Resampling", dependencies: ["CResampler"], path: "Sources/Library/Resampling"),
        // The one mixing engine (gain, ramps, pan, meters, the sum) of the mixer unit's
        // buses, the players' voices and the system sounds' voices.
        .target(name: "Mixing", path: "Sources/Library/Mixing"),
        // System Sound Services: decoding, conversion, the mixer thread on one stream of
        // the stream layer (the sound server's, or an ALSA PCM).
        .target(name: "SystemSounds", dependencies: ["AudioSessionCore", "AudioStreams", "AudioFiles", "Resampling", "Mixing",
                                                     "Locking", "POSIXSupport"], path: "Sources/Library/Services/SystemSounds"),
        // The devices the I/O units stream to: ALSA PCMs, or the virtual device's clock;
        // the real-time threads that exchange periods with them.
        .target(name: "AudioStreams", dependencies: ["AudioSessionCore", "CALSA", "CPipeWireStream", "Locking", "Settings"],
                path: "Sources/Library/AudioStreams"),
        // The PipeWire streams the I/O units play and record through where a server runs.
        // Not linked: libpipewire is loaded by SONAME on the first stream (PipeWireStreamAvailable).
        .target(name: "CPipeWireStream", path: "Sources/CLibraries/CPipeWireStream",
                cSettings: [.unsafeFlags(["-I/usr/include/pipewire-0.3", "-I/usr/include/spa-0.2"])],
                linkerSettings: [.linkedLibrary("dl")]),
        // VoiceProcessingIO's echo canceller and gain control: a C face for the WebRTC audio
        // processing library (Debian: libwebrtc-audio-processing-dev).
        .target(name: "CVoiceProcessing", path: "Sources/CLibraries/CVoiceProcessing",
                cxxSettings: [.unsafeFlags(["-I/usr/include/webrtc_audio_processing", "-DWEBRTC_POSIX",
                                            "-DWEBRTC_AUDIO_PROCESSING_ONLY_BUILD"])],
                // Not linked: loaded by SONAME on first use (VoiceProcessingAvailable).
                linkerSettings: [.linkedLibrary("dl")]),
        // The audio units: RemoteIO and VoiceProcessingIO on a stream the session feeds,
        // GenericOutput pulled offline, AUConverter; PCM layouts, conversion, rate conversion.
        // VoiceProcessingIO's echo cancellation: our linear adaptive filter lined up with the
        // device's round trip, then WebRTC's suppressor and gain control.
        .target(name: "EchoCancellation", dependencies: ["AudioStreams", "CVoiceProcessing"],
                path: "Sources/Library/Services/EchoCancellation"),
        .target(name: "AudioUnits", dependencies: ["AudioSessionCore", "AudioStreams", "Resampling", "Mixing", "EchoCancellation",
                                                   "AudioFiles", "CMusicSynth", "CTimeStretch", "FourCharCodes",
                                                   "Locking"],
                path: "Sources/Library/Services/AudioUnits"),
        // MusicPlayer.h's model: sequences, tracks and their events, standard MIDI files,
        // the tempo map, and the player that schedules a sequence into samplers.
        .target(name: "MusicSequences", dependencies: ["AudioStreams", "AudioUnits", "Locking"],
                path: "Sources/Library/Services/MusicSequences"),
        // AUGraph: its model (nodes, what feeds their inputs, the rules a change keeps; pure)
        // and the graph service over the program's units (AudioGraph).
        .target(name: "AudioGraphs", dependencies: ["AudioUnits", "FourCharCodes", "Locking"],
                path: "Sources/Library/Services/AudioGraphs"),
        // FFmpeg's demultiplexers, decoders, AAC encoder and multiplexers behind a narrow C
        // face (Debian: libavformat-dev, libavcodec-dev).
        // Not linked: loaded by SONAME on first use (MediaCodecsAvailable).
        .target(name: "CMediaCodecs", path: "Sources/CLibraries/CMediaCodecs", linkerSettings: [.linkedLibrary("dl")]),
        // FluidSynth (Debian: libfluidsynth-dev; LGPL 2.1), opened on first use, for the
        // sampler and the music player's synthesizer.
        .target(name: "CMusicSynth", path: "Sources/CLibraries/CMusicSynth", linkerSettings: [.linkedLibrary("dl")]),
        // Audio files and conversion: Audio File, Extended Audio File, Audio Converter
        // (PCM conversion, decoding, AAC encoding), over CMediaCodecs and libsamplerate.
        .target(name: "AudioFiles", dependencies: ["CDescriptors", "CMediaCodecs", "FourCharCodes", "Resampling"], path: "Sources/Library/Services/AudioFiles"),
        // The queues' time/pitch processing: a C face for SoundTouch (Debian:
        // libsoundtouch-dev; LGPL 2.1, which a shared library may link whatever its users'
        // licences, where Rubber Band is GPL).
        .target(name: "CTimeStretch", path: "Sources/CLibraries/CTimeStretch",
                cxxSettings: [.unsafeFlags(["-I/usr/include/soundtouch"])],
                linkerSettings: [.linkedLibrary("SoundTouch")]),
        // Audio Queue Services: the program's buffers played and recorded on an I/O unit's
        // stream (so the session governs them as it governs units), compressed formats
        // through AudioFiles' converter.
        .target(name: "AudioQueues", dependencies: ["AudioSessionCore", "AudioStreams", "AudioUnits", "AudioFiles", "CTimeStretch",
                                                    "Locking"],
                path: "Sources/Library/Services/AudioQueues"),
        // Real sound cards: PCM negotiation, mixer, jack controls and control events.
        .target(name: "ALSABackend", dependencies: ["AudioSessionCore", "AudioStreams", "CALSA", "CDescriptors", "Locking", "POSIXSupport", "Settings"],
                path: "Sources/Library/Hardware/ALSABackend"),
        // Delivery of callbacks on the client's CFRunLoop or through a pollable fd.
        .target(name: "RunLoopDispatch", dependencies: ["Locking", "CDescriptors"], path: "Sources/Library/RunLoopDispatch"),
        // C: the exported `const CFStringRef` data symbols, and the public headers for Swift.
        .target(
            name: "CAudioToolbox", path: "Sources/Library/ABI/CAudioToolbox",
            cSettings: [
                .headerSearchPath("../../../../include"),
                .headerSearchPath("../../../../include/AudioToolbox/compat/linux"),
                .unsafeFlags(["-I", toolchainSwiftLibDirectory()]),
            ]
        ),
        // The library assembled once: configuration, backend and arbiter, the session and
        // its delivery, the services, the fork coordinator, and the objects a program holds
        // (one handle table, one listener list, one run-loop queue map).
        .target(
            name: "Runtime",
            dependencies: ["AudioSessionCore", "AudioStreams", "AudioUnits", "AudioFiles", "AudioQueues", "AudioGraphs",
                           "MusicSequences", "VirtualAudioDevice", "ALSABackend", "RunLoopDispatch", "CAudioToolbox", "InProcessArbiter",
                           "ArbiterClient", "ArbiterSocket", "SystemSounds", "Mixing", "Locking", "Settings"],
            path: "Sources/Library/Runtime",
            swiftSettings: publicHeaders
        ),
        // AVAudioSession, AVAudioPlayer, AVAudioRecorder over the same runtime as the C
        // API (one session per process), with Foundation's types.
        .target(
            name: "AVFAudio",
            dependencies: ["Runtime", "AudioSessionCore", "AudioFiles", "AudioQueues", "AudioUnits", "AudioGraphs", "MusicSequences", "Resampling",
                           "Locking", "CAudioToolbox"],
            path: "Sources/Swift/AVFAudio",
            swiftSettings: publicHeaders
        ),
        // What `import AVFoundation` brings on iOS: the audio classes, Foundation, and the
        // AudioToolbox C API (linked from the ABI target: one session for both).
        .target(name: "AVFoundation", dependencies: ["AVFAudio", "AudioToolbox", "CAudioToolbox"],
                path: "Sources/Swift/AVFoundation", swiftSettings: publicHeaders),
        // make bench: AVAudioPlayer against its building blocks (bench/bench_player_queue.c).
        .executableTarget(name: "avf-bench", dependencies: ["AVFoundation"], path: "bench/avf-bench",
                          swiftSettings: publicHeaders),
        // The C ABI: @_cdecl entry points, marshalling and result codes only.
        .target(
            name: "AudioToolbox",
            dependencies: ["Runtime", "AudioSessionCore", "AudioStreams", "AudioUnits", "AudioFiles", "AudioQueues", "AudioGraphs",
                           "MusicSequences", "RunLoopDispatch", "CAudioToolbox", "SystemSounds", "Locking", "Settings",
                           "Resampling"],
            path: "Sources/Library/ABI/AudioToolbox",
            swiftSettings: publicHeaders,
            linkerSettings: [.linkedLibrary("Foundation")]
        ),
        .testTarget(
            name: "AudioSessionCoreTests",
            dependencies: ["AudioSessionCore", "VirtualAudioDevice", "InProcessArbiter"]
        ),
        .testTarget(name: "ArbitrationTests", dependencies: ["Arbitration", "ArbiterProtocol"]),
        .testTarget(name: "POSIXSupportTests", dependencies: ["POSIXSupport"]),
        .testTarget(name: "SettingsTests", dependencies: ["Settings"]),
        .testTarget(name: "ALSABackendTests", dependencies: ["ALSABackend", "AudioSessionCore", "POSIXSupport"]),
        .testTarget(name: "ArbiterVocabularyTests",
                    dependencies: ["ArbiterVocabulary", "Arbitration", "ArbiterProtocol", "AudioSessionCore"]),
        .testTarget(name: "ArbiterClientTests",
                    dependencies: ["ArbiterClient", "ArbiterProtocol", "ArbiterSocket", "AudioSessionCore", "RunLoopDispatch",
                                   "POSIXSupport", "audiosessiond"]),
        .testTarget(name: "AudioUnitsTests", dependencies: ["AudioUnits", "Mixing"]),
        .testTarget(name: "MusicSequencesTests", dependencies: ["MusicSequences"]),
        .testTarget(name: "EchoCancellationTests", dependencies: ["EchoCancellation"]),
        .testTarget(name: "SystemSoundsTests", dependencies: ["SystemSounds", "AudioSessionCore", "CSndfile"]),
        .testTarget(name: "AudioGraphsTests", dependencies: ["AudioGraphs", "AudioUnits", "AudioSessionCore", "Locking"]),
        .testTarget(name: "AVFAudioTests", dependencies: ["AVFoundation", "AudioToolbox", "CAudioToolbox", "Runtime"],
                    swiftSettings: publicHeaders),
        .testTarget(
            name: "AudioToolboxTests",
            dependencies: ["AudioToolbox", "Runtime", "AudioSessionCore", "AudioUnits", "AudioQueues", "AudioFiles", "CAudioToolbox"],
            swiftSettings: publicHeaders
        ),
    ],
    swiftLanguageModes: [.v5]
)
