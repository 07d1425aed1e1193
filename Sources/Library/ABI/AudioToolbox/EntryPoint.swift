import AudioSessionCore

/// Runs one C entry point: looks up the session, maps thrown codes to `OSStatus`, and
/// logs failures. The only place result codes cross into C.
@inline(__always)
func entryPoint(_ name: StaticString, _ body: (Runtime) throws(ResultCode) -> Void) -> Int32 {
    let status = Runtime.withCurrent { runtime -> Int32 in
        do throws(ResultCode) {
            try body(runtime)
            return ResultCode.noError.rawValue
        } catch {
            Log.error("\(name): \(error)")
            return error.rawValue
        }
    }
    guard let status else {
        Log.error("\(name): \(ResultCode.notInitialized)")
        return ResultCode.notInitialized.rawValue
    }
    return status
}

/// A C `Boolean` read as a byte: any non-zero value is true, as legacy callers expect.
@inline(__always)
func isTrue(_ byte: UInt8) -> Bool { byte != 0 }
