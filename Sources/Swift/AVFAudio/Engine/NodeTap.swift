internal import AudioStreams
internal import AudioUnits
public import Foundation
internal import Synchronization

public typealias AVAudioNodeTapBlock = @Sendable (AVAudioPCMBuffer, AVAudioTime) -> Void

/// A tap on a node's output bus: the unit's post-render notify copies each render's
/// frames into a lock-free ring (on the render thread: no allocation, no lock, no
/// system call), and a thread of the tap's own takes them out `bufferSize` frames at a
/// time into new buffers for the block, with the sample time of their first frame.
final class NodeTap: @unchecked Sendable {
    let bus: UInt32
    let format: AVAudioFormat
    private let channels: Int
    private let bufferSize: Int
    private let block: AVAudioNodeTapBlock
    private let ring: SPSCRing<Float>
    /// Render thread: one render's frames interleaved, made at install for the largest.
    private let scratch: UnsafeMutablePointer<Float>
    private let scratchFrames: Int
    /// The sample time of the first frame the ring took (Int64.min: none yet).
    private let firstSample = Atomic<Int64>(Int64.min)
    private let running = Atomic<Bool>(true)
    private let stopped = DispatchSemaphore(value: 0)
    /// The process the tap's thread runs in: in the child of a fork there is none to wait for.
    private let process = getpid()
    /// The tap's thread (pthread_self), once it runs: a block that removes its own tap is
    /// on it, and must not wait for itself.
    private let deliverer = Atomic<UInt>(0)

    init(bus: UInt32, format: AVAudioFormat, bufferSize: Int, maximumFrames: Int, block: @escaping AVAudioNodeTapBlock) {
        self.bus = bus
        self.format = format
        channels = Int(format.channelCount)
        self.bufferSize = bufferSize
        self.block = block
        scratchFrames = maximumFrames
        scratch = .allocate(capacity: maximumFrames * channels)
        // A second of sound and two deliveries, whichever is more: room for the tap's
        // thread to be late.
        ring = SPSCRing(frames: max(Int(format.sampleRate), 2 * bufferSize + maximumFrames), channels: channels, filler: 0)
        let thread = Thread { [self] in deliver() }
        thread.name = "AVAudioNode tap"
        thread.start()
    }

    deinit { scratch.deallocate() }

    var callback: RenderCallback { RenderCallback(procedure: NodeTap.notify, refCon: Unmanaged.passUnretained(self).toOpaque()) }

    /// Ends the deliveries and waits for the tap's thread to finish (in the process that
    /// made it: a forked child has only the calling thread), unless this is that thread (a
    /// block removing its own tap, which then is the last block called).
    func stop() {
        running.store(false, ordering: .releasing)
        let onTapThread = deliverer.load(ordering: .acquiring) == UInt(pthread_self())
        if getpid() == process && !onTapThread { stopped.wait() }
    }

    /// The unit's render notify (render thread): after a render of the tapped bus, its
    /// frames into the ring.
    private static let notify: RenderCallback.Procedure = { refCon, flags, stamp, bus, frames, list in
        guard let refCon, let list, flags.pointee & 8 != 0 else { return 0 }   // kAudioUnitRenderAction_PostRender
        let tap = Unmanaged<NodeTap>.fromOpaque(refCon).takeUnretainedValue()
        guard bus == tap.bus else { return 0 }
        tap.take(stamp, frames: min(Int(frames), tap.scratchFrames), list)
        return 0
    }

