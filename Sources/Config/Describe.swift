import CompiledConfig
import DNSWire

/// Text for logs, `--check` and messages. IPv4-mapped addresses print as
/// dotted quads; other IPv6 addresses in the RFC 5952 canonical form (lower
/// case, no leading zeros, the longest run of two or more zero groups — the
/// first one on a tie — written `::`).
public func describe(_ address: IPAddress) -> String {
  let text: MessageText = "\(address)"
  return text.string
}

/// `a.b.c.d` of an address in host order.
public func describeIPv4(_ value: UInt32) -> String {
  var text = MessageText()
  text.appendIPv4(value)
  return text.string
}

/// `1.2.3.4:53` or `[::1]:53` (RFC 3986 §3.2.2).
public func describe(_ endpoint: Endpoint) -> String {
  let text: MessageText = "\(endpoint)"
  return text.string
}

/// `10.0.0.0/8` for an IPv4-mapped prefix of length 96 or more, else IPv6.
public func describe(_ prefix: AddressPrefix) -> String {
  let text: MessageText = "\(prefix)"
  return text.string
}

/// The presentation form of a flat wire name (`printer.lan.`).
public func describeName(_ flatName: [UInt8]) -> String {
  let text: MessageText = "\(name: flatName)"
  return text.string
}

/// `1500ms`, or `2s` when the duration is whole seconds.
func describeDuration(milliseconds: UInt32) -> MessageText {
  UnitScale.milliseconds.describe(Int(milliseconds))
}
