import AudioFiles
import AudioUnits
import CoreFoundation
import Glibc
import Locking

/// The C form of the unit properties whose values are objects (UnitObject): a CFArray of
/// AUPreset pointers (kAudioUnitProperty_FactoryPresets), an AUPreset (PresentPreset) and
/// a CFDictionary (ClassInfo, the form .aupreset files hold). What a get hands over is the
/// caller's to release, as on the phone: the array, the preset's name, the dictionary.
package enum UnitObjectValues {
    /// The bytes a get writes: a retained CF pointer, or an AUPreset with a retained name.
    package static func bytes(_ object: UnitObject) -> [UInt8] {
        switch object {
        case .presets(let presets, let kind):
            return pointer(Unmanaged.passRetained(presetArray(presets, kind: kind)).toOpaque())
        case .preset(let preset):
            return withUnsafeBytes(of: Int64(preset.number)) { Array($0) }
                + pointer(Unmanaged.passRetained(CFValues.string(preset.name)).toOpaque())
        case .state(let state):
            return pointer(Unmanaged.passRetained(dictionary(state)).toOpaque())
        case .instrument:
            return [] // write-only: never read
        case .files(let files):
            return files.flatMap { withUnsafeBytes(of: UInt64($0.handle)) { Array($0) } }
        }
    }

    /// The object a set's bytes name, read as the property `id` takes it. A value that
    /// holds no object of the kind expected is kAudioUnitErr_InvalidPropertyValue; an
    /// instrument type the sampler does not load, kAudioUnitErr_InstrumentTypeNotFound.
    package static func object(_ bytes: UnsafeRawBufferPointer, for id: UInt32) throws(UnitError) -> UnitObject {
        switch id {
        case UnitProperties.presentPreset:
            let number = bytes.loadUnaligned(as: Int32.self)
            let name = bytes.loadUnaligned(fromByteOffset: 8, as: UnsafeRawPointer?.self).flatMap(text)
            return .preset(PresetName(number: number, name: name ?? "Untitled"))
        case UnitProperties.classInfo:
            guard let dictionary = cfObject(bytes, CFDictionaryGetTypeID()),
                  let state = state(unsafeBitCast(dictionary, to: CFDictionary.self), folder: nil)
            else { throw .invalidPropertyValue }
            return .state(state)
        case UnitProperties.loadInstrument, UnitProperties.loadPresetFromBank:
            // AUSamplerInstrumentData: the URL, then type, bank MSB, bank LSB and preset;
            // AUSamplerBankPresetData: the URL, then bank MSB, bank LSB and preset.
            guard let url = cfObject(bytes, CFURLGetTypeID()), let path = path(of: url) else { throw .invalidPropertyValue }
            let fields = (8..<12).map { bytes[$0] }
            let (type, msb, lsb, preset) = id == UnitProperties.loadInstrument
                ? (fields[0], fields[1], fields[2], fields[3]) : (1, fields[0], fields[1], fields[2])
            switch type {
            case 1: // kInstrumentType_SF2Preset (and DLS, which the synthesizer does not read)
                return .instrument(.soundFont(path: path, bank: SamplerInstrument.soundFontBank(msb: msb, lsb: lsb),
                                              program: Int(preset)))
            case 2: // kInstrumentType_AUPreset: an .aupreset file
                return .instrument(try presetInstrument(at: path))
            case 3: // kInstrumentType_Audiofile
                return .instrument(.audioFiles([path]))
            default:
                throw .instrumentTypeNotFound
            }
        case UnitProperties.scheduledFileIDs:
            // AudioFileIDs of files open for reading.
            var files: [(handle: UInt, file: AudioFileReader?)] = []
            for i in 0..<bytes.count / 8 {
                let handle = UInt(bytes.loadUnaligned(fromByteOffset: 8 * i, as: UInt64.self))
                guard case .reading(let reader)? = audioFiles.get(handle)?.role else { throw .invalidPropertyValue }
                files.append((handle, reader))
            }
            return .files(files)
        case UnitProperties.loadAudioFiles:
            guard let list = cfObject(bytes, CFArrayGetTypeID()) else { throw .invalidPropertyValue }
            let array = unsafeBitCast(list, to: CFArray.self)
            var paths: [String] = []
            for i in 0..<CFArrayGetCount(array) {
                let item = Unmanaged<CFTypeRef>.fromOpaque(CFArrayGetValueAtIndex(array, i)!).takeUnretainedValue()
                guard CFGetTypeID(item) == CFURLGetTypeID(), let path = path(of: item) else { throw .invalidPropertyValue }
                paths.append(path)
            }
            return .instrument(.audioFiles(paths))
        default:
            throw .invalidPropertyValue
        }
    }

    /// The CF object of `type` whose pointer starts `bytes`, if it is one.
    private static func cfObject(_ bytes: UnsafeRawBufferPointer, _ type: CFTypeID) -> CFTypeRef? {
        guard bytes.count >= 8, let pointer = bytes.loadUnaligned(as: UnsafeRawPointer?.self) else { return nil }
        let object = Unmanaged<CFTypeRef>.fromOpaque(pointer).takeUnretainedValue()
        return CFGetTypeID(object) == type ? object : nil
    }

    private static func text(_ pointer: UnsafeRawPointer) -> String? {
        let object = Unmanaged<CFTypeRef>.fromOpaque(pointer).takeUnretainedValue()
        guard CFGetTypeID(object) == CFStringGetTypeID() else { return nil }
        return CFValues.swiftString(unsafeBitCast(object, to: CFString.self))
    }

    /// A file URL's path.
    private static func path(of url: CFTypeRef) -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        guard CFURLGetFileSystemRepresentation(unsafeBitCast(url, to: CFURL.self), true, &buffer, buffer.count) else {
            return nil
        }
        return String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// The dictionary a property-list file holds (an .aupreset), read whole.
    /// The sampler instrument an .aupreset file describes (its zones and their samples,
    /// found beside it): kAudioUnitErr_FileNotFound if it is not there or no property
    /// list, kAudioUnitErr_InvalidFile if it names no sample.
    package static func presetInstrument(at path: String) throws(UnitError) -> SamplerInstrument {
        guard let dictionary = propertyList(at: path) else { throw .fileNotFound }
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        guard let state = state(dictionary, folder: folder), let instrument = state.instrument else { throw .invalidFile }
        return instrument
    }

    private static func propertyList(at path: String) -> CFDictionary? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while bytes.count < 64 << 20 {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        let data = bytes.withUnsafeBufferPointer { CFDataCreate(nil, $0.baseAddress, $0.count)! }
        guard let list = CFPropertyListCreateWithData(nil, data, 0, nil, nil)?.takeRetainedValue(),
              CFGetTypeID(list) == CFDictionaryGetTypeID() else { return nil }
        return unsafeBitCast(list, to: CFDictionary.self)
    }

    private static func pointer(_ raw: UnsafeMutableRawPointer) -> [UInt8] {
        withUnsafeBytes(of: UInt(bitPattern: raw)) { Array($0) }
    }

    // MARK: Factory presets

    /// AUPreset structs live as long as the process, one list per unit kind: the array a
    /// program is given points at them, and a program may keep a preset after releasing
    /// the array (as the phone's units keep theirs).
    private static let lists = Locked<[UnitKind: UInt]>([:])

    private static func presetArray(_ presets: [PresetName], kind: UnitKind) -> CFArray {
        let base: UnsafeMutableRawPointer = lists.withLock { lists in
            if let list = lists[kind] { return UnsafeMutableRawPointer(bitPattern: list)! }
            let list = UnsafeMutableRawPointer.allocate(byteCount: max(1, presets.count) * UnitProperties.presetSize,
                                                        alignment: 8)
            for (i, preset) in presets.enumerated() {
                let entry = list + i * UnitProperties.presetSize
                entry.storeBytes(of: Int64(preset.number), as: Int64.self)
                entry.storeBytes(of: Unmanaged.passRetained(CFValues.string(preset.name)).toOpaque(), toByteOffset: 8,
                                 as: UnsafeMutableRawPointer.self)
            }
            lists[kind] = UInt(bitPattern: list)
            return list
        }
        var pointers: [UnsafeRawPointer?] = presets.indices.map { UnsafeRawPointer(base + $0 * UnitProperties.presetSize) }
        // No callbacks: the elements are structs, not CF objects.
        return CFArrayCreate(nil, &pointers, pointers.count, nil)
    }

    // MARK: Class info

    private static let keys = (version: CFValues.string("version"), type: CFValues.string("type"),
                               subtype: CFValues.string("subtype"), manufacturer: CFValues.string("manufacturer"),
                               name: CFValues.string("name"), data: CFValues.string("data"),
                               instrument: CFValues.string("Instrument"), references: CFValues.string("file-references"))

    private static func dictionary(_ state: UnitState) -> CFDictionary {
        let data = state.data.withUnsafeBufferPointer { CFDataCreate(nil, $0.baseAddress, $0.count)! }
        return CFValues.dictionary([
            (keys.version, CFValues.number(state.version)),
            (keys.type, CFValues.number(Int32(bitPattern: state.type))),
            (keys.subtype, CFValues.number(Int32(bitPattern: state.subtype))),
            (keys.manufacturer, CFValues.number(Int32(bitPattern: state.manufacturer))),
            (keys.name, CFValues.string(state.name)),
            (keys.data, data),
        ])
    }

    /// A saved state from a dictionary: the four numbers and the data are needed, the name
    /// is not. A sampler's .aupreset also names its instrument: the zones of its layers,
    /// each a sample from its file references (a relative path is found from `folder`,
    /// the preset file's, and from the program's own folder, as the phone looks in the
    /// app's bundle).
    private static func state(_ dictionary: CFDictionary, folder: String?) -> UnitState? {
        func value(_ key: CFString) -> CFTypeRef? {
            CFDictionaryGetValue(dictionary, Unmanaged.passUnretained(key).toOpaque())
                .map { Unmanaged<CFTypeRef>.fromOpaque($0).takeUnretainedValue() }
        }
        func number(_ key: CFString) -> Int32? {
            guard let object = value(key), CFGetTypeID(object) == CFNumberGetTypeID() else { return nil }
            var result: Int64 = 0
            guard CFNumberGetValue(unsafeBitCast(object, to: CFNumber.self), .sInt64Type, &result),
                  let word = Int32(exactly: result) ?? (result >= 0 && result <= Int64(UInt32.max)
                                                         ? Int32(bitPattern: UInt32(result)) : nil) else { return nil }
            return word
        }
        guard let version = number(keys.version), let type = number(keys.type), let subtype = number(keys.subtype),
              let manufacturer = number(keys.manufacturer),
              let dataObject = value(keys.data), CFGetTypeID(dataObject) == CFDataGetTypeID() else { return nil }
        let data = unsafeBitCast(dataObject, to: CFData.self)
        let length = CFDataGetLength(data)
        let bytes = length > 0 ? Array(UnsafeBufferPointer(start: CFDataGetBytePtr(data), count: length)) : []
        var name = "Untitled"
        if let object = value(keys.name), CFGetTypeID(object) == CFStringGetTypeID() {
            name = CFValues.swiftString(unsafeBitCast(object, to: CFString.self))
        }
        var state = UnitState(version: version, type: UInt32(bitPattern: type), subtype: UInt32(bitPattern: subtype),
                              manufacturer: UInt32(bitPattern: manufacturer), name: name, data: bytes)
        if let instrument = value(keys.instrument), CFGetTypeID(instrument) == CFDictionaryGetTypeID() {
            state.instrument = zones(unsafeBitCast(instrument, to: CFDictionary.self), references: value(keys.references),
                                     name: name, folder: folder)
        }
        return state
    }

    /// The zones of an .aupreset's Instrument: every layer's, each with its waveform's file.
    private static func zones(_ instrument: CFDictionary, references: CFTypeRef?, name: String, folder: String?)
        -> SamplerInstrument? {
        func item(_ dictionary: CFDictionary, _ key: String) -> CFTypeRef? {
            let name = CFValues.string(key)
            return withExtendedLifetime(name) {
                CFDictionaryGetValue(dictionary, Unmanaged.passUnretained(name).toOpaque())
                    .map { Unmanaged<CFTypeRef>.fromOpaque($0).takeUnretainedValue() }
            }
        }
        func integer(_ dictionary: CFDictionary, _ key: String) -> Int? {
            guard let object = item(dictionary, key), CFGetTypeID(object) == CFNumberGetTypeID() else { return nil }
            var value: Int64 = 0
            return CFNumberGetValue(unsafeBitCast(object, to: CFNumber.self), .sInt64Type, &value) ? Int(value) : nil
        }
        func flag(_ dictionary: CFDictionary, _ key: String) -> Bool {
            guard let object = item(dictionary, key), CFGetTypeID(object) == CFBooleanGetTypeID() else { return false }
            return CFBooleanGetValue(unsafeBitCast(object, to: CFBoolean.self))
        }
        func array(_ dictionary: CFDictionary, _ key: String) -> [CFDictionary] {
            guard let object = item(dictionary, key), CFGetTypeID(object) == CFArrayGetTypeID() else { return [] }
            let list = unsafeBitCast(object, to: CFArray.self)
            return (0..<CFArrayGetCount(list)).compactMap { i in
                let element = Unmanaged<CFTypeRef>.fromOpaque(CFArrayGetValueAtIndex(list, i)!).takeUnretainedValue()
                return CFGetTypeID(element) == CFDictionaryGetTypeID() ? unsafeBitCast(element, to: CFDictionary.self) : nil
            }
        }
        guard let references, CFGetTypeID(references) == CFDictionaryGetTypeID() else { return nil }
        let files = unsafeBitCast(references, to: CFDictionary.self)
        var zones: [SamplerInstrument.PresetZone] = []
        for layer in array(instrument, "Layers") {
            for zone in array(layer, "Zones") {
                guard let waveform = integer(zone, "waveform"), let file = item(files, "Sample:\(waveform)"),
                      CFGetTypeID(file) == CFStringGetTypeID() else { return nil }
                let path = SamplerInstrument.resolve(CFValues.swiftString(unsafeBitCast(file, to: CFString.self)),
                                                     from: folder)
                let low = max(0, min(127, integer(zone, "min key") ?? 0)), high = max(0, min(127, integer(zone, "max key") ?? 127))
                var loop: Range<Int>?
                if flag(zone, "loop enabled"), let start = integer(zone, "loop start"), start >= 0 {
                    let end = integer(zone, "loop end") ?? Int(Int32.max)
                    loop = end > start ? start..<end : nil
                }
                zones.append(SamplerInstrument.PresetZone(path: path, rootKey: max(0, min(127, integer(zone, "root key") ?? 60)),
                                                           keys: min(low, high)...max(low, high), loop: loop))
            }
        }
        return zones.isEmpty ? nil : .zones(name: name, zones)
    }
}
