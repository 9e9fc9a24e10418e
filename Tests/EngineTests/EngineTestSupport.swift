import CompiledConfig
import Config
import DNSWire
import Engine
import TestSupport
import XCTest

// Test support for the sans-I/O engine (Sources/README.md, Conventions
// 12: a fake clock for the engine): a recording environment (its random source is TestSupport's
// SplitMix64), message builders and a decoder that turns wire bytes into
// plain values to assert on.

// MARK: - Recording environment

struct SentReply {
  var bytes: [UInt8]
  var client: ClientRef
}

struct SentQuery {
  var bytes: [UInt8]
  var upstream: Int
  var transport: UpstreamTransport
  var handle: TransactionHandle
  /// What `sendToUpstream` returned.
  var accepted: Bool
}

struct Released: Equatable {
  var handle: TransactionHandle
  var transport: UpstreamTransport
}

/// One `logQuery` call, the name in presentation form.
struct LoggedQuery: Equatable {
  var client: ClientRef
  var name: String
  var type: RRType
  var outcome: QueryOutcome
  var upstream: Int
  var latencyMilliseconds: UInt64
}

struct Reported: Equatable {
  var event: EngineEvent
  var upstream: Int
}

/// One `reportDefence` call, the name in presentation form.
struct ReportedDefence: Equatable {
  var event: DefenceEvent
  var name: String
  var address: IPAddress?
  var upstream: Int
}

/// Implements `EngineEnvironment` with arrays. Every buffer the engine hands
/// over is copied out at once (it is valid only during the call).
struct NftSetAdd: Equatable {
  var directives: UInt64
  var address: [UInt8]
  var ttl: UInt32
}

struct FakeEnvironment: EngineEnvironment {
  var replies: [SentReply] = []
  /// Every send attempt, accepted or not, in order.
  var queries: [SentQuery] = []
  var released: [Released] = []
  var events: [Reported] = []
  var random: SplitMix64
  /// Returned by `randomUInt64` before `random` is used: lets a golden test
  /// pick the upstream ID and the 0x20 bits.
  var scriptedRandom: [UInt64] = []
  /// `sendToUpstream` returns false for these upstreams.
  var unreachable: Set<Int> = []
  /// `sendToUpstream` also returns false this often (fuzzing), drawn from `chaos`.
  var sendFailurePercent = 0
  var chaos = SplitMix64(seed: 0xC4A0_5000)

  init(seed: UInt64) { random = SplitMix64(seed: seed) }

  mutating func sendToClient(framed: UnsafeMutableRawBufferPointer, client: ClientRef) {
    precondition(framed.count >= 2, "framed message without its two bytes of headroom")
    let message = Array(framed[2...])
    // Do what a TCP transport does: write the length prefix in place.
    framed.setUInt16(UInt16(truncatingIfNeeded: message.count), at: 0)
    replies.append(SentReply(bytes: message, client: client))
  }

  mutating func sendToUpstream(
    framed: UnsafeMutableRawBufferPointer, upstream: Int, transport: UpstreamTransport,
    transaction: TransactionHandle
  ) -> Bool {
    precondition(framed.count >= 2, "framed message without its two bytes of headroom")
    let message = Array(framed[2...])
    framed.setUInt16(UInt16(truncatingIfNeeded: message.count), at: 0)
    var accepted = !unreachable.contains(upstream)
    if accepted && sendFailurePercent > 0 && chaos.percent(sendFailurePercent) { accepted = false }
    queries.append(
      SentQuery(
        bytes: message, upstream: upstream, transport: transport, handle: transaction,
        accepted: accepted))
    return accepted
  }

  mutating func releaseUpstream(transaction: TransactionHandle, transport: UpstreamTransport) {
    released.append(Released(handle: transaction, transport: transport))
  }

  mutating func randomUInt64() -> UInt64 {
    if !scriptedRandom.isEmpty { return scriptedRandom.removeFirst() }
    return random.next()
  }

  /// Called by `report`, as the loop's log line is: it may read the engine.
  var onReport: ((EngineEvent, Int) -> Void)?

  mutating func report(_ event: EngineEvent, upstream: Int) {
    events.append(Reported(event: event, upstream: upstream))
    onReport?(event, upstream)
  }

  var defences: [ReportedDefence] = []

  mutating func reportDefence(
    _ event: DefenceEvent, name: UnsafeRawBufferPointer, address: IPAddress?, upstream: Int
  ) {
    defences.append(
      ReportedDefence(
        event: event, name: name.isEmpty ? "" : nameText(Array(name)), address: address,
        upstream: upstream))
  }

