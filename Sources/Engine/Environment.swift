import CompiledConfig
import DNSWire

/// Who asked: enough to send the answer back and to apply the ACL. The
/// engine stores it and hands it back; it never interprets `listener` or
/// `connection`, which belong to the transport layer.
public struct ClientRef: Equatable {
  public var endpoint: Endpoint
  /// Index of the listening socket the query came in on.
  public var listener: UInt16
  /// For TCP, the transport's connection token (slot and generation).
  public var connection: UInt32
  public var isTCP: Bool

  public init(endpoint: Endpoint, listener: UInt16, connection: UInt32 = 0, isTCP: Bool = false) {
    self.endpoint = endpoint
    self.listener = listener
    self.connection = connection
    self.isTCP = isTCP
  }
}

/// Names one upstream query: a ring slot and the generation it had when the
/// query was sent, so a late event for a reused slot is recognised as stale
/// (Sources/README.md, Conventions 7: fixed slots addressed by index and
/// generation).
public struct TransactionHandle: Equatable {
  public var slot: UInt32
  public var generation: UInt32
  public init(slot: UInt32, generation: UInt32) {
    self.slot = slot
    self.generation = generation
  }
  /// Packed for an epoll token.
  public var packed: UInt64 { UInt64(generation) << 32 | UInt64(slot) }
  public init(packed: UInt64) {
    slot = UInt32(truncatingIfNeeded: packed)
    generation = UInt32(truncatingIfNeeded: packed >> 32)
  }
}

/// Things worth a log line; the engine reports them, the loop decides.
public enum EngineEvent: Equatable {
  /// An upstream missed its deadline.
  case upstreamTimeout
  /// An upstream was marked down after repeated failures.
  case upstreamDown
  /// An upstream that was down answered again.
  case upstreamRecovered
  /// An upstream does not echo the 0x20 case of the question; it is now
  /// queried without case randomization.
  case caseRandomizationDisabled
  /// `dnssec`: the wall clock is before the build date, so RRSIG validity
  /// times are not checked until it is right (reported once).
  case dnssecTimesUnchecked
  /// `dnssec auto`: the upstream's DNSSEC probe came to a different
  /// verdict (UpstreamProbes.swift): failing, its answers are relayed
  /// without validation; validating again, they are validated.
  case dnssecStandingChanged(DNSSECStanding)
}

/// A hijack defence fired (Sources/README.md, Threat model). Reported with the
/// question name, so that the log shows what the network above tried.
public enum DefenceEvent: UInt8, Equatable {
  /// An answer carried a `bogus` address and was dropped.
  case bogusDropped
  /// A redirect answer (`bogus-nxdomain` or learned) became NXDOMAIN.
  case redirectRewritten
  /// A public name pointed at a private address (`rebind-protection`).
  case rebindBlocked
  /// Two different answers to one query within the `hold-on` window.
  case holdOnConflict
  /// A plain upstream's answer for a `verify` name is outside the trusted
  /// upstream's answer.
  case verificationDisagreed
  /// `detect-nxdomain-redirect` learned `address` as a redirect address.
  case redirectAddressLearned
}

/// How a client's question was answered, for the per-query debug log.
public enum QueryOutcome: Equatable {
  case overridden
  case blocked
  /// From a fresh cache entry.
  case cached
  /// From an expired cache entry (RFC 8767).
  case stale
  /// Relayed from `upstream`, with the answer's response code.
  case answered(ResponseCode)
  case servFail
  case refused
  case formErr
  case notImp
  case badVersion
  /// A CHAOS-class statistics or version question, answered locally.
  case chaos
  /// From the `hosts` and `leases` names, or NXDOMAIN within `domain`.
  case localName
}

