import AudioFiles
import Glibc

/// Audio Queue properties and parameters as data: for each ID, the value's size on this
/// queue, how it reads (as the C API's bytes, into a buffer of the program's size) and
/// how a value is taken. The ABI's calls go through this table and add only C buffers;
/// a new property is a row here.
public enum QueueProperties {
    /// What a property reads as: bytes, or the device's name (a CFString the ABI makes:
    /// this layer sees no CoreFoundation).
    public enum Value {
        case bytes([UInt8])
        case deviceName(String)
    }

    struct Row {
        let id: UInt32
        /// The value's size on this queue; nil for a property that cannot be read.
        let size: ((AudioQueue) -> Int)?
        /// Reads into `capacity` bytes.
        let get: ((AudioQueue, _ capacity: Int) throws(QueueError) -> Value)?
        /// Takes the program's value (nil: a NULL pointer). nil: read-only.
        let set: ((AudioQueue, UnsafeRawBufferPointer?) throws(QueueError) -> Void)?
    }

    // The IDs, as AudioQueue.h gives them (checked against the header by
    // AudioToolboxTests.PropertyIDTests).
    public static let isRunning: UInt32 = 0x6171_726E               // 'aqrn'
    public static let deviceSampleRate: UInt32 = 0x6171_7372        // 'aqsr'
    public static let deviceNumberChannels: UInt32 = 0x6171_6463    // 'aqdc'
    public static let currentDevice: UInt32 = 0x6171_6364           // 'aqcd'
    public static let magicCookie: UInt32 = 0x6171_6D63             // 'aqmc'
    public static let maximumOutputPacketSize: UInt32 = 0x786F_7073 // 'xops'
    public static let streamDescription: UInt32 = 0x6171_6674       // 'aqft'
    public static let channelLayout: UInt32 = 0x6171_636C           // 'aqcl'
    public static let enableLevelMetering: UInt32 = 0x6171_6D65     // 'aqme'
    public static let currentLevelMeter: UInt32 = 0x6171_6D76       // 'aqmv'
    public static let currentLevelMeterDB: UInt32 = 0x6171_6D64     // 'aqmd'
    public static let decodeBufferSizeFrames: UInt32 = 0x6463_6266  // 'dcbf'
    public static let converterError: UInt32 = 0x7163_7665          // 'qcve'
    public static let enableTimePitch: UInt32 = 0x715F_7470         // 'q_tp'
    public static let timePitchAlgorithm: UInt32 = 0x7174_7061      // 'qtpa'
    public static let timePitchBypass: UInt32 = 0x7174_7062         // 'qtpb'
    /// The phone's own (declared for TARGET_OS_IPHONE only).
    public static let hardwareCodecPolicy: UInt32 = 0x6171_6370     // 'aqcp'
    public static let channelAssignments: UInt32 = 0x6171_6361      // 'aqca': 16 bytes per channel

