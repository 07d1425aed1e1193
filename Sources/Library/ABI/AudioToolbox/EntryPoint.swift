import AudioSessionCore
import Runtime
import Settings

/// Runs one C entry point: looks up the session, maps thrown codes to `OSStatus`, and
/// logs failures. The only place result codes cross into C. The session API needs
/// AudioSessionInitialize; `defaultSessionToo` lets the virtual device's controls act on
/// a program's default session as well (the world they simulate is there either way).
@inline(__always)
func entryPoint(_ name: StaticString, defaultSessionToo: Bool = false,
                _ body: (Runtime) throws(ResultCode) -> Void) -> Int32 {
    let run = { (runtime: Runtime) -> Int32 in
        do throws(ResultCode) {
            try body(runtime)
            return ResultCode.noError.rawValue
        } catch {
            Log.error("\(name): \(error)")
            return error.rawValue
        }
    }
    let status = defaultSessionToo ? Runtime.withCurrent(run) : Runtime.withInitialized(run)
    guard let status else {
        Log.error("\(name): \(ResultCode.notInitialized)")
        return ResultCode.notInitialized.rawValue
    }
    return status
}

/// A C `Boolean` read as a byte: any non-zero value is true, as legacy callers expect.
@inline(__always)
func isTrue(_ byte: UInt8) -> Bool { byte != 0 }
