import CompiledConfig
import DNSWire
import Engine
import Platform

/// `override-check tcp:PORT`: every distinct override
/// address is probed with a non-blocking TCP connect to PORT, once at
/// start-up and then every `override-check-interval`, inside the epoll loop.
/// EPOLLOUT with SO_ERROR 0 is a success; an error, or no answer within
/// `timeoutMilliseconds`, a failure. The socket is closed at once either way
/// (a connect-and-close is all the service sees).
///
/// The verdicts go to the engine (`OverrideHealth.setAddress`), which leaves
/// a down address out of override answers and resolves a name normally when
/// the addresses it would answer with are all down (OverrideHealth.swift).
/// An address is marked down after `failuresBeforeDown` consecutive failed
/// rounds (one lost SYN is not an outage) and up again after one success
/// (a completed handshake is proof enough). Transitions are logged.
///
/// Memory: the address list and the probe slots are allocated here at
/// start-up; a round allocates nothing.
final class OverrideProber {
  /// Distinct override addresses probed; more are logged once and never
  /// checked (they are always answered).
  static let maxAddresses = 256
  /// Probes in flight at once: a burst of SYNs stays small on a router.
  static let concurrency = 8
  static let failuresBeforeDown: UInt8 = 2
  /// How long a connect may take, unless the interval is shorter.
  static let connectTimeoutMilliseconds: UInt64 = 3000

  enum State: UInt8 {
    case up
    /// Marked down in the engine.
    case down
    /// Failed, but the engine's table of down addresses was full: still
    /// answered; marking is tried again at each failed round.
    case unmarkable
  }

  struct Target {
    var address: SocketAddress
    var failures: UInt8 = 0
    var state = State.up
  }

  struct Probe {
    var fd = FileDescriptor.invalid
    var target = 0
    var deadline: UInt64 = 0
    /// Bumped at each probe the slot starts, and carried in its epoll
    /// token, so an event for a probe already closed is ignored.
    var generation: UInt32 = 0
  }

  let context: LoopContext
  var log: LogLine { context.log }
  let port: UInt16
  let intervalMilliseconds: UInt64
  let timeoutMilliseconds: UInt64
  let targets: UnsafeMutablePointer<Target>
  let targetCount: Int
  let probes: UnsafeMutablePointer<Probe>
  var inFlight = 0
  /// Whether a round is under way, and the next target it starts.
  var roundActive = false
  var cursor = 0
  /// When the next round starts; 0: at the loop's first turn.
  var nextRound: UInt64 = 0

  /// Collects the distinct addresses of `settings.overrides` (none when
  /// `overrideCheckPort` is 0) and logs what will be probed.
  init(context: LoopContext, logsSummary: Bool) {
    self.context = context
    port = context.settings.overrideCheckPort
    intervalMilliseconds = UInt64(max(context.settings.overrideCheckSeconds, 1)) * 1000
    timeoutMilliseconds = min(Self.connectTimeoutMilliseconds, intervalMilliseconds)
    let capacity = port == 0 ? 1 : Self.maxAddresses
    targets = .allocate(capacity: capacity)
    probes = .allocate(capacity: Self.concurrency)
    probes.initialize(repeating: Probe(), count: Self.concurrency)
    var found = 0
    var omitted = 0
    if port != 0 {
      omitted = Self.collect(context.settings.overrides, port: port, into: targets, count: &found)
    }
    targetCount = found
    guard port != 0, logsSummary else { return }
    if targetCount == 0 {
      log.start(.warning).append("override-check tcp:").append(decimal: Int(port))
        .append(": no override has an address to probe").emit(.warning)
      return
    }
    log.start(.info).append("override-check: probing ").append(decimal: targetCount)
      .append(" override addresses on tcp:").append(decimal: Int(port)).append(" every ")
      .append(decimal: intervalMilliseconds / 1000).append("s").emit(.info)
    if omitted > 0 {
      log.start(.warning).append("override-check: only the first ")
        .append(decimal: Self.maxAddresses).append(" override addresses are probed; ")
        .append(decimal: omitted).append(" more are always answered").emit(.warning)
    }
  }

  deinit {
    closeAll()
    targets.deinitialize(count: targetCount)
    targets.deallocate()
    probes.deallocate()
  }

  /// Initializes `targets[count...]` with each distinct address of the
  /// override entries (not blocks), up to `maxAddresses`; returns how many
  /// more there were (an address repeated past the cap counts each time).
  /// Addresses are read as RDATA: 4 bytes for A, 16 for AAAA, in `record`
  /// order; a record past the table's end is skipped.
  static func collect(
    _ table: OverrideTable, port: UInt16, into targets: UnsafeMutablePointer<Target>,
    count: inout Int
  ) -> Int {
    var omitted = 0
    table.addressBytes.withUnsafeBytes { bytes in
      for entry in 0..<table.count where table.kind(at: entry) != .block {
        let match = table.match(at: entry)
        for record in 0..<(match.ipv4Count + match.ipv6Count) {
          let isIPv4 = record < match.ipv4Count
          let start =
            isIPv4
            ? match.ipv4Offset + 4 * record : match.ipv6Offset + 16 * (record - match.ipv4Count)
          let end = start + (isIPv4 ? 4 : 16)
          guard end <= bytes.count else { continue }
          // IPv4 as `::ffff:a.b.c.d`; an IPv4-mapped AAAA is probed (and
          // marked) as that IPv4 address.
          var high: UInt64 = 0
          var low: UInt64 = isIPv4 ? 0xFFFF : 0
          for position in start..<end {
            high = high << 8 | low >> 56
            low = low << 8 | UInt64(bytes[position])
          }
          let mapped = high == 0 && low >> 32 == 0xFFFF
          let address = SocketAddress(high: high, low: low, port: port, isIPv6: !mapped)
          var known = false
          for index in 0..<count where targets[index].address == address {
            known = true
            break
          }
          if known { continue }
          guard count < maxAddresses else {
            omitted += 1
            continue
          }
          (targets + count).initialize(to: Target(address: address))
          count += 1
        }
      }
    }
    return omitted
  }