    static let rows: [Row] = [
        wordRow(isRunning) { $0.isRunning ? 1 : 0 },
        Row(id: deviceSampleRate, size: { _ in 8 },
            get: { q, capacity throws(QueueError) in .bytes(try fitted(float64(q.deviceSampleRate), capacity)) }, set: nil),
        wordRow(deviceNumberChannels) { $0.direction == .output ? 2 : 1 },
        // One device: the session's. NULL (the default) is what it already uses.
        Row(id: currentDevice, size: { _ in MemoryLayout<UInt>.size },
            get: { q, capacity throws(QueueError) in
                guard capacity >= MemoryLayout<UInt>.size else { throw .invalidPropertySize }
                return .deviceName(q.deviceName)
            },
            set: { _, bytes throws(QueueError) in
                guard let bytes, bytes.count >= MemoryLayout<UInt>.size else { throw .invalidPropertySize }
                guard bytes.loadUnaligned(as: UInt.self) == 0 else { throw .invalidDevice }
            }),
        Row(id: magicCookie, size: { $0.magicCookie.count },
            get: { q, capacity throws(QueueError) in .bytes(try fitted(q.magicCookie, capacity)) },
            set: { q, bytes throws(QueueError) in
                guard let bytes, bytes.count > 0 else { throw .parameter }
                try q.setMagicCookie(Array(bytes))
            }),
        wordRow(maximumOutputPacketSize) { UInt32($0.maximumPacketSize) },
        Row(id: streamDescription, size: { _ in 40 },
            get: { q, capacity throws(QueueError) in .bytes(try fitted(q.format.cBytes, capacity)) }, set: nil),
        // A layout tag and no descriptions: only the queue's channel count is taken.
        Row(id: channelLayout, size: { _ in 12 },
            get: { q, capacity throws(QueueError) in .bytes(try fitted(word(q.channelLayoutTag) + word(0) + word(0), capacity)) },
            set: { q, bytes throws(QueueError) in
                guard let bytes else { throw .parameter }
                guard bytes.count >= 12 else { throw .invalidPropertySize }
                let tag = bytes.loadUnaligned(as: UInt32.self)
                guard tag == 0 || tag & 0xFFFF == q.format.channelsPerFrame else { throw .invalidPropertyValue }
            }),
        wordRow(enableLevelMetering, { $0.metering ? 1 : 0 }) { q, value throws(QueueError) in q.setMetering(value != 0) },
        meter(currentLevelMeter, decibels: false),
        meter(currentLevelMeterDB, decibels: true),
        wordRow(decodeBufferSizeFrames, { $0.parameters.decodeBufferFrames }) { q, frames throws(QueueError) in
            guard frames > 0, frames <= 1 << 20 else { throw .invalidPropertyValue }
            q.setParameters { $0.decodeBufferFrames = frames }
        },
        wordRow(converterError) { UInt32(bitPattern: $0.parameters.converterError) },
        // Taken at the next Start; output queues only. The header allows it only while
        // the queue is stopped: a running (or paused) queue refuses it.
        wordRow(enableTimePitch, { $0.parameters.timePitchEnabled }) { q, enabled throws(QueueError) in
            guard q.direction == .output || enabled == 0 else { throw .invalidPropertyValue }
            guard !q.isRunning else { throw .invalidRunState }
            q.setParameters { $0.timePitchEnabled = enabled != 0 ? 1 : 0 }
        },
        wordRow(timePitchAlgorithm, { $0.parameters.timePitchAlgorithm }) { q, algorithm throws(QueueError) in
            guard QueueParameters.algorithms.contains(algorithm) else { throw .invalidPropertyValue }
            q.setParameters { $0.timePitchAlgorithm = algorithm }
        },
        wordRow(timePitchBypass, { $0.parameters.timePitchBypass }) { q, bypass throws(QueueError) in
            q.setParameters { $0.timePitchBypass = bypass != 0 ? 1 : 0 }
        },
        wordRow(hardwareCodecPolicy, { $0.parameters.codecPolicy }) { q, policy throws(QueueError) in
            guard policy <= 4 else { throw .invalidPropertyValue }
            q.setParameters { $0.codecPolicy = policy }
        },
        // Set only: one assignment per channel, all to the session's device.
        Row(id: channelAssignments, size: nil, get: nil, set: { q, bytes throws(QueueError) in
            guard let bytes else { throw .parameter }
            guard bytes.count == Int(q.format.channelsPerFrame) * 16 else { throw .invalidPropertySize }
        }),
    ]

    static func row(_ id: UInt32) -> Row? { rows.first { $0.id == id } }

    /// Every ID the table has a row for.
    public static var ids: Set<UInt32> { Set(rows.map(\.id)) }

    /// The size of property `id` on `q` (AudioQueueGetPropertySize); nil when the queue
    /// has no property it can read by that ID (listeners are refused for it too).
    public static func size(_ q: AudioQueue, _ id: UInt32) -> Int? { row(id)?.size?(q) }

    /// Property `id`'s value read into `capacity` bytes.
    public static func value(_ q: AudioQueue, _ id: UInt32, capacity: Int) throws(QueueError) -> Value {
        guard let get = row(id)?.get else { throw .invalidProperty }
        return try get(q, capacity)
    }

