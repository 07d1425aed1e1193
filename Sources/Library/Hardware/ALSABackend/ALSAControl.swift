import AudioStreams
import CALSA
import Glibc

/// One ALSA control device (`snd_ctl_t`): element listing, values, dB ranges, events.
/// Not thread-safe, like the handle it wraps: the backend serialises its use.
final class ALSAControl {
    struct Element: Hashable {
        let name: String
        let interface: snd_ctl_elem_iface_t
        /// The element's number on this card. Used with the name: some calls (TLV reads
        /// behind the dB functions) reach a plugin with the number alone.
        let numid: UInt32
    }

    private let handle: OpaquePointer
    /// The device name it was opened with ("hw:1", "default", ...).
    let name: String

    /// Whether the configuration alsa-lib holds was read whole: a read cut short (no
    /// descriptor, no memory) lacks even alsa.conf's `defaults`.
    private static var configurationIsWhole: Bool {
        var node: OpaquePointer?
        guard let top = snd_config else { return false }
        return snd_config_search(top, "defaults", &node) == 0
    }

    /// Opens the control device `name`, or returns nil (no such card).
    init?(name: String) {
        self.name = name
        var handle: OpaquePointer?
        var opened = withQuietALSA { snd_ctl_open(&handle, name, Int32(SND_CTL_NONBLOCK)) }
        if opened < 0 && !Self.configurationIsWhole {
            // alsa-lib keeps the configuration it read first for the whole process: one
            // read while descriptors or memory ran out stays broken, and every later open
            // fails though the card is there. Read it again, once. Only then: a card that
            // is simply not there (the usual answer on a machine without one; alsa-lib
            // gives the same code) must not make a session's start read it all twice.
            snd_config_update_free_global()
            opened = withQuietALSA { snd_ctl_open(&handle, name, Int32(SND_CTL_NONBLOCK)) }
        }
        guard opened >= 0, let handle else { return nil }
        self.handle = handle
    }

    deinit { snd_ctl_close(handle) }

    /// The card's driver name ("HDA-Intel", "USB-Audio", "vcard", ...).
    var driver: String {
        var info: OpaquePointer?
        guard snd_ctl_card_info_malloc(&info) >= 0, let info else { return "" }
        defer { snd_ctl_card_info_free(info) }
        guard snd_ctl_card_info(handle, info) >= 0 else { return "" }
        return String(cString: snd_ctl_card_info_get_driver(info))
    }

    var elements: [Element] {
        var list: OpaquePointer?
        guard snd_ctl_elem_list_malloc(&list) >= 0, let list else { return [] }
        defer { snd_ctl_elem_list_free(list) }
        guard snd_ctl_elem_list(handle, list) >= 0 else { return [] }
        let count = snd_ctl_elem_list_get_count(list)
        guard snd_ctl_elem_list_alloc_space(list, count) >= 0 else { return [] }
        defer { snd_ctl_elem_list_free_space(list) }
        guard snd_ctl_elem_list(handle, list) >= 0 else { return [] }
        return (0..<snd_ctl_elem_list_get_used(list)).map { index in
            Element(name: String(cString: snd_ctl_elem_list_get_name(list, index)),
                    interface: snd_ctl_elem_list_get_interface(list, index),
                    numid: snd_ctl_elem_list_get_numid(list, index))
        }
    }

    private func withID<T>(_ element: Element, _ body: (OpaquePointer) -> T?) -> T? {
        var id: OpaquePointer?
        guard snd_ctl_elem_id_malloc(&id) >= 0, let id else { return nil }
        defer { snd_ctl_elem_id_free(id) }
        snd_ctl_elem_id_set_interface(id, element.interface)
        snd_ctl_elem_id_set_name(id, element.name)
        snd_ctl_elem_id_set_numid(id, element.numid)
        return body(id)
    }

    private func withValue<T>(_ element: Element, _ body: (OpaquePointer) -> T?) -> T? {
        var value: OpaquePointer?
        guard snd_ctl_elem_value_malloc(&value) >= 0, let value else { return nil }
        defer { snd_ctl_elem_value_free(value) }
        snd_ctl_elem_value_set_interface(value, element.interface)
        snd_ctl_elem_value_set_name(value, element.name)
        return body(value)
    }

    func integer(_ element: Element) -> Int? {
        withValue(element) { value in
            snd_ctl_elem_read(handle, value) >= 0 ? Int(snd_ctl_elem_value_get_integer(value, 0)) : nil
        }
    }

    func boolean(_ element: Element) -> Bool? {
        withValue(element) { value in
            snd_ctl_elem_read(handle, value) >= 0 ? snd_ctl_elem_value_get_boolean(value, 0) != 0 : nil
        }
    }

