/// Text a peer sent (a program's name, a path, a stream's name) as the daemon's log and
/// the `audiosession` tool show it: what could drive a terminal or forge a line is
/// written as `\u{XX}`.
extension Unicode.Scalar {
    /// Control characters (C0, DEL, C1), and the invisible ones that reorder or join
    /// what follows (bidirectional overrides, zero-width joiners: Unicode's format
    /// characters) or break lines (U+2028, U+2029).
    public var isUnprintable: Bool {
        value < 0x20 || (0x7F...0x9F).contains(value) || properties.generalCategory == .format
            || value == 0x2028 || value == 0x2029
    }
}

extension String {
    /// This text with every unprintable scalar written as `\u{XX}`.
    public var printable: String {
        guard unicodeScalars.contains(where: \.isUnprintable) else { return self }
        var out = ""
        for scalar in unicodeScalars {
            if scalar.isUnprintable { out += "\\u{" + String(scalar.value, radix: 16) + "}" } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }
}
