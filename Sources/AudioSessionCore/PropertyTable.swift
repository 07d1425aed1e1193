/// How a property's value is laid out in C.
public enum ValueType: Sendable, Equatable {
    case uint32, float32, float64
    /// A CoreFoundation object passed by reference (`CFDictionaryRef`, `CFArrayRef`,
    /// `CFStringRef`, `CFNumberRef`): its size is that of a pointer.
    case cfDictionary, cfArray, cfString, cfNumber

    public var byteCount: UInt32 {
        switch self {
        case .uint32, .float32: return 4
        case .float64: return 8
        case .cfDictionary, .cfArray, .cfString, .cfNumber: return UInt32(MemoryLayout<UnsafeRawPointer>.size)
        }
    }
}

/// What a program may do with a property.
public struct Access: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let get = Access(rawValue: 1)
    public static let set = Access(rawValue: 2)
    public static let listen = Access(rawValue: 4)
}

/// One row of the property table: SPEC.md section 4, written once as data.
public struct PropertyDescriptor: Sendable {
    public let id: PropertyID
    public let type: ValueType
    public let access: Access
}

public enum PropertyTable {
    /// Every property of the API, current and deprecated.
    public static let all: [PropertyDescriptor] = [
        .init(id: .preferredHardwareSampleRate, type: .float64, access: [.get, .set]),
        .init(id: .preferredHardwareIOBufferDuration, type: .float32, access: [.get, .set]),
        .init(id: .audioCategory, type: .uint32, access: [.get, .set]),
        .init(id: .audioRouteChange, type: .cfDictionary, access: [.listen]),
        .init(id: .currentHardwareSampleRate, type: .float64, access: [.get]),
        .init(id: .currentHardwareInputNumberChannels, type: .uint32, access: [.get, .listen]),
        .init(id: .currentHardwareOutputNumberChannels, type: .uint32, access: [.get, .listen]),
        .init(id: .currentHardwareOutputVolume, type: .float32, access: [.get, .listen]),
        .init(id: .currentHardwareInputLatency, type: .float32, access: [.get]),
        .init(id: .currentHardwareOutputLatency, type: .float32, access: [.get]),
        .init(id: .currentHardwareIOBufferDuration, type: .float32, access: [.get]),
        .init(id: .otherAudioIsPlaying, type: .uint32, access: [.get]),
        .init(id: .overrideAudioRoute, type: .uint32, access: [.set]),
        .init(id: .audioInputAvailable, type: .uint32, access: [.get, .listen]),
        .init(id: .serverDied, type: .uint32, access: [.listen]),
        .init(id: .otherMixableAudioShouldDuck, type: .uint32, access: [.get, .set]),
        .init(id: .overrideCategoryMixWithOthers, type: .uint32, access: [.get, .set]),
        .init(id: .overrideCategoryDefaultToSpeaker, type: .uint32, access: [.get, .set]),
        .init(id: .overrideCategoryEnableBluetoothInput, type: .uint32, access: [.get, .set]),
        .init(id: .interruptionType, type: .uint32, access: [.get]),
        .init(id: .mode, type: .uint32, access: [.get, .set]),
        .init(id: .inputSources, type: .cfArray, access: [.get, .listen]),
        .init(id: .outputDestinations, type: .cfArray, access: [.get, .listen]),
        .init(id: .inputSource, type: .cfNumber, access: [.get, .set]),
        .init(id: .outputDestination, type: .cfNumber, access: [.get, .set]),
        .init(id: .inputGainAvailable, type: .uint32, access: [.get, .listen]),
        .init(id: .inputGainScalar, type: .float32, access: [.get, .set, .listen]),
        .init(id: .audioRouteDescription, type: .cfDictionary, access: [.get]),
        .init(id: .audioRoute, type: .cfString, access: [.get]),
    ]

    private static let byID: [PropertyID: PropertyDescriptor] =
        Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0) })

    /// The descriptor of `id`, or `unsupportedProperty` for an unknown ID.
    public static func descriptor(_ id: PropertyID) throws(ResultCode) -> PropertyDescriptor {
        guard let descriptor = byID[id] else { throw .unsupportedProperty }
        return descriptor
    }

    /// The descriptor of `id` if the property allows `access`, else `unsupportedProperty`.
    public static func descriptor(_ id: PropertyID, allowing access: Access) throws(ResultCode) -> PropertyDescriptor {
        let descriptor = try descriptor(id)
        guard descriptor.access.contains(access) else { throw .unsupportedProperty }
        return descriptor
    }
}
