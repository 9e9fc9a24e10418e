// What EngineFuzzTests and the engine libFuzzer target share: .ci/fuzz.sh
// compiles this file with Tests/Fuzz/engine.swift, so it imports only what
// that target links.

import Engine

/// Forwarding to three upstreams (one over TCP) with a small cache, stale
/// answers and local data: an override of both families, a wildcard
/// override and a blocked name.
let forwardingFuzzConfig = """
  listen 127.0.0.1:53
  upstream udp 127.0.0.1:5300
  upstream udp 127.0.0.2:5300
  upstream tcp 127.0.0.3:5353
  timeout 200ms
  inflight 16
  cache 32
  cache-bytes 16k
  stale 1d
  override printer.lan 192.168.1.10 fd00::10
  override *.dev.lan 192.168.1.30
  block ads.example
  """

/// What a fuzz run expects for one client packet; `Question` is the form
/// in which the run keeps the question the reply must repeat.
struct AskedPacket<Question> {
  var packet: [UInt8]
  var client: ClientRef
  /// Whether the engine owes it exactly one reply (a header, QR clear).
  var expectsReply: Bool
  var id: UInt16
  /// The largest reply it may get.
  var limit: Int
  /// The question of a one-question query.
  var question: Question?
  var replies = 0
}
