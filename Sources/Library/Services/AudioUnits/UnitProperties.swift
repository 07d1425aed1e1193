/// AudioUnit properties as data: for each ID, its value's size, which units, scopes and
/// elements have it (checked in the order the errors are owed), whether it may be set,
/// how its value reads (as the C API's bytes) and how a value is taken. The ABI's
/// property calls go through `access` and add only C buffers; a new property, or a new
/// unit kind's, is a row here.
public enum UnitProperties {
    /// Called to connect a destination's input to a source unit named by its handle
    /// (kAudioUnitProperty_MakeConnection): the handles are the runtime's.
    public typealias Connector = (_ destination: any AudioUnitInstance, _ source: UInt, _ output: UInt32, _ input: UInt32)
        throws(UnitError) -> Void

    struct Row {
        let id: UInt32
        let size: Int
        /// Checks that `unit` has the property at this scope and element (throws the
        /// error owed when not); returns whether it may be set there.
        let check: (_ unit: any AudioUnitInstance, _ scope: Scope, _ element: UInt32) throws(UnitError) -> Bool
        /// nil: write-only.
        var get: ((_ unit: any AudioUnitInstance, _ scope: Scope, _ element: UInt32) throws(UnitError) -> [UInt8])?
        /// Takes a value of `size` bytes, or nil (a NULL value: only the callbacks take
        /// it, as their removal). nil: read-only.
        var set: ((_ unit: any AudioUnitInstance, _ scope: Scope, _ element: UInt32, _ value: UnsafeRawBufferPointer?,
                   _ connect: Connector?) throws(UnitError) -> Void)?
        /// A value taken changes the unit's stream format: its listeners hear of it.
        var changesFormat = false
        /// The value's size where it depends on the unit (a list): nil, `size`.
        var sizeOf: ((_ unit: any AudioUnitInstance, _ scope: Scope, _ element: UInt32) -> Int)? = nil
        /// A value that is an object in C (a CF value, or a struct holding one): read and
        /// taken as a UnitObject, which the runtime's marshalling turns to and from C.
        var getObject: ((_ unit: any AudioUnitInstance) throws(UnitError) -> UnitObject)? = nil
        var setObject: ((_ unit: any AudioUnitInstance, _ value: UnitObject) throws(UnitError) -> Void)? = nil
    }

    // The IDs, as AudioUnitProperties.h gives them (checked against the header by
    // AudioToolboxTests.PropertyIDTests).
    public static let classInfo: UInt32 = 0
    public static let makeConnection: UInt32 = 1
    public static let factoryPresets: UInt32 = 24
    public static let presentPreset: UInt32 = 36
    public static let numberOfBands: UInt32 = 2200
    public static let maximumNumberOfBands: UInt32 = 2201
    public static let biquadCoefficients: UInt32 = 2203
    public static let loadPresetFromBank: UInt32 = 4100
    public static let loadAudioFiles: UInt32 = 4101
    public static let loadInstrument: UInt32 = 4102
    public static let offlineRender: UInt32 = 37
    public static let scheduleAudioSlice: UInt32 = 3300
    public static let scheduleStartTimeStamp: UInt32 = 3301
    public static let currentPlayTime: UInt32 = 3302
    public static let scheduledFileIDs: UInt32 = 3310
    public static let scheduledFileRegion: UInt32 = 3311
    public static let scheduledFilePrime: UInt32 = 3312
    /// ScheduledAudioSlice and ScheduledAudioFileRegion; an AudioTimeStamp.
    public static let scheduledSize = 112, timeStampSize = 64
    public static let parameterList: UInt32 = 3
    public static let parameterInfo: UInt32 = 4
    public static let bypassEffect: UInt32 = 21
    /// The matrix mixer's gains (Float32 each) and its channel counts (two UInt32).
    public static let matrixLevels: UInt32 = 3006, matrixDimensions: UInt32 = 3009
    /// The 3D mixer's, per input bus.
    public static let spatializationAlgorithm: UInt32 = 3000, renderingFlags3D: UInt32 = 3003,
                      distanceParams3D: UInt32 = 3010, attenuationCurve3D: UInt32 = 3013
    public static let sampleRate: UInt32 = 2
    public static let streamFormat: UInt32 = 8
    public static let elementCount: UInt32 = 11
    public static let latency: UInt32 = 12
    public static let maximumFramesPerSlice: UInt32 = 14
    public static let tailTime: UInt32 = 20
    public static let lastRenderError: UInt32 = 22
    public static let setRenderCallback: UInt32 = 23
    public static let renderQuality: UInt32 = 26
    public static let shouldAllocateBuffer: UInt32 = 51
    public static let isRunning: UInt32 = 2001
    public static let enableIO: UInt32 = 2003
    public static let setInputCallback: UInt32 = 2005
    public static let bypassVoiceProcessing: UInt32 = 2100
    public static let voiceProcessingEnableAGC: UInt32 = 2101
    public static let muteOutput: UInt32 = 2104
    public static let meteringMode: UInt32 = 3007
    public static let sampleRateConverterComplexity: UInt32 = 3014

