public import CAudioToolbox
public import Foundation

/// A moment as iOS's AVAudioTime gives one: a sample time at a rate, a host time, or
/// both. Host time here is the library's (CLOCK_MONOTONIC in nanoseconds, the host time
/// of every AudioTimeStamp it makes), so one tick is a nanosecond.
open class AVAudioTime: NSObject, @unchecked Sendable {
    public let audioTimeStamp: AudioTimeStamp
    static let sampleValid = UInt32(kAudioTimeStampSampleTimeValid), hostValid = UInt32(kAudioTimeStampHostTimeValid)
    public let sampleRate: Double

    public init(audioTimeStamp ts: UnsafePointer<AudioTimeStamp>, sampleRate: Double) {
        audioTimeStamp = ts.pointee
        self.sampleRate = sampleRate
    }

    public convenience init(hostTime: UInt64) {
        var ts = AudioTimeStamp()
        ts.mHostTime = hostTime
        ts.mFlags = AVAudioTime.hostValid
        self.init(audioTimeStamp: &ts, sampleRate: 0)
    }

    public convenience init(sampleTime: AVAudioFramePosition, atRate sampleRate: Double) {
        var ts = AudioTimeStamp()
        ts.mSampleTime = Double(sampleTime)
        ts.mFlags = AVAudioTime.sampleValid
        self.init(audioTimeStamp: &ts, sampleRate: sampleRate)
    }

    public convenience init(hostTime: UInt64, sampleTime: AVAudioFramePosition, atRate sampleRate: Double) {
        var ts = AudioTimeStamp()
        ts.mHostTime = hostTime
        ts.mSampleTime = Double(sampleTime)
        ts.mFlags = AVAudioTime.sampleValid | AVAudioTime.hostValid
        self.init(audioTimeStamp: &ts, sampleRate: sampleRate)
    }

    open class func hostTime(forSeconds seconds: TimeInterval) -> UInt64 { UInt64(max(0, seconds * 1e9).rounded()) }
    open class func seconds(forHostTime hostTime: UInt64) -> TimeInterval { Double(hostTime) / 1e9 }

    open var isHostTimeValid: Bool { audioTimeStamp.mFlags & AVAudioTime.hostValid != 0 }
    open var hostTime: UInt64 { audioTimeStamp.mHostTime }
    /// A sample time and a rate to count it at.
    open var isSampleTimeValid: Bool { audioTimeStamp.mFlags & AVAudioTime.sampleValid != 0 && sampleRate > 0 }
    open var sampleTime: AVAudioFramePosition { AVAudioFramePosition(audioTimeStamp.mSampleTime) }

    /// This time with what it lacks (its sample time, or its host time) worked out from an
    /// anchor that has both; nil when the anchor lacks one, or this time has no rate or
    /// neither time.
    open func extrapolateTime(fromAnchor anchorTime: AVAudioTime) -> AVAudioTime? {
        guard anchorTime.isSampleTimeValid, anchorTime.isHostTimeValid, sampleRate > 0,
              isSampleTimeValid || isHostTimeValid else { return nil }
        if isSampleTimeValid && isHostTimeValid { return self }
        let anchorSeconds = Double(anchorTime.sampleTime) / anchorTime.sampleRate
        if isSampleTimeValid {
            let seconds = Double(sampleTime) / sampleRate - anchorSeconds
            let host = Double(anchorTime.hostTime) + seconds * 1e9
            return AVAudioTime(hostTime: UInt64(max(0, host).rounded()), sampleTime: sampleTime, atRate: sampleRate)
        }
        let seconds = (Double(hostTime) - Double(anchorTime.hostTime)) / 1e9 + anchorSeconds
        return AVAudioTime(hostTime: hostTime, sampleTime: AVAudioFramePosition((seconds * sampleRate).rounded()),
                           atRate: sampleRate)
    }
}
