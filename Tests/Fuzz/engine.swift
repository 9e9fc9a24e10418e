import CompiledConfig
import Config
import DNSWire
import Engine
import Glibc

// libFuzzer target: the sans-I/O engine driven by a script of events read
// from the input (built and run by .ci/fuzz.sh; not a SwiftPM target).
//
// The first byte picks one of the configs below; every following event is
// an opcode byte and its operands (bytes past the end read as 0):
//
//   0, 1  a client query built from fields (name, type, flags, EDNS, case,
//         client: LAN UDP, LAN TCP, outside the ACL, IPv6)
//   2     a client packet of raw bytes
//   3, 4  an honest upstream answer to a query the engine sent (rcode,
//         addresses, TC, OPT, TTL; the question's case flipped or not)
//   5     that answer with a few bytes overwritten
//   6     upstream bytes, raw, for a query the engine sent
//   7     a delivery that must be refused: stale handle, wrong source port,
//         TCP reply for another upstream
//   8     the fake clock moves (small or large steps) and the engine ticks
//   9     a send attempt failed; 10 an upstream TCP connection was lost
//   11    the network changed, or the next sends fail
//
// After every event: the transaction ring and the waiter pool stay within
// `inflight`, the cache within its entries and bytes; every reply goes to a
// client that asked, once, validates, is a response with the client's ID
// and question, and fits the client's size; every upstream query is a
// valid query. At the end the clock runs until nothing is in flight, and
// every client whose packet had a header (and was not rate-limited) got
// exactly one reply. A broken invariant traps: libFuzzer saves the input.

/// `FUZZ_TRACE=1 fuzz-engine INPUT` prints every event, query and reply: the
/// way to read a finding.
let tracing = getenv("FUZZ_TRACE") != nil

func trace(_ text: @autoclosure () -> String) {
  if tracing { fputs(text() + "\n", stderr) }
}

func hex(_ bytes: [UInt8]) -> String {
  bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}

// MARK: - Configs

let configs: [String] = [
  // Forwarding with a cache, stale answers and local data (the config
  // EngineFuzzTests uses too: Tests/EngineTests/EngineFuzzShared.swift).
  forwardingFuzzConfig,
  // Every hijack defence on.
  """
  listen 127.0.0.1:53
  upstream udp 127.0.0.1:5300
  upstream udp 127.0.0.2:5300
  upstream tcp 127.0.0.3:5353 trusted
  timeout 200ms
  inflight 16
  cache 16
  cache-bytes 16k
  verify example.com
  hold-on 30ms
  rebind-protection on
  rebind-allow nas.example
  detect-nxdomain-redirect on
  bogus 93.184.216.0/28
  bogus-nxdomain 10.9.0.0/16
  override printer.lan 192.168.1.10
  """,
  // A tiny cache that evicts, refresh on hits and stale-first, an HTTPDNS
  // upstream (A and AAAA only), a rate limit, ANY forwarded, no 0x20.
  """
  listen 127.0.0.1:53
  upstream httpdns 127.0.0.4 format=dnspod
  upstream udp 127.0.0.1:5300
  upstream tcp 127.0.0.3:5353
  timeout 100ms
  inflight 16
  cache 4
  cache-bytes 16k
  stale 1h
  stale-first on
  prefetch-hits 1
  min-ttl 5
  max-ttl 1h
  neg-ttl-max 60
  rate-limit 40/s
  refuse-any off
  case-randomization off
  """,
  // DNSSEC validation under the root's anchors, with hold-on: every
  // unsigned answer needs chain fetches (pending pool, joins, deadlines).
  """
  listen 127.0.0.1:53
  upstream udp 127.0.0.1:5300
  upstream tcp 127.0.0.3:5353
  timeout 200ms
  inflight 16
  cache 16
  cache-bytes 16k
  hold-on 30ms
  dnssec on
  """,
]

/// The settings of each config, parsed once.
let settings: [Settings] = configs.enumerated().map { index, text in
  do throws(ConfigError) {
    return try ConfigParser.parse(text, fileName: "fuzz-\(index).conf")
  } catch {
    fatalError("fuzz config \(index) is invalid: \(error.description)")
  }
}

// MARK: - A recording environment

