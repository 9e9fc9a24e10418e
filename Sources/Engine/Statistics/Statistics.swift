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
