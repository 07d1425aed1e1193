internal import AudioSessionCore
public import Foundation

/// Turns the session's listener calls into AVAudioSession's notifications, posted on
/// NotificationCenter.default with the shared session as their object, on the main
/// thread. The session queued each call after its change was made, so an interruption's
/// Begin is posted after the program's audio stopped (SPEC 10).
enum SessionNotifications {
    static func post(for call: ListenerCall) {
        for (name, userInfo) in notifications(for: call) {
            let post = {
                NotificationCenter.default.post(name: name, object: AVAudioSession.sharedInstance(), userInfo: userInfo)
            }
            if Thread.isMainThread { post() } else { DispatchQueue.main.async(execute: post) }
        }
    }

    /// The notifications one call makes, with their userInfo as iOS fills it: raw values
    /// as NSNumber-wrapped UInt.
    static func notifications(for call: ListenerCall) -> [(Notification.Name, [AnyHashable: Any])] {
        switch call {
        case .interruption(.begin):
            return [(AVAudioSession.interruptionNotification, [
                AVAudioSessionInterruptionTypeKey: NSNumber(value: AVAudioSession.InterruptionType.began.rawValue),
                AVAudioSessionInterruptionReasonKey: NSNumber(value: AVAudioSession.InterruptionReason.default.rawValue),
            ])]
        case .interruption(.end(let type)):
            let options: AVAudioSession.InterruptionOptions = type == .shouldResume ? .shouldResume : []
            return [(AVAudioSession.interruptionNotification, [
                AVAudioSessionInterruptionTypeKey: NSNumber(value: AVAudioSession.InterruptionType.ended.rawValue),
                AVAudioSessionInterruptionOptionKey: NSNumber(value: options.rawValue),
            ])]
        case .property(.audioRouteChange, .routeChange(let change)):
            return [(AVAudioSession.routeChangeNotification, [
                AVAudioSessionRouteChangeReasonKey: NSNumber(value: UInt(change.reason.rawValue)),
                AVAudioSessionRouteChangePreviousRouteKey: AVAudioSessionRouteDescription(change.previous),
            ])]
        case .property(.serverDied, _):
            // The session outlives the arbiter it lost (it reconnects, or arbitrates
            // alone): services are lost and, in the same breath, back.
            return [(AVAudioSession.mediaServicesWereLostNotification, [:]),
                    (AVAudioSession.mediaServicesWereResetNotification, [:])]
        case .property(.otherAudioIsPlaying, .uint32(let playing)):
            let hint: AVAudioSession.SilenceSecondaryAudioHintType = playing != 0 ? .begin : .end
            return [(AVAudioSession.silenceSecondaryAudioHintNotification, [
                AVAudioSessionSilenceSecondaryAudioHintTypeKey: NSNumber(value: hint.rawValue),
            ])]
        default:
            return []
        }
    }
}
