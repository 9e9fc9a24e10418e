/// How an upstream is reached.
public enum UpstreamTransport: UInt8, Equatable, Sendable {
  case udp = 0
  case tcp = 1
}

public struct UpstreamServer: Equatable, Sendable {
  public var transport: UpstreamTransport
  public var endpoint: Endpoint
  public init(transport: UpstreamTransport, endpoint: Endpoint) {
    self.transport = transport
    self.endpoint = endpoint
  }
}

public enum LogLevel: UInt8, Comparable, Sendable {
  case error = 0
  case warning = 1
  case info = 2
  case debug = 3
  public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Every tunable of a compiled `dnsward.conf`, with the defaults a config
/// without the directive gets. All limits live here, each with its reason.
public struct Settings {
  /// `listen`: UDP and TCP sockets for clients.
  public var listen: [Endpoint] = []
  /// `allow`: clients outside every prefix get REFUSED. Empty means
  /// `defaultAllowPrefixes`.
  public var allow: [AddressPrefix] = []
  /// `upstream udp|tcp`: in priority order.
  public var upstreams: [UpstreamServer] = []
  /// `upstream resolv-conf PATH`: the nameservers in this file are read at
  /// start-up and inserted at `resolvConfPosition` in `upstreams`. Empty: none.
  public var resolvConfPath: [UInt8] = []
  public var resolvConfPosition: Int = 0
  /// `timeout`: per-attempt deadline before the next upstream is tried. The
  /// 1.5 s default is the app-level "local DNS" deadline of the design notes.
  public var timeoutMilliseconds: UInt32 = 1500
  /// `inflight`: capacity of the transaction ring, a power of two.
  public var inflight: Int = 1024
  /// `override-ttl`: TTL of locally answered records.
  public var overrideTTL: UInt32 = 300
  /// `user`: the account to switch to after binding; empty keeps the current one.
  public var user: [UInt8] = []
  /// `log`.
  public var logLevel: LogLevel = .info
  /// `tcp-clients`: simultaneous client TCP connections; the next is refused.
  public var tcpClients: Int = 32
  /// `tcp-idle`: an idle client connection is closed after this (RFC 7766 §6.2.3).
  public var tcpIdleMilliseconds: UInt32 = 10_000
  /// `edns-size`: the UDP payload size dnsward advertises upstream and to
  /// clients; 1232 avoids IP fragmentation (DNS Flag Day 2020).
  public var ednsPayloadSize: UInt16 = 1232
  /// `case-randomization`: 0x20 encoding on UDP upstream queries.
  public var caseRandomization: Bool = true
  /// The static override and block table.
  public var overrides: OverrideTable = OverrideTable()

  public init() {}

  /// The ACL in force.
  public var effectiveAllow: [AddressPrefix] { allow.isEmpty ? defaultAllowPrefixes : allow }
}
