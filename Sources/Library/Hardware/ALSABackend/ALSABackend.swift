import AudioSessionCore
import CALSA
import CDescriptors
import Glibc
import Locking

/// The session's hardware on a real (or virtual-plugin) ALSA card.
///
/// Facts come from the card's controls and are refreshed by one event thread that polls
/// the control device; it reports `HardwareEvent`s to the session and never calls user
/// code (the session queues callbacks for the program's run loop). Activation only
/// negotiates: no PCM stays open (see `PCMNegotiation`).
public final class ALSABackend: HardwareBackend, @unchecked Sendable {
    public let names: ALSADeviceNames
    /// The control handles, used by the event thread and by gain changes: alsa-lib
    /// handles are not thread-safe, so every use holds this lock.
    private let controls: Locked<Controls>

    private struct Controls {
        /// The session's control device; nil while its card is unplugged.
        var primary: ALSAControl?
        /// Further devices whose jack controls count (see `ALSADeviceNames.jackControls`).
        var jackSources: [ALSAControl]

        func map() -> ControlMap? { primary.map { ControlMap(control: $0, jackSources: jackSources) } }
    }

    private struct State {
        var map: ControlMap
        var lastSampleRate = PCMNegotiation.defaultSampleRate
        var handler: (@Sendable (HardwareEvent) -> Void)?
        var eventThread: pthread_t?
    }
    private let state: Locked<State>
    private let wakeRead: Int32
    private let wakeWrite: Int32
    /// An inotify watch on /dev/snd (-1 without one): a card's control device appearing
    /// or disappearing there means a card was plugged in or pulled out.
    private let cardWatch: Int32

    /// Opens the control device of `names`; nil when there is no such card.
    public init?(names: ALSADeviceNames) {
        guard let control = ALSAControl(name: names.control) else { return nil }
        self.names = names
        control.subscribe()
        let jackSources = Self.jackSourceNames(names).compactMap { ALSAControl(name: $0) }
        for source in jackSources { source.subscribe() }
        let controls = Controls(primary: control, jackSources: jackSources)
        state = Locked(State(map: controls.map()!))
        self.controls = Locked(controls)
        var ends: [Int32] = [-1, -1]
        // Close-on-exec: a program that execs must not hand its children our pipe.
        guard DescriptorsPipe(&ends) == 0 else { return nil }
        wakeRead = ends[0]
        wakeWrite = ends[1]
        cardWatch = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        if cardWatch >= 0 { _ = inotify_add_watch(cardWatch, "/dev/snd", UInt32(IN_CREATE | IN_DELETE)) }
    }

    /// The configured jack devices, or every hardware card that is not the session's own
    /// control device.
    static func jackSourceNames(_ names: ALSADeviceNames) -> [String] {
        var candidates = names.jackControls ?? []
        if names.jackControls == nil {
            var card: Int32 = -1
            while snd_card_next(&card) >= 0, card >= 0 { candidates.append("hw:\(card)") }
        }
        return candidates.filter { $0 != names.control }
    }

    deinit {
        shutDown()
        close(wakeRead)
        close(wakeWrite)
        if cardWatch >= 0 { close(cardWatch) }
    }

    // MARK: HardwareBackend

    public func facts() -> HardwareFacts { state.withLock { $0.map.facts } }

    /// The PCM the session's streams use: the services' audio goes there too.
    public var outputDevice: AudioOutputDevice { .alsa(names.pcm) }

    /// Negotiates what `request` needs and keeps nothing open. Takes no lock while it
    /// talks to the device: the PCM is opened non-blocking and closed at once.
    public func activate(_ request: StreamRequest) throws(ResultCode) -> StreamFormat {
        var output: PCMNegotiation?
        var input: PCMNegotiation?
        if request.output {
            output = try PCMNegotiation(name: names.pcm, stream: SND_PCM_STREAM_PLAYBACK,
                                        preferredRate: request.preferredSampleRate,
                                        preferredDuration: request.preferredIOBufferDuration)
        }
        if request.input {
            input = try PCMNegotiation(name: names.pcm, stream: SND_PCM_STREAM_CAPTURE,
                                       preferredRate: output?.sampleRate ?? request.preferredSampleRate,
                                       preferredDuration: request.preferredIOBufferDuration)
        }
        guard let main = output ?? input else { return idleFormat(request) }
        state.withLock { $0.lastSampleRate = main.sampleRate }
        return StreamFormat(sampleRate: main.sampleRate, ioBufferDuration: main.periodDuration,
                            inputLatency: input?.periodDuration ?? 0, outputLatency: output?.bufferDuration ?? 0)
    }

