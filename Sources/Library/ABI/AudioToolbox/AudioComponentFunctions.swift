import AudioSessionCore
import AudioStreams
import AudioUnits
import CAudioToolbox
import CoreFoundation
import Locking
import Runtime

// The AudioComponent functions (AudioComponent.h): the components found by description,
// their instances made and disposed of.

// MARK: AudioComponent

@_cdecl("AudioComponentFindNext")
public func audioComponentFindNext(_ after: OpaquePointer?, _ description: UnsafePointer<AudioComponentDescription>?)
    -> OpaquePointer? {
    guard let description else { return nil }
    let matching = UnitHandles.matching(description.pointee)
    var passed = after == nil
    for (kind, address) in UnitHandles.components {
        if passed && matching.contains(kind) { return OpaquePointer(address) }
        if OpaquePointer(address) == after { passed = true }
    }
    return nil
}

@_cdecl("AudioComponentCount")
public func audioComponentCount(_ description: UnsafePointer<AudioComponentDescription>?) -> UInt32 {
    guard let description else { return 0 }
    return UInt32(UnitHandles.matching(description.pointee).count)
}

@_cdecl("AudioComponentCopyName")
public func audioComponentCopyName(_ component: OpaquePointer?,
                                   _ outName: UnsafeMutablePointer<Unmanaged<CFString>?>?) -> Int32 {
    guard let kind = UnitHandles.kind(component), let outName else { return UnitError.parameter.rawValue }
    outName.pointee = Unmanaged.passRetained(CFValues.string(kind.name))
    return 0
}

@_cdecl("AudioComponentGetDescription")
public func audioComponentGetDescription(_ component: OpaquePointer?,
                                         _ outDescription: UnsafeMutablePointer<AudioComponentDescription>?) -> Int32 {
    guard let kind = UnitHandles.kind(component), let outDescription else { return UnitError.parameter.rawValue }
    outDescription.pointee = AudioComponentDescription(componentType: kind.type, componentSubType: kind.subtype,
                                                       componentManufacturer: kind.manufacturer, componentFlags: 0,
                                                       componentFlagsMask: 0)
    return 0
}

@_cdecl("AudioComponentGetVersion")
public func audioComponentGetVersion(_ component: OpaquePointer?, _ outVersion: UnsafeMutablePointer<UInt32>?) -> Int32 {
    guard let kind = UnitHandles.kind(component), let outVersion else { return UnitError.parameter.rawValue }
    outVersion.pointee = kind.version
    return 0
}

@_cdecl("AudioComponentInstanceNew")
public func audioComponentInstanceNew(_ component: OpaquePointer?,
                                      _ outInstance: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let kind = UnitHandles.kind(component), let outInstance else { return UnitError.parameter.rawValue }
    outInstance.pointee = OpaquePointer(bitPattern: UnitHandles.make(kind))
    return 0
}

@_cdecl("AudioComponentInstanceDispose")
public func audioComponentInstanceDispose(_ instance: OpaquePointer?) -> Int32 {
    guard let instance else { return UnitError.parameter.rawValue }
    return UnitHandles.dispose(UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(instance)))) ? 0
                                                                                           : UnitError.parameter.rawValue
}

@_cdecl("AudioComponentInstanceGetComponent")
public func audioComponentInstanceGetComponent(_ instance: OpaquePointer?) -> OpaquePointer? {
    guard let unit = UnitHandles.unit(instance) else { return nil }
    return UnitHandles.components.first { $0.0 == unit.kind }.map { OpaquePointer($0.1) }
}

@_cdecl("AudioComponentInstanceCanDo")
public func audioComponentInstanceCanDo(_ instance: OpaquePointer?, _ selector: Int16) -> Bool {
    guard UnitHandles.unit(instance) != nil else { return false }
    let answered: Set<Int16> = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x09, 0x0A, 0x0E, 0x0F, 0x10, 0x11, 0x12,
                                0x201, 0x202]
    return answered.contains(selector)
}
