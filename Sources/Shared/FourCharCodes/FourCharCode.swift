/// Formats and builds the four-character codes the API uses for IDs and values: the one
/// printer of the library, the daemon and the tool (a shared module, so the daemon links
/// no library module for it).
///
/// Codes are big-endian: `'acat'` is `0x61636174`. Printing one shows its characters in
/// quotes when they are all printable, and the plain number otherwise, so logs and
/// test failures read as the C constants do, and no control character reaches a
/// terminal or a log.
public enum FourCharCode {
    public static func make(_ text: StaticString) -> UInt32 {
        precondition(text.utf8CodeUnitCount == 4, "a four-character code has four characters")
        return text.withUTF8Buffer { bytes in
            bytes.reduce(0) { ($0 << 8) | UInt32($1) }
        }
    }

    /// `'acat'`, or the number.
    public static func describe(_ value: UInt32) -> String {
        guard let text = printable(value) else { return String(value) }
        return "'" + text + "'"
    }

    /// `acat` without quotes (a log's word), or the number.
    public static func text(_ value: UInt32) -> String {
        printable(value) ?? String(value)
    }

    private static func printable(_ value: UInt32) -> String? {
        let bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> UInt32($0)) }
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
