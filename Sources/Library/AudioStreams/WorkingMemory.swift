// Real-time code makes its working memory once, before the stream runs, and it starts
// silent: the I/O units' stream engine and the echo canceller both use this.
extension UnsafeMutablePointer {
    public static func filled(_ value: Pointee, count: Int) -> UnsafeMutablePointer {
        let pointer = allocate(capacity: count)
        pointer.initialize(repeating: value, count: count)
        return pointer
    }
}
