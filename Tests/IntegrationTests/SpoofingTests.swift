import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// Off-path cache poisoning, played for real (issue 8, item 2): while the
/// upstream takes 400 ms to answer, an attacker floods dnsward with forged
/// answers for the names being asked, and neither a client nor the cache
/// may ever see the forged address.
///
/// The attacker is as strong as an off-path one gets: it sends from the
/// upstream's own socket (source address and port exactly right), it
/// knows which names are asked and when (it may be a LAN client asking
/// them itself), and the forged question is right too — type, class and
/// name in lower case, or in a random case of its own. What it cannot know
/// is what dnsward chose: the 16-bit ID, the source port (one of the
/// kernel's ephemeral range) and the 0x20 case. Forgeries that land on one
/// of dnsward's upstream sockets show up in `mismatchedID` (the kernel
/// drops the rest), so the test also shows that the flood reached it.
final class SpoofingTests: XCTestCase {
  static let trueAddress = "192.0.2.53"
  static let forgedAddress: (UInt8, UInt8, UInt8, UInt8) = (203, 0, 113, 66)
  static let upstreamDelay = 400

  func startVictim() throws -> (FakeUpstream, DnswardProcess) {
    let upstream = try FakeUpstream(
      .slow(milliseconds: Self.upstreamDelay), answer: (192, 0, 2, 53))
    do {
      // A generous timeout: under qemu the answer must still beat it.
      let dnsward = try DnswardProcess(
        forwardingTo: upstream,
        """
        timeout 4s
        """)
      return (upstream, dnsward)
    } catch {
      upstream.stop()
      throw error
    }
  }

  /// Many names at once, eight per round, each round flooded until every
  /// client has its answer; then every name asked again from the cache.
  func testForgedAnswersForManyNamesNeverReachClientsOrCache() throws {
    let (upstream, dnsward) = try startVictim()
    defer {
      dnsward.stop()
      upstream.stop()
    }
    let attacker = Spoofer(from: upstream, victim: dnsward.process.processIdentifier)
    var names: [String] = []
    var replies: [Reply?] = []
    for round in 0..<5 {
      let batch = (0..<8).map { "target-\(round)-\($0).example" }
      names += batch
      let queries = batch.enumerated().map { dnsQuery($1, id: UInt16(round * 8 + $0)) }
      let clients = Background { ConnectedClients.ask(queries, port: dnsward.port, timeout: 8) }
      attacker.flood(names: batch, randomCase: round % 2 == 1, until: clients.isDone)
      replies += clients.result.map { Reply($0) }
    }
    XCTAssertEqual(replies.count, names.count, "every client was answered")
    let poisoned = replies.filter { $0?.addresses != [Self.trueAddress] }
    XCTAssertEqual(poisoned.count, 0, "answers that are not the true one: \(poisoned)")

    // The cache: every name again, answered without asking the upstream.
    let asked = upstream.udpQuestions.filter { names.contains($0) }.count
    let again = ConnectedClients.ask(
      names.enumerated().map { dnsQuery($1, id: UInt16(1000 + $0)) }, port: dnsward.port,
      timeout: 5)
    XCTAssertEqual(again.count, names.count)
    XCTAssertTrue(again.allSatisfy { Reply($0)?.addresses == [Self.trueAddress] })
    XCTAssertEqual(
      upstream.udpQuestions.filter { names.contains($0) }.count, asked,
      "the second answers came from the cache")

    let counters = dnsward.counters()
    let landed = (counters["mismatchedID"] ?? 0) + (counters["mismatchedCase"] ?? 0)
    print(
      "spoofing: \(attacker.sent) forgeries for \(names.count) names, \(landed) landed on"
        + " dnsward's upstream sockets, \(poisoned.count) poisoned answers")
    XCTAssertEqual(counters["mismatchedSource"], 0)
    // With 8 sockets open most of the time, a flood of this size hits one
    // about every 3,500 forgeries; below that the check would be luck.
    if attacker.sent >= 50_000 {
      XCTAssertGreaterThan(landed, 0, "the flood never reached dnsward: the test proved nothing")
    }
  }

