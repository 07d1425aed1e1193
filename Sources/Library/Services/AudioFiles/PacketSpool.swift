import CDescriptors
import Glibc

/// Compressed packets held in a nameless scratch file until the file they belong to is
/// closed. An M4A records its priming and remainder (the packet table) in the edit list
/// of a header FFmpeg writes around the packets' time stamps, and programs set
/// kAudioFilePropertyPacketTableInfo after their last packet, just before closing (the
/// converter's priming is known only once it has encoded): the packets are multiplexed
/// at close, when the table is final.
final class PacketSpool {
    struct Entry {
        let byteSize: UInt32
        let frames: Int64
    }
    private let descriptor: Int32
    private(set) var entries: [Entry] = []
    private(set) var totalFrames: Int64 = 0
    private var written: Int64 = 0

    /// A spool beside `path` (on its file system), or in memory where that cannot be.
    init(besides path: String) throws(AudioFileStatus) {
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
        descriptor = DescriptorsAnonymousFile(folder)
        guard descriptor >= 0 else { throw .invalidFile }
    }

    deinit { Glibc.close(descriptor) }

    func append(_ bytes: UnsafeRawBufferPointer, frames: Int64) throws(AudioFileStatus) {
        var done = 0
        while done < bytes.count {
            let n = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(written) + off_t(done))
            if n < 0 && errno == EINTR { continue }
            // Out of space: the packet is not kept, and the program hears of it now.
            guard n > 0 else { throw .invalidFile }
            done += n
        }
        written += Int64(bytes.count)
        entries.append(Entry(byteSize: UInt32(bytes.count), frames: frames))
        totalFrames += frames
    }

    /// Calls `body` with each packet in order and its duration, the last ones shortened
    /// so that together they last `totalFrames - trim` (never below one frame each).
    func replay(trimmingEnd trim: Int64, _ body: (UnsafeRawBufferPointer, Int64) throws(AudioFileStatus) -> Void)
        throws(AudioFileStatus) {
        var durations = entries.map(\.frames)
        var left = max(0, trim)
        for i in durations.indices.reversed() where left > 0 {
            let cut = min(left, durations[i] - 1)
            durations[i] -= cut
            left -= cut
        }
        let largest = Int(entries.map(\.byteSize).max() ?? 0)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(1, largest), alignment: 16)
        defer { buffer.deallocate() }
        var offset: off_t = 0
        for (entry, duration) in zip(entries, durations) {
            let size = Int(entry.byteSize)
            var done = 0
            while done < size {
                let n = pread(descriptor, buffer + done, size - done, offset + off_t(done))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw .invalidFile }
                done += n
            }
            offset += off_t(size)
            try body(UnsafeRawBufferPointer(start: buffer, count: size), duration)
        }
    }
}