    static let descriptionSize = 40, callbackSize = 16, connectionSize = 16
    /// A CF value's pointer; an AUPreset (a number, then a CFStringRef at 8).
    public static let objectSize = 8, presetSize = 16
    /// sizeof(AudioUnitParameterInfo): the name's 52 bytes, then pointers at 8-byte places.
    public static let parameterInfoSize = 104

    static let rows: [Row] = [
        Row(id: streamFormat, size: descriptionSize, check: hasFormat,
            get: { u, scope, element throws(UnitError) in description(try u.format(scope: scope, element: element)) },
            set: value { u, scope, element, bytes throws(UnitError) in
                try u.setFormat(try layout(bytes), scope: scope, element: element)
            }, changesFormat: true),
        Row(id: sampleRate, size: 8, check: hasFormat,
            get: { u, scope, element throws(UnitError) in float64(try u.format(scope: scope, element: element).sampleRate) },
            set: value { u, scope, element, bytes throws(UnitError) in
                let rate = bytes.loadUnaligned(as: Float64.self)
                var layout = try u.format(scope: scope, element: element)
                guard rate.isFinite, rate >= 8000, rate <= 192_000 else { throw .invalidPropertyValue }
                layout.sampleRate = rate
                try u.setFormat(layout, scope: scope, element: element)
            }, changesFormat: true),
        Row(id: maximumFramesPerSlice, size: 4, check: globalOnly(writable: true),
            get: { u, _, _ in word(u.maximumFramesPerSlice) },
            set: value { u, _, _, bytes throws(UnitError) in try u.setMaximumFramesPerSlice(bytes.loadUnaligned(as: UInt32.self)) }),
        Row(id: setRenderCallback, size: callbackSize, check: inputElement, get: nil,
            set: { u, _, element, bytes, _ throws(UnitError) in
                try u.setRenderCallback(bytes.flatMap(callback), input: element)
            }),
        Row(id: shouldAllocateBuffer, size: 4,
            check: { u, scope, _ throws(UnitError) in _ = try output(u).shouldAllocateBuffer(scope: scope); return true },
            get: { u, scope, _ throws(UnitError) in flag(try output(u).shouldAllocateBuffer(scope: scope)) },
            set: value { u, scope, _, bytes throws(UnitError) in
                try output(u).setShouldAllocateBuffer(bytes.loadUnaligned(as: UInt32.self) != 0, scope: scope)
            }),
        Row(id: latency, size: 8, check: globalOnly(writable: false), get: { u, _, _ in float64(u.latency) }),
        Row(id: tailTime, size: 8, check: globalOnly(writable: false),
            get: { u, _, _ in float64((u as? EffectUnit)?.tailTime ?? 0) }),
        // A mixer's input buses are the program's to count.
        // A mixer's input buses are the program's to count, and the matrix mixer's outputs.
        Row(id: elementCount, size: 4,
            check: { u, scope, _ in
                (u.kind.traits.contains(.countedInputs) && scope == .input)
                    || (u.kind.traits.contains(.countedOutputs) && scope == .output)
            },
            get: { u, scope, _ in word(u.elementCount(scope)) },
            set: value { u, scope, _, bytes throws(UnitError) in
                let count = bytes.loadUnaligned(as: UInt32.self)
                if let matrix = u as? MatrixMixerUnit { try matrix.setElementCount(count, scope: scope) }
                else { try mixer(u).setInputCount(count) }
            }),
        Row(id: meteringMode, size: 4,
            check: { u, scope, element throws(UnitError) in _ = try metered(u).isMetering(scope: scope, element: element); return true },
            get: { u, scope, element throws(UnitError) in flag(try metered(u).isMetering(scope: scope, element: element)) },
            set: value { u, scope, element, bytes throws(UnitError) in
                try metered(u).setMetering(bytes.loadUnaligned(as: UInt32.self) != 0, scope: scope, element: element)
            }),
        // The matrix mixer's shape and gains (global scope, read only).
        Row(id: matrixDimensions, size: 8, check: matrixGlobal,
            get: { u, _, _ throws(UnitError) in
                let (inputs, outputs) = try matrix(u).dimensions
                return word(UInt32(inputs)) + word(UInt32(outputs))
            }),
        Row(id: matrixLevels, size: 0, check: matrixGlobal,
            get: { u, _, _ throws(UnitError) in try matrix(u).levels.flatMap { word($0.bitPattern) } },
            sizeOf: { u, _, _ in 4 * ((u as? MatrixMixerUnit)?.levels.count ?? 0) }),
        Row(id: enableIO, size: 4,
            check: { u, scope, element throws(UnitError) in _ = try output(u).isEnabled(scope: scope, element: element); return true },
            get: { u, scope, element throws(UnitError) in flag(try output(u).isEnabled(scope: scope, element: element)) },
            set: value { u, scope, element, bytes throws(UnitError) in
                try output(u).setEnabled(bytes.loadUnaligned(as: UInt32.self) != 0, scope: scope, element: element)
            }),
        // In any scope: mediastreamer2 and Linphone have set it on the input scope of
        // element 0 since 2012, and the phone takes it there.
        Row(id: setInputCallback, size: callbackSize,
            check: { u, _, element throws(UnitError) in
                guard u.kind.hasDevice else { throw .invalidProperty }
                guard element < 2 else { throw .invalidElement }
                return true
            }, get: nil,
            set: { u, _, _, bytes, _ throws(UnitError) in try output(u).setInputCallback(bytes.flatMap(callback)) }),
        voiceSwitchRow(bypassVoiceProcessing, .bypass),
        voiceSwitchRow(voiceProcessingEnableAGC, .automaticGain),
        voiceSwitchRow(muteOutput, .muteOutput),
        Row(id: lastRenderError, size: 4, check: globalOnly(writable: false),
            get: { u, _, _ in word(UInt32(bitPattern: u.lastRenderError)) }),
        Row(id: isRunning, size: 4,
            check: { u, scope, _ throws(UnitError) in
                guard u.kind.isOutput else { throw .invalidProperty }
                guard scope == .global else { throw .invalidScope }
                return false
            }, get: { u, _, _ throws(UnitError) in flag(try output(u).isRunning) }),
        Row(id: makeConnection, size: connectionSize, check: inputElement, get: nil,
            set: value { u, _, _, bytes, connect throws(UnitError) in
                guard let connect else { throw .invalidProperty }
                let source = UInt(bitPattern: bytes.loadUnaligned(as: Int.self))
                try connect(u, source, bytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self),
                            bytes.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
            }),
        // A unit's parameters in a scope: their IDs, and each one's description.
        Row(id: parameterList, size: 0,
            check: { u, _, _ throws(UnitError) in _ = try declared(u); return false },
            get: { u, scope, _ throws(UnitError) in try declared(u).declaredParameters(in: scope).flatMap { word($0.id) } },
            sizeOf: { u, scope, _ in 4 * ((u as? any DeclaredParameters)?.declaredParameters(in: scope).count ?? 0) }),
        Row(id: parameterInfo, size: parameterInfoSize,
            check: { u, scope, element throws(UnitError) in
                _ = try declared(u).declaredSpec(element, scope: scope)
                return false
            }, get: { u, scope, element throws(UnitError) in
                parameterInfoBytes(try declared(u).declaredSpec(element, scope: scope),
                                   sampleRate: try u.format(scope: .output, element: 0).sampleRate)
            }),
        Row(id: bypassEffect, size: 4, check: effectGlobal(writable: true),
            get: { u, _, _ throws(UnitError) in flag(try effect(u).isBypassed) },
            set: value { u, _, _, bytes throws(UnitError) in try effect(u).setBypassed(bytes.loadUnaligned(as: UInt32.self) != 0) }),
        // Presets and saved state (objects in C).
        Row(id: factoryPresets, size: objectSize, check: effectGlobal(writable: false), get: nil,
            getObject: { u throws(UnitError) in .presets(try effect(u).factoryPresets, kind: u.kind) }),
        Row(id: presentPreset, size: presetSize, check: effectGlobal(writable: true), get: nil,
            getObject: { u throws(UnitError) in .preset(try effect(u).presentPreset) },
            setObject: { u, value throws(UnitError) in
                guard case .preset(let preset) = value else { throw .invalidPropertyValue }
                try effect(u).setPresentPreset(preset)
            }),
        Row(id: classInfo, size: objectSize,
            check: { u, scope, _ throws(UnitError) in
                guard u is any SavesState else { throw .invalidProperty }
                guard scope == .global else { throw .invalidScope }
                return true
            }, get: nil,
            getObject: { u throws(UnitError) in .state(try saves(u).state) },
            setObject: { u, value throws(UnitError) in
                guard case .state(let state) = value else { throw .invalidPropertyValue }
                try saves(u).restore(state)
            }),
        // AUSampler's instruments (write-only objects: a URL and a preset, or a list of URLs).
        samplerLoadRow(loadInstrument, size: presetSize),
        samplerLoadRow(loadPresetFromBank, size: presetSize),
        samplerLoadRow(loadAudioFiles, size: objectSize),
        // The scheduled players: what they play, when their timeline starts, where it is.
        Row(id: scheduleAudioSlice, size: scheduledSize, check: playerGlobal(writable: true), get: nil,
            set: value { u, _, _, bytes throws(UnitError) in
                try player(u).schedule(slice: UnsafeMutableRawPointer(mutating: bytes.baseAddress!))
            }),
        Row(id: scheduledFileRegion, size: scheduledSize, check: playerGlobal(writable: true), get: nil,
            set: value { u, _, _, bytes throws(UnitError) in
                try player(u).schedule(region: UnsafeMutableRawPointer(mutating: bytes.baseAddress!))
            }),
        Row(id: scheduleStartTimeStamp, size: timeStampSize, check: playerGlobal(writable: true),
            get: { u, _, _ throws(UnitError) in sampleTimeStamp(try player(u).start) },
            set: value { u, _, _, bytes throws(UnitError) in
                // A sample time, or a host time (taken as the next render): nothing else.
                let flags = bytes.loadUnaligned(fromByteOffset: 56, as: UInt32.self)
                guard flags & 3 != 0 else { throw .invalidPropertyValue }
                try player(u).setStart(flags & 1 != 0 ? bytes.loadUnaligned(as: Double.self) : -1)
            }),
        Row(id: currentPlayTime, size: timeStampSize, check: playerGlobal(writable: false),
            get: { u, _, _ throws(UnitError) in sampleTimeStamp(try player(u).currentPlayTime) }),
        Row(id: offlineRender, size: 4, check: playerGlobal(writable: true),
            get: { u, _, _ throws(UnitError) in flag(try player(u).isOffline) },
            set: value { u, _, _, bytes throws(UnitError) in try player(u).setOffline(bytes.loadUnaligned(as: UInt32.self) != 0) }),
        Row(id: scheduledFilePrime, size: 4, check: playerGlobal(writable: true),
            get: { u, _, _ throws(UnitError) in _ = try player(u); return word(0) },
            set: value { u, _, _, _ throws(UnitError) in try player(u).prime() }),
        Row(id: scheduledFileIDs, size: 0, check: playerGlobal(writable: true), get: nil,
            sizeOf: { u, _, _ in 8 * ((u as? ScheduledPlayerUnit)?.fileHandles.count ?? 0) },
            getObject: { u throws(UnitError) in .files(try player(u).fileHandles.map { ($0, nil) }) },
            setObject: { u, value throws(UnitError) in
                guard case .files(let files) = value else { throw .invalidPropertyValue }
                try player(u).setFiles(files.compactMap { entry in entry.file.map { (entry.handle, $0) } })
            }),
        // The 3D mixer's placement of each input bus.
        spatialRow(spatializationAlgorithm, size: 4),
        spatialRow(renderingFlags3D, size: 4),
        spatialRow(attenuationCurve3D, size: 4),
        spatialRow(distanceParams3D, size: 12),
        // AUNBandEQ's bands.
        Row(id: numberOfBands, size: 4, check: bandedGlobal(writable: true),
            get: { u, _, _ throws(UnitError) in word(UInt32(try effect(u).bandCount)) },
            set: value { u, _, _, bytes throws(UnitError) in
                try effect(u).setBandCount(Int(bytes.loadUnaligned(as: UInt32.self)))
            }),
        Row(id: maximumNumberOfBands, size: 4, check: bandedGlobal(writable: false),
            get: { u, _, _ throws(UnitError) in word(UInt32(try effect(u).definition.bands?.maximum ?? 0)) }),
        // Five Float64 a band in use (b0, b1, b2, a1, a2; a0 is 1), bypassed or not.
        Row(id: biquadCoefficients, size: 0, check: bandedGlobal(writable: false),
            get: { u, _, _ throws(UnitError) in
                let unit = try effect(u)
                let rate = try unit.format(scope: .output, element: 0).sampleRate
                var bytes: [UInt8] = []
                for band in 0..<UInt32(unit.bandCount) {
                    func value(_ id: UInt32) throws(UnitError) -> Float { try unit.parameter(id + band, scope: .global, element: 0) }
                    let c = BandEQ.coefficients(type: Int(try value(BandEQ.type)), frequency: try value(BandEQ.frequency),
                                                gain: try value(BandEQ.gain), octaves: try value(BandEQ.bandwidth),
                                                sampleRate: rate)
                    bytes += [c.b0, c.b1, c.b2, c.a1, c.a2].flatMap(float64)
                }
                return bytes
            }, sizeOf: { u, _, _ in 40 * ((u as? EffectUnit)?.bandCount ?? 0) }),
        Row(id: renderQuality, size: 4, check: globalOnly(writable: true),
            get: { u, _, _ in word(u.renderQuality) },
            set: value { u, _, _, bytes throws(UnitError) in try u.setRenderQuality(bytes.loadUnaligned(as: UInt32.self)) }),
        Row(id: sampleRateConverterComplexity, size: 4,
            check: { u, scope, _ throws(UnitError) in
                _ = try output(u).converterComplexity
                guard scope == .global else { throw .invalidScope }
                return true
            }, get: { u, _, _ throws(UnitError) in word(try output(u).converterComplexity) },
            set: value { u, _, _, bytes throws(UnitError) in
                try output(u).setConverterComplexity(bytes.loadUnaligned(as: UInt32.self))
            }),
    ]