    /// Takes a value of property `id` (nil: the program passed NULL); a read-only
    /// property's value is refused as a wrong value, as the phone does.
    public static func set(_ q: AudioQueue, _ id: UInt32, _ bytes: UnsafeRawBufferPointer?) throws(QueueError) {
        guard let row = row(id) else { throw .invalidProperty }
        guard let set = row.set else { throw .invalidPropertyValue }
        try set(q, bytes)
    }

    // MARK: row makers

    /// A UInt32 property, read-only or taken by `take`.
    static func wordRow(_ id: UInt32, _ read: @escaping (AudioQueue) -> UInt32,
                     _ take: ((AudioQueue, UInt32) throws(QueueError) -> Void)? = nil) -> Row {
        var set: ((AudioQueue, UnsafeRawBufferPointer?) throws(QueueError) -> Void)?
        if let take {
            set = { q, bytes throws(QueueError) in
                guard let bytes else { throw .parameter }
                guard bytes.count >= 4 else { throw .invalidPropertySize }
                try take(q, bytes.loadUnaligned(as: UInt32.self))
            }
        }
        return Row(id: id, size: { _ in 4 },
                   get: { q, capacity throws(QueueError) in .bytes(try fitted(word(read(q)), capacity)) }, set: set)
    }

    /// The level meters: an AudioQueueLevelMeterState (average, peak: two Float32) per
    /// channel, as many as the program's buffer holds.
    static func meter(_ id: UInt32, decibels: Bool) -> Row {
        Row(id: id, size: { Int($0.format.channelsPerFrame) * 8 },
            get: { q, capacity throws(QueueError) in
                let levels = try q.levels()
                let count = min(levels.count, capacity / 8)
                guard count > 0 else { throw .invalidPropertySize }
                return .bytes(levels.prefix(count).flatMap { level -> [UInt8] in
                    let (average, peak) = decibels ? (toDecibels(level.0), toDecibels(level.1)) : level
                    return float32(average) + float32(peak)
                })
            }, set: nil)
    }

    // MARK: parameters (AudioQueueGetParameter, AudioQueueSetParameter)

    public static let volume: UInt32 = 1, playRate: UInt32 = 2, pitch: UInt32 = 3, volumeRampTime: UInt32 = 4, pan: UInt32 = 13

    public static func parameter(_ q: AudioQueue, _ id: UInt32) throws(QueueError) -> Float {
        switch id {
        case volume: q.volume
        case pan: q.pan
        case volumeRampTime: q.volumeRampTime
        case playRate: q.parameters.playRate
        case pitch: q.parameters.pitch
        default: throw .invalidParameter
        }
    }

    public static func setParameter(_ q: AudioQueue, _ id: UInt32, _ value: Float) throws(QueueError) {
        switch id {
        case volume: try q.setVolume(value)
        case pan: try q.setPan(value)
        case volumeRampTime: try q.setVolumeRampTime(value)
        case playRate:
            guard value.isFinite, value >= 0.5, value <= 2 else { throw .invalidParameter }
            q.setParameters { $0.playRate = value }
        case pitch:
            guard value.isFinite, value >= -2400, value <= 2400 else { throw .invalidParameter }
            q.setParameters { $0.pitch = value }
        default: throw .invalidParameter
        }
    }

    /// One parameter event of AudioQueueEnqueueBufferWithParameters: the volume holds for
    /// that buffer alone; the queue's other parameters are taken and change nothing per
    /// buffer; any other ID is refused.
    public static func takeEvent(_ id: UInt32, _ value: Float, into options: inout EnqueueOptions) throws(QueueError) {
        switch id {
        case volume: options.volume = value
        case playRate, pitch, volumeRampTime, pan: break
        default: throw .invalidParameter
        }
    }

    // MARK: values as bytes

    /// `bytes`, if the program's buffer holds them.
    static func fitted(_ bytes: [UInt8], _ capacity: Int) throws(QueueError) -> [UInt8] {
        guard capacity >= bytes.count else { throw .invalidPropertySize }
        return bytes
    }

    static func word(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }
    static func float32(_ value: Float) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }
    static func float64(_ value: Double) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }

    public static func toDecibels(_ linear: Float) -> Float { linear > 1e-6 ? 20 * log10f(linear) : -120 }
}
