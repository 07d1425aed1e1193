/// The result codes of Audio Queue Services (AudioQueue.h) this layer answers with, and
/// the few shared ones it passes on.
public enum QueueError: Int32, Error, Sendable {
    case invalidBuffer = -66687
    case bufferEmpty = -66686
    case disposalPending = -66685
    case invalidProperty = -66684
    case invalidPropertySize = -66683
    case invalidParameter = -66682
    case cannotStart = -66681
    case invalidDevice = -66680
    case bufferInQueue = -66679
    case invalidRunState = -66678
    case invalidQueueType = -66677
    case permissions = -66676
    case invalidPropertyValue = -66675
    case primeTimedOut = -66674
    case codecNotFound = -66673
    case invalidCodecAccess = -66672
    case queueInvalidated = -66671
    case tooManyTaps = -66670
    case invalidTapContext = -66669
    case invalidTapType = -66667
    case enqueueDuringReset = -66632
    case invalidOfflineMode = -66626
    /// kAudio_ParamError: a NULL where an argument is needed.
    case parameter = -50
    /// kAudioFormatUnsupportedDataFormatError ('fmt?'): a format no queue plays or records.
    case unsupportedDataFormat = 0x666D_743F
    /// kAudioSessionIncompatibleCategory ('!cat'): recording in a category that does not.
    case incompatibleCategory = 0x2163_6174
    /// '!pla': the device would not open.
    case cannotStartPlaying = 0x2170_6C61
}
