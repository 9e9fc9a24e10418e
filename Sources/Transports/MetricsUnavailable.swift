import CompiledConfig
import Platform

// A firmware built with -DDNSWARD_METRICS=OFF (Board/CMakeLists.txt) has no
// metrics: these stand in for MetricsBoard.swift and MetricsServer.swift,
// so the loop and start-up compile unchanged, and a config with `metrics`
// fails at start-up (`MetricsSetup.open` throws `.unavailable`).
#if DNSWARD_NO_METRICS
  public struct MetricsSetup {
    public let address: SocketAddress

    public enum OpenError: Error {
      case bind(SocketAddress, Errno)
      case memory
      /// This build has no metrics.
      case unavailable
    }

    public static func open(_ endpoint: Endpoint, workers: Int, upstreams: Int)
      throws(OpenError) -> MetricsSetup
    {
      throw .unavailable
    }
  }

  final class MetricsServer {
    init(
      setup: MetricsSetup, worker: Int, context: LoopContext, tcpUpstreams: TCPUpstreamPool,
      httpdnsUpstreams: HTTPDNSUpstreamPool
    ) {}
    func handle(event: UInt32, token: UInt64, now: UInt64) {}
    func housekeeping(now: UInt64) {}
    func closeAll() {}
  }
#endif