    /// Property `id` of `unit` at a scope and element, once checked: what GetPropertyInfo
    /// tells, and the value read or taken.
    public struct Access {
        let row: Row
        let unit: any AudioUnitInstance
        let scope: Scope
        let element: UInt32
        public let writable: Bool
        public var size: Int { row.sizeOf?(unit, scope, element) ?? row.size }

        /// The value's bytes; a write-only property (a callback) is not readable.
        public func value() throws(UnitError) -> [UInt8] {
            guard let get = row.get else { throw .invalidProperty }
            return try get(unit, scope, element)
        }

        /// Whether the value is an object in C: read by `object()`, taken by `set(object:)`.
        public var isObject: Bool { row.getObject != nil || row.setObject != nil }
        /// A list whose length the program chooses (ScheduledFileIDs).
        public var isList: Bool { row.size == 0 }

        public func object() throws(UnitError) -> UnitObject {
            guard let get = row.getObject else { throw .invalidProperty }
            return try get(unit)
        }

        public func set(object: UnitObject) throws(UnitError) {
            guard writable, let set = row.setObject else { throw .propertyNotWritable }
            try set(unit, object)
        }

        /// Takes `bytes` (nil: the C value was NULL); returns whether the unit's stream
        /// format changed. `connect` serves kAudioUnitProperty_MakeConnection.
        public func set(_ bytes: UnsafeRawBufferPointer?, connect: Connector? = nil) throws(UnitError) -> Bool {
            guard writable, let set = row.set else { throw .propertyNotWritable }
            if let bytes, bytes.count != row.size { throw .invalidPropertyValue }
            try set(unit, scope, element, bytes, connect)
            return row.changesFormat
        }
    }

