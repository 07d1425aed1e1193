import ALSABackend
import AudioSessionCore
import CAudioToolbox
import CoreFoundation
import Glibc
import Locking
import RunLoopDispatch
import Runtime
import Settings
import SystemSounds

// The System Sound Services functions of AudioServices.h. They need no session: the
// player is made on first use. Result codes are the kAudioServices* ones.


private let unspecified = Int32(kAudioServicesSystemSoundUnspecifiedError)
private let unsupported = Int32(bitPattern: UInt32(kAudioServicesUnsupportedPropertyError))

@_cdecl("AudioServicesCreateSystemSoundID")
public func audioServicesCreateSystemSoundID(_ url: CFURL?, _ outID: UnsafeMutablePointer<UInt32>?) -> Int32 {
    guard let url, let outID else {
        Log.error("AudioServicesCreateSystemSoundID: NULL argument")
        return unspecified
    }
    guard let scheme = CFURLCopyScheme(url), CFValues.swiftString(scheme).lowercased() == "file",
          let pathString = CFURLCopyFileSystemPath(url, .cfurlposixPathStyle) else {
        Log.error("AudioServicesCreateSystemSoundID: not a file URL")
        return unspecified
    }
    let path = CFValues.swiftString(pathString)
    do throws(DecodedSound.LoadError) {
        let sound = try DecodedSound.load(path: path)
        outID.pointee = SystemSoundServices.shared.player.create(sound, path: path)
        return 0
    } catch {
        Log.error("AudioServicesCreateSystemSoundID: \(path): \(error)")
        if case .tooLong = error { return Int32(kAudioServicesSystemSoundExceededMaximumDurationError) }
        return unspecified
    }
}

@_cdecl("AudioServicesDisposeSystemSoundID")
public func audioServicesDisposeSystemSoundID(_ id: UInt32) -> Int32 {
    SystemSoundServices.shared.unregister(id)
    return SystemSoundServices.shared.player.dispose(id) ? 0 : unsupported
}

@_cdecl("AudioServicesPlaySystemSound")
public func audioServicesPlaySystemSound(_ id: UInt32) {
    let services = SystemSoundServices.shared
    if id == UInt32(kSystemSoundID_Vibrate) || id == UInt32(kSystemSoundID_FlashScreen) {
        services.player.completeWithoutSound(id)
    } else {
        services.playStarted(id)
        services.player.play(id)
    }
}

@_cdecl("AudioServicesPlayAlertSound")
public func audioServicesPlayAlertSound(_ id: UInt32) { audioServicesPlaySystemSound(id) }

@_cdecl("AudioServicesAddSystemSoundCompletion")
public func audioServicesAddSystemSoundCompletion(_ id: UInt32, _ runLoop: CFRunLoop?, _ mode: CFString?,
                                                  _ procedure: AudioServicesSystemSoundCompletionProc?,
                                                  _ clientData: UnsafeMutableRawPointer?) -> Int32 {
    let services = SystemSoundServices.shared
    let predefined = id == UInt32(kSystemSoundID_Vibrate) || id == UInt32(kSystemSoundID_FlashScreen)
    guard let procedure, predefined || services.player.exists(id) else {
        Log.error("AudioServicesAddSystemSoundCompletion: NULL routine or unknown sound \(id)")
        return unspecified
    }
    let address = UInt(bitPattern: unsafeBitCast(procedure, to: UnsafeRawPointer.self))
    guard services.register(id, runLoop: runLoop ?? CFRunLoopGetMain(), mode: mode ?? kCFRunLoopDefaultMode,
                            procedure: address, clientData: UInt(bitPattern: clientData)) else { return unspecified }
    return 0
}

@_cdecl("AudioServicesRemoveSystemSoundCompletion")
public func audioServicesRemoveSystemSoundCompletion(_ id: UInt32) {
    SystemSoundServices.shared.unregister(id)
}

/// The SystemSoundID a property call names, or its error.
private func soundID(_ size: UInt32, _ specifier: UnsafeRawPointer?) -> Result<UInt32, SoundPropertyError> {
    guard let specifier else { return .failure(.code(unspecified)) }
    guard size == 4 else { return .failure(.code(Int32(bitPattern: UInt32(kAudioServicesBadSpecifierSizeError)))) }
    return .success(specifier.loadUnaligned(as: UInt32.self))
}

struct SoundPropertyError: Error {
    let status: Int32
    static func code(_ status: Int32) -> SoundPropertyError { SoundPropertyError(status: status) }
}

/// Runs `body` on the sound's properties, checking the property ID first.
private func withProperty(_ property: UInt32, _ specifierSize: UInt32, _ specifier: UnsafeRawPointer?,
                          _ body: (inout UInt32) -> Int32) -> Int32 {
    let id: UInt32
    switch soundID(specifierSize, specifier) {
    case .failure(let error): return error.status
    case .success(let value): id = value
    }
    let isUI = property == UInt32(kAudioServicesPropertyIsUISound)
    guard isUI || property == UInt32(kAudioServicesPropertyCompletePlaybackIfAppDies) else { return unsupported }
    let status = SystemSoundServices.shared.player.withSound(id) { sound -> Int32 in
        if isUI { return body(&sound.isUISound) }
        return body(&sound.completePlaybackIfAppDies)
    }
    return status ?? unsupported
}

@_cdecl("AudioServicesGetPropertyInfo")
public func audioServicesGetPropertyInfo(_ property: UInt32, _ specifierSize: UInt32, _ specifier: UnsafeRawPointer?,
                                         _ outSize: UnsafeMutablePointer<UInt32>?,
                                         _ outWritable: UnsafeMutablePointer<UInt8>?) -> Int32 {
    withProperty(property, specifierSize, specifier) { _ in
        outSize?.pointee = 4
        outWritable?.pointee = 1
        return 0
    }
}

@_cdecl("AudioServicesGetProperty")
public func audioServicesGetProperty(_ property: UInt32, _ specifierSize: UInt32, _ specifier: UnsafeRawPointer?,
                                     _ ioSize: UnsafeMutablePointer<UInt32>?, _ outData: UnsafeMutableRawPointer?) -> Int32 {
    withProperty(property, specifierSize, specifier) { value in
        guard let ioSize, let outData else { return unspecified }
        guard ioSize.pointee == 4 else { return Int32(bitPattern: UInt32(kAudioServicesBadPropertySizeError)) }
        outData.storeBytes(of: value, as: UInt32.self)
        return 0
    }
}

@_cdecl("AudioServicesSetProperty")
public func audioServicesSetProperty(_ property: UInt32, _ specifierSize: UInt32, _ specifier: UnsafeRawPointer?,
                                     _ size: UInt32, _ data: UnsafeRawPointer?) -> Int32 {
    withProperty(property, specifierSize, specifier) { value in
        guard let data else { return unspecified }
        guard size == 4 else { return Int32(bitPattern: UInt32(kAudioServicesBadPropertySizeError)) }
        let new = data.loadUnaligned(as: UInt32.self)
        guard new <= 1 else { return unsupported }
        value = new
        return 0
    }
}