/// Everything the engine asks of the outside world. The loop implements it
/// with sockets; tests implement it with arrays. Buffers passed in are the
/// engine's and valid only during the call.
///
/// Framing: `framed` has two bytes of headroom before the message, so a TCP
/// transport can write the RFC 1035 §4.2.2 length prefix in place without a
/// copy. The message itself is `framed[2...]`.
public protocol EngineEnvironment {
  /// Sends a reply to a client.
  mutating func sendToClient(framed: UnsafeMutableRawBufferPointer, client: ClientRef)
  /// Sends a query to upstream `upstream` over `transport` for `transaction`.
  /// For UDP the transport uses a socket of its own for the transaction, on
  /// a fresh random port. Returns false when it could not be sent at all.
  mutating func sendToUpstream(
    framed: UnsafeMutableRawBufferPointer, upstream: Int, transport: UpstreamTransport,
    transaction: TransactionHandle
  ) -> Bool
  /// `transaction` is over: its per-query socket can be closed. Called on
  /// the loop's own calls into the engine (`tick`, a reload, a WAN change,
  /// shutdown), never for the attempt of a transport that is calling the
  /// engine: that one ends it itself (`handleUpstreamReply` returns whether
  /// it is over).
  mutating func releaseUpstream(transaction: TransactionHandle, transport: UpstreamTransport)
  /// 64 bits from a CSPRNG.
  mutating func randomUInt64() -> UInt64
  /// Something an operator may want to see in the log.
  mutating func report(_ event: EngineEvent, upstream: Int)
  /// A hijack defence fired; see the default implementation below.
  mutating func reportDefence(
    _ event: DefenceEvent, name: UnsafeRawBufferPointer, address: IPAddress?, upstream: Int)
  /// An answer failed DNSSEC validation; see the default implementation.
  mutating func reportBogus(
    name: UnsafeRawBufferPointer, zone: UnsafeRawBufferPointer, extendedError: UInt16,
    upstream: Int)
  /// See the default implementation below: off unless the loop logs queries.
  var logsQueries: Bool { get }
  mutating func logQuery(
    client: ClientRef, name: UnsafeRawBufferPointer, type: RRType, outcome: QueryOutcome,
    upstream: Int, latencyMilliseconds: UInt64)
  /// Wall-clock seconds since 1970, asked only when a DNSSEC signature's
  /// validity times are checked (RFC 4035 §5.3.1): the engine keeps no
  /// clock. A value before the build date means the clock is not set yet
  /// (`Release.clockIsKnownWrong`).
  var wallClockSeconds: Int64 { get }
  /// See the default implementation below (`nftset`).
  mutating func addToNftSet(directives: UInt64, address: UnsafeRawBufferPointer, ttl: UInt32)
}

extension EngineEnvironment {
  /// A defence fired for the lower-cased flat `name` (for
  /// `.redirectAddressLearned`, the probe name), because of `upstream`'s
  /// answer; `address` is the address at issue when there is one. Not
  /// required: the counters record every event anyway.
  public mutating func reportDefence(
    _ event: DefenceEvent, name: UnsafeRawBufferPointer, address: IPAddress?, upstream: Int
  ) {}

  /// `upstream`'s answer for `name` (flat, lower-cased) failed DNSSEC
  /// validation in `zone` (flat, any case) with `extendedError` (RFC 8914);
  /// called once per zone among the last few (ValidationReports.swift).
  /// Not required (and never called in a firmware without the validator).
  public mutating func reportBogus(
    name: UnsafeRawBufferPointer, zone: UnsafeRawBufferPointer, extendedError: UInt16,
    upstream: Int
  ) {}

  /// Whether `logQuery` wants calls; the engine skips the work otherwise.
  public var logsQueries: Bool { false }
  /// One line per answered question (`log-queries on`, or `log debug`).
  /// `name` is the flat lower-cased question name (empty when the query had
  /// none); `upstream` is -1 for local answers; `latencyMilliseconds` is the
  /// time from the query's arrival to its answer (0 for answers given at
  /// once: overrides, cache hits, errors).
  public mutating func logQuery(
    client: ClientRef, name: UnsafeRawBufferPointer, type: RRType, outcome: QueryOutcome,
    upstream: Int, latencyMilliseconds: UInt64
  ) {}

  /// An address (4 or 16 bytes, network order) of an answer sent to a
  /// client, for the sets of the `nftset` directives whose bits are set in
  /// `directives` (bit i: `Settings.nftsets[i]`), to be kept `ttl` seconds.
  /// Must not block: queue it and return. Called only when `nftset` names
  /// the answer's question.
  public mutating func addToNftSet(
    directives: UInt64, address: UnsafeRawBufferPointer, ttl: UInt32
  ) {}
}