    /// Every ID the table has a row for.
    public static var ids: Set<UInt32> { Set(rows.map(\.id)) }

    /// Checks that `unit` has property `id` at `scope` and `element`.
    public static func access(_ unit: any AudioUnitInstance, _ id: UInt32, scope: UInt32, element: UInt32)
        throws(UnitError) -> Access {
        guard let scope = Scope(rawValue: scope) else { throw .invalidScope }
        guard let row = rows.first(where: { $0.id == id }) else { throw .invalidProperty }
        let writable = try row.check(unit, scope, element)
        return Access(row: row, unit: unit, scope: scope, element: element, writable: writable)
    }

    // MARK: checks shared by rows

    static func hasFormat(_ u: any AudioUnitInstance, _ scope: Scope, _ element: UInt32) throws(UnitError) -> Bool {
        _ = try u.format(scope: scope, element: element)
        return true
    }

    static func globalOnly(writable: Bool) -> (any AudioUnitInstance, Scope, UInt32) throws(UnitError) -> Bool {
        { _, scope, _ throws(UnitError) in
            guard scope == .global else { throw .invalidScope }
            return writable
        }
    }

    /// An input element something can feed: the I/O units' element 0, a mixer's buses.
    static func inputElement(_ u: any AudioUnitInstance, _ scope: Scope, _ element: UInt32) throws(UnitError) -> Bool {
        guard scope == .input else { throw .invalidScope }
        guard element < (u.kind.hasDevice ? 1 : u.elementCount(.input)) else { throw .invalidElement }
        return true
    }

