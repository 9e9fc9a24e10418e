import CompiledConfig
import Platform

// A firmware built with -DDNSWARD_METRICS=OFF (Board/CMakeLists.txt) has no
// metrics: these stand in for MetricsBoard.swift and MetricsServer.swift,
// so the loop and start-up compile unchanged, and a config with `metrics`
// fails at start-up (`MetricsSetup.open` throws) or, read at run time, on
// its line (ConfigParser).
#if DNSWARD_NO_METRICS
  public struct MetricsSetup {
    public struct OpenError: Error {}

    /// nil without `metrics`; with it (a compiled-in config), an error.
    public static func open(_ settings: Settings, workers: Int, log: LogLine)
      throws(OpenError) -> MetricsSetup?
    {
      guard settings.metrics != nil else { return nil }
      log.start(.error).append("metrics: this firmware was built without them")
        .append(" (-DDNSWARD_METRICS=OFF)").emit(.error)
      throw OpenError()
    }
  }

  final class MetricsServer {
    init(
      setup: MetricsSetup, worker: Int, context: LoopContext
    ) {}
    func handle(event: UInt32, token: UInt64, now: UInt64) {}
    func housekeeping(now: UInt64) {}
    func closeAll() {}
  }
#endif
