/// How a property's value is laid out in C.
public enum ValueType: Sendable, Equatable {
    case uint32, float32, float64
    /// A CoreFoundation object passed by reference (`CFDictionaryRef`, `CFArrayRef`,
    /// `CFStringRef`, `CFNumberRef`): its size is that of a pointer.
    case cfDictionary, cfArray, cfString, cfNumber

    public var isCoreFoundation: Bool {
        switch self {
        case .uint32, .float32, .float64: return false
        case .cfDictionary, .cfArray, .cfString, .cfNumber: return true
        }
    }

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
    public static var get: Access { Access(rawValue: 1) }
    public static var set: Access { Access(rawValue: 2) }
    public static var listen: Access { Access(rawValue: 4) }
}

/// One row of the property table: SPEC.md section 4, written once as data.
public struct PropertyDescriptor: Sendable {
    public let id: PropertyID
    public let type: ValueType
    public let access: Access
    /// Where the session publishes this property's current value for lock-free reads
    /// (`PublishedScalars`), or nil for CF-valued properties and InterruptionType.
    public internal(set) var publishedSlot: Int?

    init(id: PropertyID, type: ValueType, access: Access) {
        self.id = id
        self.type = type
        self.access = access
    }
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
        // Listenable: a Linux addition (SPEC 4).
        .init(id: .otherAudioIsPlaying, type: .uint32, access: [.get, .listen]),
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

    /// `all` in an open-addressing hash table of 64 slots: every Get and Set starts with
    /// this look-up, so it costs a multiply, a shift and usually one compare.
    /// The gettable scalar properties whose values the session publishes, in slot order.
    /// InterruptionType is not among them: it is readable only inside one callback.
    public static let published: [PropertyID] = all.filter {
        $0.access.contains(.get) && $0.type.byteCount <= 8 && !$0.type.isCoreFoundation && $0.id != .interruptionType
    }.map(\.id)

    private static let slots: [PropertyDescriptor?] = {
        var slots = [PropertyDescriptor?](repeating: nil, count: slotCount)
        for var descriptor in all {
            descriptor.publishedSlot = published.firstIndex(of: descriptor.id)
            var slot = firstSlot(descriptor.id)
            while slots[slot] != nil { slot = (slot + 1) & (slotCount - 1) }
            slots[slot] = descriptor
        }
        return slots
    }()
    private static let slotCount = 64

    @inline(__always)
    private static func firstSlot(_ id: PropertyID) -> Int {
        Int(truncatingIfNeeded: (id.rawValue &* 0x9E37_79B1) >> 26)
    }

    /// The descriptor of `id`, or nil for an unknown ID.
    public static func lookUp(_ id: PropertyID) -> PropertyDescriptor? {
        slots.withUnsafeBufferPointer { table in
            var slot = firstSlot(id)
            while let descriptor = table[slot] {
                if descriptor.id == id { return descriptor }
                slot = (slot + 1) & (slotCount - 1)
            }
            return nil
        }
    }

    /// The descriptor of `id`, or `unsupportedProperty` for an unknown ID.
    public static func descriptor(_ id: PropertyID) throws(ResultCode) -> PropertyDescriptor {
        guard let descriptor = lookUp(id) else { throw .unsupportedProperty }
        return descriptor
    }

    /// The descriptor of `id` if the property allows `access`, else `unsupportedProperty`.
    public static func descriptor(_ id: PropertyID, allowing access: Access) throws(ResultCode) -> PropertyDescriptor {
        let descriptor = try descriptor(id)
        guard descriptor.access.contains(access) else { throw .unsupportedProperty }
        return descriptor
    }
}
