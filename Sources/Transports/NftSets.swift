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
  /// Per directive d: the writer's set for A addresses at 2d, for AAAA
  /// addresses at 2d + 1; -1: none.
  let sets: UnsafeMutableBufferPointer<Int>

  /// Nil without `nftset`, or when no netlink socket can be opened (logged:
  /// the answers go on without the sets).
  init?(settings: Settings, engine: Engine, log: LogLine) {
    let count = settings.nftsets.count
    guard count > 0 else { return nil }
    do {
      writer = try NetfilterSetWriter(log: log, setCapacity: 2 * count)
    } catch {
      log.start(.error).append("nftset: cannot open a NETLINK_NETFILTER socket: ")
        .append(errno: error).append("; sets are not filled").emit(.error)
      return nil
    }
    self.engine = engine
    sets = .allocate(capacity: 2 * count)
    for index in 0..<(2 * count) {
      let target = settings.nftsets[index >> 1]
      let name = index & 1 == 0 ? target.ipv4Set : target.ipv6Set
      sets[index] =
        name.isEmpty
        ? -1
        : writer.addSet(
          family: NetfilterFamily(rawValue: target.family), table: target.table, set: name,
          keyLength: index & 1 == 0 ? 4 : 16) ?? -1
    }
    writer.querySets()
  }

  deinit { sets.deallocate() }

  /// Queues `address` for the sets of `directives` (bit i: directive i),
  /// to expire after `ttl` seconds (at least one).
  func add(directives: UInt64, address: UnsafeRawBufferPointer, ttl: UInt32) {
    let family = address.count == 4 ? 0 : 1
    let milliseconds = UInt64(max(ttl, 1)) * 1000
    var remaining = directives
    while remaining != 0 {
      let slot = 2 * remaining.trailingZeroBitCount + family
      remaining &= remaining - 1
      guard slot < sets.count, sets[slot] >= 0 else { continue }
      writer.add(address, to: sets[slot], timeoutMilliseconds: milliseconds)
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
    engine.statistics.noteNftSetWriter(
      elementsSent: counts.elementsSent,
      elementsDropped: counts.elementsDropped + counts.elementsSkipped,
      batchesFailed: counts.batchesFailed, elementsFailed: counts.elementsFailed,
      elementsUnsupported: counts.elementsUnsupported)
  }
}
