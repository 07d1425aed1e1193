import AudioSessionCore
import CoreFoundation

/// Moves property values between C memory and the core's `PropertyValue`.
package enum Marshalling {
    /// The CF object for a CF-typed value, or nil for a scalar.
    package static func object(for value: PropertyValue) -> AnyObject? {
        switch value {
        case .route(let route): return CFValues.routeDescription(route)
        case .routeChange(let change): return CFValues.routeChange(change)
        case .legacyRouteName(let name): return CFValues.string(name)
        case .ports(let ports): return CFValues.portList(ports)
        case .portID(let id): return CFValues.number(Int32(bitPattern: id))
        case .uint32, .float32, .float64: return nil
        }
    }

    /// Writes `value` to `out` for AudioSessionGetProperty. CF objects are stored
    /// retained: the caller owns them.
    package static func store(_ value: PropertyValue, into out: UnsafeMutableRawPointer) {
        switch value {
        case .uint32(let v): out.storeBytes(of: v, toByteOffset: 0, as: UInt32.self)
        case .float32(let v): out.storeBytes(of: v, toByteOffset: 0, as: Float.self)
        case .float64(let v): out.storeBytes(of: v, toByteOffset: 0, as: Double.self)
        default:
            let object = Self.object(for: value)!
            out.storeBytes(of: Unmanaged.passRetained(object).toOpaque(), toByteOffset: 0,
                           as: UnsafeMutableRawPointer.self)
        }
    }

    /// Calls `body` with the (size, data) a property listener receives: a pointer to a
    /// scalar, or the CF object itself, alive for the duration of the call.
    package static func withListenerData(_ value: PropertyValue, _ body: (UInt32, UnsafeRawPointer?) -> Void) {
        switch value {
        case .uint32(var v): withUnsafeBytes(of: &v) { body(4, $0.baseAddress) }
        case .float32(var v): withUnsafeBytes(of: &v) { body(4, $0.baseAddress) }
        case .float64(var v): withUnsafeBytes(of: &v) { body(8, $0.baseAddress) }
        default:
            let object = Self.object(for: value)!
            withExtendedLifetime(object) {
                body(UInt32(MemoryLayout<UnsafeRawPointer>.size),
                     UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()))
            }
        }
    }

    /// Reads a value of `type` that a program passed to AudioSessionSetProperty.
    package static func load(_ type: ValueType, from data: UnsafeRawPointer) throws(ResultCode) -> PropertyValue {
        switch type {
        case .uint32: return .uint32(data.loadUnaligned(as: UInt32.self))
        case .float32: return .float32(data.loadUnaligned(as: Float.self))
        case .float64: return .float64(data.loadUnaligned(as: Double.self))
        case .cfNumber: return .portID(try portID(from: data.loadUnaligned(as: UnsafeRawPointer?.self)))
        case .cfDictionary, .cfArray, .cfString: throw .unsupportedProperty
        }
    }

    private static func portID(from pointer: UnsafeRawPointer?) throws(ResultCode) -> UInt32 {
        guard let pointer else { throw .unspecified }
        let object = Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue()
        guard CFGetTypeID(object) == CFNumberGetTypeID() else { throw .unsupportedProperty }
        var value: Int64 = 0
        guard CFNumberGetValue(unsafeBitCast(object, to: CFNumber.self), .sInt64Type, &value),
              let id = UInt32(exactly: value) else { throw .unsupportedProperty }
        return id
    }
}
