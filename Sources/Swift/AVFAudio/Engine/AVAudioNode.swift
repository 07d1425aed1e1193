internal import AudioUnits
public import CAudioToolbox
public import Foundation
internal import Locking

public typealias AVAudioNodeBus = Int
public typealias AVAudioNodeCompletionHandler = @Sendable () -> Void

/// One node of an engine, as iOS's AVAudioNode: a unit of the library's (the same units
/// a C program makes: an engine is a graph of them), made when the node is attached and
/// disposed of when it is detached. Until then a node has no formats of its own to show:
/// it answers the standard format its unit will start with.
open class AVAudioNode: NSObject, @unchecked Sendable {
    /// The unit kind the node is made of.
    let kind: UnitKind
    /// While attached: the engine, the node's number in its graph, and its unit.
    weak var attachedEngine: AVAudioEngine?
    var graphNode: Int32?
    var unit: (any AudioUnitInstance)?
    /// The unit's handle (an AudioUnit in C) while attached.
    var handle: UInt = 0
    /// Global parameter values set while no unit exists: applied when one is made.
    private var stored: [UInt32: Float] = [:]
    private let storedLock = NSLock()
    /// The taps by output bus, and those removed (kept: a render may name one once more).
    let taps = Locked<[AVAudioNodeBus: NodeTap]>([:])
    let retiredTaps = Locked<[NodeTap]>([])

    init(kind: UnitKind) {
        self.kind = kind
        super.init()
    }

    /// A global parameter: the unit's value, or the one stored for it, or `initial`.
    func parameter(_ id: UInt32, initial: Float) -> Float {
        if let unit, let value = try? unit.parameter(id, scope: .global, element: 0) { return value }
        return storedLock.withLock { stored[id] } ?? initial
    }

    /// Sets a global parameter on the unit, or keeps it for the unit to come (held to its
    /// range by the unit when applied).
    func setParameter(_ id: UInt32, _ value: Float) {
        storedLock.withLock { stored[id] = value }
        try? unit?.setParameter(id, scope: .global, element: 0, value: value, offset: 0)
    }

    /// A source's volume (0 to 1) and pan (-1 to 1), as AVAudioMixing has them: kept by the
    /// node and applied to the input bus of each mixer it feeds, whenever it is connected.
    let mixing = Locked<(volume: Float, pan: Float)>((1, 0))

    func setMixing(volume: Float? = nil, pan: Float? = nil) {
        mixing.withLock { levels in
            if let volume { levels.volume = min(1, max(0, volume)) }
            if let pan { levels.pan = min(1, max(-1, pan)) }
        }
        attachedEngine?.applyMixing(of: self)
    }

    /// Called by the engine once the node's unit is made, uninitialized: what the node
    /// was given before goes to the unit.
    func unitMade(_ unit: any AudioUnitInstance) {
        configure(unit)
        for (id, value) in storedLock.withLock({ stored }) {
            try? unit.setParameter(id, scope: .global, element: 0, value: value, offset: 0)
        }
    }

    /// A kind's own set-up of a new unit (a band count) before the stored values.
    func configure(_ unit: any AudioUnitInstance) {}

    /// The unit's element a bus of the node is (the input node's bus 0 is its I/O unit's
    /// element 1).
    func unitBus(_ bus: AVAudioNodeBus) -> UInt32 { UInt32(bus) }

    open var engine: AVAudioEngine? { attachedEngine }

    open var numberOfInputs: Int { unit.map { Int($0.elementCount(.input)) } ?? (kind.traits.contains(.generator) ? 0 : 1) }
    open var numberOfOutputs: Int { unit.map { Int($0.elementCount(.output)) } ?? 1 }

    open func inputFormat(forBus bus: AVAudioNodeBus) -> AVAudioFormat { format(.input, bus) }
    open func outputFormat(forBus bus: AVAudioNodeBus) -> AVAudioFormat { format(.output, bus) }

