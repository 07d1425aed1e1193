import AudioFiles
import CMusicSynth
import Glibc

/// What a sampler plays, as the program named it.
public enum SamplerInstrument: Sendable, Equatable {
    /// The sampler's own sound before anything is loaded: a sine, as the phone's.
    case sine
    /// A SoundFont's preset (kAUSamplerProperty_LoadInstrument, _LoadPresetFromBank): its
    /// SoundFont bank (128 is percussion) and program.
    case soundFont(path: String, bank: Int, program: Int)
    /// Every General MIDI program of a SoundFont, each channel its own (the music player's
    /// synthesizer): program changes choose, channel 10 is percussion.
    case generalMIDI(path: String)
    /// Audio files, each sounding at its own pitch at its root key (from the file, else
    /// middle C) and spread over the keys nearest it (kAUSamplerProperty_LoadAudioFiles).
    case audioFiles([String])
    /// An .aupreset's zones (its Instrument's layers), each a sample over a range of keys.
    case zones(name: String, [PresetZone])

    public struct PresetZone: Sendable, Equatable {
        public var path: String
        public var rootKey: Int
        public var keys: ClosedRange<Int>
        public var loop: Range<Int>?
        public init(path: String, rootKey: Int, keys: ClosedRange<Int>, loop: Range<Int>?) {
            self.path = path
            self.rootKey = rootKey
            self.keys = keys
            self.loop = loop
        }
    }

    /// Where a sample an .aupreset names is: the path if it is there, else the same
    /// relative path from the preset's folder, then from the program's folder and the
    /// folders above it (an app's bundle keeps its presets and samples side by side).
    public static func resolve(_ path: String, from folder: String?) -> String {
        if path.hasPrefix("/") || access(path, R_OK) == 0 { return path }
        var folders: [String] = folder.map { [$0] } ?? []
        var link = [UInt8](repeating: 0, count: 4096)
        let length = link.withUnsafeMutableBufferPointer { readlink("/proc/self/exe", $0.baseAddress!, $0.count) }
        if length > 0 {
            var directory = String(decoding: link[0..<length], as: UTF8.self)
            while let slash = directory.lastIndex(of: "/"), slash != directory.startIndex {
                directory = String(directory[..<slash])
                folders.append(directory)
            }
        }
        for candidate in folders.map({ $0 + "/" + path }) where access(candidate, R_OK) == 0 { return candidate }
        return path
    }

    /// The bank a LoadInstrument or LoadPresetFromBank names, as a SoundFont bank: the
    /// phone's default melodic bank (0x79) is bank 0 plus the LSB, its percussion bank
    /// (0x78) is 128; another MSB is taken as the bank itself.
    public static func soundFontBank(msb: UInt8, lsb: UInt8) -> Int {
        switch msb {
        case 0x79: return Int(lsb)
        case 0x78: return 128
        default: return Int(msb)
        }
    }
}

/// An instrument made ready to play: the font the synthesizers share, and which of its
/// presets each channel starts with. Made off the render thread (it reads files).
final class LoadedInstrument: @unchecked Sendable {
    let font: OpaquePointer
    /// Every channel the same preset (an AUSampler instrument), or General MIDI.
    let bank: Int, program: Int
    let generalMIDI: Bool

    private init(font: OpaquePointer, bank: Int, program: Int, generalMIDI: Bool) {
        self.font = font
        self.bank = bank
        self.program = program
        self.generalMIDI = generalMIDI
    }

    deinit { MusicFontRelease(font) }

    /// Loads `instrument`; the error is the sampler property's result.
    static func load(_ instrument: SamplerInstrument) throws(UnitError) -> LoadedInstrument {
        guard MusicSynthAvailable() != 0 else { throw .failedInitialization }
        switch instrument {
        case .soundFont(let path, let bank, let program):
            let font = try font(at: path)
            guard MusicFontHasPreset(font, Int32(bank), Int32(program)) != 0 else {
                MusicFontRelease(font)
                throw .invalidPropertyValue
            }
            return LoadedInstrument(font: font, bank: bank, program: program, generalMIDI: false)
        case .generalMIDI(let path):
            return LoadedInstrument(font: try font(at: path), bank: 0, program: 0, generalMIDI: true)
        case .sine:
            return try built(SoundFontBuilder(name: "Sine", zones: [sineZone()]))
        case .audioFiles(let paths):
            guard !paths.isEmpty else { throw .invalidPropertyValue }
            var zones: [SoundFontBuilder.Zone] = []
            for path in paths {
                let (samples, rate) = try decoded(path)
                zones.append(SoundFontBuilder.Zone(name: baseName(path), samples: samples,
                                                   sampleRate: rate, rootKey: SampleFileFacts.rootKey(path) ?? 60,
                                                   keys: 0...127, loop: nil))
            }
            spreadOverKeys(&zones)
            return try built(SoundFontBuilder(name: "Audio Files", zones: zones))
        case .zones(let name, let presetZones):
            guard !presetZones.isEmpty else { throw .invalidPropertyValue }
            var zones: [SoundFontBuilder.Zone] = []
            for zone in presetZones {
                let (samples, rate) = try decoded(zone.path)
                zones.append(SoundFontBuilder.Zone(name: baseName(zone.path), samples: samples,
                                                   sampleRate: rate, rootKey: zone.rootKey, keys: zone.keys,
                                                   loop: zone.loop.map { min($0.lowerBound, samples.count)..<min($0.upperBound, samples.count) }))
            }
            return try built(SoundFontBuilder(name: name, zones: zones))
        }
    }

