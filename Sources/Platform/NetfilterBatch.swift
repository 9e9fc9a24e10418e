/// The address family of an nftables table: the `nfgen_family` of every
/// message about it (linux/netfilter.h, enum NFPROTO_*).
public struct NetfilterFamily: Equatable, Sendable {
  public var rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  public static let inet = NetfilterFamily(rawValue: 1)  // NFPROTO_INET
  public static let ip = NetfilterFamily(rawValue: 2)  // NFPROTO_IPV4
  public static let netdev = NetfilterFamily(rawValue: 5)  // NFPROTO_NETDEV
  public static let bridge = NetfilterFamily(rawValue: 7)  // NFPROTO_BRIDGE
  public static let ip6 = NetfilterFamily(rawValue: 10)  // NFPROTO_IPV6

  /// The family as `nft` spells it: `inet`, `ip`, `ip6`, `bridge` or
  /// `netdev` (each can hold a set of addresses); nil for anything else.
  public init?(name: [UInt8]) {
    let known: [(StaticString, NetfilterFamily)] = [
      ("inet", .inet), ("ip", .ip), ("ip6", .ip6), ("bridge", .bridge), ("netdev", .netdev),
    ]
    for (text, family) in known where Self.equal(name, text) {
      self = family
      return
    }
    return nil
  }

  static func equal(_ bytes: [UInt8], _ text: StaticString) -> Bool {
    guard bytes.count == text.utf8CodeUnitCount else { return false }
    for index in 0..<bytes.count where bytes[index] != text.utf8Start[index] { return false }
    return true
  }
}

/// Netlink and nfnetlink constants, from the Linux UAPI headers named
/// beside each (Sources/README.md, Conventions 2). Netlink headers and
/// attribute headers are in host byte order; nfgenmsg's `res_id`, the
/// element timeout and the addresses are big-endian.
enum Netlink {
  // linux/netlink.h
  static let messageHeaderBytes = 16  // struct nlmsghdr
  static let attributeHeaderBytes = 4  // struct nlattr
  static let alignment = 4  // NLMSG_ALIGNTO, NLA_ALIGNTO
  static let request: UInt16 = 0x1  // NLM_F_REQUEST
  static let acknowledge: UInt16 = 0x4  // NLM_F_ACK
  static let create: UInt16 = 0x400  // NLM_F_CREATE (no NLM_F_EXCL: an existing element is fine)
  static let nested: UInt16 = 0x8000  // NLA_F_NESTED
  static let error: UInt16 = 2  // NLMSG_ERROR
  static let errorHeaderBytes = 4  // struct nlmsgerr: int error, then the request's nlmsghdr
  // linux/netfilter/nfnetlink.h
  static let nfgenBytes = 4  // struct nfgenmsg: family, version, res_id
  static let version0: UInt8 = 0  // NFNETLINK_V0
  static let subsystemNFTables: UInt16 = 10  // NFNL_SUBSYS_NFTABLES
  static let batchBegin: UInt16 = 0x10  // NFNL_MSG_BATCH_BEGIN = NLMSG_MIN_TYPE
  static let batchEnd: UInt16 = 0x11  // NFNL_MSG_BATCH_END
  // linux/netfilter/nf_tables.h
  static let newSetElement: UInt16 = 12  // NFT_MSG_NEWSETELEM, in the subsystem's low byte
  static let listTable: UInt16 = 1  // NFTA_SET_ELEM_LIST_TABLE (string)
  static let listSet: UInt16 = 2  // NFTA_SET_ELEM_LIST_SET (string)
  static let listElements: UInt16 = 3  // NFTA_SET_ELEM_LIST_ELEMENTS (nested)
  static let listElement: UInt16 = 1  // NFTA_LIST_ELEM (nested)
  static let elementKey: UInt16 = 1  // NFTA_SET_ELEM_KEY (nested nft_data)
  static let elementTimeout: UInt16 = 4  // NFTA_SET_ELEM_TIMEOUT (u64, ms, big-endian)
  static let dataValue: UInt16 = 1  // NFTA_DATA_VALUE (binary)
  static let maximumNameBytes = 255  // NFT_NAME_MAXLEN (256) with its NUL
  static let newSet: UInt16 = 9  // NFT_MSG_NEWSET (the answer to GETSET)
  static let getSet: UInt16 = 10  // NFT_MSG_GETSET
  static let setTable: UInt16 = 1  // NFTA_SET_TABLE (string)
  static let setName: UInt16 = 2  // NFTA_SET_NAME (string)
  static let setFlags: UInt16 = 3  // NFTA_SET_FLAGS (u32, big-endian)
  static let setKeyLength: UInt16 = 5  // NFTA_SET_KEY_LEN (u32, big-endian)
  static let attributeTypeMask: UInt16 = 0x3FFF  // NLA_TYPE_MASK
  // enum nft_set_flags
  static let setTimeout: UInt32 = 0x10  // NFT_SET_TIMEOUT
  /// NFT_SET_CONSTANT 0x2, NFT_SET_INTERVAL 0x4, NFT_SET_MAP 0x8,
  /// NFT_SET_OBJECT 0x40, NFT_SET_CONCAT 0x80: sets a lone address cannot
  /// be added to as it should (an interval set reads it as an interval
  /// open to the end of the address space; the others refuse it).
  static let setUnsupported: UInt32 = 0x2 | 0x4 | 0x8 | 0x40 | 0x80

