import Glibc

/// AU3DMixerEmbedded ('3dem'): the multichannel mixer's engine, each input bus placed by
/// the phone's 3D parameters (numbered as iOS numbers them, not as the Mac does):
/// - azimuth and elevation place the bus between the sides by equal-power panning (the
///   phone's default algorithm): the direction's left-right part, sin(azimuth) ·
///   cos(elevation), goes from -1 (-90°, left) to 1 (90°, right), and the sides' gains
///   are the cosine and sine of a quarter turn across that; in front each side has
///   -3 dB, behind mirrors in front, and a source overhead (or below) is in the middle;
/// - distance gives a gain of 1/distance beyond one metre (the inverse curve);
/// - the gain in dB multiplies, and the distance's gain is held between the bus's minimum
///   and maximum gain; the whole at most 1 (the mixing engine does not amplify).
/// The engine's pan is linear on the far side; the equal-power sides are given to it as
/// the volume of the near side and the pan whose far side matches.
/// Playback rate, the reverb blend and the occlusion and obstruction attenuations are kept
/// and read back but change nothing: this mixer has no elevation filter (elevation moves
/// only the pan), resampler per bus or reverb.
struct SpatialState {
    struct Bus {
        var azimuth: Float = 0, elevation: Float = 0, distance: Float = 1, gain: Float = 0, rate: Float = 1
        var enabled: Float = 1, minimumGain: Float = 0, maximumGain: Float = 1, reverbBlend: Float = 0
        var occlusion: Float = 0, obstruction: Float = 0
        /// The properties: kSpatializationAlgorithm_..., k3DMixerRenderingFlags_... bits
        /// (both kept only), k3DMixerAttenuationCurve_... (Inverse at first), and
        /// MixerDistanceParams.
        var algorithm: UInt32 = 0, renderingFlags: UInt32 = 4, curve: UInt32 = 2
        var reference: Float = 1, farthest: Float = 10000, maximumAttenuation: Float = 120
    }
    var buses: [UInt32: Bus] = [:]
    var reverbGain: Float = 0
    var outputGain: Float = 0
}

extension MixerUnit {
    /// k3DMixerParam_... (iOS's numbers) of an input bus: ranges, defaults and units.
    static let spatialBusParameters = [
        ParameterSpec(id: 0, name: "Azimuth", unit: ParameterSpec.degrees, range: -180...180, defaultValue: 0),
        ParameterSpec(id: 1, name: "Elevation", unit: ParameterSpec.degrees, range: -90...90, defaultValue: 0),
        ParameterSpec(id: 2, name: "Distance", unit: ParameterSpec.meters, range: 0...10000, defaultValue: 1),
        ParameterSpec(id: 3, name: "Gain", unit: ParameterSpec.decibels, range: -120...20, defaultValue: 0),
        ParameterSpec(id: 4, name: "Playback Rate", unit: ParameterSpec.rate, range: 0.5...2, defaultValue: 1),
        ParameterSpec(id: 5, name: "Enable", unit: ParameterSpec.boolean, range: 0...1, defaultValue: 1),
        ParameterSpec(id: 6, name: "Minimum Gain", unit: ParameterSpec.linearGain, range: 0...1, defaultValue: 0),
        ParameterSpec(id: 7, name: "Maximum Gain", unit: ParameterSpec.linearGain, range: 0...1, defaultValue: 1),
        ParameterSpec(id: 8, name: "Reverb Blend", unit: ParameterSpec.percent, range: 0...100, defaultValue: 0),
        ParameterSpec(id: 10, name: "Occlusion Attenuation", unit: ParameterSpec.decibels, range: -100...0, defaultValue: 0),
        ParameterSpec(id: 11, name: "Obstruction Attenuation", unit: ParameterSpec.decibels, range: -100...0,
                      defaultValue: 0),
    ]
    /// k3DMixerParam_GlobalReverbGain, in the global scope.
    static let spatialGlobalParameters = [
        ParameterSpec(id: 9, name: "Global Reverb Gain", unit: ParameterSpec.decibels, range: -40...40, defaultValue: 0),
    ]
    /// k3DMixerParam_Gain, of the output.
    static let spatialOutputParameters = [
        ParameterSpec(id: 3, name: "Gain", unit: ParameterSpec.decibels, range: -120...20, defaultValue: 0),
    ]
    /// Each 3D parameter's range, from the specs.
    private static let ranges: [UInt32: ClosedRange<Float>] = Dictionary(
        uniqueKeysWithValues: (spatialBusParameters + spatialGlobalParameters).map { ($0.id, $0.minimum...$0.maximum(0)) })

