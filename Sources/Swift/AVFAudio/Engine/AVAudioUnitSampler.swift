internal import AudioUnits
public import CAudioToolbox
public import Foundation
internal import Runtime

/// An instrument node (iOS's AVAudioUnitMIDIInstrument): MIDI in, sound out. Its messages
/// go to the unit at its next render; sent while the engine is not prepared, they are
/// dropped, as the phone's unit drops them uninitialized.
open class AVAudioUnitMIDIInstrument: AVAudioUnit, @unchecked Sendable {
    public init(audioComponentDescription: AudioComponentDescription) {
        super.init(description: audioComponentDescription,
                   kind: AVAudioUnit.kind(of: audioComponentDescription, types: [OSType(kAudioUnitType_MusicDevice)]))
    }

    var sampler: SamplerUnit? { unit as? SamplerUnit }

    open func startNote(_ note: UInt8, withVelocity velocity: UInt8, onChannel channel: UInt8) {
        send(0x90, channel, note, velocity)
    }

    open func stopNote(_ note: UInt8, onChannel channel: UInt8) { send(0x80, channel, note, 0) }

    open func sendController(_ controller: UInt8, withValue value: UInt8, onChannel channel: UInt8) {
        send(0xB0, channel, controller, value)
    }

    /// 14 bits, 8192 the centre.
    open func sendPitchBend(_ pitchbend: UInt16, onChannel channel: UInt8) {
        send(0xE0, channel, UInt8(pitchbend & 0x7F), UInt8(pitchbend >> 7 & 0x7F))
    }

    open func sendPressure(_ pressure: UInt8, onChannel channel: UInt8) { send(0xD0, channel, pressure, 0) }

    open func sendPressure(forKey key: UInt8, withValue value: UInt8, onChannel channel: UInt8) {
        send(0xA0, channel, key, value)
    }

    open func sendProgramChange(_ program: UInt8, onChannel channel: UInt8) { send(0xC0, channel, program, 0) }

    /// The bank as two controller messages (0 and 32), then the program.
    open func sendProgramChange(_ program: UInt8, bankMSB: UInt8, bankLSB: UInt8, onChannel channel: UInt8) {
        send(0xB0, channel, 0, bankMSB)
        send(0xB0, channel, 32, bankLSB)
        send(0xC0, channel, program, 0)
    }

    open func sendMIDIEvent(_ midiStatus: UInt8, data1: UInt8, data2: UInt8) {
        try? sampler?.midiEvent(status: UInt32(midiStatus), data1: UInt32(data1), data2: UInt32(data2), offset: 0)
    }

    open func sendMIDIEvent(_ midiStatus: UInt8, data1: UInt8) {
        try? sampler?.midiEvent(status: UInt32(midiStatus), data1: UInt32(data1), data2: 0, offset: 0)
    }

    open func sendMIDISysExEvent(_ midiData: Data) {
        midiData.withUnsafeBytes { bytes in try? sampler?.sysEx(bytes) }
    }

    private func send(_ status: UInt8, _ channel: UInt8, _ data1: UInt8, _ data2: UInt8) {
        guard channel < 16 else { return }
        sendMIDIEvent(status | channel, data1: data1 & 0x7F, data2: data2 & 0x7F)
    }
}

/// iOS's AVAudioUnitSampler, over the library's AUSampler (FluidSynth): SoundFont presets,
/// audio files spread over the keys, .aupreset instruments. An instrument loaded before
/// the node is attached is read at once (so its errors are thrown then) and given to the
/// unit when it is made.
open class AVAudioUnitSampler: AVAudioUnitMIDIInstrument, @unchecked Sendable {
    private var pending: SamplerInstrument?

    public init() {
        super.init(audioComponentDescription: AudioComponentDescription(
            componentType: OSType(kAudioUnitType_MusicDevice), componentSubType: OSType(kAudioUnitSubType_Sampler),
            componentManufacturer: OSType(kAudioUnitManufacturer_Apple), componentFlags: 0, componentFlagsMask: 0))
    }

    override func configure(_ unit: any AudioUnitInstance) {
        super.configure(unit)
        if let pending { try? (unit as? SamplerUnit)?.load(pending) }
    }

    /// A SoundFont's preset: `bankMSB` 0x79 (kAUSampler_DefaultMelodicBankMSB) with
    /// `bankLSB` as the bank, 0x78 for percussion. DLS banks are not read on Linux
    /// (kAudioUnitErr_InvalidFile).
    open func loadSoundBankInstrument(at bankURL: URL, program: UInt8, bankMSB: UInt8, bankLSB: UInt8) throws {
        try load(.soundFont(path: bankURL.path, bank: SamplerInstrument.soundFontBank(msb: bankMSB, lsb: bankLSB),
                            program: Int(program)))
    }

    /// An .aupreset, a SoundFont (its first preset) or an audio file, by its extension.
    open func loadInstrument(at instrumentURL: URL) throws {
        let path = instrumentURL.path
        switch instrumentURL.pathExtension.lowercased() {
        case "aupreset":
            let instrument: SamplerInstrument
            do throws(UnitError) {
                instrument = try UnitObjectValues.presetInstrument(at: path)
            } catch {
                throw NSError(domain: NSOSStatusErrorDomain, code: Int(error.rawValue))
            }
            try load(instrument)
        case "sf2", "dls":
            try load(.soundFont(path: path, bank: 0, program: 0))
        default:
            try load(.audioFiles([path]))
        }
    }

    /// Audio files, each at its root key (from the file, else middle C).
    open func loadAudioFiles(at audioFiles: [URL]) throws {
        try load(.audioFiles(audioFiles.map(\.path)))
    }

    private func load(_ instrument: SamplerInstrument) throws {
        do throws(UnitError) {
            if let sampler {
                try sampler.load(instrument)
            } else {
                try SamplerUnit.check(instrument)
            }
            pending = instrument
        } catch {
            throw NSError(domain: NSOSStatusErrorDomain, code: Int(error.rawValue))
        }
    }

    /// dB, -90 to 12 (kAUSamplerParam_Gain).
    open var overallGain: Float {
        get { parameter(900, initial: 0) }
        set { setParameter(900, min(12, max(-90, newValue))) }
    }

    /// The same gain under its older name.
    open var masterGain: Float {
        get { overallGain }
        set { overallGain = newValue }
    }

    /// -100 (left) to 100 (right) (kAUSamplerParam_Pan, -1 to 1).
    open var stereoPan: Float {
        get { parameter(903, initial: 0) * 100 }
        set { setParameter(903, min(1, max(-1, newValue / 100))) }
    }

    /// Cents, -2400 to 2400: whole semitones to the coarse tuning, the rest to the fine.
    open var globalTuning: Float {
        get { parameter(901, initial: 0) * 100 + parameter(902, initial: 0) }
        set {
            let cents = min(2400, max(-2400, newValue))
            let semitones = (cents / 100).rounded(.towardZero)
            setParameter(901, semitones)
            setParameter(902, cents - semitones * 100)
        }
    }
}