  static func aligned(_ length: Int) -> Int { (length + alignment - 1) & ~(alignment - 1) }
}

/// The nftables batches of an nftset writer, in one buffer allocated at
/// start-up: each set owns a region of `bytesPerSet` bytes holding one
/// complete batch for that set alone —
///
/// ```
/// NFNL_MSG_BATCH_BEGIN                 nlmsghdr + nfgenmsg(AF_UNSPEC, res_id = htons(10))
/// NFT_MSG_NEWSETELEM                   nlmsghdr(REQUEST|CREATE|ACK) + nfgenmsg(table family)
///   NFTA_SET_ELEM_LIST_TABLE  "table\0"
///   NFTA_SET_ELEM_LIST_SET    "set\0"
///   NFTA_SET_ELEM_LIST_ELEMENTS (nested)
///     NFTA_LIST_ELEM (nested)             one per address
///       [NFTA_SET_ELEM_TIMEOUT  u64 ms, big-endian]
///       NFTA_SET_ELEM_KEY (nested) > NFTA_DATA_VALUE  4 or 16 address bytes
/// NFNL_MSG_BATCH_END
/// ```
///
/// Invariants: everything up to the elements is written once, when the set
/// is added; an address only appends its element; `seal` writes the
/// lengths, the sequence number and the end message, and `reset` empties
/// the list. Every attribute is padded to 4 bytes (NLA_ALIGN), so every
/// offset in a region is a multiple of 4. A region is at most 65,536 bytes,
/// because the list's `nla_len` is 16 bits. A batch carries one set because
/// the kernel applies a batch as one transaction: one refused set (unknown,
/// full, wrong type) would otherwise undo every other set's elements.
public final class NetfilterBatches {
  /// The most bytes a set's region may have: the elements list's nla_len
  /// is a UInt16, and a batch must stay below the socket's send buffer.
  public static let maximumBytesPerSet = 65_536
  static let endBytes = Netlink.messageHeaderBytes + Netlink.nfgenBytes

  struct SetState {
    var family: NetfilterFamily
    var keyLength: Int
    var timeouts: Bool
    /// Where, in the region, the elements list attribute starts and ends.
    var listOffset: Int
    var end: Int
    var elements: Int
    var tableOffset: Int
    var tableLength: Int
    var setOffset: Int
    var setLength: Int
  }