    private static func font(at path: String) throws(UnitError) -> OpaquePointer {
        guard access(path, R_OK) == 0 else { throw .fileNotFound }
        guard let font = MusicFontLoad(path) else { throw .invalidFile }
        return font
    }

    private static func baseName(_ path: String) -> String { String(path.split(separator: "/").last ?? "") }

    /// A file's sound as mono 16-bit samples at its own rate (at most ten minutes).
    private static func decoded(_ path: String) throws(UnitError) -> ([Int16], Int) {
        let source: DescriptorSource
        do { source = try DescriptorSource.open(path: path) } catch { throw .fileNotFound }
        switch WholeFileDecoder.decode(source, maximumSeconds: 600, accepting: { rate, channels in rate > 0 && channels > 0 }) {
        case .success(let sound):
            let channels = sound.channels, frames = sound.samples.count / max(1, channels)
            var mono = [Int16](repeating: 0, count: frames)
            for i in 0..<frames {
                var sum: Float = 0
                for c in 0..<channels { sum += sound.samples[i * channels + c] }
                mono[i] = Int16(max(-32768, min(32767, (sum / Float(channels) * 32767).rounded())))
            }
            return (mono, sound.sampleRate)
        case .failure:
            throw .invalidFile
        }
    }

    /// One cycle-aligned second of a 440 Hz sine, looped, at the A above middle C.
    private static func sineZone() -> SoundFontBuilder.Zone {
        let rate = 44100, frames = 44100
        let samples = (0..<frames).map { Int16((sin(2 * Double.pi * 440 * Double($0) / Double(rate)) * 16000).rounded()) }
        return SoundFontBuilder.Zone(name: "Sine", samples: samples, sampleRate: rate, rootKey: 69, keys: 0...127,
                                     loop: 0..<frames)
    }

    /// Each zone from halfway to the root below it to halfway to the root above.
    private static func spreadOverKeys(_ zones: inout [SoundFontBuilder.Zone]) {
        zones.sort { $0.rootKey < $1.rootKey }
        for i in zones.indices {
            let low = i == 0 ? 0 : (zones[i - 1].rootKey + zones[i].rootKey) / 2 + 1
            let high = i == zones.count - 1 ? 127 : (zones[i].rootKey + zones[i + 1].rootKey) / 2
            zones[i].keys = min(low, high)...high
        }
    }

    /// A built SoundFont, loaded from memory (nothing is written to disk).
    private static func built(_ builder: SoundFontBuilder) throws(UnitError) -> LoadedInstrument {
        let bytes = builder.bytes()
        guard let font = bytes.withUnsafeBytes({ MusicFontLoadBytes($0.baseAddress, $0.count) }) else { throw .invalidFile }
        return LoadedInstrument(font: font, bank: 0, program: 0, generalMIDI: false)
    }
}

/// What a sample file says of itself beyond its sound.
enum SampleFileFacts {
    /// The MIDI note the sound is at, from a WAVE 'smpl' chunk or an AIFF 'INST' chunk.
    static func rootKey(_ path: String) -> Int? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        // The chunks before the sound: a megabyte holds them in any file a sampler loads.
        var bytes = [UInt8](repeating: 0, count: 1 << 20)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count >= 12 else { return nil }
        bytes.removeSubrange(count...)
        let riff = bytes[0..<4].elementsEqual("RIFF".utf8), form = bytes[0..<4].elementsEqual("FORM".utf8)
        guard riff || form else { return nil }
        var at = 12
        while at + 8 <= bytes.count {
            let id = String(decoding: bytes[at..<at + 4], as: UTF8.self)
            let size = riff
                ? Int(bytes[at + 4]) | Int(bytes[at + 5]) << 8 | Int(bytes[at + 6]) << 16 | Int(bytes[at + 7]) << 24
                : Int(bytes[at + 4]) << 24 | Int(bytes[at + 5]) << 16 | Int(bytes[at + 6]) << 8 | Int(bytes[at + 7])
            let body = at + 8
            if riff, id == "smpl", body + 16 <= bytes.count {
                let note = Int(bytes[body + 12]) | Int(bytes[body + 13]) << 8
                return note < 128 ? note : nil
            }
            if form, id == "INST", body < bytes.count { return bytes[body] < 128 ? Int(bytes[body]) : nil }
            guard size >= 0 else { return nil }
            at = body + size + (size & 1)
        }
        return nil
    }
}
