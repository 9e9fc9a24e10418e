import CompiledConfig
import Engine
import Platform

/// `nftset`: one worker's netlink writer (`NetfilterSetWriter`) and where
/// each directive's addresses go.
///
/// Made in `Server.init`, before the seccomp filter, like `RouteMonitor`:
/// the socket, and every buffer, exist from then on. The engine hands each
/// address over through `LoopEnvironment.addToNftSet`, which appends it to
/// its sets' batches and returns; the loop flushes once per turn (one
/// non-blocking write per set that has elements) and reads the kernel's
/// acknowledgements when the socket is readable. A directive's IPv4 and
/// IPv6 sets are writer sets of their own (a set named by two directives
/// is two writer sets: two batches to one set, which the kernel takes).
final class NftSetSink {
  let writer: NetfilterSetWriter
  let engine: Engine
  /// Per directive: the writer's set for A addresses, and for AAAA
  /// addresses; -1: none.
  let ipv4Sets: [Int]
  let ipv6Sets: [Int]

  /// Nil without `nftset`, or when no netlink socket can be opened (logged:
  /// the answers go on without the sets).
  init?(settings: Settings, engine: Engine, log: LogLine) {
    guard !settings.nftsets.isEmpty else { return nil }
    let writer: NetfilterSetWriter
    do {
      writer = try NetfilterSetWriter(log: log, setCapacity: 2 * settings.nftsets.count)
    } catch {
      log.start(.error).append("nftset: cannot open a NETLINK_NETFILTER socket: ")
        .append(errno: error).append("; sets are not filled").emit(.error)
      return nil
    }
    self.writer = writer
    self.engine = engine
    func index(_ target: NftSetTarget, _ set: [UInt8], keyLength: Int) -> Int {
      guard !set.isEmpty else { return -1 }
      return writer.addSet(
        family: NetfilterFamily(rawValue: target.family), table: target.table, set: set,
        keyLength: keyLength) ?? -1
    }
    var ipv4Sets: [Int] = []
    var ipv6Sets: [Int] = []
    for target in settings.nftsets {
      ipv4Sets.append(index(target, target.ipv4Set, keyLength: 4))
      ipv6Sets.append(index(target, target.ipv6Set, keyLength: 16))
    }
    self.ipv4Sets = ipv4Sets
    self.ipv6Sets = ipv6Sets
    writer.querySets()
  }

  /// Queues `address` for the sets of `directives` (bit i: directive i),
  /// to expire after `ttl` seconds (at least one).
  func add(directives: UInt64, address: UnsafeRawBufferPointer, ttl: UInt32) {
    let sets = address.count == 4 ? ipv4Sets : ipv6Sets
    let milliseconds = UInt64(max(ttl, 1)) * 1000
    var remaining = directives
    while remaining != 0 {
      let directive = remaining.trailingZeroBitCount
      remaining &= remaining - 1
      guard directive < sets.count, sets[directive] >= 0 else { continue }
      writer.add(address, to: sets[directive], timeoutMilliseconds: milliseconds)
    }
  }

  /// Sends what the turn queued, and gives the engine the writer's totals.
  func flush() {
    writer.flush()
    noteCounters()
  }

  /// The socket is readable: the kernel's acknowledgements and refusals.
  func drainReplies() {
    writer.drainReplies()
    noteCounters()
  }

  func noteCounters() {
    let counts = writer.counters
    engine.noteNftSetWriter(
      elementsSent: counts.elementsSent,
      elementsDropped: counts.elementsDropped + counts.elementsSkipped,
      batchesFailed: counts.batchesFailed, elementsFailed: counts.elementsFailed,
      elementsUnsupported: counts.elementsUnsupported)
  }
}