    func spatialParameter(_ id: UInt32, scope: Scope, element: UInt32) throws(UnitError) -> Float {
        guard Self.ranges[id] != nil else { throw .invalidParameter }
        // Read before the spatial lock: a change of the bus count takes the two the other
        // way round.
        let buses = elementCount(.input)
        return try spatial.withLock { s throws(UnitError) -> Float in
            switch scope {
            case .global:
                guard id == 9 else { throw .invalidScope }
                return s.reverbGain
            case .output:
                guard id == 3 else { throw .invalidScope }
                guard element == 0 else { throw .invalidElement }
                return s.outputGain
            case .input:
                guard element < buses else { throw .invalidElement }
                let b = s.buses[element] ?? SpatialState.Bus()
                switch id {
                case 0: return b.azimuth
                case 1: return b.elevation
                case 2: return b.distance
                case 3: return b.gain
                case 4: return b.rate
                case 5: return b.enabled
                case 6: return b.minimumGain
                case 7: return b.maximumGain
                case 8: return b.reverbBlend
                case 9: return s.reverbGain
                case 10: return b.occlusion
                default: return b.obstruction
                }
            }
        }
    }

    /// Held to the parameter's range; the bus's volume, pan and enable follow at once.
    func setSpatialParameter(_ id: UInt32, scope: Scope, element: UInt32, value: Float) throws(UnitError) {
        guard let range = Self.ranges[id] else { throw .invalidParameter }
        guard value.isFinite else { throw .invalidParameter }
        let held = min(max(value, range.lowerBound), range.upperBound)
        switch scope {
        case .global:
            guard id == 9 else { throw .invalidScope }
            spatial.withLock { $0.reverbGain = held }
        case .output:
            guard id == 3 else { throw .invalidScope }
            guard element == 0 else { throw .invalidElement }
            spatial.withLock { $0.outputGain = held }
            try scheduleVolume(0, scope: .output, element: 0, value: min(1, Float(pow(10, Double(held) / 20))), from: nil,
                               delay: 0, ramp: 0)
        case .input:
            guard element < elementCount(.input) else { throw .invalidElement }
            let bus = spatial.withLock { s -> SpatialState.Bus in
                var b = s.buses[element] ?? SpatialState.Bus()
                switch id {
                case 0: b.azimuth = held
                case 1: b.elevation = held
                case 2: b.distance = held
                case 3: b.gain = held
                case 4: b.rate = held
                case 5: b.enabled = held
                case 6: b.minimumGain = held
                case 7: b.maximumGain = held
                case 8: b.reverbBlend = held
                case 9: s.reverbGain = held
                case 10: b.occlusion = held
                default: b.obstruction = held
                }
                s.buses[element] = b
                return b
            }
            try place(bus, element: element)
            try scheduleVolume(1, scope: .input, element: element, value: bus.enabled, from: nil, delay: 0, ramp: 0)
        }
    }

    /// The gain the distance gives by the bus's curve (see API.md): none within the
    /// reference distance, none more beyond the farthest, never below the maximum
    /// attenuation.
    static func distanceGain(_ bus: SpatialState.Bus) -> Double {
        let reference = Double(bus.reference), farthest = Double(bus.farthest)
        let d = min(max(Double(bus.distance), reference), farthest)
        let gain: Double
        switch bus.curve {
        case 0: gain = pow(reference / d, 2)                          // Power: the inverse square
        case 1: gain = pow(2, -(d - reference) / reference)           // Exponential: halves each reference distance
        case 3: gain = farthest > reference ? 1 - (d - reference) / (farthest - reference) : 1  // Linear: 0 at the farthest
        default: gain = reference / d                                 // Inverse
        }
        return max(gain, pow(10, -Double(bus.maximumAttenuation) / 20))
    }

