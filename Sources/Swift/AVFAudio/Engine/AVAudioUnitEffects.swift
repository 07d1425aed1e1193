internal import AudioUnits
public import CAudioToolbox
public import Foundation

/// A node that is one of the library's audio units, named by its component description
/// (iOS's AVAudioUnit). Its unit is made when the node is attached; parameters set
/// before are kept and given to it then.
open class AVAudioUnit: AVAudioNode, @unchecked Sendable {
    public let audioComponentDescription: AudioComponentDescription

    init(description: AudioComponentDescription, kind: UnitKind) {
        audioComponentDescription = description
        super.init(kind: kind)
    }

    /// The kind a description names (precondition: one the library has, as iOS raises for
    /// a component it cannot find).
    static func kind(of d: AudioComponentDescription, types: Set<OSType>) -> UnitKind {
        guard types.contains(d.componentType),
              let kind = UnitKind.matching(type: d.componentType, subtype: d.componentSubType,
                                           manufacturer: d.componentManufacturer).first
        else { preconditionFailure("AVAudioUnit: no component \(d.componentType) \(d.componentSubType) of this kind") }
        return kind
    }

    /// The unit as C sees it (an AudioUnit handle), while attached; nil before.
    open var audioUnit: AudioUnit? { handle == 0 ? nil : AudioUnit(bitPattern: handle) }

    /// kAudioUnitProperty_BypassEffect of the unit (the effects' and time effects'
    /// `bypass`), kept until the unit is made.
    private var bypassed = false
    var bypassState: Bool {
        get { (unit as? EffectUnit)?.isBypassed ?? bypassed }
        set {
            bypassed = newValue
            (unit as? EffectUnit)?.setBypassed(newValue)
        }
    }

    override func configure(_ unit: any AudioUnitInstance) { (unit as? EffectUnit)?.setBypassed(bypassed) }
    open var name: String { String(kind.name.split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "") }
    open var manufacturerName: String { "Apple" }
    open var version: Int { 0x0001_0000 }
}

/// An effect (iOS's AVAudioUnitEffect): frames in, as many out; `bypass` passes the input.
open class AVAudioUnitEffect: AVAudioUnit, @unchecked Sendable {
    public init(audioComponentDescription: AudioComponentDescription) {
        super.init(description: audioComponentDescription,
                   kind: AVAudioUnit.kind(of: audioComponentDescription,
                                          types: [OSType(kAudioUnitType_Effect), OSType(kAudioUnitType_MusicEffect)]))
    }

    open var bypass: Bool {
        get { bypassState }
        set { bypassState = newValue }
    }
}

/// A time effect (iOS's AVAudioUnitTimeEffect): it pulls its input at its own pace.
open class AVAudioUnitTimeEffect: AVAudioUnit, @unchecked Sendable {
    public init(audioComponentDescription: AudioComponentDescription) {
        super.init(description: audioComponentDescription,
                   kind: AVAudioUnit.kind(of: audioComponentDescription, types: [OSType(kAudioUnitType_FormatConverter)]))
    }

    open var bypass: Bool {
        get { bypassState }
        set { bypassState = newValue }
    }
}

private func apple(_ type: Int, _ subtype: Int) -> AudioComponentDescription {
    AudioComponentDescription(componentType: OSType(type), componentSubType: OSType(subtype),
                              componentManufacturer: OSType(kAudioUnitManufacturer_Apple), componentFlags: 0,
                              componentFlagsMask: 0)
}

// MARK: EQ

/// AVAudioUnitEQFilterType: AUNBandEQ's filter types, one for one.
public enum AVAudioUnitEQFilterType: Int, Sendable {
    case parametric = 0, lowPass = 1, highPass = 2, resonantLowPass = 3, resonantHighPass = 4, bandPass = 5,
         bandStop = 6, lowShelf = 7, highShelf = 8, resonantLowShelf = 9, resonantHighShelf = 10
}

/// One band of an AVAudioUnitEQ: AUNBandEQ's parameters of that band.
open class AVAudioUnitEQFilterParameters: NSObject, @unchecked Sendable {
    private unowned let eq: AVAudioUnitEQ
    private let band: UInt32