  /// `reportBogus` calls: the question, the zone (presentation form,
  /// lower-cased) and the EDE code.
  var bogusReports: [(name: String, zone: String, extendedError: UInt16)] = []

  mutating func reportBogus(
    name: UnsafeRawBufferPointer, zone: UnsafeRawBufferPointer, extendedError: UInt16,
    upstream: Int
  ) {
    bogusReports.append((nameText(Array(name)), nameText(Array(zone)).lowercased(), extendedError))
  }

  /// `nftset`: every address handed to the sets, in order.
  var nftsetAdds: [NftSetAdd] = []

  mutating func addToNftSet(directives: UInt64, address: UnsafeRawBufferPointer, ttl: UInt32) {
    nftsetAdds.append(NftSetAdd(directives: directives, address: Array(address), ttl: ttl))
  }

  /// Whether `logQuery` is wanted (and `loggedQueries` recorded).
  var recordsQueries = false
  var loggedQueries: [LoggedQuery] = []

  var logsQueries: Bool { recordsQueries }
  /// What a signature's validity times are checked against (0: unchecked).
  var wallClockSeconds: Int64 = 0

  mutating func logQuery(
    client: ClientRef, name: UnsafeRawBufferPointer, type: RRType, outcome: QueryOutcome,
    upstream: Int, latencyMilliseconds: UInt64
  ) {
    loggedQueries.append(
      LoggedQuery(
        client: client, name: nameText(Array(name)), type: type, outcome: outcome,
        upstream: upstream, latencyMilliseconds: latencyMilliseconds))
  }
}

// MARK: - Harness: an engine, its environment and a fake clock

/// The base configuration most tests use: two UDP upstreams, a one-second
/// timeout, a ring of 16, and no cache (so that every question reaches the
/// transaction machinery; CacheTests turn it on).
/// The config most engine tests run: `listen 127.0.0.1:53`, one UDP
/// upstream at 127.0.0.1:5300, a 1 s timeout and 16 queries in flight,
/// then `lines`, one directive each.
func engineConfig(_ lines: String...) -> String {
  (["listen 127.0.0.1:53", "upstream udp 127.0.0.1:5300", "timeout 1000ms", "inflight 16"]
    + lines).joined(separator: "\n")
}

let twoUpstreams = """
  listen 127.0.0.1:53
  upstream udp 127.0.0.1:5300
  upstream udp 127.0.0.2:5300
  timeout 1000ms
  inflight 16
  cache 0
  """

