// `import AVFoundation`, as an iOS program writes it: the audio classes (AVFAudio) and
// Foundation, which AVFoundation brings along on iOS too.
@_exported import AVFAudio
@_exported import Foundation