  public let capacity: Int
  public let bytesPerSet: Int
  public private(set) var count = 0
  let buffer: UnsafeMutableRawBufferPointer
  var sets: UnsafeMutableBufferPointer<SetState>

  /// Room for `capacity` sets of `bytesPerSet` bytes each (rounded to a
  /// multiple of 4, at most `maximumBytesPerSet`).
  public init(capacity: Int, bytesPerSet: Int) {
    precondition(capacity > 0 && capacity <= 0x7FFF, "1 to 32,767 sets: 15 bits of a sequence")
    self.capacity = capacity
    self.bytesPerSet = min(Netlink.aligned(max(bytesPerSet, 1024)), Self.maximumBytesPerSet)
    // Not cleared: every byte sent is written first, and a region's pages
    // are touched only as far as its batches grow.
    buffer = .allocate(byteCount: capacity * self.bytesPerSet, alignment: 8)
    sets = .allocate(capacity: capacity)
  }

  deinit {
    buffer.deallocate()
    sets.deallocate()
  }

  func region(_ set: Int) -> UnsafeMutableRawPointer { buffer.baseAddress! + set * bytesPerSet }

  /// Adds a set: `table` and `set` are names of 1 to 255 bytes without NUL;
  /// `keyLength` 4 (`type ipv4_addr`) or 16 (`type ipv6_addr`); `timeouts`
  /// when the set has `flags timeout` (the kernel refuses a timeout for a
  /// set without it, EINVAL). Returns the set's index, or nil when the
  /// names are not valid, the key length is neither, or the writer is full.
  public func addSet(
    family: NetfilterFamily, table: [UInt8], set: [UInt8], keyLength: Int, timeouts: Bool
  ) -> Int? {
    func valid(_ name: [UInt8]) -> Bool {
      !name.isEmpty && name.count <= Netlink.maximumNameBytes && !name.contains(0)
    }
    guard count < capacity, valid(table), valid(set), keyLength == 4 || keyLength == 16 else {
      return nil
    }
    let header = 2 * Self.endBytes + 3 * Netlink.attributeHeaderBytes
    let names = Netlink.aligned(table.count + 1) + Netlink.aligned(set.count + 1)
    // The header, one element with a timeout, and the end message must fit.
    guard header + names + Self.elementBytes(keyLength, timeouts) + Self.endBytes <= bytesPerSet
    else { return nil }
    let index = count
    let base = region(index)
    Self.writeMessageHeader(base, type: Netlink.batchBegin, flags: Netlink.request)
    Self.writeNfgen(base + 16, family: 0, resourceID: Netlink.subsystemNFTables)
    var offset = Self.endBytes
    let newType = Netlink.subsystemNFTables << 8 | Netlink.newSetElement
    Self.writeMessageHeader(
      base + offset, type: newType, flags: Netlink.request | Netlink.create | Netlink.acknowledge)
    Self.writeNfgen(base + offset + 16, family: family.rawValue, resourceID: 0)
    offset += Self.endBytes
    let tableOffset = offset + Netlink.attributeHeaderBytes
    offset = table.withUnsafeBytes {
      Self.writeString(base, at: offset, type: Netlink.listTable, $0)
    }
    let setOffset = offset + Netlink.attributeHeaderBytes
    offset = set.withUnsafeBytes { Self.writeString(base, at: offset, type: Netlink.listSet, $0) }
    sets.baseAddress!.advanced(by: index).initialize(
      to: SetState(
        family: family, keyLength: keyLength, timeouts: timeouts, listOffset: offset,
        end: offset + Netlink.attributeHeaderBytes, elements: 0, tableOffset: tableOffset,
        tableLength: table.count, setOffset: setOffset, setLength: set.count))
    Self.writeAttributeHeader(base + offset, length: 0, type: Netlink.listElements | Netlink.nested)
    count += 1
    return index
  }

