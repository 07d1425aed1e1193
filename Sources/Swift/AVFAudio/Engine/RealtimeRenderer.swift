internal import AudioUnits
public import CAudioToolbox
internal import Synchronization

/// AVAudioEngine's `.realtime` manual rendering: the engine's generic output unit pulled
/// into the caller's AudioBufferList from the caller's own real-time thread (a game's or
/// a VoIP stack's audio callback). Everything it reads is an atomic or fixed at
/// creation, and the unit's pull takes no lock a program thread holds: no allocation, no
/// lock, no blocking call.
final class RealtimeRenderer: @unchecked Sendable {
    private let unit: any AudioUnitInstance
    private let maximumFrames: AVAudioFrameCount
    /// Between `start` and `stop`/`pause`.
    let running = Atomic<Bool>(false)
    /// The manual timeline: the sample time of the next render.
    let sampleTime = Atomic<Int64>(0)

    init(unit: any AudioUnitInstance, maximumFrames: AVAudioFrameCount) {
        self.unit = unit
        self.maximumFrames = maximumFrames
    }

    func render(_ frames: AVAudioFrameCount, _ list: UnsafeMutablePointer<AudioBufferList>,
                _ outError: UnsafeMutablePointer<OSStatus>?) -> AVAudioEngineManualRenderingStatus {
        guard running.load(ordering: .acquiring) else {
            outError?.pointee = AVAudioEngineManualRenderingError.notRunning.rawValue
            return .error
        }
        guard frames <= maximumFrames else {
            outError?.pointee = UnitError.tooManyFramesToProcess.rawValue
            return .error
        }
        var stamp = AudioTimeStamp()
        stamp.mSampleTime = Double(sampleTime.load(ordering: .acquiring))
        stamp.mFlags = AVAudioTime.sampleValid
        var flags: UInt32 = 0
        do throws(UnitError) {
            try withUnsafePointer(to: &stamp) { stamp throws(UnitError) in
                try unit.renderPulled(flags: &flags, timeStamp: UnsafeRawPointer(stamp), bus: 0, frames: frames,
                                      list: UnsafeMutableRawPointer(list))
            }
        } catch {
            outError?.pointee = error.rawValue
            return .error
        }
        sampleTime.add(Int64(frames), ordering: .acquiringAndReleasing)
        outError?.pointee = 0
        return .success
    }
}
