import AudioUnits
import CAudioToolbox
import FourCharCodes
import Glibc
import Runtime

// CAShow and CAShowFile (AudioToolbox.h): a readable account of an object, for a
// program's debugging. Graphs and audio units are known; anything else says so.

@_cdecl("CAShow")
public func caShow(_ object: UnsafeMutableRawPointer?) {
    caShowFile(object, stdout)
}

@_cdecl("CAShowFile")
public func caShowFile(_ object: UnsafeMutableRawPointer?, _ file: UnsafeMutablePointer<FILE>?) {
    guard let file else { return }
    let handle = OpaquePointer(object)
    let text: String
    if object == nil {
        text = "CAShow: NULL"
    } else if let graph = try? GraphHandles.graph(handle) {
        text = graph.show(handle: UInt(bitPattern: object))
    } else if let unit = UnitHandles.unit(handle) {
        text = showUnit(unit, handle)
    } else {
        text = "CAShow: \(ShowText.handle(UInt(bitPattern: object))) is not a graph or an audio unit of this library"
    }
    fputs(text + "\n", file)
    fflush(file)
}

private func showUnit(_ unit: any AudioUnitInstance, _ handle: OpaquePointer?) -> String {
    let kind = unit.kind
    var lines = ["AudioUnit \(ShowText.handle(UInt(bitPattern: Int(bitPattern: handle.map { UnsafeRawPointer($0) })))): \(FourCharCode.describe(kind.type)) \(FourCharCode.describe(kind.subtype)) "
                 + "\(FourCharCode.describe(kind.manufacturer)), \(unit.isInitialized ? "initialized" : "uninitialized")"
                 + (UnitHandles.outputUnit(handle).map { $0.isRunning ? ", running" : ", stopped" } ?? "")]
    for (scope, name) in [(Scope.input, "input"), (Scope.output, "output")] {
        for element in 0..<min(unit.elementCount(scope), 16) {
            if let layout = try? unit.format(scope: scope, element: element) {
                lines.append("  \(name) \(element): [\(ShowText.format(layout))]")
            }
        }
    }
    return lines.joined(separator: "\n")
}