  /// When `poll` next has work: the earliest probe deadline during a
  /// round, the next round otherwise; nil when nothing is probed.
  var nextDeadline: UInt64? {
    guard targetCount > 0 else { return nil }
    guard roundActive else { return nextRound }
    var earliest = UInt64.max
    for slot in 0..<Self.concurrency where probes[slot].fd.isValid {
      earliest = min(earliest, probes[slot].deadline)
    }
    return earliest
  }

  /// Called each loop turn: fails probes past their deadline, starts a
  /// round when one is due, and keeps `concurrency` probes in flight.
  func poll(now: UInt64) {
    guard targetCount > 0 else { return }
    for slot in 0..<Self.concurrency
    where probes[slot].fd.isValid && probes[slot].deadline <= now {
      finish(slot: slot, reachable: false)
    }
    if !roundActive && now >= nextRound {
      roundActive = true
      cursor = 0
      nextRound = now + intervalMilliseconds
    }
    startProbes(now: now)
  }

  /// A probe socket became writable or failed.
  func handle(event: UInt32, slot: Int, generation: UInt32, now: UInt64) {
    guard slot < Self.concurrency, probes[slot].fd.isValid,
      probes[slot].generation == generation
    else { return }
    let connected =
      event & Epoll.writable != 0 && Socket.pendingError(probes[slot].fd) == nil
    // A reset or refusal also reports EPOLLOUT, with SO_ERROR set.
    finish(slot: slot, reachable: connected)
    startProbes(now: now)
  }

  private func startProbes(now: UInt64) {
    while roundActive && cursor < targetCount && inFlight < Self.concurrency {
      let target = cursor
      cursor += 1
      start(target: target, now: now)
    }
    if roundActive && cursor >= targetCount && inFlight == 0 { roundActive = false }
  }

  /// Opens a probe to `target` in a free slot. A connect that fails at once
  /// (refused on loopback, no route) is a failure; one that cannot even be
  /// tried here (no descriptor left) gives no verdict this round.
  private func start(target: Int, now: UInt64) {
    var slot = 0
    while probes[slot].fd.isValid { slot += 1 }
    let address = targets[target].address
    guard let fd = try? Socket.tcp(for: address) else { return }
    let connected: Bool
    do {
      connected = try Socket.connect(fd, to: address)
    } catch {
      fd.close()
      record(target: target, reachable: false)
      return
    }
    if connected {
      fd.close()
      record(target: target, reachable: true)
      return
    }
    let generation = probes[slot].generation &+ 1
    do {
      try context.epoll.add(
        fd, events: Epoll.writable,
        token: Token.make(.overrideProbe, slot: slot, generation: generation))
    } catch {
      fd.close()
      return
    }
    probes[slot] = Probe(
      fd: fd, target: target, deadline: now + timeoutMilliseconds, generation: generation)
    inFlight += 1
  }

  private func finish(slot: Int, reachable: Bool) {
    probes[slot].fd.close()
    probes[slot].fd = .invalid
    inFlight -= 1
    record(target: probes[slot].target, reachable: reachable)
  }

  /// Applies one probe's verdict and logs a transition:
  /// `override address 192.0.2.10 unreachable on tcp:443: left out of
  /// override answers`, `override address 192.0.2.10 reachable again on
  /// tcp:443`.
  private func record(target: Int, reachable: Bool) {
    let address = targets[target].address
    let ip = IPAddress(high: address.high, low: address.low)
    if reachable {
      targets[target].failures = 0
      let wasDown = targets[target].state == .down
      targets[target].state = .up
      guard wasDown,
        context.engine.local.overrideHealth.setAddress(ip, reachable: true) == .recovered
      else {
        return
      }
      logLine(.info, address).append(" reachable again on tcp:").append(decimal: Int(port))
        .emit(.info)
      return
    }
    if targets[target].failures < UInt8.max { targets[target].failures += 1 }
    let state = targets[target].state
    guard targets[target].failures >= Self.failuresBeforeDown, state != .down else { return }
    switch context.engine.local.overrideHealth.setAddress(ip, reachable: false) {
    case .markedDown, .unchanged, .recovered:
      targets[target].state = .down
      logLine(.warning, address).append(" unreachable on tcp:").append(decimal: Int(port))
        .append(": left out of override answers").emit(.warning)
    case .tableFull:
      targets[target].state = .unmarkable
      guard state == .up else { return }
      logLine(.warning, address).append(" unreachable on tcp:").append(decimal: Int(port))
        .append(", but ").append(decimal: OverrideHealth.capacity)
        .append(" override addresses are down already: still answered").emit(.warning)
    }
  }

  private func logLine(_ severity: LogSeverity, _ address: SocketAddress) -> LogLine {
    log.start(severity)
    return log.append("override address ").append(host: address)
  }

  func closeAll() {
    for slot in 0..<Self.concurrency where probes[slot].fd.isValid {
      probes[slot].fd.close()
      probes[slot].fd = .invalid
    }
    inFlight = 0
    roundActive = false
  }
}