    /// The item names of an enumerated control.
    func enumeratedItems(_ element: Element) -> [String] {
        var info: OpaquePointer?
        guard snd_ctl_elem_info_malloc(&info) >= 0, let info else { return [] }
        defer { snd_ctl_elem_info_free(info) }
        snd_ctl_elem_info_set_interface(info, element.interface)
        snd_ctl_elem_info_set_name(info, element.name)
        guard snd_ctl_elem_info(handle, info) >= 0 else { return [] }
        return (0..<snd_ctl_elem_info_get_items(info)).compactMap { item in
            snd_ctl_elem_info_set_item(info, item)
            guard snd_ctl_elem_info(handle, info) >= 0 else { return nil }
            return String(cString: snd_ctl_elem_info_get_item_name(info))
        }
    }

    @discardableResult
    func write(_ element: Element, enumerated item: Int) -> Bool {
        withValue(element) { value in
            snd_ctl_elem_value_set_enumerated(value, 0, UInt32(item))
            return snd_ctl_elem_write(handle, value) >= 0
        } ?? false
    }

    @discardableResult
    func write(_ element: Element, integer: Int) -> Bool {
        withValue(element) { value in
            snd_ctl_elem_value_set_integer(value, 0, integer)
            return snd_ctl_elem_write(handle, value) >= 0
        } ?? false
    }

    func integerRange(_ element: Element) -> ClosedRange<Int>? {
        var info: OpaquePointer?
        guard snd_ctl_elem_info_malloc(&info) >= 0, let info else { return nil }
        defer { snd_ctl_elem_info_free(info) }
        snd_ctl_elem_info_set_interface(info, element.interface)
        snd_ctl_elem_info_set_name(info, element.name)
        guard snd_ctl_elem_info(handle, info) >= 0 else { return nil }
        let low = Int(snd_ctl_elem_info_get_min(info)), high = Int(snd_ctl_elem_info_get_max(info))
        return low <= high ? low...high : nil
    }

    /// How an integer control's raw values map to dB: read once per control, since a
    /// volume change then needs only the raw value.
    struct Scale {
        let range: ClosedRange<Int>
        /// The control's TLV dB description, if it publishes one.
        var tlv: [UInt32]?

        /// The raw value in hundredths of a dB, or nil without a dB description.
        func decibels(_ raw: Int) -> Int? {
            guard var tlv else { return nil }
            var gain = 0
            return snd_tlv_convert_to_dB(&tlv, range.lowerBound, range.upperBound, raw, &gain) >= 0 ? gain : nil
        }

        var decibelRange: ClosedRange<Int>? {
            guard var tlv else { return nil }
            var low = 0, high = 0
            guard snd_tlv_get_dB_range(&tlv, range.lowerBound, range.upperBound, &low, &high) >= 0, low < high
            else { return nil }
            return low...high
        }

        func raw(decibels: Int) -> Int? {
            guard var tlv else { return nil }
            var value = 0
            return snd_tlv_convert_from_dB(&tlv, range.lowerBound, range.upperBound, decibels, &value, 0) >= 0
                ? value : nil
        }
    }

    func scale(_ element: Element) -> Scale? {
        guard let range = integerRange(element) else { return nil }
        let tlv: [UInt32]? = withID(element) { id in
            var buffer = [UInt32](repeating: 0, count: 64)
            guard snd_ctl_elem_tlv_read(handle, id, &buffer, UInt32(buffer.count * 4)) >= 0 else { return nil }
            return buffer
        }
        return Scale(range: range, tlv: tlv)
    }

    // MARK: Events

    func subscribe() { snd_ctl_subscribe_events(handle, 1) }

    var pollDescriptors: [pollfd] {
        let count = snd_ctl_poll_descriptors_count(handle)
        guard count > 0 else { return [] }
        var descriptors = [pollfd](repeating: pollfd(), count: Int(count))
        let filled = snd_ctl_poll_descriptors(handle, &descriptors, UInt32(count))
        return Array(descriptors.prefix(Int(max(filled, 0))))
    }

    /// Reads every pending event; returns the names of the elements that changed, or nil
    /// when the card has gone away.
    func readChangedElements() -> Set<String>? {
        var event: OpaquePointer?
        guard snd_ctl_event_malloc(&event) >= 0, let event else { return [] }
        defer { snd_ctl_event_free(event) }
        var names: Set<String> = []
        while true {
            let result = snd_ctl_read(handle, event)
            if result == -ENODEV { return nil }
            guard result > 0 else { return names }
            if snd_ctl_event_get_type(event) == SND_CTL_EVENT_ELEM {
                names.insert(String(cString: snd_ctl_event_elem_get_name(event)))
            }
        }
    }
}