  /// The birthday attack (DNSpooq CVE-2020-25686): many clients ask one
  /// name at once, hoping the forwarder sends as many upstream queries —
  /// as many targets for each forgery. dnsward sends one.
  func testManyClientsAskingOneNameGiveOneTarget() throws {
    let (upstream, dnsward) = try startVictim()
    defer {
      dnsward.stop()
      upstream.stop()
    }
    let attacker = Spoofer(from: upstream, victim: dnsward.process.processIdentifier)
    var poisoned = 0
    for round in 0..<4 {
      let name = "birthday-\(round).example"
      let queries = (0..<64).map { dnsQuery(name, id: UInt16($0)) }
      let clients = Background { ConnectedClients.ask(queries, port: dnsward.port, timeout: 8) }
      attacker.flood(names: [name], randomCase: round % 2 == 1, until: clients.isDone)
      let replies = clients.result
      XCTAssertEqual(replies.count, 64)
      let wrong = replies.filter { Reply($0)?.addresses != [Self.trueAddress] }.count
      poisoned += wrong
      XCTAssertEqual(wrong, 0, "\(name): a client got something else than the true answer")
      XCTAssertEqual(
        upstream.udpQuestions.filter { $0 == name }.count, 1,
        "\(name): one upstream query for 64 clients")
      XCTAssertEqual(
        dnsward.ask(name)?.addresses,
        [Self.trueAddress], "\(name) in the cache")
    }
    let counters = dnsward.counters()
    print(
      "birthday: \(attacker.sent) forgeries, 4 names x 64 clients,"
        + " \(counters["coalesced"] ?? 0) questions coalesced, \(poisoned) poisoned answers;"
        // Why a question went upstream twice, if one did.
        + " retried \(counters["retried"] ?? 0), mismatchedCase \(counters["mismatchedCase"] ?? 0),"
        + " mismatchedID \(counters["mismatchedID"] ?? 0), sendErrors \(counters["sendErrors"] ?? 0),"
        + " timeouts \(counters["timeouts"] ?? 0)")
    XCTAssertGreaterThanOrEqual(counters["coalesced"] ?? 0, 4 * 60)
  }
}

/// Runs `work` on a thread of its own; `result` waits for it.
final class Background<T> {
  private let lock = NSCondition()
  private var value: T?

  init(_ work: @escaping () -> T) {
    Thread.detachNewThread { [self] in
      let produced = work()
      lock.withLock {
        value = produced
        lock.broadcast()
      }
    }
  }

  func isDone() -> Bool { lock.withLock { value != nil } }

  var result: T {
    lock.withLock {
      while value == nil { lock.wait() }
      return value!
    }
  }
}

/// Clients that each ask one question at once from a socket of their own,
/// connected to dnsward as a stub resolver's is: the kernel gives them
/// only what comes from dnsward's address and port.
enum ConnectedClients {
  static func ask(_ queries: [[UInt8]], port: UInt16, timeout: TimeInterval) -> [[UInt8]] {
    var address = StubClient.loopback(port)
    let sockets = queries.map { query -> Int32 in
      let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
      _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      _ = send(fd, query, query.count, 0)
      return fd
    }
    defer { sockets.forEach { close($0) } }
    var replies: [[UInt8]] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    let deadline = Date().addingTimeInterval(timeout)
    for fd in sockets {
      let left = max(0.001, deadline.timeIntervalSinceNow)
      var tv = timeval(tv_sec: Int(left), tv_usec: Int((left - Double(Int(left))) * 1e6))
      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
      let received = recv(fd, &buffer, buffer.count, 0)
      if received > 0 { replies.append(Array(buffer[0..<received])) }
    }
    return replies
  }
}

/// The attacker: forged answers from the upstream's own socket, with random
/// IDs, to random ports of the ephemeral range on 127.0.0.1.
///
/// Ports held by other processes' sockets (and by this test process's
/// own) are left out (read from /proc/net/udp{,6} every
/// 100 ms): the flood is meant for dnsward, not for whatever else uses this
/// machine's loopback. dnsward cannot be using those ports, so the attack
/// is no weaker for it.
final class Spoofer {
  let socket: Int32
  let victim: pid_t
  let ports: ClosedRange<Int>
  private(set) var sent = 0
  private var excluded = [Bool](repeating: false, count: 65536)
  private var random = SplitMix64(seed: UInt64(UInt32.random(in: 0...UInt32.max)))

