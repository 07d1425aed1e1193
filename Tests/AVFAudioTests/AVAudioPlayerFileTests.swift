@testable import AVFAudio
import AudioToolbox
import CAudioToolbox
import Foundation
import Testing

// AVAudioPlayer and the C file API on the same files, made by FFmpeg (not our code): a
// player's duration is the file's valid frames as AudioFile's packet table gives them
// (an AAC file's priming and remainder are not sound), and a file the C API refuses is
// refused by the player with the same code.

/// Runs ffmpeg to make `name` in a fresh folder; the file's path.
private func ffmpegMade(_ name: String, _ arguments: [String]) throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("avplayer-files-\(getpid())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let path = folder.appendingPathComponent(name).path
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["ffmpeg", "-nostdin", "-v", "error", "-y"] + arguments + [path]
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "ffmpeg made \(name)")
    return path
}

/// What the C API says of the file: AudioFileOpenURL's status and, when it opens, the
/// valid frames of its packet table (or its whole length) over its rate, in seconds.
private func cFileSays(_ path: String) -> (status: Int32, seconds: Double) {
    let url = CFURLCreateFromFileSystemRepresentation(nil, path, path.utf8.count, false)
    var file: AudioFileID?
    let status = AudioFileOpenURL(url, Int8(kAudioFileReadPermission), 0, &file)
    guard status == noErr, let file else { return (status, 0) }
    defer { AudioFileClose(file) }
    var format = AudioStreamBasicDescription()
    var size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
    AudioFileGetProperty(file, UInt32(kAudioFilePropertyDataFormat), &size, &format)
    var table = AudioFilePacketTableInfo()
    size = UInt32(MemoryLayout<AudioFilePacketTableInfo>.size)
    if AudioFileGetProperty(file, UInt32(kAudioFilePropertyPacketTableInfo), &size, &table) == noErr {
        return (status, Double(table.mNumberValidFrames) / format.mSampleRate)
    }
    var packets: UInt64 = 0
    size = 8
    AudioFileGetProperty(file, UInt32(kAudioFilePropertyAudioDataPacketCount), &size, &packets)
    return (status, Double(packets) * Double(format.mFramesPerPacket) / format.mSampleRate)
}

@Suite("AVAudioPlayer and AudioFile on the same files", .serialized)
struct AVAudioPlayerFileTests {
    @Test("an AAC M4A of 2.0 s lasts 2.0 s, as its packet table says")
    func aacDuration() throws {
        let path = try ffmpegMade("two.m4a", ["-f", "lavfi", "-i", "sine=frequency=440:duration=2:sample_rate=44100",
                                              "-c:a", "aac", "-b:a", "128k"])
        let c = cFileSays(path)
        #expect(c.status == noErr)
        let player = try AVAudioPlayer(contentsOf: URL(fileURLWithPath: path))
        #expect(abs(player.duration - 2.0) < 0.001, "duration \(player.duration)")
        #expect(abs(player.duration - c.seconds) < 1e-6, "the player \(player.duration), AudioFile \(c.seconds)")
    }

    @Test("AVAudioPlayer(data:) of a 0.8 s AAC M4A lasts 0.8 s")
    func aacDataDuration() throws {
        let path = try ffmpegMade("short.m4a", ["-f", "lavfi", "-i", "sine=frequency=660:duration=0.8:sample_rate=44100",
                                                "-c:a", "aac"])
        let player = try AVAudioPlayer(data: try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(abs(player.duration - 0.8) < 0.001, "duration \(player.duration)")
    }

    /// FFmpeg's probe gives some formats (raw streams with no header) a small score on
    /// any bytes at all; a player must not take noise for a sound. Seeded: the rounds tried
    /// are 30000 to 33999 of one sequence of 5000-byte buffers, among which 33090 was taken
    /// (4 channels, 0.049 s) before the demuxer refused a probe's low scores.
    @Test("4000 buffers of random bytes: the player takes none of them for a sound")
    func randomBytes() {
        var seed: UInt32 = 2_463_534_242
        var taken: [String] = []
        var bytes = [UInt8](repeating: 0, count: 5000)
        for round in 0..<34000 {
            for i in bytes.indices {
                seed ^= seed << 13
                seed ^= seed >> 17
                seed ^= seed << 5
                bytes[i] = UInt8(truncatingIfNeeded: seed)
            }
            if round >= 30000, let player = try? AVAudioPlayer(data: Data(bytes)) {
                taken.append("round \(round): \(player.numberOfChannels) channels, \(player.duration) s")
            }
        }
        #expect(taken.isEmpty, "taken for sounds: \(taken.prefix(5))")
    }

    @Test("an empty file: the player throws what AudioFileOpenURL returns")
    func emptyFile() throws {
        for name in ["empty.m4a", "empty.wav", "empty.caf", "empty.mp3"] {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("avplayer-\(getpid())-\(name)").path
            #expect(FileManager.default.createFile(atPath: path, contents: Data()))
            defer { try? FileManager.default.removeItem(atPath: path) }
            let c = cFileSays(path)
            #expect(c.status != noErr)
            var thrown: Int?
            do { _ = try AVAudioPlayer(contentsOf: URL(fileURLWithPath: path)) } catch { thrown = (error as NSError).code }
            #expect(thrown == Int(c.status), "\(name): the player threw \(String(describing: thrown)), AudioFileOpenURL \(c.status)")
        }
    }
}