    static func voiceSwitchRow(_ id: UInt32, _ which: OutputUnit.VoiceSwitch) -> Row {
        Row(id: id, size: 4,
            check: { u, scope, _ throws(UnitError) in
                _ = try output(u).voiceSwitch(which)
                guard scope == .global else { throw .invalidScope }
                return true
            }, get: { u, _, _ throws(UnitError) in flag(try output(u).voiceSwitch(which)) },
            set: value { u, _, _, bytes throws(UnitError) in
                try output(u).setVoiceSwitch(which, bytes.loadUnaligned(as: UInt32.self) != 0)
            })
    }

    /// The I/O, generic or converter unit a property of that kind is asked of.
    static func output(_ u: any AudioUnitInstance) throws(UnitError) -> OutputUnit {
        guard let io = u as? OutputUnit else { throw .invalidProperty }
        return io
    }

    static func declared(_ u: any AudioUnitInstance) throws(UnitError) -> any DeclaredParameters {
        guard let unit = u as? any DeclaredParameters else { throw .invalidProperty }
        return unit
    }

    static func effect(_ u: any AudioUnitInstance) throws(UnitError) -> EffectUnit {
        guard let effect = u as? EffectUnit else { throw .invalidProperty }
        return effect
    }

    /// A property every effect has, in the global scope.
    static func effectGlobal(writable: Bool) -> (any AudioUnitInstance, Scope, UInt32) throws(UnitError) -> Bool {
        { u, scope, _ throws(UnitError) in
            _ = try effect(u)
            guard scope == .global else { throw .invalidScope }
            return writable
        }
    }