    init(eq: AVAudioUnitEQ, band: Int) {
        self.eq = eq
        self.band = UInt32(band)
    }

    open var filterType: AVAudioUnitEQFilterType {
        get { AVAudioUnitEQFilterType(rawValue: Int(eq.parameter(2000 + band, initial: 0))) ?? .parametric }
        set { eq.setParameter(2000 + band, Float(newValue.rawValue)) }
    }
    /// Hz, 20 to half the rate.
    open var frequency: Float {
        get { eq.parameter(3000 + band, initial: 1000) }
        set { eq.setParameter(3000 + band, newValue) }
    }
    /// Octaves, 0.05 to 5.
    open var bandwidth: Float {
        get { eq.parameter(5000 + band, initial: 0.5) }
        set { eq.setParameter(5000 + band, newValue) }
    }
    /// dB, -96 to 24.
    open var gain: Float {
        get { eq.parameter(4000 + band, initial: 0) }
        set { eq.setParameter(4000 + band, newValue) }
    }
    /// Every band starts bypassed.
    open var bypass: Bool {
        get { eq.parameter(1000 + band, initial: 1) != 0 }
        set { eq.setParameter(1000 + band, newValue ? 1 : 0) }
    }
}

/// iOS's AVAudioUnitEQ over AUNBandEQ: 1 to 16 bands.
open class AVAudioUnitEQ: AVAudioUnitEffect, @unchecked Sendable {
    private let bandCount: Int
    public private(set) lazy var bands: [AVAudioUnitEQFilterParameters] =
        (0..<bandCount).map { AVAudioUnitEQFilterParameters(eq: self, band: $0) }

    public init(numberOfBands: Int) {
        bandCount = min(16, max(1, numberOfBands))
        super.init(audioComponentDescription: apple(kAudioUnitType_Effect, kAudioUnitSubType_NBandEQ))
    }

    public convenience init() { self.init(numberOfBands: 1) }

    /// dB, -96 to 24.
    open var globalGain: Float {
        get { parameter(0, initial: 0) }
        set { setParameter(0, newValue) }
    }

    override func configure(_ unit: any AudioUnitInstance) {
        try? (unit as? EffectUnit)?.setBandCount(bandCount)
        super.configure(unit)
    }
}

// MARK: Reverb, delay, distortion

/// AVAudioUnitReverbPreset: AUReverb2's factory presets (the kReverbRoomType numbers).
public enum AVAudioUnitReverbPreset: Int, Sendable {
    case smallRoom = 0, mediumRoom = 1, largeRoom = 2, mediumHall = 3, largeHall = 4, plate = 5, mediumChamber = 6,
         largeChamber = 7, cathedral = 8, largeRoom2 = 9, mediumHall2 = 10, mediumHall3 = 11, largeHall2 = 12
}

/// iOS's AVAudioUnitReverb over AUReverb2.
open class AVAudioUnitReverb: AVAudioUnitEffect, @unchecked Sendable {
    private var preset: AVAudioUnitReverbPreset?

    public init() { super.init(audioComponentDescription: apple(kAudioUnitType_Effect, 0x7276_6232 /* 'rvb2', AUReverb2: an iPhone-only name in C */)) }

    /// The preset's room (its delays and decay times); the wet/dry mix stays.
    open func loadFactoryPreset(_ preset: AVAudioUnitReverbPreset) {
        self.preset = preset
        try? (unit as? EffectUnit)?.setPresentPreset(PresetName(number: Int32(preset.rawValue), name: ""))
    }

    /// Percent wet, 0 to 100.
    open var wetDryMix: Float {
        get { parameter(0, initial: 100) }
        set { setParameter(0, newValue) }
    }

    override func configure(_ unit: any AudioUnitInstance) {
        super.configure(unit)
        if let preset { try? (unit as? EffectUnit)?.setPresentPreset(PresetName(number: Int32(preset.rawValue), name: "")) }
    }
}

