/// The values of the `Statistic` table: one UInt64 each, allocated once.
/// The engine makes it and every part of the worker writes into it, the
/// transports included (`LoopContext`), so one table holds all a worker
/// counts and outlives a reload. A class: the engine and the transports hold
/// the same one.
public final class Statistics {
  @usableFromInline let values: UnsafeMutablePointer<UInt64>
  /// How long each client waited for its reply (`Engine.send(replyLength:)`),
  /// for metrics; a firmware without them leaves it empty.
  public internal(set) var answerLatency = LatencyHistogram()

  public init() {
    values = .allocate(capacity: Statistic.count)
    values.initialize(repeating: 0, count: Statistic.count)
  }

  deinit {
    values.deallocate()
  }

  @inlinable public subscript(_ statistic: Statistic) -> UInt64 {
    get { values[statistic.index] }
    set { values[statistic.index] = newValue }
  }
}

extension Statistics {
  /// Upstreams listed in `stats.dnsward.` at most.
  public static let upstreamLimit = 64

  /// Records in a `stats.dnsward.` answer: one per `Statistic`, then five
  /// per upstream (at most `upstreamLimit` of them): each record is at most
  /// about 60 bytes, so the reply stays far below 65535 bytes.
  public static func recordCount(upstreams: Int) -> Int {
    Statistic.count + 5 * min(upstreams, upstreamLimit)
  }

  /// The loop's netlink writer's totals, for `stats.dnsward.` and the
  /// counters log (the engine cannot see the writer: it is in Platform).
  public func noteNftSetWriter(
    elementsSent: Int, elementsDropped: Int, batchesFailed: Int, elementsFailed: Int,
    elementsUnsupported: Int
  ) {
    self[.nftsetElementsSent] = UInt64(elementsSent)
    self[.nftsetElementsDropped] = UInt64(elementsDropped)
    self[.nftsetBatchesFailed] = UInt64(batchesFailed)
    self[.nftsetElementsFailed] = UInt64(elementsFailed)
    self[.nftsetElementsUnsupported] = UInt64(elementsUnsupported)
  }
}
