// `import AVFoundation`, as an iOS program writes it: the audio classes (AVFAudio),
// Foundation, and the AudioToolbox C API with its constants (kAudioFormatMPEG4AAC ...),
// which AVFoundation brings along on iOS too. The C functions are the library's own,
// linked in: a program that calls both APIs has one session.
@_exported import AVFAudio
@_exported import CAudioToolbox
@_exported import Foundation
// The C entry points live in the ABI module; importing it links them in.
import AudioToolbox