    public func idleFormat(_ request: StreamRequest) -> StreamFormat {
        idleFormat(request, rate: state.withLock { $0.lastSampleRate })
    }

    private func idleFormat(_ request: StreamRequest, rate: Double) -> StreamFormat {
        let period = Float(Double(PCMNegotiation.defaultPeriodFrames) / rate)
        return StreamFormat(sampleRate: rate, ioBufferDuration: period, inputLatency: request.input ? period : 0,
                            outputLatency: request.output ? 2 * period : 0)
    }

    /// Nothing to release: activation keeps nothing open.
    public func deactivate() {}

    public func setInputGain(_ gain: Float) {
        let current = state.withLock { $0.map }
        let map = controls.withLock { controls -> ControlMap in
            guard let control = controls.primary, let element = current.captureVolume,
                  let scale = current.captureScale else { return current }
            ControlMap.setVolume(gain, of: element, scale: scale, control: control)
            return current.updated(changed: [element.name], control: control, jackSources: controls.jackSources)
        }
        state.withLock { $0.map = map }
    }

    /// Points the card's capture source at the route's input, where the card has one.
    public func useInput(_ port: Port?) {
        let current = state.withLock { $0.map }
        guard let port, let element = current.captureSource, let item = current.captureSourceItems[port] else { return }
        controls.withLock { controls in _ = controls.primary?.write(element, enumerated: item) }
    }

    public func start(reportingTo handler: @escaping @Sendable (HardwareEvent) -> Void) {
        state.withLock { s in
            guard s.eventThread == nil else { return }
            s.handler = handler
            var thread = pthread_t()
            let context = Unmanaged.passUnretained(self).toOpaque()
            // The thread uses the backend unretained: `shutDown` (from `deinit` at the
            // latest) joins it before the backend goes away.
            guard pthread_create(&thread, nil, { context in
                Unmanaged<ALSABackend>.fromOpaque(context!).takeUnretainedValue().runEventLoop()
                return nil
            }, context) == 0 else { return }
            s.eventThread = thread
        }
    }

    /// Wakes the event thread, waits for it to finish the event it may be reporting, and
    /// reports nothing more.
    public func shutDown() {
        guard let thread = state.withLock({ s -> pthread_t? in
            defer { s.eventThread = nil }
            return s.eventThread
        }) else { return }
        var byte: UInt8 = 0
        _ = write(wakeWrite, &byte, 1)
        if pthread_equal(thread, pthread_self()) == 0 { pthread_join(thread, nil) }
        state.withLock { $0.handler = nil }
    }

    // MARK: Events

    /// How often a card that went away is looked for again, in milliseconds.
    static let reopenInterval: Int32 = 500

