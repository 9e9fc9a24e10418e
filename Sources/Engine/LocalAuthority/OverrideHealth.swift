import CompiledConfig
import DNSWire

/// `override-check`: the override addresses the transport's probes found
/// unreachable. The transport probes; the engine only
/// keeps the verdicts and applies them to override answers:
///
/// - an A/AAAA record whose address is down is left out of the answer;
/// - a question whose family's addresses are all down (A: the name's IPv4
///   ones, AAAA: its IPv6 ones), or any question for a name whose every
///   address is down, falls back to normal resolution (cache, upstreams)
///   until one recovers. A family the name has no address of keeps its
///   NODATA answer while the name's other family is up: the override still
///   pins the name. Blocks are never affected.
///
/// A fixed table of `capacity` addresses, allocated once. When it is full,
/// a further failing address is not marked down (it keeps being answered)
/// and `rejected` counts it; the transport logs it. With nothing marked
/// down — always so without `override-check` — the query path checks one
/// integer and walks nothing.
public final class OverrideHealth {
  /// Addresses marked down at once. Probing is for a handful of pinned
  /// services; 64 failing at the same time means the uplink is down, and
  /// then the upstreams are no better.
  public static let capacity = 64

  let down: UnsafeMutablePointer<IPAddress>
  /// Entries `0..<count` of `down` are in use, in no particular order.
  public internal(set) var count = 0
  /// Times an address could not be marked down because the table was full.
  public internal(set) var rejected: UInt64 = 0
  /// Override questions answered by normal resolution because every
  /// address that would have answered them is down.
  public internal(set) var fallbacks: UInt64 = 0

  init() {
    down = .allocate(capacity: Self.capacity)
    down.initialize(repeating: IPAddress(high: 0, low: 0), count: Self.capacity)
  }

  deinit { down.deallocate() }

  public func isDown(_ address: IPAddress) -> Bool {
    index(of: address) != nil
  }

  /// Marks every address up: the overrides changed (a reload), and the
  /// new prober checks them from its first round.
  public func markAllUp() { count = 0 }

  func index(of address: IPAddress) -> Int? {
    for entry in 0..<count where down[entry] == address { return entry }
    return nil
  }

  /// Whether the A record `rdata` (4 bytes at `offset` of `bytes`) is down.
  func isDown(ipv4 bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
    isDown(IPAddress(networkBytes: bytes, at: offset, count: 4))
  }

  /// Whether the AAAA record `rdata` (16 bytes at `offset`) is down.
  func isDown(ipv6 bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
    isDown(IPAddress(networkBytes: bytes, at: offset, count: 16))
  }
}

/// What `OverrideHealth.setAddress` changed.
public enum OverrideAddressChange: Equatable {
  /// Already in that state.
  case unchanged
  /// Now left out of override answers.
  case markedDown
  /// Answered again.
  case recovered
  /// Should be marked down but the table is full: it is still answered.
  case tableFull
}

/// Addresses of one override match, split into those still answered.
struct OverrideAddressesUp {
  var ipv4: Int
  var ipv6: Int
}

extension OverrideHealth {
  /// Records a probe verdict for an override address (IPv4 in its mapped
  /// form, as `IPAddress(ipv4:)` makes it). `count` is the level
  /// `overrideAddressesDown` (`Engine.refreshLevels`).
  @discardableResult
  public func setAddress(_ address: IPAddress, reachable: Bool) -> OverrideAddressChange {
    switch (reachable, index(of: address)) {
    case (true, let entry?):
      count -= 1
      down[entry] = down[count]
      return .recovered
    case (false, nil):
      guard count < Self.capacity else {
        rejected += 1
        return .tableFull
      }
      down[count] = address
      count += 1
      return .markedDown
    default:
      return .unchanged
    }
  }
}

extension OverrideHealth {
  /// How many of `match`'s IPv4 and IPv6 addresses are not marked down.
  /// `overrides` is the table `match` came from.
  func addressesUp(_ match: OverrideMatch, in overrides: OverrideTable) -> OverrideAddressesUp {
    var up = OverrideAddressesUp(ipv4: match.ipv4Count, ipv6: match.ipv6Count)
    let health = self
    guard health.count > 0 else { return up }
    overrides.addressBytes.withUnsafeBytes { bytes in
      for index in 0..<match.ipv4Count
      where health.isDown(ipv4: bytes, at: match.ipv4Offset + 4 * index) {
        up.ipv4 -= 1
      }
      for index in 0..<match.ipv6Count
      where health.isDown(ipv6: bytes, at: match.ipv6Offset + 16 * index) {
        up.ipv6 -= 1
      }
    }
    return up
  }

  /// Whether the override `match` must not answer a question of `type`
  /// because the addresses it would answer with are down (see
  /// `OverrideHealth`); counted in `fallbacks`. Costs one comparison while
  /// nothing is down.
  func fallsBack(_ match: OverrideMatch, type: RRType, in overrides: OverrideTable) -> Bool {
    guard count > 0, match.kind != .block else { return false }
    let up = addressesUp(match, in: overrides)
    let ipv4AllDown = match.ipv4Count > 0 && up.ipv4 == 0
    let ipv6AllDown = match.ipv6Count > 0 && up.ipv6 == 0
    let nameDown =
      match.ipv4Count + match.ipv6Count > 0 && up.ipv4 == 0 && up.ipv6 == 0
    let fallsBack =
      nameDown || (type == .a && ipv4AllDown) || (type == .aaaa && ipv6AllDown)
    if fallsBack { fallbacks += 1 }
    return fallsBack
  }
}
