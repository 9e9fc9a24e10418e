import CLinux

extension NetfilterFamily {
  /// The family as `nft` spells it, for log lines.
  public var name: StaticString {
    switch self {
    case .inet: return "inet"
    case .ip: return "ip"
    case .ip6: return "ip6"
    case .bridge: return "bridge"
    case .netdev: return "netdev"
    default: return "family?"
    }
  }
}

/// Adds addresses to nftables sets over NETLINK_NETFILTER, from the event
/// loop and without blocking it (`nftset`).
///
/// The socket and every buffer are made at start-up; adding an address and
/// flushing allocate nothing. `add` appends an element to its set's batch
/// (`NetfilterBatches`); `flush`, once per loop turn, sends each set that
/// has elements as one batch of its own with one non-blocking write; a
/// batch that would block, or that the socket refuses, is dropped and
/// counted — nftset never holds an answer back. A set whose batch fills up
/// between flushes is sent at once.
///
/// Replies. The kernel handles a batch inside the write and queues its
/// replies on the socket before the write returns: one acknowledgement
/// (NLM_F_ACK) per batch, or an error. The batch's sequence number is
/// `elements << 16 | set`, so `drainReplies` maps each reply back to its
/// set and to the number of elements it carried. A refused batch is counted
/// for its set and in total; the first refusal of a set (or a new errno) is
/// logged at warning, the next acknowledgement logs it accepted again.
///
/// Kernel semantics relied on (net/netfilter/nf_tables_api.c): without
/// NLM_F_EXCL, adding an element that is already in the set succeeds, and
/// elements repeated within one batch are fine. On kernels with the element
/// timeout update (kernel commit 4201f3938914, "set element timeout update
/// support"; the 6.18 kernel these tests ran on has it) the re-added
/// element takes the new timeout, longer or shorter, so each answer sets
/// its addresses' expiry to that answer's TTL; older kernels keep the
/// first timeout, and an address expires at its first TTL until the next
/// answer adds it back. A batch is one transaction: a refusal undoes the whole batch,
/// which is why each set travels alone.
///
/// The kernel checks CAP_NET_ADMIN on every batch, in the writing process:
/// a writer in a process that dropped it gets EPERM back for each batch
/// (reported like any refusal).
public final class NetfilterSetWriter {
  public struct Counters: Equatable {
    /// Addresses accepted by `add`.
    public var elementsQueued = 0
    /// Addresses of the other family for a single-family set.
    public var elementsSkipped = 0
    public var batchesSent = 0
    public var elementsSent = 0
    /// Batches the socket would not take (would block, or an error).
    public var batchesDropped = 0
    public var elementsDropped = 0
    /// Batches the kernel acknowledged, and those it refused.
    public var batchesAcknowledged = 0
    public var batchesFailed = 0
    public var elementsFailed = 0
    /// Times the kernel could not queue a reply (ENOBUFS on reading).
    public var repliesLost = 0
    /// Addresses for a set the writer will not write (`unsupported`).
    public var elementsUnsupported = 0
    public init() {}
  }

  struct SetHealth {
    var failing = false
    var lastError: Int32 = 0
    var failures = 0
    /// The kernel described the set (GETSET): `timeouts` follows its flags.
    var learned = false
    /// An interval set, a map, a constant set, or a key of the other
    /// family: nothing is added to it.
    var unsupported = false
    /// A GETSET for the set awaits its answer.
    var queried = false
  }

  public let descriptor: FileDescriptor
  let batches: NetfilterBatches
  public internal(set) var counters = Counters()
  let log: LogLine
  let health: UnsafeMutableBufferPointer<SetHealth>
  let reply: UnsafeMutableRawBufferPointer
  let request: UnsafeMutableRawPointer
  var lastSendError: Int32 = 0
  /// One read: acknowledgements are 36 bytes with NETLINK_CAP_ACK.
  static let replyBytes = 8192

  /// Opens the socket and allocates room for `setCapacity` sets of
  /// `bytesPerSet` bytes (see `NetfilterBatches`); throws the errno of a
  /// socket that cannot be opened (no netlink in a restricted container).
  public init(log: LogLine, setCapacity: Int, bytesPerSet: Int = 16_384) throws(Errno) {
    let fd = clinux_netfilter_socket()
    guard fd >= 0 else { throw Errno(rawValue: clinux_errno()) }
    descriptor = FileDescriptor(rawValue: fd)
    self.log = log
    batches = NetfilterBatches(capacity: setCapacity, bytesPerSet: bytesPerSet)
    health = .allocate(capacity: setCapacity)
    health.initialize(repeating: SetHealth())
    reply = .allocate(byteCount: Self.replyBytes, alignment: 8)
    request = .allocate(byteCount: NetfilterBatches.querySize, alignment: 8)
  }

  deinit {
    descriptor.close()
    health.deallocate()
    reply.deallocate()
    request.deallocate()
  }

  /// Adds a set at start-up (see `NetfilterBatches.addSet`); `keyLength` 4
  /// for A records, 16 for AAAA. Timeouts are assumed until the kernel,
  /// asked by `querySets`, tells the set's flags.
  public func addSet(family: NetfilterFamily, table: [UInt8], set: [UInt8], keyLength: Int)
    -> Int?
  {
    batches.addSet(family: family, table: table, set: set, keyLength: keyLength, timeouts: true)
  }

