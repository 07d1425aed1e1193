import AudioSessionCore
import CAudioToolbox
import CoreFoundation

/// Builds the CoreFoundation objects the API hands to C: route descriptions, route
/// change payloads, port lists, legacy route names.
package enum CFValues {
    package static func string(_ text: String) -> CFString {
        CFStringCreateWithCString(nil, text, CFStringBuiltInEncodings.UTF8.rawValue)
    }

    package static func number(_ value: Int32) -> CFNumber {
        var value = value
        return CFNumberCreate(nil, .sInt32Type, &value)
    }

    package static func array(_ objects: [AnyObject]) -> CFArray {
        var pointers = objects.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) as UnsafeRawPointer? }
        return withExtendedLifetime(objects) {
            var callbacks = kCFTypeArrayCallBacks
            return CFArrayCreate(nil, &pointers, pointers.count, &callbacks)
        }
    }

    package static func dictionary(_ pairs: [(CFString, AnyObject)]) -> CFDictionary {
        var keys = pairs.map { UnsafeRawPointer(Unmanaged.passUnretained($0.0).toOpaque()) as UnsafeRawPointer? }
        var values = pairs.map { UnsafeRawPointer(Unmanaged.passUnretained($0.1).toOpaque()) as UnsafeRawPointer? }
        return withExtendedLifetime(pairs) {
            var keyCallbacks = kCFTypeDictionaryKeyCallBacks
            var valueCallbacks = kCFTypeDictionaryValueCallBacks
            return CFDictionaryCreate(nil, &keys, &values, pairs.count, &keyCallbacks, &valueCallbacks)
        }
    }

    /// The exported port-type constant a route description names a port with: the same
    /// object a program compares against, found by its text (`Port.Description.portType`).
    package static func portType(_ port: Port) -> CFString { portTypeConstant(port)! }

    /// Nil only if the port table names a type no constant has (a test checks each port).
    package static func portTypeConstant(_ port: Port) -> CFString? { portTypeConstants[port.description.portType] }

    /// Every `kAudioSessionInputRoute_*` / `kAudioSessionOutputRoute_*` constant by its text.
    private static let portTypeConstants: [String: CFString] = {
        let constants: [CFString] = [
            kAudioSessionInputRoute_LineIn, kAudioSessionInputRoute_BuiltInMic, kAudioSessionInputRoute_HeadsetMic,
            kAudioSessionInputRoute_BluetoothHFP, kAudioSessionInputRoute_USBAudio,
            kAudioSessionOutputRoute_LineOut, kAudioSessionOutputRoute_Headphones,
            kAudioSessionOutputRoute_BluetoothHFP, kAudioSessionOutputRoute_BluetoothA2DP,
            kAudioSessionOutputRoute_BuiltInReceiver, kAudioSessionOutputRoute_BuiltInSpeaker,
            kAudioSessionOutputRoute_USBAudio, kAudioSessionOutputRoute_HDMI, kAudioSessionOutputRoute_AirPlay,
        ]
        return Dictionary(uniqueKeysWithValues: constants.map { (text(of: $0), $0) })
    }()

    /// Any CFString as a Swift string, whatever its length (file paths, run-loop modes).
    package static func swiftString(_ string: CFString) -> String {
        let capacity = CFStringGetMaximumSizeForEncoding(CFStringGetLength(string),
                                                         CFStringBuiltInEncodings.UTF8.rawValue) + 1
        var buffer = [CChar](repeating: 0, count: capacity)
        guard CFStringGetCString(string, &buffer, capacity, CFStringBuiltInEncodings.UTF8.rawValue) else { return "" }
        return String(cString: buffer)
    }

    package static func text(of string: CFString) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard CFStringGetCString(string, &buffer, buffer.count, CFStringBuiltInEncodings.UTF8.rawValue) else { return "" }
        return String(cString: buffer)
    }

    package static func routeDescription(_ route: RouteDescription) -> CFDictionary {
        func ports(_ list: [Port]) -> CFArray {
            array(list.map { dictionary([(kAudioSession_AudioRouteKey_Type, portType($0))]) })
        }
        return dictionary([
            (kAudioSession_AudioRouteKey_Inputs, ports(route.inputs)),
            (kAudioSession_AudioRouteKey_Outputs, ports(route.outputs)),
        ])
    }

    package static func routeChange(_ change: RouteChange) -> CFDictionary {
        dictionary([
            (kAudioSession_RouteChangeKey_Reason, number(Int32(bitPattern: change.reason.rawValue))),
            (string(kAudioSession_AudioRouteChangeKey_OldRoute), string(change.previous.legacyName)),
            (kAudioSession_AudioRouteChangeKey_PreviousRouteDescription, routeDescription(change.previous)),
            (kAudioSession_AudioRouteChangeKey_CurrentRouteDescription, routeDescription(change.current)),
        ])
    }

    /// InputSources / OutputDestinations: ID and description of each selectable port.
    package static func portList(_ ports: [Port]) -> CFArray {
        array(ports.map { port in
            let (idKey, descriptionKey) = port.isInput
                ? (kAudioSession_InputSourceKey_ID, kAudioSession_InputSourceKey_Description)
                : (kAudioSession_OutputDestinationKey_ID, kAudioSession_OutputDestinationKey_Description)
            return dictionary([(idKey!, number(Int32(port.sourceID))), (descriptionKey!, string(port.description.label))])
        })
    }
}
