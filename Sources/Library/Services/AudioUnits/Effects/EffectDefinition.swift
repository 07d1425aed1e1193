import AudioFiles

/// A parameter as an effect declares it: what kAudioUnitProperty_ParameterList and
/// ParameterInfo report, and the range a value set is held to.
public struct ParameterSpec: Sendable {
    public let id: UInt32
    public let name: String
    /// AudioUnitParameterUnit (kAudioUnitParameterUnit_Hertz ...).
    public let unit: UInt32
    public let minimum: Float
    /// The top of the range at a sample rate (a cutoff reaches half of it).
    public let maximum: @Sendable (_ sampleRate: Double) -> Float
    public let defaultValue: Float
    /// A meter the kernel writes (a compressor's gain reduction): read, never set.
    public let readOnly: Bool
    /// Set by presets only: not listed, and neither read nor set by the program (AUiPodEQ's
    /// band gains, which the phone does not show).
    public var presetOnly = false

    public init(id: UInt32, name: String, unit: UInt32, minimum: Float, maximum: @escaping @Sendable (Double) -> Float,
                defaultValue: Float, readOnly: Bool = false) {
        self.id = id
        self.name = name
        self.unit = unit
        self.minimum = minimum
        self.maximum = maximum
        self.defaultValue = defaultValue
        self.readOnly = readOnly
    }

    /// A parameter whose range does not depend on the sample rate.
    public init(id: UInt32, name: String, unit: UInt32, range: ClosedRange<Float>, defaultValue: Float,
                readOnly: Bool = false) {
        let top = range.upperBound
        self.init(id: id, name: name, unit: unit, minimum: range.lowerBound, maximum: { _ in top },
                  defaultValue: defaultValue, readOnly: readOnly)
    }

    /// AudioUnitParameterUnit values the specs use.
    public static let generic: UInt32 = 0, indexed: UInt32 = 1, boolean: UInt32 = 2, percent: UInt32 = 3,
                      seconds: UInt32 = 4, rate: UInt32 = 7, hertz: UInt32 = 8, cents: UInt32 = 9,
                      decibels: UInt32 = 13, linearGain: UInt32 = 14, degrees: UInt32 = 15, crossfade: UInt32 = 16,
                      pan: UInt32 = 18, meters: UInt32 = 19, octaves: UInt32 = 21, milliseconds: UInt32 = 24
}

/// What a kernel is made for at Initialize.
public struct EffectSetup: Sendable {
    public let sampleRate: Double
    public let channels: Int
    /// The bands in use, for a unit that has them (AUNBandEQ); else 0.
    public let bands: Int
    /// kAudioUnitProperty_MaximumFramesPerSlice: the most frames a render asks for.
    public var maximumFrames = 4096
}

/// What an effect does to its audio, made at Initialize for a rate and channel count:
/// runs on the render thread, so it allocates nothing and takes no lock.
public protocol EffectKernel: AnyObject {
    /// Processes `frames` frames of each of `channels` channels in place; `parameters`
    /// holds the values in the order of the definition's specs, and the kernel writes
    /// its meters (the specs that are read-only) there.
    func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, count: Int, frames: Int,
                 parameters: UnsafeMutablePointer<Float>)
    /// Forgets the audio it has seen (AudioUnitReset).
    func reset()
}

/// One of an effect's factory presets (kAudioUnitProperty_FactoryPresets): a number, a
/// name and the values it gives some of the parameters.
public struct EffectPreset: Sendable {
    public let number: Int32
    public let name: String
    public let values: [(id: UInt32, value: Float)]
}

/// Units whose parameters come in bands (AUNBandEQ): band b's parameter is the band-0 ID
/// plus b, the band-0 IDs being multiples of 1000; the IDs below 1000 are not banded.
public struct EffectBands: Sendable {
    public let initial: Int
    public let maximum: Int
}

/// One kind of effect: its parameters, presets and how its kernel is made. A new effect
/// is a definition (and its kernel) and one UnitKind entry naming it.
public struct EffectDefinition: Sendable {
    public let parameters: [ParameterSpec]
    public var presets: [EffectPreset] = []
    public var bands: EffectBands? = nil
    /// The factory preset a new unit starts with (AUiPodEQ's "Disabled"); nil: none.
    public var initialPreset: Int32? = nil
    /// The seconds the effect keeps sounding after its input stops (kAudioUnitProperty_TailTime),
    /// from a parameter reader.
    public var tailTime: (@Sendable (_ value: (UInt32) -> Float) -> Double)? = nil
    /// The seconds by which the output lags the input (kAudioUnitProperty_Latency).
    public var latency: (@Sendable (_ value: (UInt32) -> Float) -> Double)? = nil
    public let makeKernel: @Sendable (EffectSetup) -> any EffectKernel

