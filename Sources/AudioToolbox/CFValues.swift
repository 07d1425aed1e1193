import AudioSessionCore
import CAudioToolbox
import CoreFoundation

/// Builds the CoreFoundation objects the API hands to C: route descriptions, route
/// change payloads, port lists, legacy route names.
enum CFValues {
    static func string(_ text: String) -> CFString {
        CFStringCreateWithCString(nil, text, CFStringBuiltInEncodings.UTF8.rawValue)
    }

    static func number(_ value: Int32) -> CFNumber {
        var value = value
        return CFNumberCreate(nil, .sInt32Type, &value)
    }

    static func array(_ objects: [AnyObject]) -> CFArray {
        var pointers = objects.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) as UnsafeRawPointer? }
        return withExtendedLifetime(objects) {
            var callbacks = kCFTypeArrayCallBacks
            return CFArrayCreate(nil, &pointers, pointers.count, &callbacks)
        }
    }

    static func dictionary(_ pairs: [(CFString, AnyObject)]) -> CFDictionary {
        var keys = pairs.map { UnsafeRawPointer(Unmanaged.passUnretained($0.0).toOpaque()) as UnsafeRawPointer? }
        var values = pairs.map { UnsafeRawPointer(Unmanaged.passUnretained($0.1).toOpaque()) as UnsafeRawPointer? }
        return withExtendedLifetime(pairs) {
            var keyCallbacks = kCFTypeDictionaryKeyCallBacks
            var valueCallbacks = kCFTypeDictionaryValueCallBacks
            return CFDictionaryCreate(nil, &keys, &values, pairs.count, &keyCallbacks, &valueCallbacks)
        }
    }

    /// The port-type constant a route description names a port with.
    static func portType(_ port: Port) -> CFString {
        switch port {
        case .builtInSpeaker: return kAudioSessionOutputRoute_BuiltInSpeaker
        case .builtInReceiver: return kAudioSessionOutputRoute_BuiltInReceiver
        case .headphones: return kAudioSessionOutputRoute_Headphones
        case .lineOut: return kAudioSessionOutputRoute_LineOut
        case .usbAudioOutput: return kAudioSessionOutputRoute_USBAudio
        case .hdmi: return kAudioSessionOutputRoute_HDMI
        case .bluetoothA2DP: return kAudioSessionOutputRoute_BluetoothA2DP
        case .bluetoothHFPOutput: return kAudioSessionOutputRoute_BluetoothHFP
        case .airPlay: return kAudioSessionOutputRoute_AirPlay
        case .builtInMic: return kAudioSessionInputRoute_BuiltInMic
        case .headsetMic: return kAudioSessionInputRoute_HeadsetMic
        case .lineIn: return kAudioSessionInputRoute_LineIn
        case .usbAudioInput: return kAudioSessionInputRoute_USBAudio
        case .bluetoothHFPInput: return kAudioSessionInputRoute_BluetoothHFP
        }
    }

    static func routeDescription(_ route: RouteDescription) -> CFDictionary {
        func ports(_ list: [Port]) -> CFArray {
            array(list.map { dictionary([(kAudioSession_AudioRouteKey_Type, portType($0))]) })
        }
        return dictionary([
            (kAudioSession_AudioRouteKey_Inputs, ports(route.inputs)),
            (kAudioSession_AudioRouteKey_Outputs, ports(route.outputs)),
        ])
    }

    static func routeChange(_ change: RouteChange) -> CFDictionary {
        dictionary([
            (kAudioSession_RouteChangeKey_Reason, number(Int32(bitPattern: change.reason.rawValue))),
            (string(kAudioSession_AudioRouteChangeKey_OldRoute), string(change.previous.legacyName)),
            (kAudioSession_AudioRouteChangeKey_PreviousRouteDescription, routeDescription(change.previous)),
            (kAudioSession_AudioRouteChangeKey_CurrentRouteDescription, routeDescription(change.current)),
        ])
    }

    /// InputSources / OutputDestinations: ID and description of each selectable port.
    static func portList(_ ports: [Port]) -> CFArray {
        array(ports.map { port in
            let (idKey, descriptionKey) = port.isInput
                ? (kAudioSession_InputSourceKey_ID, kAudioSession_InputSourceKey_Description)
                : (kAudioSession_OutputDestinationKey_ID, kAudioSession_OutputDestinationKey_Description)
            return dictionary([(idKey!, number(Int32(port.sourceID))), (descriptionKey!, string(port.label))])
        })
    }
}
