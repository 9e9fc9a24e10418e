import CompiledConfig
import DNSWire

/// Text for logs, `--check` and messages. IPv4-mapped addresses print as
/// dotted quads; other IPv6 addresses in the RFC 5952 canonical form (lower
/// case, no leading zeros, the longest run of two or more zero groups — the
/// first one on a tie — written `::`).
public func describe(_ address: IPAddress) -> String {
  if address.isIPv4 { return describeIPv4(address.ipv4) }
  var groups: [UInt16] = []
  for index in 0..<8 {
    groups.append(UInt16(address.byte(2 * index)) << 8 | UInt16(address.byte(2 * index + 1)))
  }
  var bestStart = -1
  var bestLength = 1
  var index = 0
  while index < 8 {
    guard groups[index] == 0 else {
      index += 1
      continue
    }
    var end = index
    while end < 8 && groups[end] == 0 { end += 1 }
    if end - index > bestLength {
      bestStart = index
      bestLength = end - index
    }
    index = end
  }
  func hex(_ range: Range<Int>) -> String {
    range.map { String(groups[$0], radix: 16) }.joined(separator: ":")
  }
  guard bestStart >= 0 else { return hex(0..<8) }
  return hex(0..<bestStart) + "::" + hex((bestStart + bestLength)..<8)
}

/// `a.b.c.d` of an address in host order.
public func describeIPv4(_ value: UInt32) -> String {
  "\(value >> 24).\((value >> 16) & 0xFF).\((value >> 8) & 0xFF).\(value & 0xFF)"
}

/// `1.2.3.4:53` or `[::1]:53` (RFC 3986 §3.2.2).
public func describe(_ endpoint: Endpoint) -> String {
  endpoint.address.isIPv4
    ? "\(describe(endpoint.address)):\(endpoint.port)"
    : "[\(describe(endpoint.address))]:\(endpoint.port)"
}

/// `10.0.0.0/8` for an IPv4-mapped prefix of length 96 or more, else IPv6.
public func describe(_ prefix: AddressPrefix) -> String {
  prefix.address.isIPv4 && prefix.length >= 96
    ? "\(describe(prefix.address))/\(prefix.length - 96)"
    : "\(describe(prefix.address))/\(prefix.length)"
}

/// The presentation form of a flat wire name (`printer.lan.`).
public func describeName(_ flatName: [UInt8]) -> String {
  var text = [UInt8](repeating: 0, count: 4 * Name.maxLength + 1)
  let count = flatName.withUnsafeBytes { name in
    text.withUnsafeMutableBytes { Name.format(name, into: $0) }
  }
  return String(decoding: text[..<count], as: UTF8.self)
}

/// `1500ms`, or `2s` when the duration is whole seconds.
func describeDuration(milliseconds: UInt32) -> String {
  UnitScale.milliseconds.describe(Int(milliseconds))
}