    /// A bus's 3D parameters as the mixing engine's volume and (linear) pan.
    static func engineGains(_ bus: SpatialState.Bus) -> (volume: Float, pan: Float) {
        let held = min(max(Double(bus.minimumGain), distanceGain(bus)),
                       max(Double(bus.minimumGain), Double(bus.maximumGain)))
        let gain = pow(10, Double(bus.gain) / 20) * held
        let position = sin(Double(bus.azimuth) * Double.pi / 180) * cos(Double(bus.elevation) * Double.pi / 180)
        let angle = (position + 1) * Double.pi / 4
        let (left, right) = (cos(angle), sin(angle))
        let near = max(left, right)
        let volume = Float(min(1, gain * near))
        guard near > 0 else { return (volume, 0) }
        // Linear pan: far side 1 - |pan| of the near side's volume.
        let pan = right >= left ? 1 - left / near : right / near - 1
        return (volume, Float(min(1, max(-1, pan))))
    }

    // MARK: Properties

    /// The 3D properties of input bus `element` (ID from UnitProperties): their bytes.
    func spatialProperty(_ id: UInt32, scope: Scope, element: UInt32) throws(UnitError) -> [UInt8] {
        try checkSpatial(scope: scope, element: element)
        let bus = spatial.withLock { $0.buses[element] ?? SpatialState.Bus() }
        switch id {
        case UnitProperties.spatializationAlgorithm: return UnitProperties.word(bus.algorithm)
        case UnitProperties.renderingFlags3D: return UnitProperties.word(bus.renderingFlags)
        case UnitProperties.attenuationCurve3D: return UnitProperties.word(bus.curve)
        default:
            return [bus.reference, bus.farthest, bus.maximumAttenuation].flatMap { UnitProperties.word($0.bitPattern) }
        }
    }

    /// Takes a 3D property: a value outside its list, or distances that are not positive
    /// and in order, is refused and nothing changes.
    func setSpatialProperty(_ id: UInt32, scope: Scope, element: UInt32, bytes: UnsafeRawBufferPointer) throws(UnitError) {
        try checkSpatial(scope: scope, element: element)
        let word = bytes.loadUnaligned(as: UInt32.self)
        let bus = try spatial.withLock { s throws(UnitError) -> SpatialState.Bus in
            var b = s.buses[element] ?? SpatialState.Bus()
            switch id {
            case UnitProperties.spatializationAlgorithm:
                guard word <= 5 else { throw .invalidPropertyValue }
                b.algorithm = word
            case UnitProperties.renderingFlags3D:
                guard word < 128 else { throw .invalidPropertyValue }
                b.renderingFlags = word
            case UnitProperties.attenuationCurve3D:
                guard word <= 3 else { throw .invalidPropertyValue }
                b.curve = word
            default:
                let reference = bytes.loadUnaligned(as: Float.self)
                let farthest = bytes.loadUnaligned(fromByteOffset: 4, as: Float.self)
                let attenuation = bytes.loadUnaligned(fromByteOffset: 8, as: Float.self)
                guard reference.isFinite, farthest.isFinite, attenuation.isFinite, reference > 0, farthest >= reference,
                      attenuation >= 0 else { throw .invalidPropertyValue }
                (b.reference, b.farthest, b.maximumAttenuation) = (reference, farthest, attenuation)
            }
            s.buses[element] = b
            return b
        }
        try place(bus, element: element)
    }

    /// The engine's volume and pan of input bus `element` from its 3D state.
    private func place(_ bus: SpatialState.Bus, element: UInt32) throws(UnitError) {
        let (volume, pan) = Self.engineGains(bus)
        try scheduleVolume(0, scope: .input, element: element, value: volume, from: nil, delay: 0, ramp: 0)
        try scheduleVolume(2, scope: .input, element: element, value: pan, from: nil, delay: 0, ramp: 0)
    }

    private func checkSpatial(scope: Scope, element: UInt32) throws(UnitError) {
        guard kind == .mixer3D else { throw .invalidProperty }
        guard scope == .input else { throw .invalidScope }
        guard element < elementCount(.input) else { throw .invalidElement }
    }
}
