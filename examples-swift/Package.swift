// swift-tools-version: 5.10
// The Swift examples, a user's package outside the library's: it depends on the library's package by
// path (Tests/swift-package/run.sh links it in as ../AudioToolbox) and imports
// AVFoundation as an iOS app does.
import PackageDescription

let package = Package(
    name: "SessionApp",
    dependencies: [.package(path: "../AudioToolbox")],
    targets: [
        .executableTarget(name: "SessionApp", dependencies: [.product(name: "AVFoundation", package: "AudioToolbox")]),
        .executableTarget(name: "PlayerApp", dependencies: [.product(name: "AVFoundation", package: "AudioToolbox")]),
        .executableTarget(name: "EffectsApp", dependencies: [.product(name: "AVFoundation", package: "AudioToolbox")]),
        .executableTarget(name: "RecorderApp", dependencies: [.product(name: "AVFoundation", package: "AudioToolbox")]),
        .executableTarget(name: "EngineApp", dependencies: [.product(name: "AVFoundation", package: "AudioToolbox")]),
    ]
)