/// Settings from config text, through the real parser.
func makeSettings(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> Settings {
  do throws(ConfigError) {
    return try ConfigParser.parse(text, fileName: "engine-test.conf")
  } catch {
    XCTFail("config rejected: \(error.description)", file: file, line: line)
    fatalError("test config must parse")
  }
}

final class Harness {
  let engine: Engine
  var environment: FakeEnvironment
  /// The fake clock, in milliseconds; only ever passed as `now`.
  var now: UInt64 = 50_000

  /// - Parameter adjust: changes the parsed settings before the engine is
  ///   made (settings the config text cannot express).
  init(
    _ config: String = twoUpstreams, seed: UInt64 = 0x0DD5_EED5, hashSeed: UInt32 = 0x5EED,
    adjust: (inout Settings) -> Void = { _ in }
  ) {
    var settings = makeSettings(config)
    adjust(&settings)
    engine = Engine(
      settings: settings, upstreams: settings.upstreams,
      hashKey: HashKey(k0: UInt64(hashSeed), k1: 0x5EED_5EED))
    environment = FakeEnvironment(seed: seed)
  }

  var replies: [SentReply] { environment.replies }
  var queries: [SentQuery] { environment.queries }
  /// The statistics as a reader sees them: levels refreshed first.
  var counters: Statistics {
    engine.refreshLevels()
    return engine.statistics
  }

  /// A client packet arrives. Returns the replies it caused at once.
  @discardableResult
  func ask(_ packet: [UInt8], from client: ClientRef = lanClient()) -> [SentReply] {
    let before = environment.replies.count
    packet.withUnsafeBytes { bytes in
      engine.handleClientQuery(bytes, from: client, now: now, environment: &environment)
    }
    return Array(environment.replies[before...])
  }

  /// An upstream packet arrives: raw form.
  @discardableResult
  func deliver(
    _ packet: [UInt8], transaction: TransactionHandle?, upstream: Int, from source: Endpoint,
    ipTTL: UInt8 = 0
  ) -> [SentReply] {
    let before = environment.replies.count
    let over = packet.withUnsafeBytes { bytes in
      engine.handleUpstreamReply(
        bytes, transaction: transaction, upstream: upstream, from: source, ipTTL: ipTTL, now: now,
        environment: &environment)
    }
    // As the UDP pool does: it ends the attempt the engine is done with.
    if over, let transaction { endAttempt(transaction) }
    return Array(environment.replies[before...])
  }

  /// An upstream packet arrives the way the transport would hand in the
  /// answer to `query`: its own socket's handle for UDP, nil for TCP, from
  /// the upstream's endpoint.
  @discardableResult
  func answer(_ packet: [UInt8], to query: SentQuery, ipTTL: UInt8 = 0) -> [SentReply] {
    deliver(
      packet, transaction: query.transport == .udp ? query.handle : nil, upstream: query.upstream,
      from: engine.upstreams[query.upstream].endpoint, ipTTL: ipTTL)
  }

  /// Moves the fake clock and lets the engine expire what is due.
  @discardableResult
  func advance(by milliseconds: UInt64) -> [SentReply] {
    now += milliseconds
    let before = environment.replies.count
    engine.tick(now: now, environment: &environment)
    return Array(environment.replies[before...])
  }

  /// As a transport does: it ends the attempt, then tells the engine.
  func attemptFailed(_ handle: TransactionHandle) {
    endAttempt(handle)
    engine.attemptFailed(transaction: handle, now: now, environment: &environment)
  }

  /// Records the end of attempt `handle` as its transport ends it itself.
  func endAttempt(_ handle: TransactionHandle) {
    let transport = environment.queries.last { $0.handle == handle }?.transport ?? .udp
    environment.released.append(Released(handle: handle, transport: transport))
  }

  func connectionLost(upstream: Int) {
    engine.upstreamConnectionLost(upstream: upstream, now: now, environment: &environment)
  }

  /// Checks the capacity invariants of the ring and the waiter pool.
  func assertWithinCapacity(file: StaticString = #filePath, line: UInt = #line) {
    let capacity = engine.settings.inflight
    XCTAssertLessThanOrEqual(engine.activeTransactions, capacity, file: file, line: line)
    XCTAssertLessThanOrEqual(engine.waitersInUse, capacity, file: file, line: line)
    XCTAssertGreaterThanOrEqual(engine.waitersInUse, 0, file: file, line: line)
  }
}

// MARK: - Addresses and clients

func ipv4(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> IPAddress {
  IPAddress(ipv4: UInt32(a) << 24 | UInt32(b) << 16 | UInt32(c) << 8 | UInt32(d))
}

/// A client on the LAN (inside the default `allow`).
func lanClient(_ host: UInt8 = 20, port: UInt16 = 40_000, tcp: Bool = false) -> ClientRef {
  ClientRef(
    endpoint: Endpoint(address: ipv4(192, 168, 1, host), port: port), listener: 0,
    connection: tcp ? UInt32(port) : 0, isTCP: tcp)
}

/// 93.184.216.34, the address every fake upstream answers with.
let exampleAddress: [UInt8] = [93, 184, 216, 34]

// MARK: - Building messages

func build(_ body: (inout MessageWriter) throws(WireError) -> Void) -> [UInt8] {
  var buffer = [UInt8](repeating: 0, count: 65_535)
  let count = buffer.withUnsafeMutableBytes { raw -> Int in
    var writer = MessageWriter(buffer: raw)
    do throws(WireError) {
      try body(&writer)
    } catch {
      fatalError("test message does not fit")
    }
    return writer.count
  }
  return Array(buffer[0..<count])
}

struct EDNS {
  var payloadSize: UInt16 = 1232
  var version: UInt8 = 0
  var dnssecOK = false
}

/// A client query, built with the writer under test.
func makeQuery(
  id: UInt16, name: String, type: RRType = .a, rrClass: RRClass = .internet,
  flags: UInt16 = HeaderFlags.recursionDesired, opcode: UInt8 = 0, edns: EDNS? = nil
) -> [UInt8] {
  build { (writer: inout MessageWriter) throws(WireError) in
    var headerFlags = HeaderFlags(rawValue: flags)
    headerFlags.opcode = Opcode(rawValue: opcode)
    try writer.writeHeader(
      id: id, flags: headerFlags, questions: 1, additionals: edns == nil ? 0 : 1)
    try writeBytes(&writer, wireName(name))
    try writer.writeUInt16(type.rawValue)
    try writer.writeUInt16(rrClass.rawValue)
    if let edns { try writeRawOPT(&writer, edns) }
  }
}

/// Writes bytes one at a time (keeps typed throws out of closures).
func writeBytes(_ writer: inout MessageWriter, _ bytes: [UInt8]) throws(WireError) {
  for byte in bytes { try writer.writeUInt8(byte) }
}

/// OPT written field by field, so that any version can be sent.
func writeRawOPT(_ writer: inout MessageWriter, _ edns: EDNS) throws(WireError) {
  try writer.writeUInt8(0)  // root owner
  try writer.writeUInt16(RRType.opt.rawValue)
  try writer.writeUInt16(edns.payloadSize)  // CLASS = payload size
  try writer.writeUInt32(
    UInt32(edns.version) << 16 | (edns.dnssecOK ? OPTRecord.dnssecOKBit : 0))
  try writer.writeUInt16(0)  // RDLENGTH
}

/// What an honest upstream answers to `query` (an upstream query captured
/// from the engine): the same ID and question bytes, QR and RA set, an A
/// record (AAAA for 16-byte addresses) per address owned by a pointer to
/// the question, and an OPT when `withOPT`.
func makeReply(
  to query: [UInt8], rcode: ResponseCode = .noError, truncated: Bool = false,
  addresses: [[UInt8]] = [exampleAddress], ttl: UInt32 = 3600, withOPT: Bool = true
) -> [UInt8] {
  guard let decoded = decode(query) else { fatalError("captured query must parse") }
  return build { (writer: inout MessageWriter) throws(WireError) in
    var flags = replyFlags(to: decoded)
    flags.set(HeaderFlags.truncated, truncated)
    flags.rcode = rcode
    try writer.writeHeader(
      id: decoded.id, flags: flags, questions: 1, answers: UInt16(addresses.count),
      additionals: withOPT ? 1 : 0)
    try writeBytes(&writer, decoded.questionBytes)
    for address in addresses {
      try writeAddressRecord(&writer, address, ttl: ttl)
    }
    if withOPT { try writer.writeOPT(udpPayloadSize: 4096) }
  }
}

/// The flags an honest upstream answers `query` with: QR and RA, and the
/// query's RD and CD.
func replyFlags(to query: Decoded) -> HeaderFlags {
  HeaderFlags(
    rawValue: HeaderFlags.response | HeaderFlags.recursionAvailable
      | query.flags.rawValue & (HeaderFlags.recursionDesired | HeaderFlags.checkingDisabled))
}

/// An A record (AAAA for a 16-byte address) whose owner is a pointer to
/// `ownerOffset`, by default the question name's.
func writeAddressRecord(
  _ writer: inout MessageWriter, _ address: [UInt8], ttl: UInt32,
  ownerOffset: Int = HeaderField.size
) throws(WireError) {
  try writer.writeUInt16(0xC000 | UInt16(ownerOffset))
  try writer.writeUInt16(address.count == 4 ? RRType.a.rawValue : RRType.aaaa.rawValue)
  try writer.writeUInt16(RRClass.internet.rawValue)
  try writer.writeUInt32(ttl)
  try writer.writeUInt16(UInt16(address.count))
  try writeBytes(&writer, address)
}

/// The INFO-CODE of the Extended DNS Error (RFC 8914 §2) in `reply`'s OPT:
/// the engine's OPT is the last record and carries only that option; nil
/// when there is none.
func extendedError(_ reply: SentReply) -> UInt16? {
  let bytes = reply.bytes
  guard bytes.count >= 17 else { return nil }
  let option = Array(bytes[(bytes.count - 6)...])
  guard option[0] == 0, option[1] == 15, option[2] == 0, option[3] == 2 else { return nil }
  return UInt16(option[4]) << 8 | UInt16(option[5])
}

/// `count` distinct IPv4 addresses.
func manyAddresses(_ count: Int) -> [[UInt8]] {
  (0..<count).map { [10, 9, UInt8(truncatingIfNeeded: $0 >> 8), UInt8(truncatingIfNeeded: $0)] }
}

/// Offsets of the letters of the question name of `message`.
func questionLetterOffsets(_ message: [UInt8]) -> [Int] {
  var offsets: [Int] = []
  var position = HeaderField.size
  while position < message.count, message[position] != 0, message[position] < 64 {
    let length = Int(message[position])
    for index in (position + 1)..<min(position + 1 + length, message.count)
    where Name.asciiLowercased(message[index]) &- 0x61 < 26 {
      offsets.append(index)
    }
    position += 1 + length
  }
  return offsets
}

/// `message` with the case of one letter of its question flipped.
func flippingCase(_ message: [UInt8], letter: Int = 0) -> [UInt8] {
  var copy = message
  copy[questionLetterOffsets(message)[letter]] ^= 0x20
  return copy
}

// MARK: - Decoding what the engine sent

struct DecodedRecord {
  var name: [UInt8]
  var type: RRType
  var rrClass: RRClass
  var ttl: UInt32
  var rdata: [UInt8]
}

struct DecodedOPT {
  var payloadSize: UInt16
  var extendedRcode: UInt8
  var version: UInt8
  var dnssecOK: Bool
}

/// A message as plain values, through `Message(validating:)`.
struct Decoded {
  var id: UInt16
  var flags: HeaderFlags
  var questionCount: Int
  var answerCount: Int
  var authorityCount: Int
  var additionalCount: Int
  /// The question name as written (case kept), empty without a question.
  var questionName: [UInt8]
  var questionType: RRType
  var questionClass: RRClass
  /// Header bytes 12..<questionEnd.
  var questionBytes: [UInt8]
  /// Every record but OPT, in order.
  var records: [DecodedRecord]
  var opt: DecodedOPT?
  /// RCODE with the OPT's upper bits.
  var rcode: UInt16

  var questionText: String { nameText(questionName) }
  var isResponse: Bool { flags.isResponse }
  func has(_ bit: UInt16) -> Bool { flags.has(bit) }
  /// RDATA of the A records.
  var ipv4Answers: [[UInt8]] { records.filter { $0.type == .a }.map(\.rdata) }
  var ipv6Answers: [[UInt8]] { records.filter { $0.type == .aaaa }.map(\.rdata) }
}

/// nil when `Message(validating:)` rejects the bytes.
func decode(_ bytes: [UInt8], allowTrailingData: Bool = false) -> Decoded? {
  bytes.withUnsafeBytes { raw -> Decoded? in
    let message: Message
    do throws(WireError) {
      message = try Message(validating: raw, allowTrailingData: allowTrailingData)
    } catch {
      return nil
    }
    var name = [UInt8](repeating: 0, count: 256)
    var nameLength = 0
    if message.hasQuestion {
      nameLength = name.withUnsafeMutableBytes { message.copyQuestionName(into: $0) }
    }
    var records: [DecodedRecord] = []
    var iterator = message.records()
    while let record = iterator.next() {
      guard record.type != .opt else { continue }
      var owner = [UInt8](repeating: 0, count: 256)
      let ownerLength = owner.withUnsafeMutableBytes { out -> Int in
        (try? Name.read(in: raw, at: record.offset, into: out).length) ?? 0
      }
      records.append(
        DecodedRecord(
          name: Array(owner[0..<ownerLength]), type: record.type, rrClass: record.rrClass,
          ttl: record.ttl,
          rdata: Array(raw[record.rdataOffset..<(record.rdataOffset + record.rdataLength)])))
    }
    let opt = message.opt.map {
      DecodedOPT(
        payloadSize: $0.udpPayloadSize, extendedRcode: $0.extendedRcode, version: $0.version,
        dnssecOK: $0.dnssecOK)
    }
    return Decoded(
      id: message.id, flags: message.flags, questionCount: message.questionCount,
      answerCount: message.answerCount, authorityCount: message.authorityCount,
      additionalCount: message.additionalCount, questionName: Array(name[0..<nameLength]),
      questionType: message.hasQuestion ? message.questionType : RRType(rawValue: 0),
      questionClass: message.hasQuestion ? message.questionClass : RRClass(rawValue: 0),
      questionBytes: Array(raw[HeaderField.size..<message.questionEnd]),
      records: records, opt: opt, rcode: message.rcode.rawValue)
  }
}

/// Decodes, or throws (failing the test) when the engine sent something
/// `Message(validating:)` rejects.
func decoded(
  _ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line
) throws -> Decoded {
  try XCTUnwrap(
    decode(bytes), "engine output does not validate: \(hexString(bytes))", file: file, line: line)
}

/// Checks a message against golden bytes, printing both on a mismatch.
func assertBytes(
  _ actual: [UInt8], _ expected: [UInt8], file: StaticString = #filePath, line: UInt = #line
) {
  XCTAssertEqual(
    actual, expected,
    "\n actual:   \(hexString(actual))\n expected: \(hexString(expected))", file: file, line: line)
}

/// The one reply of `replies`, decoded (a test failure unless there is
/// exactly one, and it decodes).
func onlyReply(_ replies: [SentReply], file: StaticString = #filePath, line: UInt = #line)
  throws -> Decoded
{
  XCTAssertEqual(replies.count, 1, file: file, line: line)
  return try XCTUnwrap(decode(try XCTUnwrap(replies.first).bytes), file: file, line: line)
}