    private func format(_ scope: Scope, _ bus: AVAudioNodeBus) -> AVAudioFormat {
        if let unit, bus >= 0, let layout = try? unit.format(scope: scope, element: unitBus(bus)) {
            return AVAudioFormat(layout)
        }
        return AVAudioFormat(standardFormatWithSampleRate: 44100, channels: 2)!
    }

    /// Clears what the node holds of the sound so far (a reverb's tail, a delay's line).
    open func reset() { unit?.reset() }

    /// The time of the engine's last render, on the node's timeline; nil while the engine
    /// does not render.
    open var lastRenderTime: AVAudioTime? { attachedEngine?.lastRenderTime }
}

/// What a source node gives the mixer it feeds (iOS's AVAudioStereoMixing).
public protocol AVAudioStereoMixing: AnyObject {
    /// -1 (left) to 1 (right).
    var pan: Float { get set }
}

/// A source node's level into the mixer it feeds (iOS's AVAudioMixing): kept by the node
/// and applied to the mixer's input bus whenever the two are connected.
public protocol AVAudioMixing: AVAudioStereoMixing {
    /// 0 to 1.
    var volume: Float { get set }
}

/// AVAudioMixerNode: the multichannel mixer. Any number of inputs (a bus is added as
/// `connect(_:to:format:)` needs one); `outputVolume` is its output's gain.
open class AVAudioMixerNode: AVAudioNode, @unchecked Sendable {
    public init() { super.init(kind: .multiChannelMixer) }

    open var outputVolume: Float {
        get { (try? unit?.parameter(0, scope: .output, element: 0)) ?? 1 }
        set { try? unit?.setParameter(0, scope: .output, element: 0, value: min(1, max(0, newValue)), offset: 0) }
    }

    /// The first input bus nothing feeds.
    open var nextAvailableInputBus: AVAudioNodeBus { attachedEngine?.firstFreeInput(of: self) ?? 0 }
}

/// The engine's I/O nodes (iOS's AVAudioIONode): the device's unit, or the generic
/// output unit while the engine renders by hand.
open class AVAudioIONode: AVAudioNode, @unchecked Sendable {
    /// The seconds between a render and the sound at the device (0 by hand).
    open var presentationLatency: TimeInterval { (unit as? OutputUnit)?.latency ?? 0 }
}

/// The engine's output (iOS's AVAudioOutputNode): what it feeds is played in the
/// session, as a C program's RemoteIO is.
open class AVAudioOutputNode: AVAudioIONode, @unchecked Sendable {
    init() { super.init(kind: .remoteIO) }
}

extension AVAudioFormat {
    /// The format a unit's layout describes.
    convenience init(_ layout: PCMLayout) {
        let common: AVAudioCommonFormat
        switch layout.encoding {
        case .float32: common = .pcmFormatFloat32
        case .int16: common = .pcmFormatInt16
        case .int32, .fixed824: common = .pcmFormatInt32
        }
        self.init(commonFormat: common, sampleRate: layout.sampleRate, channels: AVAudioChannelCount(layout.channels),
                  interleaved: layout.interleaved)!
    }

    /// The unit layout this format is, nil for one a unit cannot take (coded, 64-bit).
    var layout: PCMLayout? {
        let d = streamDescription.pointee
        return try? PCMLayout(formatID: d.mFormatID, flags: d.mFormatFlags, sampleRate: d.mSampleRate,
                              bytesPerPacket: d.mBytesPerPacket, framesPerPacket: d.mFramesPerPacket,
                              bytesPerFrame: d.mBytesPerFrame, channelsPerFrame: d.mChannelsPerFrame,
                              bitsPerChannel: d.mBitsPerChannel)
    }
}

/// One end of a connection (iOS's AVAudioConnectionPoint): a node and one of its buses.
open class AVAudioConnectionPoint: NSObject, @unchecked Sendable {
    public private(set) weak var node: AVAudioNode?
    public let bus: AVAudioNodeBus

    public init(node: AVAudioNode, bus: AVAudioNodeBus) {
        self.node = node
        self.bus = bus
    }
}