    static func saves(_ u: any AudioUnitInstance) throws(UnitError) -> any SavesState {
        guard let unit = u as? any SavesState else { throw .invalidProperty }
        return unit
    }

    static func player(_ u: any AudioUnitInstance) throws(UnitError) -> ScheduledPlayerUnit {
        guard let player = u as? ScheduledPlayerUnit else { throw .invalidProperty }
        return player
    }

    static func playerGlobal(writable: Bool) -> (any AudioUnitInstance, Scope, UInt32) throws(UnitError) -> Bool {
        { u, scope, _ throws(UnitError) in
            _ = try player(u)
            guard scope == .global else { throw .invalidScope }
            return writable
        }
    }

    /// An AudioTimeStamp of a sample time alone.
    static func sampleTimeStamp(_ time: Double) -> [UInt8] {
        var bytes = float64(time) + [UInt8](repeating: 0, count: 56)
        bytes[56] = 1
        return bytes
    }

    static func samplerLoadRow(_ id: UInt32, size: Int) -> Row {
        Row(id: id, size: size,
            check: { u, scope, _ throws(UnitError) in
                guard u is SamplerUnit else { throw .invalidProperty }
                guard scope == .global else { throw .invalidScope }
                return true
            }, get: nil,
            setObject: { u, value throws(UnitError) in
                guard let sampler = u as? SamplerUnit, case .instrument(let instrument) = value else {
                    throw .invalidPropertyValue
                }
                try sampler.load(instrument)
            })
    }