  /// The bytes one element takes: its nest, the timeout, the key nest and
  /// the value.
  static func elementBytes(_ keyLength: Int, _ timeout: Bool) -> Int {
    3 * Netlink.attributeHeaderBytes + keyLength + (timeout ? 12 : 0)
  }

  public func keyLength(of set: Int) -> Int { sets[set].keyLength }
  public func elements(in set: Int) -> Int { sets[set].elements }

  /// The table and set names, for log lines.
  public func tableName(of set: Int) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: region(set) + sets[set].tableOffset, count: sets[set].tableLength)
  }
  public func setName(of set: Int) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: region(set) + sets[set].setOffset, count: sets[set].setLength)
  }

  /// Whether an element for `set` fits before its batch must be sent.
  func hasRoom(_ set: Int) -> Bool {
    let state = sets[set]
    return state.end + Self.elementBytes(state.keyLength, state.timeouts) + Self.endBytes
      <= bytesPerSet
  }

  /// Appends `address` (4 or 16 bytes, network order) to `set`'s batch.
  /// `timeoutMilliseconds` is written only for a set with timeouts, and
  /// never below 1,000: the kernel treats a timeout of 0 as "never
  /// expires", which a record with TTL 0 must not become. The caller
  /// checks `hasRoom` and the key length first.
  func append(_ address: UnsafeRawBufferPointer, to set: Int, timeoutMilliseconds: UInt64) {
    let state = sets[set]
    precondition(address.count == state.keyLength && hasRoom(set), "checked by the caller")
    let base = region(set)
    var offset = state.end
    let length = Self.elementBytes(state.keyLength, state.timeouts)
    Self.writeAttributeHeader(
      base + offset, length: length, type: Netlink.listElement | Netlink.nested)
    offset += Netlink.attributeHeaderBytes
    if state.timeouts {
      Self.writeAttributeHeader(base + offset, length: 12, type: Netlink.elementTimeout)
      (base + offset + 4).storeBytes(
        of: max(timeoutMilliseconds, 1000).bigEndian, as: UInt64.self)
      offset += 12
    }
    Self.writeAttributeHeader(
      base + offset, length: 8 + state.keyLength, type: Netlink.elementKey | Netlink.nested)
    Self.writeAttributeHeader(
      base + offset + 4, length: 4 + state.keyLength, type: Netlink.dataValue)
    (base + offset + 8).copyMemory(from: address.baseAddress!, byteCount: state.keyLength)
    sets[set].end = offset + 8 + state.keyLength
    sets[set].elements += 1
  }

  /// Completes `set`'s batch with `sequence` in its three messages (a
  /// reply names the request by it) and returns its bytes, valid until the
  /// next append; empty when the set has no element.
  func seal(_ set: Int, sequence: UInt32) -> UnsafeRawBufferPointer {
    let state = sets[set]
    guard state.elements > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
    let base = region(set)
    let newSetElement = Self.endBytes
    (base + newSetElement).storeBytes(of: UInt32(state.end - newSetElement), as: UInt32.self)
    (base + state.listOffset).storeBytes(
      of: UInt16(state.end - state.listOffset), as: UInt16.self)
    Self.writeMessageHeader(base + state.end, type: Netlink.batchEnd, flags: Netlink.request)
    Self.writeNfgen(base + state.end + 16, family: 0, resourceID: Netlink.subsystemNFTables)
    base.storeBytes(of: sequence, toByteOffset: 8, as: UInt32.self)
    base.storeBytes(of: sequence, toByteOffset: newSetElement + 8, as: UInt32.self)
    base.storeBytes(of: sequence, toByteOffset: state.end + 8, as: UInt32.self)
    return UnsafeRawBufferPointer(start: base, count: state.end + Self.endBytes)
  }

  /// Empties `set`'s element list (after its batch was sent or dropped).
  func reset(_ set: Int) {
    sets[set].end = sets[set].listOffset + Netlink.attributeHeaderBytes
    sets[set].elements = 0
  }

  // Each writer below is given a 4-aligned pointer into a region.

  /// A netlink message header: length 20 (a header and nfgenmsg, patched
  /// by `seal` for the elements message), sequence 0 until sealed, port id 0
  /// (the kernel).
  static func writeMessageHeader(_ at: UnsafeMutableRawPointer, type: UInt16, flags: UInt16) {
    at.storeBytes(of: UInt32(endBytes), as: UInt32.self)
    at.storeBytes(of: type, toByteOffset: 4, as: UInt16.self)
    at.storeBytes(of: flags, toByteOffset: 6, as: UInt16.self)
    at.storeBytes(of: UInt32(0), toByteOffset: 8, as: UInt32.self)
    at.storeBytes(of: UInt32(0), toByteOffset: 12, as: UInt32.self)
  }

  /// struct nfgenmsg: the family, NFNETLINK_V0, and `res_id` big-endian
  /// (NFNL_SUBSYS_NFTABLES in the batch messages, 0 in the others).
  static func writeNfgen(_ at: UnsafeMutableRawPointer, family: UInt8, resourceID: UInt16) {
    at.storeBytes(of: family, as: UInt8.self)
    at.storeBytes(of: Netlink.version0, toByteOffset: 1, as: UInt8.self)
    at.storeBytes(of: resourceID.bigEndian, toByteOffset: 2, as: UInt16.self)
  }

  static func writeAttributeHeader(_ at: UnsafeMutableRawPointer, length: Int, type: UInt16) {
    at.storeBytes(of: UInt16(length), as: UInt16.self)
    at.storeBytes(of: type, toByteOffset: 2, as: UInt16.self)
  }

  /// A NUL-terminated string attribute, zero-padded to 4 bytes; returns
  /// the offset after it.
  static func writeString(
    _ base: UnsafeMutableRawPointer, at offset: Int, type: UInt16, _ text: UnsafeRawBufferPointer
  ) -> Int {
    writeAttributeHeader(base + offset, length: 4 + text.count + 1, type: type)
    let end = offset + Netlink.aligned(4 + text.count + 1)
    (base + offset + 4).initializeMemory(as: UInt8.self, repeating: 0, count: end - offset - 4)
    (base + offset + 4).copyMemory(from: text.baseAddress!, byteCount: text.count)
    return end
  }

  /// Writes a GETSET request for `set` into `into` (at least `querySize`
  /// bytes) and returns its length; the kernel answers with a NEWSET
  /// message (flags, key length) or an error, with the same `sequence`.
  func writeQuery(_ set: Int, sequence: UInt32, into: UnsafeMutableRawPointer) -> Int {
    Self.writeMessageHeader(
      into, type: Netlink.subsystemNFTables << 8 | Netlink.getSet, flags: Netlink.request)
    Self.writeNfgen(into + 16, family: sets[set].family.rawValue, resourceID: 0)
    var end = Self.writeString(into, at: Self.endBytes, type: Netlink.setTable, tableName(of: set))
    end = Self.writeString(into, at: end, type: Netlink.setName, setName(of: set))
    into.storeBytes(of: UInt32(end), as: UInt32.self)
    into.storeBytes(of: sequence, toByteOffset: 8, as: UInt32.self)
    return end
  }
  static let querySize = endBytes + 2 * (Netlink.attributeHeaderBytes + 256)

  /// Whether `set`'s elements carry a timeout. Changing it empties the
  /// set's pending batch, whose elements were written the other way;
  /// returns how many were dropped.
  func setTimeouts(_ set: Int, _ timeouts: Bool) -> Int {
    guard sets[set].timeouts != timeouts else { return 0 }
    let dropped = sets[set].elements
    sets[set].timeouts = timeouts
    reset(set)
    return dropped
  }
  public func timeouts(of set: Int) -> Bool { sets[set].timeouts }
}
