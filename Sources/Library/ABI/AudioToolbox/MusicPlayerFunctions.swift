import CoreFoundation
import MusicSequences
import Runtime

// MusicPlayer.h's players: the handle checked, the C arguments read; playing is the
// MusicPlayerEngine's (Services/MusicSequences).

/// Runs a call on a player: the handle looked up, thrown codes returned.
func playerCall(_ handle: OpaquePointer?, _ body: (MusicPlayerEngine) throws(MusicError) -> Void) -> Int32 {
    guard let player = MusicHandles.players.get(handle) else { return MusicError.parameter.rawValue }
    do throws(MusicError) {
        try body(player)
        return 0
    } catch {
        return error.rawValue
    }
}

@_cdecl("NewMusicPlayer")
public func newMusicPlayer(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out else { return MusicError.parameter.rawValue }
    out.pointee = MusicHandles.newPlayer()
    return 0
}

@_cdecl("DisposeMusicPlayer")
public func disposeMusicPlayer(_ player: OpaquePointer?) -> Int32 {
    MusicHandles.disposePlayer(player) ? 0 : MusicError.parameter.rawValue
}

@_cdecl("MusicPlayerSetSequence")
public func musicPlayerSetSequence(_ player: OpaquePointer?, _ sequence: OpaquePointer?) -> Int32 {
    playerCall(player) { p throws(MusicError) in
        guard sequence == nil || MusicHandles.sequences.get(sequence) != nil else { throw .parameter }
        p.setSequence(MusicHandles.sequences.get(sequence))
    }
}

@_cdecl("MusicPlayerGetSequence")
public func musicPlayerGetSequence(_ player: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    playerCall(player) { p throws(MusicError) in
        guard let out else { throw .parameter }
        guard let sequence = p.sequence else { throw .noSequence }
        out.pointee = MusicHandles.handle(of: sequence)
    }
}

@_cdecl("MusicPlayerSetTime")
public func musicPlayerSetTime(_ player: OpaquePointer?, _ time: Double) -> Int32 {
    playerCall(player) { p throws(MusicError) in try p.setTime(time) }
}

@_cdecl("MusicPlayerGetTime")
public func musicPlayerGetTime(_ player: OpaquePointer?, _ out: UnsafeMutablePointer<Double>?) -> Int32 {
    playerCall(player) { p throws(MusicError) in
        guard let out else { throw .parameter }
        guard p.sequence != nil else { throw .noSequence }
        out.pointee = p.time
    }
}

@_cdecl("MusicPlayerGetHostTimeForBeats")
public func musicPlayerGetHostTimeForBeats(_ player: OpaquePointer?, _ beats: Double, _ out: UnsafeMutablePointer<UInt64>?)
    -> Int32 {
    playerCall(player) { p throws(MusicError) in
        guard let out, beats.isFinite else { throw .parameter }
        out.pointee = try p.hostTime(forBeats: beats)
    }
}

@_cdecl("MusicPlayerGetBeatsForHostTime")
public func musicPlayerGetBeatsForHostTime(_ player: OpaquePointer?, _ host: UInt64, _ out: UnsafeMutablePointer<Double>?)
    -> Int32 {
    playerCall(player) { p throws(MusicError) in
        guard let out else { throw .parameter }
        out.pointee = try p.beats(forHostTime: host)
    }
}

@_cdecl("MusicPlayerPreroll")
public func musicPlayerPreroll(_ player: OpaquePointer?) -> Int32 { playerCall(player) { p throws(MusicError) in try p.preroll() } }

@_cdecl("MusicPlayerStart")
public func musicPlayerStart(_ player: OpaquePointer?) -> Int32 { playerCall(player) { p throws(MusicError) in try p.start() } }

@_cdecl("MusicPlayerStop")
public func musicPlayerStop(_ player: OpaquePointer?) -> Int32 { playerCall(player) { p in p.stop() } }

@_cdecl("MusicPlayerIsPlaying")
public func musicPlayerIsPlaying(_ player: OpaquePointer?, _ out: UnsafeMutablePointer<UInt8>?) -> Int32 {
    playerCall(player) { p throws(MusicError) in
        guard let out else { throw .parameter }
        out.pointee = p.isPlaying ? 1 : 0
    }
}

@_cdecl("MusicPlayerSetPlayRateScalar")
public func musicPlayerSetPlayRateScalar(_ player: OpaquePointer?, _ rate: Double) -> Int32 {
    playerCall(player) { p throws(MusicError) in try p.setRate(rate) }
}

@_cdecl("MusicPlayerGetPlayRateScalar")
public func musicPlayerGetPlayRateScalar(_ player: OpaquePointer?, _ out: UnsafeMutablePointer<Double>?) -> Int32 {
    playerCall(player) { p throws(MusicError) in
        guard let out else { throw .parameter }
        out.pointee = p.rate
    }
}