    public init(parameters: [ParameterSpec], presets: [EffectPreset] = [], bands: EffectBands? = nil,
                initialPreset: Int32? = nil, tailTime: (@Sendable ((UInt32) -> Float) -> Double)? = nil,
                latency: (@Sendable ((UInt32) -> Float) -> Double)? = nil,
                makeKernel: @escaping @Sendable (EffectSetup) -> any EffectKernel) {
        self.parameters = parameters
        self.presets = presets
        self.bands = bands
        self.initialPreset = initialPreset
        self.tailTime = tailTime
        self.latency = latency
        self.makeKernel = makeKernel
    }

    /// Whether parameter `id` is one of the first `bands` bands' (or not banded), and not
    /// one only presets set.
    func isVisible(_ id: UInt32, bands: Int) -> Bool {
        if parameters.contains(where: { $0.id == id && $0.presetOnly }) { return false }
        guard self.bands != nil, id >= 1000 else { return true }
        return Int(id % 1000) < bands
    }
}

/// A unit's state as kAudioUnitProperty_ClassInfo carries it (and .aupreset files hold
/// it): which component it is for, a name, and the parameter values as Apple's units
/// write them, in blocks of (scope, element, count, then ID and Float32 pairs), every
/// number big-endian.
public struct UnitState: Sendable, Equatable {
    public var version: Int32 = 0
    public var type: UInt32
    public var subtype: UInt32
    public var manufacturer: UInt32
    public var name: String
    public var data: [UInt8]
    /// A sampler's instrument, where the state names one (an .aupreset's zones).
    public var instrument: SamplerInstrument?

    public init(version: Int32 = 0, type: UInt32, subtype: UInt32, manufacturer: UInt32, name: String, data: [UInt8],
                instrument: SamplerInstrument? = nil) {
        self.version = version
        self.type = type
        self.subtype = subtype
        self.manufacturer = manufacturer
        self.name = name
        self.data = data
        self.instrument = instrument
    }

    /// One block of global-scope, element-0 values.
    static func block(_ values: [(UInt32, Float)]) -> [UInt8] {
        var bytes: [UInt8] = []
        func put(_ word: UInt32) { withUnsafeBytes(of: word.bigEndian) { bytes += $0 } }
        put(0)
        put(0)
        put(UInt32(values.count))
        for (id, value) in values {
            put(id)
            put(value.bitPattern)
        }
        return bytes
    }

    /// The (scope, element, ID, value) entries of `data`; nil if the blocks do not fill it
    /// exactly.
    func entries() -> [(scope: UInt32, element: UInt32, id: UInt32, value: Float)]? {
        var entries: [(UInt32, UInt32, UInt32, Float)] = []
        var at = 0
        func word() -> UInt32? {
            guard at + 4 <= data.count else { return nil }
            defer { at += 4 }
            return UInt32(data[at]) << 24 | UInt32(data[at + 1]) << 16 | UInt32(data[at + 2]) << 8 | UInt32(data[at + 3])
        }
        while at < data.count {
            guard let scope = word(), let element = word(), let count = word(), count <= UInt32(data.count / 8)
            else { return nil }
            for _ in 0..<count {
                guard let id = word(), let bits = word() else { return nil }
                entries.append((scope, element, id, Float(bitPattern: bits)))
            }
        }
        return entries
    }
}

/// The objects (CF values in C) some unit properties take and give, as the runtime's
/// marshalling turns them into CFArray, AUPreset and CFDictionary values.
public enum UnitObject: Sendable {
    /// kAudioUnitProperty_FactoryPresets, in the unit kind's order.
    case presets([PresetName], kind: UnitKind)
    /// kAudioUnitProperty_PresentPreset: a factory preset's number, or a negative one.
    case preset(PresetName)
    /// kAudioUnitProperty_ClassInfo.
    case state(UnitState)
    /// A sampler's kAUSamplerProperty_LoadInstrument, _LoadPresetFromBank or _LoadAudioFiles.
    case instrument(SamplerInstrument)
    /// A file player's kAudioUnitProperty_ScheduledFileIDs: the AudioFileID handles, and
    /// (when set) the files they name.
    case files([(handle: UInt, file: AudioFileReader?)])
}

/// A unit whose state kAudioUnitProperty_ClassInfo saves and restores.
public protocol SavesState: AudioUnitInstance {
    var state: UnitState { get }
    func restore(_ state: UnitState) throws(UnitError)
}

public struct PresetName: Sendable, Equatable {
    public var number: Int32
    public var name: String
    public init(number: Int32, name: String) {
        self.number = number
        self.name = name
    }
}