/// iOS's AVAudioUnitDelay over AUDelay (its wet/dry mix starts at 100, as iOS documents).
open class AVAudioUnitDelay: AVAudioUnitEffect, @unchecked Sendable {
    public init() {
        super.init(audioComponentDescription: apple(kAudioUnitType_Effect, kAudioUnitSubType_Delay))
        setParameter(0, 100)
    }

    /// Seconds, 0 to 2.
    open var delayTime: TimeInterval {
        get { TimeInterval(parameter(1, initial: 1)) }
        set { setParameter(1, Float(newValue)) }
    }
    /// Percent, -100 to 100.
    open var feedback: Float {
        get { parameter(2, initial: 50) }
        set { setParameter(2, newValue) }
    }
    /// Hz, 10 to half the rate.
    open var lowPassCutoff: Float {
        get { parameter(3, initial: 15000) }
        set { setParameter(3, newValue) }
    }
    /// Percent wet, 0 to 100.
    open var wetDryMix: Float {
        get { parameter(0, initial: 100) }
        set { setParameter(0, newValue) }
    }
}

/// AVAudioUnitDistortionPreset: iOS's names and numbers. Their settings are Apple's and
/// not public: loading one here names it and changes nothing.
public enum AVAudioUnitDistortionPreset: Int, Sendable {
    case drumsBitBrush = 0, drumsBufferBeats = 1, drumsLoFi = 2, multiBrokenSpeaker = 3, multiCellphoneConcert = 4,
         multiDecimated1 = 5, multiDecimated2 = 6, multiDecimated3 = 7, multiDecimated4 = 8, multiDistortedFunk = 9,
         multiDistortedCubed = 10, multiDistortedSquared = 11, multiEcho1 = 12, multiEcho2 = 13, multiEchoTight1 = 14,
         multiEchoTight2 = 15, multiEverythingIsBroken = 16, speechAlienChatter = 17, speechCosmicInterference = 18,
         speechGoldenPi = 19, speechRadioTower = 20, speechWaves = 21
}

/// iOS's AVAudioUnitDistortion over AUDistortion.
open class AVAudioUnitDistortion: AVAudioUnitEffect, @unchecked Sendable {
    public init() { super.init(audioComponentDescription: apple(kAudioUnitType_Effect, kAudioUnitSubType_Distortion)) }

    /// Names the preset (see AVAudioUnitDistortionPreset: the sound does not change).
    open func loadFactoryPreset(_ preset: AVAudioUnitDistortionPreset) {}

    /// dB, -80 to 20 (the soft clip's gain).
    open var preGain: Float {
        get { parameter(14, initial: -6) }
        set { setParameter(14, newValue) }
    }
    /// Percent wet, 0 to 100.
    open var wetDryMix: Float {
        get { parameter(15, initial: 50) }
        set { setParameter(15, newValue) }
    }
}

// MARK: Time and pitch

/// iOS's AVAudioUnitTimePitch over AUNewTimePitch: the speed and the pitch apart.
open class AVAudioUnitTimePitch: AVAudioUnitTimeEffect, @unchecked Sendable {
    public init() {
        super.init(audioComponentDescription: apple(kAudioUnitType_FormatConverter, kAudioUnitSubType_NewTimePitch))
    }

    /// 1/32 to 32.
    open var rate: Float {
        get { parameter(0, initial: 1) }
        set { setParameter(0, newValue) }
    }
    /// Cents, -2400 to 2400.
    open var pitch: Float {
        get { parameter(1, initial: 0) }
        set { setParameter(1, newValue) }
    }
    /// 3 to 32 (kept; the stretch here is SoundTouch's, which has no such setting).
    open var overlap: Float {
        get { parameter(4, initial: 8) }
        set { setParameter(4, newValue) }
    }
}

/// iOS's AVAudioUnitVarispeed over AUVarispeed: speed and pitch together.
open class AVAudioUnitVarispeed: AVAudioUnitTimeEffect, @unchecked Sendable {
    public init() {
        super.init(audioComponentDescription: apple(kAudioUnitType_FormatConverter, kAudioUnitSubType_Varispeed))
    }

    /// 0.25 to 4.
    open var rate: Float {
        get { parameter(0, initial: 1) }
        set { setParameter(0, min(4, max(0.25, newValue))) }
    }
}
