/// The phases a render notify is told of (kAudioUnitRenderAction_PreRender, _PostRender).
public enum RenderAction {
    public static let preRender: UInt32 = 1 << 2, postRender: UInt32 = 1 << 3
}

/// A unit's render notifies (AudioUnitAddRenderNotify): at most eight, each procedure and
/// reference once, kept inline so a render's copy of them retains nothing.
struct RenderNotifies {
    private var entries = InlineArray<8, RenderCallback?>(repeating: nil)
    private(set) var count = 0

    mutating func add(_ callback: RenderCallback) throws(UnitError) {
        for i in 0..<count where entries[i]!.same(callback) { return }
        guard count < entries.count else { throw .invalidPropertyValue }
        entries[count] = callback
        count += 1
    }

    mutating func remove(_ callback: RenderCallback) {
        var kept = 0
        for i in 0..<count {
            let entry = entries[i]!
            if entry.same(callback) { continue }
            entries[kept] = entry
            kept += 1
        }
        for i in kept..<count { entries[i] = nil }
        count = kept
    }

    /// Tells each notify: `phase` is kAudioUnitRenderAction_PreRender or _PostRender,
    /// added to the caller's flags.
    @inline(__always)
    func call(_ phase: UInt32, flags: UInt32, _ timeStamp: UnsafeRawPointer, bus: UInt32, frames: UInt32,
              _ list: UnsafeMutableRawPointer?) {
        for i in 0..<count {
            var told = flags | phase
            _ = entries[i]?.call(&told, timeStamp, bus, frames, list)
        }
    }

}
