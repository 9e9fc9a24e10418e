/// Presentation names of the types and response codes a router sees, for
/// logs. Anything else is written `TYPE123` (RFC 3597 §5) or `RCODE11`.
extension RRType {
  /// The mnemonic (RFC 1035 §3.2.2, RFC 3596, RFC 4034, RFC 5155, RFC 9460,
  /// RFC 8659, RFC 6698, RFC 2782, RFC 3403), nil for other types.
  public var mnemonic: LiteralText? {
    switch rawValue {
    case 1: return "A"
    case 2: return "NS"
    case 5: return "CNAME"
    case 6: return "SOA"
    case 12: return "PTR"
    case 13: return "HINFO"
    case 15: return "MX"
    case 16: return "TXT"
    case 28: return "AAAA"
    case 33: return "SRV"
    case 35: return "NAPTR"
    case 41: return "OPT"
    case 43: return "DS"
    case 46: return "RRSIG"
    case 47: return "NSEC"
    case 48: return "DNSKEY"
    case 50: return "NSEC3"
    case 51: return "NSEC3PARAM"
    case 52: return "TLSA"
    case 64: return "SVCB"
    case 65: return "HTTPS"
    case 252: return "AXFR"
    case 255: return "ANY"
    case 257: return "CAA"
    default: return nil
    }
  }
}

extension ResponseCode {
  /// The mnemonic (RFC 1035 §4.1.1, RFC 2136 §2.2, RFC 6891 §9), nil for
  /// other codes.
  public var mnemonic: LiteralText? {
    switch rawValue {
    case 0: return "NOERROR"
    case 1: return "FORMERR"
    case 2: return "SERVFAIL"
    case 3: return "NXDOMAIN"
    case 4: return "NOTIMP"
    case 5: return "REFUSED"
    case 6: return "YXDOMAIN"
    case 7: return "YXRRSET"
    case 8: return "NXRRSET"
    case 9: return "NOTAUTH"
    case 10: return "NOTZONE"
    case 16: return "BADVERS"
    default: return nil
    }
  }
}

/// The DNSSEC types (RFC 4034 §2–§5, RFC 5155 §3–§4).
extension RRType {
  public static let ds = RRType(rawValue: 43)
  public static let rrsig = RRType(rawValue: 46)
  public static let nsec = RRType(rawValue: 47)
  public static let dnskey = RRType(rawValue: 48)
  public static let nsec3 = RRType(rawValue: 50)
  public static let nsec3param = RRType(rawValue: 51)
}