  init(from upstream: FakeUpstream, victim: pid_t) {
    socket = upstream.udpDescriptor
    self.victim = victim
    ports = Self.ephemeralPorts()
  }

  /// /proc/sys/net/ipv4/ip_local_port_range: where the kernel picks the
  /// source port of a connected UDP socket.
  static func ephemeralPorts() -> ClosedRange<Int> {
    let text =
      (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))
      ?? ""
    let numbers = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap {
      Int($0)
    }
    guard numbers.count == 2, numbers[0] <= numbers[1] else { return 32768...60999 }
    return numbers[0]...numbers[1]
  }

  /// A forged answer to `name` A IN: flags QR RD RA, the question, and one
  /// A record with the forged address and a day's TTL. The ID is set per
  /// send.
  static func forgery(for name: String) -> [UInt8] {
    var message: [UInt8] = [0, 0, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0]
    for label in name.lowercased().split(separator: ".") {
      message.append(UInt8(label.utf8.count))
      message += Array(label.utf8)
    }
    message += [0, 0, 1, 0, 1]
    let address = SpoofingTests.forgedAddress
    message += [0xC0, 0x0C, 0, 1, 0, 1, 0, 1, 0x51, 0x80, 0, 4]
    message += [address.0, address.1, address.2, address.3]
    return message
  }

  /// Floods forged answers for `names` until `done()` (checked between
  /// bursts) or 20 s. With `randomCase`, every forgery's name gets a fresh
  /// random case (a guess at 0x20); otherwise it is lower case.
  func flood(names: [String], randomCase: Bool, until done: () -> Bool) {
    var templates = names.map { Self.forgery(for: $0) }
    let nameEnds = names.map { 12 + $0.utf8.count + 1 }
    var address = StubClient.loopback(0)
    var lastRefresh = Date.distantPast
    let end = Date().addingTimeInterval(20)
    let span = UInt64(ports.count)
    while !done() && Date() < end {
      if Date().timeIntervalSince(lastRefresh) > 0.1 {
        refreshExcludedPorts()
        lastRefresh = Date()
      }
      for _ in 0..<512 {
        let index = Int(random.next() % UInt64(templates.count))
        let bits = random.next()
        templates[index][0] = UInt8(truncatingIfNeeded: bits)
        templates[index][1] = UInt8(truncatingIfNeeded: bits >> 8)
        if randomCase {
          var caseBits = random.next()
          for offset in 13..<nameEnds[index] {
            let byte = templates[index][offset]
            if byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A {
              templates[index][offset] = caseBits & 1 == 0 ? byte | 0x20 : byte & ~0x20
              caseBits >>= 1
            }
          }
        }
        let port = ports.lowerBound + Int((bits >> 16) % span)
        if excluded[port] { continue }
        address.sin_port = UInt16(port).bigEndian
        let result = templates[index].withUnsafeBytes { bytes in
          withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
              sendto(
                socket, bytes.baseAddress, bytes.count, 0, $0,
                socklen_t(MemoryLayout<sockaddr_in>.size))
            }
          }
        }
        if result > 0 { sent += 1 }
      }
    }
  }

  /// Marks every UDP port held by a socket that is not the victim's.
  func refreshExcludedPorts() {
    let fdDirectory = "/proc/\(victim)/fd"
    var victimInodes = Set<Substring>()
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: fdDirectory)) ?? [] {
      if let target = try? FileManager.default.destinationOfSymbolicLink(
        atPath: fdDirectory + "/" + entry), target.hasPrefix("socket:[")
      {
        victimInodes.insert(Substring(target.dropFirst(8).dropLast()))
      }
    }
    excluded = [Bool](repeating: false, count: 65536)
    for table in ["/proc/net/udp", "/proc/net/udp6"] {
      guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
      for line in text.split(separator: "\n").dropFirst() {
        let fields = line.split(separator: " ")
        guard fields.count > 9, !victimInodes.contains(fields[9]),
          let colon = fields[1].lastIndex(of: ":"),
          let port = Int(fields[1][fields[1].index(after: colon)...], radix: 16)
        else { continue }
        excluded[port] = true
      }
    }
  }
}
