// A voice-memo recorder as iOS apps write it with AVAudioRecorder. Prints for the test:
//   record <Bool>
//   finished successfully=<Bool> main=<Bool> recording=<Bool> peak=<dB>
// and exits 0 after the delegate's call; 3 if record() refused; 2 if nothing came.
//   RecorderApp FILE CATEGORY(record|playback|playAndRecord) SECONDS FORMAT(lpcm|aac|alac|ima4) [pause]
// The file's extension picks the container (.wav, .m4a, .caf), as on iOS.
// With "pause", the memo is paused for a moment after 0.4 s and then goes on.
import AVFoundation

final class Memo: NSObject, AVAudioRecorderDelegate {
    var done = false
    func audioRecorderDidFinishRecording(_ recorder: AVAudioRecorder, successfully flag: Bool) {
        recorder.updateMeters()
        print("finished successfully=\(flag) main=\(Thread.isMainThread) recording=\(recorder.isRecording) "
              + "peak=\(Int(recorder.peakPower(forChannel: 0).rounded()))")
        done = true
    }
}

setvbuf(stdout, nil, _IOLBF, 0)
let arguments = CommandLine.arguments
let categories: [String: AVAudioSession.Category] = ["record": .record, "playback": .playback,
                                                     "playAndRecord": .playAndRecord]
let formats = ["aac": kAudioFormatMPEG4AAC, "alac": kAudioFormatAppleLossless, "ima4": kAudioFormatAppleIMA4]
let memo = Memo()
do {
    let session = AVAudioSession.sharedInstance()
    try session.setCategory(categories[arguments[2]] ?? .record, mode: .default, options: [])
    try session.setActive(true)
    let settings: [String: Any] = [
        AVFormatIDKey: Int(formats[arguments[4]] ?? kAudioFormatLinearPCM),
        AVSampleRateKey: 16_000.0,
        AVNumberOfChannelsKey: 1,
        AVEncoderAudioQualityKey: AVAudioQuality.high.rawValue,
    ]
    let recorder = try AVAudioRecorder(url: URL(fileURLWithPath: arguments[1]), settings: settings)
    recorder.delegate = memo
    recorder.isMeteringEnabled = true
    let started = recorder.record(forDuration: Double(arguments[3]) ?? 1)
    print("record \(started)")
    guard started else { exit(3) }
    if arguments.count > 5 && arguments[5] == "pause" {
        RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.4))
        recorder.pause()
        RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.3))
        print("resumed \(recorder.record())")
    }
    let deadline = Date(timeIntervalSinceNow: 30)
    while !memo.done && Date() < deadline {
        _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.05))
    }
    exit(memo.done ? 0 : 2)
} catch {
    print("error \((error as NSError).domain) \((error as NSError).code)")
    exit(1)
}
