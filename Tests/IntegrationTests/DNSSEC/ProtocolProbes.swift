// Protocol probes in the manner of RFC 8906 (and RFC 6891 for EDNS), sent
// to dnsward and to unbound behind the same signed-zone fixture: each
// reply's header bits, rcode, EDNS and record types, side by side. Where
// dnsward answers otherwise on purpose, the probe says how and why.
import TestSupport

/// One probe: a query written byte by byte, and what dnsward's reply may
/// differ in from unbound's.
struct ProtocolProbe {
  let name: String
  let query: [UInt8]
  /// unbound's reply turned into the one dnsward must give; nil: the same.
  var difference: ((inout ProbeReply) -> Void)? = nil
  var why = ""

  /// A query for `name` `type` with header `flags` (opcode included) and,
  /// unless `ednsVersion` is nil, an OPT of that version with `ednsFlags`
  /// (DO is 0x8000) and `options` as RDATA (`dnsQuery`).
  static func query(
    _ name: String, type: UInt16, flags: UInt16 = 0x0100, ednsVersion: UInt8? = 0,
    ednsFlags: UInt16 = 0, options: [UInt8] = []
  ) -> [UInt8] {
    dnsQuery(
      name, type: type, id: 0x5A5A, flags: flags, edns: ednsVersion == nil ? nil : 1232,
      ednsVersion: ednsVersion ?? 0, ednsFlags: ednsFlags, ednsOptions: options)
  }
}

/// What a probe compares of a reply.
struct ProbeReply: Equatable, CustomStringConvertible {
  /// The header's second 16 bits without RCODE: QR, opcode, AA, TC, RD, RA,
  /// Z, AD, CD.
  var flags: UInt16
  /// RCODE with the OPT's upper 8 bits (RFC 6891 §6.1.3).
  var rcode: Int
  var questionCount: Int
  /// The OPT's version, DO bit and other flags (which must be zero,
  /// RFC 6891 §6.1.4); nil without an OPT.
  var ednsVersion: UInt8?
  var dnssecOK = false
  var otherEDNSFlags: UInt16 = 0
  /// The types of the answer and authority records, sorted.
  var answerTypes: [UInt16] = []
  var authorityTypes: [UInt16] = []

  static let authenticData: UInt16 = 0x0020
  static let checkingDisabled: UInt16 = 0x0010
  static let recursionAvailable: UInt16 = 0x0080

  /// nil for a reply too short for a header or whose records do not parse.
  init?(_ reply: [UInt8]) {
    guard reply.count >= 12 else { return nil }
    let header = UInt16(reply[2]) << 8 | UInt16(reply[3])
    flags = header & 0xFFF0
    rcode = Int(header & 0x000F)
    questionCount = Int(reply[4]) << 8 | Int(reply[5])
    guard questionCount == 1 else { return }
    guard let message = PlainMessage(reply) else { return nil }
    answerTypes = message.answer.map(\.type).sorted()
    authorityTypes = message.authority.map(\.type).sorted()
    if let opt = message.additional.first(where: { $0.type == PlainRecord.opt }) {
      rcode |= Int(opt.ttl >> 24) << 4
      ednsVersion = UInt8(truncatingIfNeeded: opt.ttl >> 16)
      dnssecOK = opt.ttl & 0x8000 != 0
      otherEDNSFlags = UInt16(truncatingIfNeeded: opt.ttl) & 0x7FFF
    }
  }

  var description: String {
    "flags \(String(flags, radix: 16)) rcode \(rcode) qd \(questionCount) "
      + "edns \(ednsVersion.map { "v\($0) do=\(dnssecOK) z=\(otherEDNSFlags)" } ?? "none") "
      + "an \(answerTypes) ns \(authorityTypes)"
  }
}

enum ProtocolProbes {
  static let signed = "www.\(TestZones.top)"