    /// Polls the control devices until woken through the pipe; each batch of control
    /// events becomes an updated `ControlMap` and the `HardwareEvent`s that differ. A card
    /// that goes away (hot-unplug) loses its ports; the session's card is reopened when
    /// it returns, a vanished jack source is dropped.
    private func runEventLoop() {
        while true {
            let (sources, hasPrimary) = controls.withLock { c in
                (([c.primary].compactMap { $0 } + c.jackSources).map(\.pollDescriptors), c.primary != nil)
            }
            if !hasPrimary {
                if waitForWake(timeout: Self.reopenInterval) { return }
                reopen()
                continue
            }
            var descriptors = sources.flatMap { $0 } + [pollfd(fd: cardWatch, events: Int16(POLLIN), revents: 0),
                                                         pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            guard poll(&descriptors, nfds_t(descriptors.count), -1) >= 0 else {
                if errno == EINTR { continue }
                return
            }
            if descriptors.last!.revents != 0 { return }
            if descriptors[descriptors.count - 2].revents != 0 {
                cardsChanged()
                continue
            }
            var signalled: [Bool] = []
            var offset = 0
            for source in sources {
                let slice = descriptors[offset..<offset + source.count]
                signalled.append(slice.contains { $0.revents != 0 })
                offset += source.count
            }
            let current = state.withLock { $0.map }
            let map = controls.withLock { c in Self.refresh(&c, signalled: signalled, current: current) }
            publish(map)
        }
    }

    /// Reads the events of the signalled devices (index 0: the primary, then the jack
    /// sources) and returns the map they lead to.
    private static func refresh(_ c: inout Controls, signalled: [Bool], current: ControlMap) -> ControlMap {
        guard let primary = c.primary else { return current.removed() }
        var primaryChanges: Set<String> = []
        var rescan = false
        if signalled[0] {
            guard let changed = primary.readChangedElements() else {
                c.primary = nil
                return current.removed()
            }
            primaryChanges = changed
        }
        var kept: [ALSAControl] = []
        for (index, source) in c.jackSources.enumerated() {
            guard signalled[index + 1] else {
                kept.append(source)
                continue
            }
            rescan = true
            if source.readChangedElements() != nil { kept.append(source) }
        }
        c.jackSources = kept
        if rescan { return ControlMap(control: primary, jackSources: kept) }
        return current.updated(changed: primaryChanges, control: primary, jackSources: kept)
    }

    /// A card came or went: when the jack devices are "every hardware card", open the
    /// new cards' control devices too (vanished ones report ENODEV and are dropped).
    private func cardsChanged() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while read(cardWatch, &buffer, buffer.count) > 0 {}
        guard names.jackControls == nil else { return }
        let present = Set(controls.withLock { $0.jackSources.map(\.name) })
        let added = Self.jackSourceNames(names).filter { !present.contains($0) }.compactMap { ALSAControl(name: $0) }
        guard !added.isEmpty else { return }
        for source in added { source.subscribe() }
        guard let map = controls.withLock({ c -> ControlMap? in
            c.jackSources += added
            return c.map()
        }) else { return }
        publish(map)
    }

    /// Opens the session's card again if it is back, and reports its ports.
    private func reopen() {
        guard let reopened = ALSAControl(name: names.control) else { return }
        reopened.subscribe()
        let map = controls.withLock { c -> ControlMap in
            c.primary = reopened
            return c.map()!
        }
        publish(map)
    }

    /// True when woken through the pipe (shutting down); false after `timeout` ms.
    private func waitForWake(timeout: Int32) -> Bool {
        var descriptor = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, timeout) > 0
    }

    /// Installs `map` and reports how its facts differ from the previous ones.
    private func publish(_ map: ControlMap) {
        let (previous, handler) = state.withLock { s -> (HardwareFacts, (@Sendable (HardwareEvent) -> Void)?) in
            defer { s.map = map }
            return (s.map.facts, s.handler)
        }
        guard let handler else { return }
        for event in Self.events(from: previous, to: map.facts) { handler(event) }
    }

    static func events(from old: HardwareFacts, to new: HardwareFacts) -> [HardwareEvent] {
        var events: [HardwareEvent] = []
        let removed = old.connectedPorts.subtracting(new.connectedPorts)
        let added = new.connectedPorts.subtracting(old.connectedPorts)
        if !removed.isEmpty { events.append(.portsDisconnected(removed)) }
        if !added.isEmpty { events.append(.portsConnected(added)) }
        if old.outputVolume != new.outputVolume { events.append(.outputVolumeChanged(new.outputVolume)) }
        if old.inputGain != new.inputGain { events.append(.inputGainChanged(new.inputGain)) }
        if old.inputGainSettable != new.inputGainSettable {
            events.append(.inputGainSettableChanged(new.inputGainSettable))
        }
        return events
    }
}
