import CompiledConfig
import Config
import DNSWire
import Engine

// libFuzzer target: the dnsward.conf parser on arbitrary bytes (built and
// run by .ci/fuzz.sh; not a SwiftPM target).
//
// The input up to its first NUL byte is the config; what follows is the
// content of every file a `block-list` line names (a path whose last byte is
// odd cannot be read). The parser must return settings or a
// `file:line: message` error, never trap. An error names the config (with a
// line that exists, or 0 for the whole file) or a block list. Accepted
// settings are within the documented ranges; the generator and the summary
// run on them; every override entry is found again by lookup; and an engine
// is made from them (sizes capped) and answers a query ("everything the
// parser accepts is valid for the engine").

let fileName = "fuzz.conf"

struct NullEnvironment: EngineEnvironment {
  var replies = 0
  mutating func sendToClient(framed: UnsafeMutableRawBufferPointer, client: ClientRef) {
    replies += 1
  }
  mutating func sendToUpstream(
    framed: UnsafeMutableRawBufferPointer, upstream: Int, transport: UpstreamTransport,
    transaction: TransactionHandle
  ) -> Bool { true }
  mutating func releaseUpstream(transaction: TransactionHandle, transport: UpstreamTransport) {}
  /// Different every call (a Weyl sequence): the engine draws IDs until one
  /// is free on a TCP connection, so a constant here looped forever once two
  /// queries were pipelined to one TCP upstream (a redirect probe after the
  /// client's question) — the harness's fault, not the engine's.
  var randomState: UInt64 = 0x0123_4567_89AB_CDEF
  mutating func randomUInt64() -> UInt64 {
    randomState &+= 0x9E37_79B9_7F4A_7C15
    return randomState
  }
  mutating func report(_ event: EngineEvent, upstream: Int) {}
  var wallClockSeconds: Int64 { 0 }
}

/// www.example.com A? with RD and an OPT.
let query: [UInt8] =
  [0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 1]
  + [3] + Array("www".utf8) + [7] + Array("example".utf8) + [3] + Array("com".utf8) + [0]
  + [0, 1, 0, 1] + [0, 0, 41, 0x04, 0xD0, 0, 0, 0, 0, 0, 0]

func checkSettings(_ settings: Settings) {
  require(!settings.listen.isEmpty, "accepted without a listener")
  let inflight = settings.inflight
  require(
    inflight >= 16 && inflight <= 65_536 && inflight & (inflight - 1) == 0,
    "inflight \(inflight) is not a power of two in 16...65536")
  require(
    settings.timeoutMilliseconds >= 50 && settings.timeoutMilliseconds <= 60_000,
    "timeout out of range")
  require(
    settings.ednsPayloadSize >= 512 && settings.ednsPayloadSize <= 4096, "edns-size out of range")
  require(settings.workers >= 1 && settings.workers <= 64, "workers out of range")
  require(settings.cacheEntries >= 0, "negative cache")
  require(settings.holdOnMilliseconds <= 1000, "hold-on out of range")

  // Every override entry answers what it names: an exact entry its name
  // (an override wins over a listed block of the same name), a block its
  // name, a wildcard the names below it (asked with a label no config can
  // hold, so no other entry is more specific).
  let table = settings.overrides
  for entry in 0..<min(table.count, 64) {
    let kind = table.kind(at: entry)
    let answered = table.withName(at: entry) { name -> Bool in
      switch kind {
      case .exact: return table.lookup(name)?.kind == .exact
      case .block: return table.lookup(name) != nil
      default:
        let child: [UInt8] = [1, 1] + Array(name)
        return child.withUnsafeBytes { table.lookup($0).map { $0.kind != .exact } ?? false }
      }
    }
    require(answered, "override entry \(entry) (\(kind)) does not answer its name")
  }

  _ = ConfigGenerator.swiftSource(settings, sourceName: fileName)
  _ = ConfigGenerator.summary(settings)

  // The engine takes them and answers. The sizes are capped, so that each
  // input allocates little (the defaults alone are a 1 MiB cache).
  var small = settings
  small.inflight = min(settings.inflight, 64)
  small.cacheEntries = min(settings.cacheEntries, 64)
  small.cacheBytes = min(settings.cacheBytes, 16 << 10)
  let engine = Engine(settings: small, upstreams: small.upstreams, hashKey: HashKey(k0: 1, k1: 2))
  var environment = NullEnvironment()
  let client = ClientRef(
    endpoint: Endpoint(address: IPAddress(ipv4: 0x7F00_0001), port: 40_000), listener: 0)
  query.withUnsafeBytes {
    engine.handleClientQuery($0, from: client, now: 1_000, environment: &environment)
  }
  engine.tick(now: 100_000, environment: &environment)
  require(engine.activeTransactions <= small.inflight, "ring over capacity")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let input = Array(UnsafeRawBufferPointer(start: data, count: size))
  let split = input.firstIndex(of: 0) ?? input.count
  let text = Array(input[..<split])
  let list = split < input.count ? Array(input[(split + 1)...]) : []
  let lines = text.filter { $0 == UInt8(ascii: "\n") }.count + 1
  var listPaths: [[UInt8]] = []
  let readFile: ConfigFileReader = { path in
    listPaths.append(path)
    if let last = path.last, last & 1 == 1 {
      return .failure(ConfigFileError(reason: "No such file or directory"))
    }
    return .success(list)
  }
  let settings: Settings
  do throws(ConfigError) {
    settings = try ConfigParser.parse(bytes: text, fileName: fileName, readFile: readFile)
  } catch {
    require(error.line >= 0, "negative line")
    require(!error.message.isEmpty, "an error without a message")
    if error.file == fileName {
      require(error.line <= lines, "error on line \(error.line) of \(lines)")
    } else {
      require(
        listPaths.contains { String(decoding: $0, as: UTF8.self) == error.file },
        "an error in an unknown file: \(error.file)")
    }
    require(error.description.hasPrefix(error.file), "description without the file")
    return 0
  }
  checkSettings(settings)
  return 0
}
