/// Writes a SoundFont 2 file of one preset (bank 0, program 0) whose zones each play one
/// sample over a range of keys: how audio files (kAUSamplerProperty_LoadAudioFiles), an
/// .aupreset's zones and the default sine become an instrument the synthesizer plays like
/// any other. The layout is the SoundFont 2.01 specification's: a RIFF 'sfbk' of an INFO
/// list, the 16-bit samples (each followed by the 46 silent frames the format asks for)
/// and the nine tables of the preset data, each closed by its terminal record.
struct SoundFontBuilder {
    struct Zone {
        var name: String
        /// Mono 16-bit samples at `sampleRate`.
        var samples: [Int16]
        var sampleRate: Int
        var rootKey: Int
        var keys: ClosedRange<Int>
        /// Loop start and end, in frames, if the zone loops while held.
        var loop: Range<Int>?
    }

    var name: String
    var zones: [Zone]

    // The generators used (SoundFont 2.01, section 8.1.2).
    private static let keyRange: UInt16 = 43, instrument: UInt16 = 41, sampleID: UInt16 = 53, sampleModes: UInt16 = 54,
                       overridingRootKey: UInt16 = 58, releaseVolEnv: UInt16 = 38
    /// The file's bytes.
    func bytes() -> [UInt8] {
        var sampleData: [UInt8] = []
        var headers: [UInt8] = []
        var sampleStart = 0
        for (index, zone) in zones.enumerated() {
            for sample in zone.samples { put16(&sampleData, UInt16(bitPattern: sample)) }
            sampleData += [UInt8](repeating: 0, count: 46 * 2)
            let end = sampleStart + zone.samples.count
            let loop = zone.loop ?? 0..<max(1, zone.samples.count)
            headers += name20("\(zone.name) \(index)")
            put32(&headers, UInt32(sampleStart))
            put32(&headers, UInt32(end))
            put32(&headers, UInt32(sampleStart + min(loop.lowerBound, zone.samples.count)))
            put32(&headers, UInt32(sampleStart + min(loop.upperBound, zone.samples.count)))
            put32(&headers, UInt32(zone.sampleRate))
            headers += [UInt8(clamping: zone.rootKey), 0]
            put16(&headers, 0)
            put16(&headers, 1) // mono
            sampleStart = end + 46
        }
        headers += name20("EOS") + [UInt8](repeating: 0, count: 26)

        // The preset: one zone pointing at the instrument.
        var phdr = name20(name)
        put16(&phdr, 0); put16(&phdr, 0); put16(&phdr, 0)
        put32(&phdr, 0); put32(&phdr, 0); put32(&phdr, 0)
        phdr += name20("EOP")
        put16(&phdr, 0); put16(&phdr, 0); put16(&phdr, 1)
        put32(&phdr, 0); put32(&phdr, 0); put32(&phdr, 0)
        var pbag: [UInt8] = []
        put16(&pbag, 0); put16(&pbag, 0)
        put16(&pbag, 1); put16(&pbag, 0)
        var pgen: [UInt8] = []
        put16(&pgen, SoundFontBuilder.instrument); put16(&pgen, 0)
        put16(&pgen, 0); put16(&pgen, 0)
        let pmod = [UInt8](repeating: 0, count: 10)

        // The instrument: a zone a sample.
        var inst = name20(name)
        put16(&inst, 0)
        inst += name20("EOI")
        put16(&inst, UInt16(zones.count))
        var ibag: [UInt8] = [], igen: [UInt8] = []
        var generators = 0
        for (index, zone) in zones.enumerated() {
            put16(&ibag, UInt16(generators)); put16(&ibag, 0)
            func generator(_ id: UInt16, _ amount: UInt16) {
                put16(&igen, id); put16(&igen, amount)
                generators += 1
            }
            generator(SoundFontBuilder.keyRange, UInt16(zone.keys.lowerBound) | UInt16(zone.keys.upperBound) << 8)
            generator(SoundFontBuilder.overridingRootKey, UInt16(clamping: zone.rootKey))
            generator(SoundFontBuilder.sampleModes, zone.loop == nil ? 0 : 1)
            // A short release (about 0.1 s, in timecents) so a note off does not click.
            generator(SoundFontBuilder.releaseVolEnv, UInt16(bitPattern: -3986))
            generator(SoundFontBuilder.sampleID, UInt16(index))
        }
        put16(&ibag, UInt16(generators)); put16(&ibag, 0)
        put16(&igen, 0); put16(&igen, 0)
        let imod = [UInt8](repeating: 0, count: 10)

        var info: [UInt8] = []
        info += chunk("ifil", [2, 0, 1, 0])
        info += chunk("isng", zeroEnded("EMU8000"))
        info += chunk("INAM", zeroEnded(name))
        let pdta = chunk("phdr", phdr) + chunk("pbag", pbag) + chunk("pmod", pmod) + chunk("pgen", pgen)
            + chunk("inst", inst) + chunk("ibag", ibag) + chunk("imod", imod) + chunk("igen", igen) + chunk("shdr", headers)
        let body = Array("sfbk".utf8) + list("INFO", info) + list("sdta", chunk("smpl", sampleData)) + list("pdta", pdta)
        return chunk("RIFF", body)
    }

    // MARK: Pieces

    private func chunk(_ id: String, _ data: [UInt8]) -> [UInt8] {
        var out = Array(id.utf8)
        put32(&out, UInt32(data.count))
        out += data
        if data.count % 2 == 1 { out.append(0) }
        return out
    }

    private func list(_ type: String, _ data: [UInt8]) -> [UInt8] { chunk("LIST", Array(type.utf8) + data) }

    private func name20(_ text: String) -> [UInt8] {
        var bytes = Array(text.utf8.prefix(19))
        bytes += [UInt8](repeating: 0, count: 20 - bytes.count)
        return bytes
    }

    private func zeroEnded(_ text: String) -> [UInt8] {
        var bytes = Array(text.utf8.prefix(255)) + [0]
        if bytes.count % 2 == 1 { bytes.append(0) }
        return bytes
    }

    private func put16(_ out: inout [UInt8], _ value: UInt16) { out += [UInt8(value & 0xFF), UInt8(value >> 8)] }
    private func put32(_ out: inout [UInt8], _ value: UInt32) {
        out += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
    }
}
