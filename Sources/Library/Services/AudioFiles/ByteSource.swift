import CMediaCodecs
import Glibc

/// Where a file's bytes come from: a descriptor opened by path, or the program's
/// read/size callbacks (AudioFileOpenWithCallbacks). Positioned reads only.
public protocol ByteSource: AnyObject {
    /// Bytes read into `buffer` at `position`: fewer at the end, 0 past it, nil on an error.
    func read(at position: Int64, into buffer: UnsafeMutableRawPointer, count: Int) -> Int?
    /// The size of the whole file, nil if not known.
    var size: Int64? { get }
}

extension ByteSource {
    /// Exactly `count` bytes at `position`, or nil.
    func bytes(at position: Int64, count: Int) -> [UInt8]? {
        guard count >= 0 else { return nil }
        var result = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            guard let got = result.withUnsafeMutableBytes({ read(at: position + Int64(done), into: $0.baseAddress! + done, count: count - done) }),
                  got > 0 else { return nil }
            done += got
        }
        return result
    }
}

/// A regular file opened for reading (and, for files being written, writing).
public final class DescriptorSource: ByteSource {
    public let descriptor: Int32
    public init(descriptor: Int32) { self.descriptor = descriptor }

    /// Opens `path` for reading: a missing file is kAudioFileFileNotFoundError, one we may
    /// not read kAudioFilePermissionsError, and anything not a regular file (a FIFO, a
    /// device, a folder) kAudioFileInvalidFileError, without blocking on it.
    public static func open(path: String) throws(AudioFileStatus) -> DescriptorSource {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else {
            switch errno {
            case ENOENT, ENOTDIR: throw .fileNotFound
            case EACCES, EPERM: throw .permissions
            default: throw .invalidFile
            }
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw .invalidFile
        }
        return DescriptorSource(descriptor: fd)
    }

    deinit { close(descriptor) }

    public func read(at position: Int64, into buffer: UnsafeMutableRawPointer, count: Int) -> Int? {
        guard position >= 0 else { return nil }
        while true {
            let got = pread(descriptor, buffer, count, off_t(position))
            if got >= 0 { return got }
            if errno != EINTR { return nil }
        }
    }

    public var size: Int64? {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? Int64(info.st_size) : nil
    }
}

/// The program's callbacks, as closures the ABI layer makes from its C function pointers.
public final class CallbackSource: ByteSource {
    let reader: (Int64, UnsafeMutableRawPointer, Int) -> Int?
    let sizer: () -> Int64?
    public init(read: @escaping (Int64, UnsafeMutableRawPointer, Int) -> Int?, size: @escaping () -> Int64?) {
        reader = read
        sizer = size
    }
    public func read(at position: Int64, into buffer: UnsafeMutableRawPointer, count: Int) -> Int? {
        reader(position, buffer, count)
    }
    public var size: Int64? { sizer() }
}

/// A ByteSource as FFmpeg's demuxer reads it.
final class DemuxerInput {
    let source: ByteSource
    init(_ source: ByteSource) { self.source = source }

    /// Calls `body` with a MediaSource over this input, alive for the call.
    func withMediaSource<R>(_ body: (UnsafePointer<MediaSource>) -> R) -> R {
        var media = MediaSource(
            context: Unmanaged.passUnretained(self).toOpaque(),
            readAt: { context, position, buffer, count in
                let input = Unmanaged<DemuxerInput>.fromOpaque(context!).takeUnretainedValue()
                guard let buffer, count > 0 else { return 0 }
                return input.source.read(at: position, into: buffer, count: Int(count)).map(Int32.init) ?? -1
            },
            size: { context in
                Unmanaged<DemuxerInput>.fromOpaque(context!).takeUnretainedValue().source.size ?? -1
            })
        return body(&media)
    }
}
