// The one query builder of the tests that do not build messages with the
// writer under test: written byte by byte (RFC 1035 §4.1, RFC 6891 §6.1.2).

/// A query for `name` (presentation text, or `rawName` as flat wire bytes)
/// of class IN: one question, RD and CD as given, and an OPT record (no
/// options, extended rcode and version 0) when `edns` gives its UDP payload
/// size, with the DO bit when `dnssecOK` (RFC 3225).
public func dnsQuery(
  _ name: String, type: UInt16 = 1, id: UInt16 = 0x1234, rd: Bool = true, cd: Bool = false,
  edns: UInt16? = nil, dnssecOK: Bool = false, rawName: [UInt8]? = nil
) -> [UInt8] {
  var message: [UInt8] = [UInt8(id >> 8), UInt8(id & 0xFF), rd ? 0x01 : 0x00, cd ? 0x10 : 0x00]
  message += [0, 1, 0, 0, 0, 0, 0, edns == nil ? 0 : 1]
  message += rawName ?? wireName(name)
  message += [UInt8(type >> 8), UInt8(type & 0xFF), 0, 1]
  if let edns {
    // OPT: root owner, type 41, class = payload size, TTL = extended
    // rcode, version, then the DO bit and zeros; no RDATA.
    message += [0, 0, 41, UInt8(edns >> 8), UInt8(edns & 0xFF), 0, 0, dnssecOK ? 0x80 : 0, 0, 0, 0]
  }
  return message
}
