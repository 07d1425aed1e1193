/// A unit whose parameters are data: in each scope, a table of specs (ID, name, unit,
/// range, default, whether only read). kAudioUnitProperty_ParameterList and
/// ParameterInfo read it; a unit's own get and set check their addresses against it.
/// Every kind that has parameters declares them: the effects and the sampler (global),
/// the multichannel and 3D mixers (per bus, the output, global), Varispeed and the I/O
/// units (global).
public protocol DeclaredParameters: AudioUnitInstance {
    /// The parameters a program sees now in `scope` (a banded unit's in its bands in use).
    func declaredParameters(in scope: Scope) -> [ParameterSpec]
}

extension DeclaredParameters {
    /// Parameter `id`'s spec in `scope`: kAudioUnitErr_InvalidScope if the unit has it
    /// only in another scope, kAudioUnitErr_InvalidParameter if not at all.
    public func declaredSpec(_ id: UInt32, scope: Scope) throws(UnitError) -> ParameterSpec {
        if let spec = declaredParameters(in: scope).first(where: { $0.id == id }) { return spec }
        for other in [Scope.global, .input, .output] where other != scope {
            if declaredParameters(in: other).contains(where: { $0.id == id }) { throw .invalidScope }
        }
        throw .invalidParameter
    }
}