  static let all: [ProtocolProbe] = [
    ProtocolProbe(
      name: "plain QUERY, RD, EDNS 0",
      query: ProtocolProbe.query(signed, type: 1)),
    ProtocolProbe(
      name: "no EDNS", query: ProtocolProbe.query(signed, type: 1, ednsVersion: nil)),
    ProtocolProbe(
      name: "EDNS version 1: BADVERS, answered with version 0 (RFC 6891 §6.1.3)",
      query: ProtocolProbe.query(signed, type: 1, ednsVersion: 1)),
    ProtocolProbe(
      name: "EDNS version 1 with DO",
      query: ProtocolProbe.query(signed, type: 1, ednsVersion: 1, ednsFlags: 0x8000)),
    ProtocolProbe(
      name: "an unknown EDNS option is ignored (RFC 6891 §6.1.2)",
      query: ProtocolProbe.query(
        signed, type: 1, options: [0xFD, 0xE9, 0, 4, 0xDE, 0xAD, 0xBE, 0xEF])),
    ProtocolProbe(
      name: "unknown EDNS flags are ignored and not echoed (RFC 6891 §6.1.4)",
      query: ProtocolProbe.query(signed, type: 1, ednsFlags: 0x4001)),
    ProtocolProbe(
      name: "DO=0 CD=0", query: ProtocolProbe.query(signed, type: 1)),
    ProtocolProbe(
      name: "DO=1 CD=0: AD and the RRSIG",
      query: ProtocolProbe.query(signed, type: 1, ednsFlags: 0x8000)),
    ProtocolProbe(
      name: "DO=0 CD=1",
      query: ProtocolProbe.query(signed, type: 1, flags: 0x0110)),
    ProtocolProbe(
      name: "DO=1 CD=1",
      query: ProtocolProbe.query(signed, type: 1, flags: 0x0110, ednsFlags: 0x8000),
      difference: { $0.flags &= ~ProbeReply.authenticData },
      why: "with CD=1 dnsward relays the answer unvalidated for the client to check (RFC "
        + "4035 §3.2.2), so it sets no AD; unbound sets AD when it has the answer validated"),
    ProtocolProbe(
      name: "AD=1 in the query asks for AD (RFC 6840 §5.7)",
      query: ProtocolProbe.query(signed, type: 1, flags: 0x0120)),
    ProtocolProbe(
      name: "TC=1 in a query", query: ProtocolProbe.query(signed, type: 1, flags: 0x0300),
      difference: {
        $0.flags = 0x8180
        $0.rcode = 0
        $0.answerTypes = [1]
      },
      why: "TC means something in a response only (RFC 1035 §4.1.1): dnsward answers the "
        + "question as without it; unbound refuses the query as FORMERR"),
    ProtocolProbe(
      name: "an unknown type (TYPE65280): NODATA",
      query: ProtocolProbe.query(signed, type: 65280, ednsFlags: 0x8000)),
    ProtocolProbe(
      name: "opcode 3 (unassigned) with RD, AD and CD: NOTIMP",
      query: ProtocolProbe.query(signed, type: 1, flags: 0x1930),
      difference: { $0.flags &= ~(ProbeReply.authenticData | ProbeReply.checkingDisabled) },
      why: "AD and CD are defined for QUERY only (RFC 4035 §3.2.2–3.2.3): dnsward clears "
        + "them, unbound echoes them"),
    ProtocolProbe(
      name: "opcode NOTIFY (4)", query: ProtocolProbe.query(signed, type: 6, flags: 0x2000),
      difference: {
        $0.rcode = 4
        $0.flags &= ~ProbeReply.recursionAvailable
      },
      why: "dnsward implements no NOTIFY (RFC 1996): NOTIMP, without RA; unbound, which "
        + "takes NOTIFY for zones it serves, answers REFUSED with RA"),
    ProtocolProbe(
      name: "opcode UPDATE (5)", query: ProtocolProbe.query(signed, type: 6, flags: 0x2800)),
  ]
}