struct SentQuery {
  var bytes: [UInt8]
  var upstream: Int
  var transport: UpstreamTransport
  var handle: TransactionHandle
}

struct FuzzEnvironment: EngineEnvironment {
  var replies: [(bytes: [UInt8], client: ClientRef)] = []
  var queries: [SentQuery] = []
  var randomState: UInt64 = 0x0DD5_EED5
  /// `sendToUpstream` fails this many times more.
  var failingSends = 0

  mutating func sendToClient(framed: UnsafeMutableRawBufferPointer, client: ClientRef) {
    require(framed.count >= 2, "framed reply without headroom")
    replies.append((Array(framed[2...]), client))
  }

  mutating func sendToUpstream(
    framed: UnsafeMutableRawBufferPointer, upstream: Int, transport: UpstreamTransport,
    transaction: TransactionHandle
  ) -> Bool {
    require(framed.count >= 2, "framed query without headroom")
    if failingSends > 0 {
      failingSends -= 1
      return false
    }
    queries.append(
      SentQuery(
        bytes: Array(framed[2...]), upstream: upstream, transport: transport,
        handle: transaction))
    return true
  }

  mutating func releaseUpstream(transaction: TransactionHandle, transport: UpstreamTransport) {}

  /// SplitMix64: deterministic, so a saved input replays exactly.
  mutating func randomUInt64() -> UInt64 {
    randomState &+= 0x9E37_79B9_7F4A_7C15
    var z = randomState
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  mutating func report(_ event: EngineEvent, upstream: Int) {}

  var logsQueries: Bool { true }
  var wallClockSeconds: Int64 { 0 }
  mutating func logQuery(
    client: ClientRef, name: UnsafeRawBufferPointer, type: RRType, outcome: QueryOutcome,
    upstream: Int, latencyMilliseconds: UInt64
  ) {
    require(name.count <= Name.maxLength, "logged name too long")
  }
}

// MARK: - The script

struct Script {
  let bytes: UnsafeRawBufferPointer
  var position = 0
  var isDone: Bool { position >= bytes.count }
  /// The next byte, 0 past the end.
  mutating func byte() -> UInt8 {
    defer { position += 1 }
    return position < bytes.count ? bytes[position] : 0
  }
  mutating func below(_ bound: Int) -> Int { Int(byte()) % bound }
  mutating func uint16() -> UInt16 { UInt16(byte()) << 8 | UInt16(byte()) }
  /// Up to `limit` bytes, the count first.
  mutating func chunk(limit: Int = 255) -> [UInt8] {
    let count = min(Int(byte()), limit)
    var out: [UInt8] = []
    for _ in 0..<count where !isDone { out.append(byte()) }
    return out
  }
}

let names = [
  "www.example.com", "example.com", "a.b.c.example.org", "printer.lan", "x.dev.lan",
  "ads.example", "sub.ads.example", "mail.example.net", "nas.example", "4.3.2.1.in-addr.arpa",
  "_dmarc.example.com", ".", "stats.dnsward", "version.bind",
  String(repeating: "abcdefghij", count: 6) + "." + String(repeating: "klmnopqrst", count: 6)
    + ".example",
  "www.example.com.dev.lan",
]
let types: [UInt16] = [1, 1, 28, 255, 15, 16, 65, 5, 2, 12, 33, 6, 41, 99, 252, 0]

func build(_ body: (inout MessageWriter) throws(WireError) -> Void) -> [UInt8] {
  var buffer = [UInt8](repeating: 0, count: 8192)
  let count = buffer.withUnsafeMutableBytes { raw -> Int in
    var writer = MessageWriter(buffer: raw)
    do throws(WireError) {
      try body(&writer)
    } catch {
      fatalError("a fuzz message does not fit")
    }
    return writer.count
  }
  return Array(buffer[0..<count])
}

func write(_ writer: inout MessageWriter, _ bytes: [UInt8]) throws(WireError) {
  let failure = bytes.withUnsafeBytes { raw -> WireError? in
    do throws(WireError) {
      try writer.write(raw)
      return nil
    } catch {
      return error
    }
  }
  if let failure { throw failure }
}

/// A query from the script's fields.
func clientQuery(_ script: inout Script) -> [UInt8] {
  var name = flat(names[script.below(names.count)])
  let type = types[script.below(types.count)]
  let bits = script.byte()
  let payloads: [UInt16] = [0, 511, 512, 1232, 4096, 65_535, 1400, 700]
  let payload = payloads[script.below(payloads.count)]
  var caseBits = script.byte()
  let id = script.uint16()
  // Letter case from the script's bits.
  for index in name.indices where Name.asciiLowercased(name[index]) &- 0x61 < 26 {
    if caseBits & 1 == 1 { name[index] &= ~0x20 }
    caseBits = caseBits >> 1 | caseBits << 7
  }
  return build { (writer: inout MessageWriter) throws(WireError) in
    var flags = HeaderFlags(rawValue: 0)
    flags.set(HeaderFlags.recursionDesired, bits & 1 == 0)
    flags.set(HeaderFlags.checkingDisabled, bits & 2 != 0)
    flags.set(HeaderFlags.authenticData, bits & 4 != 0)
    if bits & 0x80 != 0 { flags.opcode = Opcode(rawValue: bits >> 3 & 0x0F) }
    let edns = bits & 8 != 0
    try writer.writeHeader(id: id, flags: flags, questions: 1, additionals: edns ? 1 : 0)
    try write(&writer, name)
    try writer.writeUInt16(type)
    try writer.writeUInt16(bits & 0x40 != 0 ? 3 : 1)  // CH or IN
    if edns {
      try writer.writeUInt8(0)
      try writer.writeUInt16(RRType.opt.rawValue)
      try writer.writeUInt16(payload)
      let version: UInt32 = bits & 0x20 != 0 ? 1 << 16 : 0
      try writer.writeUInt32(version | (bits & 0x10 != 0 ? OPTRecord.dnssecOKBit : 0))
      try writer.writeUInt16(0)
    }
  }
}

/// What an honest upstream answers to `query`, shaped by the script.
func upstreamAnswer(to query: [UInt8], _ script: inout Script) -> [UInt8] {
  let rcodes: [UInt16] = [0, 0, 0, 3, 2, 5, 4, 1]
  let rcode = rcodes[script.below(rcodes.count)]
  let shape = script.byte()
  let ttls: [UInt32] = [0, 1, 30, 300, 3600, 86_400, 0x7FFF_FFFF, 0xFFFF_FFFF]
  let ttl = ttls[Int(shape >> 5)]
  let family = script.byte()
  var count = Int(shape & 3)
  if shape & 0x1C == 0x1C { count = 20 + Int(family & 0x3F) }
  return query.withUnsafeBytes { raw -> [UInt8] in
    guard let asked = try? Message(validating: raw), asked.hasQuestion else { return [] }
    let question = Array(raw[HeaderField.size..<asked.questionEnd])
    return build { (writer: inout MessageWriter) throws(WireError) in
      var flags = HeaderFlags(
        rawValue: HeaderFlags.response | HeaderFlags.recursionAvailable | asked.flags.rawValue
          & (HeaderFlags.recursionDesired | HeaderFlags.checkingDisabled))
      flags.set(HeaderFlags.truncated, shape & 4 != 0 && shape & 0x1C != 0x1C)
      flags.rcode = ResponseCode(rawValue: rcode)
      let withOPT = shape & 8 != 0
      let soa = rcode == 3 && shape & 0x10 != 0
      try writer.writeHeader(
        id: asked.id, flags: flags, questions: 1, answers: UInt16(count),
        authorities: soa ? 1 : 0, additionals: withOPT ? 1 : 0)
      var question = question
      if family & 0x40 != 0, let letter = question.firstIndex(where: { $0 &- 0x61 < 26 }) {
        question[letter] ^= 0x20  // the case an upstream that ignores 0x20 sends back
      }
      try write(&writer, question)
      // Real, bogus, redirect, private, loopback and documentation addresses
      // (the last byte counts up where it says 0); AAAA as fd00::/104 + IPv4.
      let v6 = family & 0x80 != 0
      let addresses: [[UInt8]] = [
        [93, 184, 216, 34], [93, 184, 216, 7], [10, 9, 1, 0], [192, 168, 1, 0], [127, 0, 0, 1],
        [198, 51, 100, 0],
      ]
      let v4 = addresses[Int(family >> 2) % addresses.count]
      var record: [UInt8] = [0xC0, UInt8(HeaderField.size), 0, v6 ? 28 : 1, 0, 1]
      record += [UInt8(ttl >> 24), UInt8(ttl >> 16 & 0xFF), UInt8(ttl >> 8 & 0xFF)]
      record += [UInt8(ttl & 0xFF), 0, v6 ? 16 : 4]
      record += v6 ? [0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] + v4 : v4
      for index in 0..<count {
        if v4[3] == 0 { record[record.count - 1] = UInt8(truncatingIfNeeded: index) }
        try write(&writer, record)
      }
      if soa {
        try writer.writeUInt16(0xC000 | UInt16(HeaderField.size))
        try writer.writeUInt16(RRType.soa.rawValue)
        try writer.writeUInt16(RRClass.internet.rawValue)
        try writer.writeUInt32(ttl)
        try writer.writeUInt16(2 + 2 + 20)
        try write(&writer, [1, 0x6E, 0, 1, 0x68, 0])
        for value: UInt32 in [1, 7200, 3600, 1_209_600, UInt32(family)] {
          try writer.writeUInt32(value)
        }
      }
      if withOPT { try writer.writeOPT(udpPayloadSize: 1232) }
    }
  }
}

// MARK: - The checks

/// What the run expects for one client packet, the question as its bytes
/// (name as sent, type, class).
typealias Asked = AskedPacket<[UInt8]>

func question(_ bytes: [UInt8]) -> [UInt8]? {
  bytes.withUnsafeBytes { raw -> [UInt8]? in
    guard let message = try? Message(validating: raw), message.hasQuestion else { return nil }
    return Array(raw[message.questionOffset..<message.questionEnd])
  }
}

/// The question of a reply, its name read through compression.
func replyQuestion(_ raw: UnsafeRawBufferPointer, _ message: Message) -> [UInt8] {
  var name = [UInt8](repeating: 0, count: Name.maxLength)
  let length = name.withUnsafeMutableBytes { message.copyQuestionName(into: $0) }
  return Array(name[0..<length]) + Array(raw[(message.questionEnd - 4)..<message.questionEnd])
}

func checkReply(_ bytes: [UInt8], to client: ClientRef, asked: inout [Asked]) {
  let index = Int(client.endpoint.port) - 1024
  require(index >= 0 && index < asked.count && asked[index].client == client, "unknown client")
  asked[index].replies += 1
  let expected = asked[index]
  require(expected.expectsReply, "a reply to a packet that must be dropped")
  require(expected.replies == 1, "a second reply to one query")
  require(bytes.count <= expected.limit, "reply of \(bytes.count) octets > \(expected.limit)")
  bytes.withUnsafeBytes { raw in
    guard let message = try? Message(validating: raw) else {
      fatalError("the engine sent a reply that does not validate")
    }
    require(message.flags.isResponse, "a reply without QR")
    require(message.id == expected.id, "a reply with another ID")
    if let question = expected.question, message.hasQuestion {
      require(replyQuestion(raw, message) == question, "a reply with another question")
    }
  }
}

func checkQuery(_ query: SentQuery, engine: Engine) {
  require(query.upstream >= 0 && query.upstream < engine.upstreams.count, "no such upstream")
  // A truncated UDP answer is asked again over TCP (RFC 7766 §5).
  let configured = engine.upstreams[query.upstream].transport
  require(
    configured == query.transport || (configured == .udp && query.transport == .tcp),
    "a query over a transport the upstream does not have")
  query.bytes.withUnsafeBytes { raw in
    guard let message = try? Message(validating: raw) else {
      fatalError("the engine sent an upstream query that does not validate")
    }
    require(
      !message.flags.isResponse && message.hasQuestion && message.opt != nil
        && message.flags.has(HeaderFlags.recursionDesired) && raw.count <= 512,
      "a malformed upstream query")
  }
}

func checkCapacity(_ engine: Engine) {
  let capacity = engine.settings.inflight
  require(
    engine.activeTransactions >= 0 && engine.activeTransactions <= capacity,
    "\(engine.activeTransactions) transactions in a ring of \(capacity)")
  require(
    engine.waitersInUse >= 0 && engine.waitersInUse <= capacity,
    "\(engine.waitersInUse) waiters for \(capacity)")
  let cache = engine.cache
  require(cache.count >= 0 && cache.count <= cache.capacity, "cache over its entries")
  require(cache.bytesInUse <= cache.arenaBytes, "cache over its bytes")
}

// MARK: - The driver

/// Which client a packet comes from; its port names its `asked` index.
func client(kind: UInt8, index: Int) -> ClientRef {
  let port = UInt16(1024 + index)
  switch kind % 8 {
  case 0, 1, 2:
    return ClientRef(
      endpoint: Endpoint(address: IPAddress(ipv4: 0xC0A8_0108), port: port), listener: 0)
  case 3, 4:
    return ClientRef(
      endpoint: Endpoint(address: IPAddress(ipv4: 0xC0A8_0107), port: port), listener: 1,
      connection: UInt32(port), isTCP: true)
  case 5:
    return ClientRef(
      endpoint: Endpoint(address: IPAddress(ipv4: 0xC633_6401), port: port), listener: 0)
  case 6:
    // fd00::8, inside the default ACL (ULA).
    return ClientRef(
      endpoint: Endpoint(address: IPAddress(high: 0xFD00 << 48, low: 8), port: port), listener: 2
    )
  default:
    return ClientRef(
      endpoint: Endpoint(address: IPAddress(ipv4: 0x7F00_0001), port: port), listener: 0)
  }
}

func run(_ input: UnsafeRawBufferPointer) {
  var script = Script(bytes: input)
  let configIndex = script.below(settings.count)
  let config = settings[configIndex]
  let engine = Engine(
    settings: config, upstreams: config.upstreams, hashKey: HashKey(k0: 0x5EED, k1: 0x5EED_5EED))
  var environment = FuzzEnvironment()
  var now: UInt64 = 50_000
  var asked: [Asked] = []
  var repliesSeen = 0
  var queriesSeen = 0

  func ask(_ packet: [UInt8], kind: UInt8) {
    guard asked.count < 60_000 else { return }
    let from = client(kind: kind, index: asked.count)
    let payload = packet.withUnsafeBytes { raw -> Int? in
      (try? Message(validating: raw))?.opt.map { Int($0.udpPayloadSize) }
    }
    let limit =
      from.isTCP ? 65_535 : max(512, min(payload ?? 512, Int(config.ednsPayloadSize)))
    trace("client \(asked.count) \(from.isTCP ? "tcp" : "udp"): \(hex(packet))")
    asked.append(
      Asked(
        packet: packet, client: from,
        expectsReply: packet.count >= HeaderField.size && packet[2] & 0x80 == 0,
        id: packet.count >= 2 ? UInt16(packet[0]) << 8 | UInt16(packet[1]) : 0, limit: limit,
        question: question(packet)))
    packet.withUnsafeBytes {
      engine.handleClientQuery($0, from: from, now: now, environment: &environment)
    }
  }

  func deliver(_ packet: [UInt8], handle: TransactionHandle?, upstream: Int, from: Endpoint) {
    trace(
      "upstream \(upstream) \(handle.map { "slot \($0.slot)/\($0.generation)" } ?? "tcp")"
        + " from port \(from.port): \(hex(packet))")
    // Whether the attempt is over is the transport's to act on (it
    // disconnects the socket); this one keeps no sockets.
    _ = packet.withUnsafeBytes {
      engine.handleUpstreamReply(
        $0, transaction: handle, upstream: upstream, from: from, ipTTL: 64, now: now,
        environment: &environment)
    }
  }

  /// A query the engine sent: mostly recent ones, sometimes old.
  func pickQuery() -> SentQuery? {
    let queries = environment.queries
    guard !queries.isEmpty else { return nil }
    let pick = Int(script.byte())
    return pick < 192
      ? queries[queries.count - 1 - pick % min(queries.count, 8)] : queries[pick % queries.count]
  }

  func answer(_ packet: [UInt8], to query: SentQuery) {
    let stream = query.transport.isPipelinedStream
    deliver(
      packet, handle: stream ? nil : query.handle, upstream: query.upstream,
      from: engine.upstreams[query.upstream].endpoint)
  }

  func check() {
    for reply in environment.replies[repliesSeen...] {
      trace("  reply to \(Int(reply.client.endpoint.port) - 1024): \(hex(reply.bytes))")
      checkReply(reply.bytes, to: reply.client, asked: &asked)
    }
    repliesSeen = environment.replies.count
    for (number, query) in environment.queries.enumerated().dropFirst(queriesSeen) {
      trace(
        "  query \(number) to \(query.upstream) \(query.transport)"
          + " slot \(query.handle.slot)/\(query.handle.generation): \(hex(query.bytes))")
      checkQuery(query, engine: engine)
    }
    queriesSeen = environment.queries.count
    checkCapacity(engine)
  }

  check()
  while !script.isDone {
    switch script.below(12) {
    case 0, 1:
      let packet = clientQuery(&script)
      ask(packet, kind: script.byte())
    case 2:
      let kind = script.byte()
      ask(script.chunk(), kind: kind)
    case 3, 4:
      guard let query = pickQuery() else { continue }
      answer(upstreamAnswer(to: query.bytes, &script), to: query)
    case 5:
      guard let query = pickQuery() else { continue }
      var packet = upstreamAnswer(to: query.bytes, &script)
      for _ in 0...(script.below(4)) where !packet.isEmpty {
        packet[script.below(packet.count)] = script.byte()
      }
      if script.byte() & 1 == 1 { packet = Array(packet.prefix(Int(script.byte()))) }
      answer(packet, to: query)
    case 6:
      guard let query = pickQuery() else { continue }
      answer(script.chunk(), to: query)
    case 7:
      guard let query = pickQuery() else { continue }
      let packet = upstreamAnswer(to: query.bytes, &script)
      let server = engine.upstreams[query.upstream].endpoint
      switch script.below(3) {
      case 0:
        let handle = TransactionHandle(
          slot: UInt32(script.below(20)), generation: UInt32(script.below(8)))
        deliver(packet, handle: handle, upstream: query.upstream, from: server)
      case 1:
        deliver(
          packet, handle: nil, upstream: script.below(engine.upstreams.count), from: server)
      default:
        let port = Endpoint(address: server.address, port: server.port &+ 1)
        deliver(packet, handle: query.handle, upstream: query.upstream, from: port)
      }
    case 8:
      let step = UInt64(script.byte())
      now += step & 0x80 != 0 ? (step & 0x7F) * 1000 : step * 3
      trace("clock \(now)")
      engine.tick(now: now, environment: &environment)
    case 9:
      guard let query = pickQuery() else { continue }
      trace("attempt failed: slot \(query.handle.slot)/\(query.handle.generation)")
      engine.attemptFailed(transaction: query.handle, now: now, environment: &environment)
    case 10:
      trace("connection lost")
      engine.upstreamConnectionLost(
        upstream: script.below(engine.upstreams.count), now: now, environment: &environment)
    default:
      if script.byte() & 1 == 0 {
        trace("network changed")
        engine.networkChanged(now: now, environment: &environment)
      } else {
        environment.failingSends = script.below(4)
        trace("the next \(environment.failingSends) sends fail")
      }
    }
    check()
  }

  // Let everything in flight run out.
  environment.failingSends = 0
  var rounds = 0
  while engine.activeTransactions > 0 && rounds < 200 {
    now += 1000
    trace("drain: clock \(now)")
    engine.tick(now: now, environment: &environment)
    check()
    rounds += 1
  }
  require(engine.activeTransactions == 0, "transactions left after the clock ran out")
  require(engine.waitersInUse == 0, "waiters left after the clock ran out")
  let unanswered = asked.filter { $0.expectsReply && $0.replies == 0 }.count
  for (index, client) in asked.enumerated() where client.expectsReply && client.replies == 0 {
    trace("client \(index) never got a reply")
  }
  require(
    UInt64(unanswered) == engine.statistics[.rateLimited],
    "\(unanswered) clients never got a reply (\(engine.statistics[.rateLimited]) rate-limited)")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  run(UnsafeRawBufferPointer(start: data, count: size))
  return 0
}
