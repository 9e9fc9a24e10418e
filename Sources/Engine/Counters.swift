/// What the engine counts. Every dropped or refused packet lands in exactly
/// one counter, so an operator can see why a client got no answer.
public struct EngineCounters {
  /// Client packets that reached the engine.
  public var queries: UInt64 = 0
  /// Shorter than a header: dropped without a reply.
  public var droppedShort: UInt64 = 0
  /// QR set on a packet sent to the listener: dropped (no reflection loops).
  public var droppedResponses: UInt64 = 0
  public var refused: UInt64 = 0
  public var formErr: UInt64 = 0
  public var notImp: UInt64 = 0
  public var badVersion: UInt64 = 0
  /// Answered from the override table (addresses or NODATA).
  public var overridden: UInt64 = 0
  /// Answered NXDOMAIN by a `block` line.
  public var blocked: UInt64 = 0
  /// Client queries joined to an identical one already in flight.
  public var coalesced: UInt64 = 0
  /// Copies of a question the same client (address, port, ID) already has
  /// in flight: dropped, the first copy's answer serves both.
  public var retransmissions: UInt64 = 0
  /// Upstream queries sent (each attempt counts).
  public var forwarded: UInt64 = 0
  /// Transaction ring or waiter pool full: answered SERVFAIL at once.
  public var ringFull: UInt64 = 0
  /// Every upstream failed or none is configured: SERVFAIL.
  public var servFail: UInt64 = 0
  /// Answered from a fresh cache entry.
  public var cacheHits: UInt64 = 0
  /// Looked up in the cache and not answered from it (absent or expired).
  public var cacheMisses: UInt64 = 0
  /// Answers stored in the cache.
  public var cacheInserts: UInt64 = 0
  /// Answered from an expired entry (every upstream failed, or stale-first).
  public var staleServed: UInt64 = 0
  /// Upstream queries for expired entries that nobody waits on.
  public var refreshes: UInt64 = 0
  /// Answers relayed to clients from upstreams.
  public var answered: UInt64 = 0
  /// Replies sent with TC=1 because they did not fit the client's size.
  public var truncated: UInt64 = 0
  /// Attempts that missed their deadline.
  public var timeouts: UInt64 = 0
  /// Upstream replies that were accepted only to try again elsewhere
  /// (SERVFAIL, REFUSED, NOTIMP) or over TCP (TC=1).
  public var retried: UInt64 = 0
  /// Upstream packets that failed validation and were dropped; the real answer
  /// is still awaited. One counter per reason.
  public var mismatchedSource: UInt64 = 0
  public var mismatchedID: UInt64 = 0
  public var mismatchedQuestion: UInt64 = 0
  public var mismatchedCase: UInt64 = 0
  public var malformedReplies: UInt64 = 0
  /// Replies for transactions that are no longer in flight.
  public var staleReplies: UInt64 = 0
  /// CHAOS-class TXT questions answered locally (`hits.bind.`,
  /// `stats.dnsward.`, ... — see Stats.swift).
  public var chaosAnswered: UInt64 = 0

  public init() {}
}
