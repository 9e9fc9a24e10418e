import CompiledConfig
import Engine
import Platform

// Left out of a firmware built with -DDNSWARD_METRICS=OFF (MetricsUnavailable.swift).
#if !DNSWARD_NO_METRICS

  /// The figures every worker publishes for `metrics`, in memory all workers
  /// share (SharedMemory: mapped before the fork). Each worker owns one slot
  /// of `stride` UInt64 values and copies its counters into it once a second
  /// (the loop's housekeeping) and, for the worker that serves the scrape,
  /// just before answering; the scrape adds the slots up. A worker only ever
  /// writes its own slot, so there is no lock: a scrape may see another
  /// worker's figures up to a second old (on a 32-bit board a value read
  /// while its worker writes it may mix old and new halves, off until the
  /// next scrape).
  ///
  /// A slot, in order: the statistics (`Statistic`, table order), the
  /// latency histogram's buckets, sum and count, then five values per
  /// upstream (`upstreamFigures`).
  public final class MetricsBoard {
    let base: UnsafeMutablePointer<UInt64>
    let workers: Int
    /// Upstreams with figures: at most `Statistics.upstreamLimit`.
    let upstreams: Int
    let stride: Int

    static let histogramOffset = Statistic.count
    /// Buckets, then the sum of the latencies (ms), then the count.
    static let histogramValues = LatencyHistogram.bucketCount + 2
    static let upstreamOffset = histogramOffset + histogramValues
    /// Answers, timeouts, failures, smoothed RTT (ms), disagreements.
    static let upstreamFigures = 5

    /// A board for `workers` processes and `upstreams` upstreams; nil when the
    /// memory cannot be mapped.
    public init?(workers: Int, upstreams: Int) {
      self.workers = max(workers, 1)
      self.upstreams = min(upstreams, Statistics.upstreamLimit)
      stride = Self.upstreamOffset + Self.upstreamFigures * self.upstreams
      guard
        let memory = SharedMemory.map(
          byteCount: self.workers * stride * MemoryLayout<UInt64>.stride)
      else { return nil }
      base = memory.bindMemory(to: UInt64.self, capacity: self.workers * stride)
    }

    /// Copies this worker's figures into its slot.
    func publish(worker: Int, engine: Engine) {
      guard worker < workers else { return }
      let slot = base + worker * stride
      engine.refreshLevels()
      for index in 0..<Statistic.count {
        slot[index] = engine.statistics[Statistic(index: index)]
      }
      let latency = engine.statistics.answerLatency
      for index in 0..<LatencyHistogram.bucketCount {
        slot[Self.histogramOffset + index] = latency.bucket(index)
      }
      slot[Self.histogramOffset + LatencyHistogram.bucketCount] = latency.sumMilliseconds
      slot[Self.histogramOffset + LatencyHistogram.bucketCount + 1] = latency.count
      for upstream in 0..<min(upstreams, engine.upstreams.count) {
        let figures = engine.selection.statistics(upstream)
        let at = Self.upstreamOffset + Self.upstreamFigures * upstream
        slot[at] = figures.answers
        slot[at + 1] = figures.timeouts
        slot[at + 2] = figures.failures
        slot[at + 3] = figures.smoothedRTTMilliseconds
        slot[at + 4] = figures.disagreements
      }
    }

    /// Value `index` of a slot, added up over the workers.
    func total(_ index: Int) -> UInt64 {
      var sum: UInt64 = 0
      for worker in 0..<workers { sum &+= base[worker * stride + index] }
      return sum
    }

    /// Value `index` averaged over the workers that have one (not 0): a
    /// smoothed round-trip time, which does not add up.
    func mean(_ index: Int) -> UInt64 {
      var sum: UInt64 = 0
      var count: UInt64 = 0
      for worker in 0..<workers where base[worker * stride + index] != 0 {
        sum &+= base[worker * stride + index]
        count += 1
      }
      return count == 0 ? 0 : sum / count
    }
  }

  /// What `serve` opens before the fork for `metrics`: the board every worker
  /// publishes to and the listening socket, which worker 0 alone keeps (the
  /// others close it: one scrape, answered by one loop, from all slots).
  public struct MetricsSetup {
    public let board: MetricsBoard
    public let listener: FileDescriptor
    /// Where the listener really is (port 0 binds a free port).
    public let address: SocketAddress

    /// `metrics` could not be set up (logged).
    public struct OpenError: Error {}

    /// Binds `settings.metrics` (TCP, non-blocking) and maps the board for
    /// `workers` and as many upstreams as the statistics name (a reload or
    /// `resolv-conf` may bring more than start-up had), logging where it
    /// listens (port 0 picks a free one); nil without `metrics`. A failure
    /// is logged and thrown.
    public static func open(_ settings: Settings, workers: Int, log: LogLine)
      throws(OpenError) -> MetricsSetup?
    {
      guard let endpoint = settings.metrics else { return nil }
      let requested = SocketAddress(endpoint)
      guard
        let board = MetricsBoard(workers: workers, upstreams: Statistics.upstreamLimit)
      else {
        log.start(.error).append("cannot map the metrics board").emit(.error)
        throw OpenError()
      }
      let listener: FileDescriptor
      do throws(Errno) {
        listener = try Socket.tcp(for: requested)
        do throws(Errno) {
          try Socket.bindListener(listener, to: requested)
          try Socket.listen(listener, backlog: 16)
        } catch {
          listener.close()
          throw error
        }
      } catch {
        log.start(.error).append("cannot serve metrics on ").append(address: requested)
          .append(": ").append(errno: error).emit(.error)
        throw OpenError()
      }
      let setup = MetricsSetup(
        board: board, listener: listener, address: Socket.localAddress(listener) ?? requested)
      log.start(.info).append("metrics on http://").append(address: setup.address)
        .append("/metrics").emit(.info)
      return setup
    }
  }
#endif
