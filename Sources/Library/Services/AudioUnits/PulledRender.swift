extension OutputUnit {
    /// GenericOutput's AudioUnitRender: pulls `frames` frames into the caller's
    /// AudioBufferList `list` (laid out as element 0's output scope says): render
    /// notifies before, the render callback in the program's layout, conversion, volume,
    /// notifies after. Time stamps are the caller's. Allocates nothing: the buffer
    /// pointers live on the stack.
    public func renderPulled(flags: UnsafeMutablePointer<UInt32>, timeStamp: UnsafeRawPointer, bus: UInt32,
                             frames: UInt32, list outputList: UnsafeMutableRawPointer) throws(UnitError) {
        guard !kind.hasDevice else { throw bus == 1 ? .cannotDoInCurrentContext : .invalidElement }
        // A unit pulled from a real-time thread (a graph's node, a connection) must not
        // wait for the program's lock: the configuration is copied when the lock is free,
        // else the last copy serves (a change is heard from the next pull), as the device
        // units' I/O threads do; Initialize makes the first copy. The copy is one
        // puller's at a time (a flag, not a lock): a second thread pulling meanwhile, which
        // no real-time path does, takes the lock instead.
        let copy = { (c: inout Config) in PulledCopy(plan: c.plan, scratch: c.scratch, lent: c.lent, resampler: c.resampler,
                                                    initialized: c.initialized) }
        var current: PulledCopy?
        if pullingCopy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
            if let fresh = config.withLockIfAvailable(copy) { pulledCopy = fresh }
            current = pulledCopy
            pullingCopy.store(false, ordering: .releasing)
        }
        if current == nil { current = config.withLock(copy) }
        let taken = current!
        let (plan, scratch, lent, resampler, initialized) = (taken.plan, taken.scratch, taken.lent, taken.resampler,
                                                             taken.initialized)
        guard initialized, let scratch, let lent else { throw .uninitialized }
        guard bus == 0 else { throw .invalidElement }
        guard frames <= plan.maximumFrames else { throw .tooManyFramesToProcess }
        let output = plan.pulled
        let count = try lend(lent, to: outputList, laidOut: output, frames: Int(frames))
        guard let render = plan.render else {
            _ = config.withLockIfAvailable { $0.lastRenderError = UnitError.invalidProperty.rawValue }
            throw .invalidProperty
        }
        if let resampler {
            try renderResampled(resampler, plan: plan, scratch: scratch, render: render, flags: flags, timeStamp: timeStamp,
                                bus: bus, frames: frames, outputList: outputList)
            return
        }
        let program = plan.programOut
        let list = scratch.list
        let bytes = UInt32(Int(frames) * program.bytesPerFrame)
        scratch.present(bytes: bytes, channelsPerBuffer: UInt32(program.channelsPerBuffer))
        plan.notifies.call(RenderAction.preRender, flags: flags.pointee, timeStamp, bus: bus, frames: frames, outputList)
        var renderFlags: UInt32 = 0
        let status = render.call(&renderFlags, timeStamp, 0, frames, list)
        if status != 0 {
            _ = config.withLockIfAvailable { $0.lastRenderError = status }
            throw UnitError(rawValue: status) ?? .cannotDoInCurrentContext
        }
        withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: 2 * 8) { pointers in
            let sources = pointers.baseAddress!
            let destinations = sources + 8
            // The callback may have pointed a buffer elsewhere: read where it says.
            for i in 0..<min(8, program.bufferCount) {
                sources[i] = (list + 8 + 16 * i).load(fromByteOffset: 8, as: UnsafeMutableRawPointer?.self)
            }
            for i in 0..<min(8, count) {
                destinations[i] = (outputList + 8 + 16 * i).load(fromByteOffset: 8, as: UnsafeMutableRawPointer?.self)
            }
            convertPCM(from: program, sources, to: output, destinations, frames: Int(frames), gain: plan.volume)
        }
        plan.notifies.call(RenderAction.postRender, flags: flags.pointee, timeStamp, bus: bus, frames: frames, outputList)
    }

    /// The render when the two sides' rates differ: the resampler pulls the program in
    /// slices (its own time line, in program frames) and the output is made from it.
    private func renderResampled(_ resampler: PulledResampler, plan: RenderPlan, scratch: Scratch, render: RenderCallback,
                                 flags: UnsafeMutablePointer<UInt32>, timeStamp: UnsafeRawPointer, bus: UInt32, frames: UInt32,
                                 outputList: UnsafeMutableRawPointer) throws(UnitError) {
        plan.notifies.call(RenderAction.preRender, flags: flags.pointee, timeStamp, bus: bus, frames: frames, outputList)
        resampler.render = render
        resampler.speed = plan.playbackRate
        resampler.program = plan.programOut
        resampler.scratch = scratch
        resampler.hostTime = timeStamp.load(fromByteOffset: 8, as: UInt64.self)
        let status = resampler.read(frames: Int(frames))
        resampler.render = nil
        resampler.scratch = nil
        if status != 0 {
            _ = config.withLockIfAvailable { $0.lastRenderError = status }
            throw UnitError(rawValue: status) ?? .cannotDoInCurrentContext
        }
        let output = plan.pulled
        let count = Int(outputList.load(as: UInt32.self))
        withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: 9) { pointers in
            let destinations = pointers.baseAddress!
            for i in 0..<min(8, count) {
                destinations[i] = (outputList + 8 + 16 * i).load(fromByteOffset: 8, as: UnsafeMutableRawPointer?.self)
            }
            destinations[8] = UnsafeMutableRawPointer(resampler.resampled)
            convertPCM(from: resampler.floatLayout, destinations + 8, to: output, destinations, frames: Int(frames), gain: plan.volume)
        }
        plan.notifies.call(RenderAction.postRender, flags: flags.pointee, timeStamp, bus: bus, frames: frames, outputList)
    }
}

/// Makes a caller's output buffer list ready for a render of `frames` frames in `layout`:
/// a NULL data pointer borrows the unit's own buffer from `lent` (valid until the next
/// render), as the header allows; a given one must hold the slice. Returns the list's
/// buffer count; a list that does not fit the layout is `.parameter`.
func lend(_ lent: Scratch, to list: UnsafeMutableRawPointer, laidOut layout: PCMLayout, frames: Int) throws(UnitError) -> Int {
    let count = Int(list.load(as: UInt32.self))
    guard count == layout.bufferCount else { throw .parameter }
    for i in 0..<count {
        let entry = list + 8 + 16 * i
        if entry.load(fromByteOffset: 8, as: UnsafeMutableRawPointer?.self) == nil {
            entry.storeBytes(of: UInt32(layout.channelsPerBuffer), as: UInt32.self)
            entry.storeBytes(of: lent.buffers[i], toByteOffset: 8, as: UnsafeMutableRawPointer.self)
        } else if Int(entry.load(fromByteOffset: 4, as: UInt32.self)) < frames * layout.bytesPerFrame {
            throw .parameter
        }
        entry.storeBytes(of: UInt32(frames * layout.bytesPerFrame), toByteOffset: 4, as: UInt32.self)
    }
    return count
}
