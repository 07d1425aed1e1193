/// The bytes a stream parser holds between calls: what arrived and is not yet consumed,
/// with the file position of its first byte. It is raw memory, not a Swift array, so a
/// pointer into it stays valid while a packets callback runs (the callback may call
/// back into the parser, which must not trip Swift's exclusive-access checks).
final class FileStreamBytes {
    private var storage: UnsafeMutableRawPointer
    private var capacity: Int
    private var start = 0
    private var end = 0
    /// The file position of `bytes[0]`.
    private(set) var position: Int64 = 0

    init() {
        capacity = 4096
        storage = .allocate(byteCount: capacity, alignment: 16)
    }
    deinit { storage.deallocate() }

    var count: Int { end - start }
    var endPosition: Int64 { position + Int64(count) }
    var base: UnsafeRawPointer { UnsafeRawPointer(storage + start) }

    func append(_ bytes: UnsafeRawBufferPointer) {
        guard let from = bytes.baseAddress, bytes.count > 0 else { return }
        if end + bytes.count > capacity {
            if start > 0 {
                (storage).copyMemory(from: storage + start, byteCount: count)
                end -= start
                start = 0
            }
            if end + bytes.count > capacity {
                var grown = capacity
                while grown < end + bytes.count { grown *= 2 }
                let bigger = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 16)
                bigger.copyMemory(from: storage, byteCount: end)
                storage.deallocate()
                storage = bigger
                capacity = grown
            }
        }
        (storage + end).copyMemory(from: from, byteCount: bytes.count)
        end += bytes.count
    }

    /// Drops `n` bytes from the front.
    func consume(_ n: Int) {
        let n = min(n, count)
        start += n
        position += Int64(n)
        if start == end { start = 0; end = 0 }
    }

    /// Forgets everything; the next byte to arrive is at `position`.
    func reset(to position: Int64) {
        start = 0
        end = 0
        self.position = position
    }

    subscript(i: Int) -> UInt8 { storage.load(fromByteOffset: start + i, as: UInt8.self) }

    /// `n` bytes from `at`, or nil when they have not all arrived.
    func slice(_ at: Int, _ n: Int) -> ByteView? {
        guard at >= 0, n >= 0, at + n <= count else { return nil }
        return ByteView(UnsafeRawBufferPointer(start: base + at, count: n))
    }
}

/// Big- and little-endian reads from a run of bytes, each checked against its end.
struct ByteView {
    let bytes: UnsafeRawBufferPointer
    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var count: Int { bytes.count }
    func has(_ at: Int, _ n: Int) -> Bool { at >= 0 && n >= 0 && at + n <= bytes.count }
    func u8(_ at: Int) -> UInt8? { has(at, 1) ? bytes[at] : nil }
    func be16(_ at: Int) -> UInt16? { has(at, 2) ? UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1]) : nil }
    func be32(_ at: Int) -> UInt32? {
        guard has(at, 4) else { return nil }
        return (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[at + $1]) }
    }
    func be64(_ at: Int) -> UInt64? {
        guard has(at, 8) else { return nil }
        return (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[at + $1]) }
    }
    func le16(_ at: Int) -> UInt16? { has(at, 2) ? UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 : nil }
    func le32(_ at: Int) -> UInt32? {
        guard has(at, 4) else { return nil }
        return (0..<4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[at + $1]) }
    }
    func tag(_ at: Int) -> String? { has(at, 4) ? String(decoding: bytes[at..<at + 4], as: UTF8.self) : nil }
    func array(_ at: Int, _ n: Int) -> [UInt8]? { has(at, n) ? Array(bytes[at..<at + n]) : nil }
    func sub(_ at: Int, _ n: Int) -> ByteView? {
        has(at, n) ? ByteView(UnsafeRawBufferPointer(rebasing: bytes[at..<at + n])) : nil
    }
    func float64BE(_ at: Int) -> Double? { be64(at).map { Double(bitPattern: $0) } }

    /// An 80-bit IEEE extended number (AIFF's sample rate).
    func extended80(_ at: Int) -> Double? {
        guard let top = be16(at), let mantissa = be64(at + 2) else { return nil }
        let exponent = Int(top & 0x7FFF)
        guard mantissa != 0, exponent != 0x7FFF else { return 0 }
        let value = Double(mantissa) * Double(sign: .plus, exponent: exponent - 16383 - 63, significand: 1)
        return top & 0x8000 != 0 ? -value : value
    }
}
