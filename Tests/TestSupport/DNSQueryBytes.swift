// The one query builder of the tests that do not build messages with the
// writer under test: written byte by byte (RFC 1035 §4.1, RFC 6891 §6.1.2).

/// A query for `name` (presentation text, or `rawName` as flat wire bytes)
/// of class IN: one question, RD and CD as given (or the header's whole
/// second word, opcode included, as `flags`), and an OPT record when `edns`
/// gives its UDP payload size: extended rcode 0, `ednsVersion`, the DO bit
/// when `dnssecOK` (RFC 3225) or'd with `ednsFlags`, and `ednsOptions` as
/// its RDATA.
public func dnsQuery(
  _ name: String, type: UInt16 = 1, id: UInt16 = 0x1234, rd: Bool = true, cd: Bool = false,
  flags: UInt16? = nil, edns: UInt16? = nil, dnssecOK: Bool = false, ednsVersion: UInt8 = 0,
  ednsFlags: UInt16 = 0, ednsOptions: [UInt8] = [], rawName: [UInt8]? = nil
) -> [UInt8] {
  let header = flags ?? ((rd ? 0x0100 : 0) | (cd ? 0x0010 : 0))
  var message: [UInt8] = [
    UInt8(id >> 8), UInt8(id & 0xFF), UInt8(header >> 8), UInt8(header & 0xFF),
  ]
  message += [0, 1, 0, 0, 0, 0, 0, edns == nil ? 0 : 1]
  message += rawName ?? wireName(name)
  message += [UInt8(type >> 8), UInt8(type & 0xFF), 0, 1]
  if let edns {
    // OPT: root owner, type 41, class = payload size, TTL = extended
    // rcode, version and flags, then RDLENGTH and the options.
    let optFlags = ednsFlags | (dnssecOK ? 0x8000 : 0)
    message += [0, 0, 41, UInt8(edns >> 8), UInt8(edns & 0xFF), 0, ednsVersion]
    message += [UInt8(optFlags >> 8), UInt8(optFlags & 0xFF)]
    message += [UInt8(ednsOptions.count >> 8), UInt8(ednsOptions.count & 0xFF)] + ednsOptions
  }
  return message
}
