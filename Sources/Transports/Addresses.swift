import CompiledConfig
import Platform

extension SocketAddress {
  /// The socket address for a configured endpoint: AF_INET for IPv4.
  init(_ endpoint: Endpoint) {
    self.init(
      high: endpoint.address.high, low: endpoint.address.low, port: endpoint.port,
      isIPv6: !endpoint.address.isIPv4)
  }
}

extension Endpoint {
  init(_ address: SocketAddress) {
    self.init(address: IPAddress(high: address.high, low: address.low), port: address.port)
  }
}

/// What an epoll registration is, packed into its 64-bit token: the kind in
/// the top byte, then a generation and a slot so that an event for a closed
/// and reused descriptor is recognised as stale.
enum Token {
  enum Kind: UInt64 {
    case signal = 1
    case udpListener = 2
    case tcpListener = 3
    case tcpClient = 4
    case upstreamUDP = 5
    case upstreamTCP = 6
    case overrideProbe = 7
    case upstreamHTTP = 8
    case routeMonitor = 9
    case nftsetWriter = 10
    case metricsListener = 11
    case metricsClient = 12
  }

  static func make(_ kind: Kind, slot: Int, generation: UInt32 = 0) -> UInt64 {
    kind.rawValue << 56 | (UInt64(generation) & 0xFFFF_FFFF) << 20 | UInt64(slot & 0xF_FFFF)
  }

  static func kind(_ token: UInt64) -> Kind? { Kind(rawValue: token >> 56) }
  static func slot(_ token: UInt64) -> Int { Int(token & 0xF_FFFF) }
  static func generation(_ token: UInt64) -> UInt32 {
    UInt32(truncatingIfNeeded: token >> 20)
  }
}