    private func take(_ stamp: UnsafeRawPointer, frames: Int, _ list: UnsafeMutableRawPointer) {
        let buffers = Int(list.load(as: UInt32.self))
        guard buffers == channels || buffers == 1 else { return }
        for b in 0..<buffers {
            guard let data = (list + 8 + 16 * b).load(fromByteOffset: 8, as: UnsafeMutablePointer<Float>?.self) else { return }
            if buffers == 1 {
                scratch.update(from: data, count: frames * channels)
            } else {
                for f in 0..<frames { scratch[f * channels + b] = data[f] }
            }
        }
        if firstSample.load(ordering: .relaxed) == Int64.min, stamp.load(fromByteOffset: 56, as: UInt32.self) & 1 != 0 {
            firstSample.store(Int64(stamp.load(as: Double.self)), ordering: .releasing)
        }
        _ = ring.write(scratch, frames: frames)
    }

    /// The tap's thread: whole buffers to the block, then a short sleep.
    private func deliver() {
        deliverer.store(UInt(pthread_self()), ordering: .releasing)
        let interleaved = UnsafeMutablePointer<Float>.allocate(capacity: bufferSize * channels)
        defer {
            interleaved.deallocate()
            stopped.signal()
        }
        var delivered: Int64 = 0
        while running.load(ordering: .acquiring) {
            while ring.available >= bufferSize, running.load(ordering: .acquiring),
                  let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(bufferSize)) {
                _ = ring.take(into: interleaved, frames: bufferSize)
                for c in 0..<channels {
                    let out = buffer.rawChannels[c].assumingMemoryBound(to: Float.self), step = buffer.stride
                    for f in 0..<bufferSize { out[f * step] = interleaved[f * channels + c] }
                }
                buffer.frameLength = AVAudioFrameCount(bufferSize)
                let first = firstSample.load(ordering: .acquiring)
                let time = AVAudioTime(sampleTime: (first == Int64.min ? 0 : first) + delivered, atRate: format.sampleRate)
                delivered += Int64(bufferSize)
                block(buffer, time)
            }
            usleep(5000)
        }
    }
}

extension AVAudioNode {
    /// Calls `block` with the frames the node's output `bus` gives, `bufferSize` at a time
    /// (100 to 65536), in the bus's format (a `format` given must have its rate and
    /// channel count), on a thread of the tap's own, never the render thread. One tap a
    /// bus: installing a second, or on a node not attached, stops the program with a
    /// message, as iOS raises.
    public func installTap(onBus bus: AVAudioNodeBus, bufferSize: AVAudioFrameCount, format: AVAudioFormat?,
                         block: @escaping AVAudioNodeTapBlock) {
        guard let unit, bus >= 0 else { preconditionFailure("AVAudioNode.installTap: the node is not attached to an engine") }
        let busFormat = outputFormat(forBus: bus)
        if let format {
            precondition(format.sampleRate == busFormat.sampleRate && format.channelCount == busFormat.channelCount,
                         "AVAudioNode.installTap: the format must be the bus's (\(busFormat))")
        }
        let deliveredFormat = AVAudioFormat(standardFormatWithSampleRate: busFormat.sampleRate, channels: busFormat.channelCount)!
        let tap = NodeTap(bus: unitBus(bus), format: deliveredFormat, bufferSize: Int(min(65536, max(100, bufferSize))),
                          maximumFrames: Int(max(4096, unit.maximumFramesPerSlice)), block: block)
        let installed = taps.withLock { taps -> Bool in
            guard taps[bus] == nil else { return false }
            taps[bus] = tap
            return true
        }
        guard installed else {
            tap.stop()
            preconditionFailure("AVAudioNode.installTap: bus \(bus) already has a tap")
        }
        try? unit.addRenderNotify(tap.callback)
        attachedEngine?.tapsChanged(on: self)
    }

    /// Ends the tap on `bus`: no block is called after this returns.
    public func removeTap(onBus bus: AVAudioNodeBus) {
        guard let tap = taps.withLock({ $0.removeValue(forKey: bus) }) else { return }
        unit?.removeRenderNotify(tap.callback)
        attachedEngine?.tapsChanged(on: self)
        tap.stop()
        // A render that copied the notifies before the removal may still call it once.
        retiredTaps.withLock { $0.append(tap) }
    }
}