    /// A property of the effects with bands (AUNBandEQ), in the global scope.
    static func bandedGlobal(writable: Bool) -> (any AudioUnitInstance, Scope, UInt32) throws(UnitError) -> Bool {
        { u, scope, _ throws(UnitError) in
            guard try effect(u).definition.bands != nil else { throw .invalidProperty }
            guard scope == .global else { throw .invalidScope }
            return writable
        }
    }

    /// An AudioUnitParameterInfo: the name (NUL-terminated, at most 51 bytes), no CF
    /// strings, the unit, the range at `sampleRate`, the default, readable and writable.
    static func parameterInfoBytes(_ spec: ParameterSpec, sampleRate: Double) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: parameterInfoSize)
        for (i, byte) in spec.name.utf8.prefix(51).enumerated() { bytes[i] = byte }
        func put(_ value: UInt32, at offset: Int) {
            withUnsafeBytes(of: value) { for (i, byte) in $0.enumerated() { bytes[offset + i] = byte } }
        }
        put(spec.unit, at: 80)
        put(spec.minimum.bitPattern, at: 84)
        put(spec.maximum(sampleRate).bitPattern, at: 88)
        put(spec.defaultValue.bitPattern, at: 92)
        // Readable (and writable, unless a meter).
        put(spec.readOnly ? 1 << 30 | 1 << 15 : 1 << 30 | 1 << 31, at: 96)
        return bytes
    }

    static func spatialRow(_ id: UInt32, size: Int) -> Row {
        Row(id: id, size: size,
            check: { u, scope, element throws(UnitError) in
                _ = try mixer(u).spatialProperty(id, scope: scope, element: element)
                return true
            },
            get: { u, scope, element throws(UnitError) in try mixer(u).spatialProperty(id, scope: scope, element: element) },
            set: value { u, scope, element, bytes throws(UnitError) in
                try mixer(u).setSpatialProperty(id, scope: scope, element: element, bytes: bytes)
            })
    }

    static func metered(_ u: any AudioUnitInstance) throws(UnitError) -> any MeteringUnit {
        guard let unit = u as? any MeteringUnit else { throw .invalidProperty }
        return unit
    }

    static func matrix(_ u: any AudioUnitInstance) throws(UnitError) -> MatrixMixerUnit {
        guard let unit = u as? MatrixMixerUnit else { throw .invalidProperty }
        return unit
    }

    static func matrixGlobal(_ u: any AudioUnitInstance, _ scope: Scope, _ element: UInt32) throws(UnitError) -> Bool {
        _ = try matrix(u)
        guard scope == .global else { throw .invalidScope }
        return false
    }

    static func mixer(_ u: any AudioUnitInstance) throws(UnitError) -> MixerUnit {
        guard let mixer = u as? MixerUnit else { throw .invalidProperty }
        return mixer
    }

    /// A setter that needs a value: a NULL one is the program's mistake.
    static func value(_ body: @escaping (any AudioUnitInstance, Scope, UInt32, UnsafeRawBufferPointer, Connector?)
        throws(UnitError) -> Void)
        -> (any AudioUnitInstance, Scope, UInt32, UnsafeRawBufferPointer?, Connector?) throws(UnitError) -> Void {
        { u, scope, element, bytes, connect throws(UnitError) in
            guard let bytes else { throw .parameter }
            try body(u, scope, element, bytes, connect)
        }
    }

    static func value(_ body: @escaping (any AudioUnitInstance, Scope, UInt32, UnsafeRawBufferPointer) throws(UnitError) -> Void)
        -> (any AudioUnitInstance, Scope, UInt32, UnsafeRawBufferPointer?, Connector?) throws(UnitError) -> Void {
        value { u, scope, element, bytes, _ throws(UnitError) in try body(u, scope, element, bytes) }
    }

    // MARK: values as bytes

    static func word(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }
    static func flag(_ on: Bool) -> [UInt8] { word(on ? 1 : 0) }
    static func float64(_ value: Double) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }

    /// An AURenderCallbackStruct's procedure and reference; nil for a NULL procedure.
    static func callback(_ bytes: UnsafeRawBufferPointer) -> RenderCallback? {
        let procedure = bytes.loadUnaligned(as: UInt.self)
        guard procedure != 0 else { return nil }
        return RenderCallback(procedure: unsafeBitCast(procedure, to: RenderCallback.Procedure.self),
                              refCon: UnsafeMutableRawPointer(bitPattern: bytes.loadUnaligned(fromByteOffset: 8, as: UInt.self)))
    }

    /// A unit format as an AudioStreamBasicDescription's 40 bytes.
    public static func description(_ layout: PCMLayout) -> [UInt8] {
        let frame = UInt32(layout.bytesPerFrame)
        return float64(layout.sampleRate)
            + [PCMLayout.linearPCM, layout.formatFlags, frame, 1, frame, UInt32(layout.channels), layout.bitsPerChannel, 0]
            .flatMap(word)
    }

    /// An AudioStreamBasicDescription's 40 bytes as a unit format.
    static func layout(_ bytes: UnsafeRawBufferPointer) throws(UnitError) -> PCMLayout {
        func field(_ index: Int) -> UInt32 { bytes.loadUnaligned(fromByteOffset: 8 + 4 * index, as: UInt32.self) }
        do throws(PCMLayout.Refusal) {
            return try PCMLayout(formatID: field(0), flags: field(1), sampleRate: bytes.loadUnaligned(as: Float64.self),
                                 bytesPerPacket: field(2), framesPerPacket: field(3), bytesPerFrame: field(4),
                                 channelsPerFrame: field(5), bitsPerChannel: field(6))
        } catch {
            throw .formatNotSupported
        }
    }
}