  /// Whether `set`'s elements carry a timeout, as the kernel last said.
  public func timeouts(of set: Int) -> Bool { batches.timeouts(of: set) }
  /// Whether the kernel described `set`, and as one the writer can fill.
  public func isLearned(_ set: Int) -> Bool { health[set].learned }
  public func isUsable(_ set: Int) -> Bool { !health[set].unsupported }

  /// How many of `set`'s batches the kernel refused.
  public func failures(of set: Int) -> Int { health[set].failures }

  /// Queues `address` (4 or 16 bytes, network order) for `set`, with
  /// `timeoutMilliseconds` (the record's TTL; at least 1 s) when the set
  /// has timeouts. An address of the other family is skipped: false.
  @discardableResult
  public func add(_ address: UnsafeRawBufferPointer, to set: Int, timeoutMilliseconds: UInt64 = 0)
    -> Bool
  {
    guard address.count == batches.keyLength(of: set) else {
      counters.elementsSkipped += 1
      return false
    }
    guard !health[set].unsupported else {
      counters.elementsUnsupported += 1
      return false
    }
    if !batches.hasRoom(set) { send(set) }
    batches.append(address, to: set, timeoutMilliseconds: timeoutMilliseconds)
    counters.elementsQueued += 1
    return true
  }

  /// Sends every set's pending elements, one batch per set.
  public func flush() {
    for set in 0..<batches.count where batches.elements(in: set) > 0 { send(set) }
  }

  /// The sequence number of a batch: its element count (at most 4,096 in a
  /// 64 KiB region) and its set.
  static func sequence(set: Int, elements: Int) -> UInt32 {
    UInt32(truncatingIfNeeded: elements) << 16 | UInt32(truncatingIfNeeded: set)
  }

  func send(_ set: Int) {
    let elements = batches.elements(in: set)
    let bytes = batches.seal(set, sequence: Self.sequence(set: set, elements: elements))
    defer { batches.reset(set) }
    do {
      if try descriptor.write(bytes) != nil {
        counters.batchesSent += 1
        counters.elementsSent += elements
        return
      }
      drop(set, elements, code: clinux_eagain())
    } catch {
      drop(set, elements, code: error.rawValue)
    }
  }

  func drop(_ set: Int, _ elements: Int, code: Int32) {
    counters.batchesDropped += 1
    counters.elementsDropped += elements
    guard code != lastSendError else { return }
    lastSendError = code
    startLine(.warning, set).append("cannot send ").append(decimal: elements)
      .append(" elements: ").append(errno: Errno(rawValue: code)).emit(.warning)
  }

  @discardableResult
  func startLine(_ severity: LogSeverity, _ set: Int) -> LogLine {
    let state = batches.sets[set]
    return log.start(severity).append("nftset ").append(state.family.name).append(" ")
      .append(batches.tableName(of: set)).append(" ").append(batches.setName(of: set))
      .append(": ")
  }

  /// Reads every reply waiting on the socket (call when it is readable; it
  /// never blocks) and accounts for each batch acknowledged or refused.
  public func drainReplies() {
    while true {
      let received: Int?
      do {
        received = try descriptor.read(into: reply)
      } catch {
        // ENOBUFS: the receive queue overflowed and replies were lost; the
        // error is reported once, and the queue still holds what fitted.
        // A lost answer to a GETSET must not keep its set from being asked
        // again.
        guard error.rawValue == ENOBUFS else { return }
        counters.repliesLost += 1
        for set in 0..<batches.count { health[set].queried = false }
        continue
      }
      guard let received, received > 0 else { return }
      readMessages(count: min(received, reply.count))
    }
  }

  /// Walks the netlink messages of one datagram (NLMSG_ALIGN steps); a
  /// length that does not fit ends the walk.
  func readMessages(count: Int) {
    let base = UnsafeRawPointer(reply.baseAddress!)
    var offset = 0
    while offset + Netlink.messageHeaderBytes <= count {
      let length = Int(base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
      guard length >= Netlink.messageHeaderBytes, offset + length <= count else { return }
      let type = base.loadUnaligned(fromByteOffset: offset + 4, as: UInt16.self)
      let sequence = base.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self)
      if type == Netlink.error,
        length >= Netlink.messageHeaderBytes + Netlink.errorHeaderBytes
      {
        let code = base.loadUnaligned(fromByteOffset: offset + 16, as: Int32.self)
        if sequence & Self.querySequence != 0 {
          answered(query: sequence)
        } else {
          account(sequence: sequence, error: -code)
        }
      } else if type == Netlink.subsystemNFTables << 8 | Netlink.newSet,
        sequence & Self.querySequence != 0
      {
        learn(sequence: sequence, from: base + offset, length: length)
      }
      offset += Netlink.aligned(length)
    }
  }

  func account(sequence: UInt32, error code: Int32) {
    let set = Int(sequence & 0xFFFF)
    let elements = Int(sequence >> 16)
    guard set < batches.count else { return }
    if code == 0 {
      counters.batchesAcknowledged += 1
      if health[set].failing {
        health[set].failing = false
        health[set].lastError = 0
        startLine(.info, set).append("the kernel accepts elements again").emit(.info)
      }
      return
    }
    counters.batchesFailed += 1
    counters.elementsFailed += elements
    health[set].failures += 1
    // Missing, or not what the writer took it for: ask again.
    query(set)
    guard !health[set].failing || health[set].lastError != code else { return }
    health[set].failing = true
    health[set].lastError = code
    startLine(.warning, set).append("the kernel refused ").append(decimal: elements)
      .append(" elements: ").append(errno: Errno(rawValue: code)).emit(.warning)
  }
}
