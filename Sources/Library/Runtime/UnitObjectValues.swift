import AudioUnits
import CoreFoundation
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
        }
    }

    /// The object a set's bytes name, read as the property `id` takes it; nil when they
    /// hold no object of the kind expected.
    package static func object(_ bytes: UnsafeRawBufferPointer, for id: UInt32) -> UnitObject? {
        switch id {
        case UnitProperties.presentPreset:
            guard bytes.count >= UnitProperties.presetSize else { return nil }
            let number = bytes.loadUnaligned(as: Int32.self)
            let name = bytes.loadUnaligned(fromByteOffset: 8, as: UnsafeRawPointer?.self)
            let text = name.flatMap { pointer -> String? in
                let object = Unmanaged<CFTypeRef>.fromOpaque(pointer).takeUnretainedValue()
                guard CFGetTypeID(object) == CFStringGetTypeID() else { return nil }
                return CFValues.swiftString(unsafeBitCast(object, to: CFString.self))
            }
            return .preset(PresetName(number: number, name: text ?? "Untitled"))
        case UnitProperties.classInfo:
            guard bytes.count >= UnitProperties.objectSize,
                  let pointer = bytes.loadUnaligned(as: UnsafeRawPointer?.self) else { return nil }
            let object = Unmanaged<CFTypeRef>.fromOpaque(pointer).takeUnretainedValue()
            guard CFGetTypeID(object) == CFDictionaryGetTypeID() else { return nil }
            return state(unsafeBitCast(object, to: CFDictionary.self)).map(UnitObject.state)
        default:
            return nil
        }
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
                               name: CFValues.string("name"), data: CFValues.string("data"))

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
    /// is not.
    private static func state(_ dictionary: CFDictionary) -> UnitState? {
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
        return UnitState(version: version, type: UInt32(bitPattern: type), subtype: UInt32(bitPattern: subtype),
                         manufacturer: UInt32(bitPattern: manufacturer), name: name, data: bytes)
    }
}
