import CompiledConfig

extension Directive {
  /// The declarations of `dnssec`, `dnssec-root`, `trust-anchor` and
  /// `trust-anchor-file` (the stand-in's say they are not in the firmware).
  var dnssecDeclaration: DirectiveDeclaration {
    switch self {
    case .dnssec:
      return .init(
        """
        dnssec off|on|auto
        default off
        validate answers from the trust anchors (RFC 4035); bogus ones become SERVFAIL; \
        auto: not those of an upstream that fails a DNSSEC probe (strips RRSIGs)
        """)
    case .dnssecRoot:
      return .init(
        """
        dnssec-root on|off
        default on
        keep the compiled-in root trust anchors (KSK-2017 and KSK-2024)
        """)
    case .trustAnchor:
      return .init(
        """
        trust-anchor OWNER [TTL] [IN] DS|DNSKEY RDATA
        one zone-file record, e.g. dskey.example.com. DS 60485 5 1 HEX
        a DS or DNSKEY record the validator trusts; its hex or base64 may hold spaces
        """, repeatable: true)
    case .trustAnchorFile:
      return .init(
        """
        trust-anchor-file PATH
        one record per line, ';' comments, relative to this file's folder
        trust-anchor records read from PATH
        """, repeatable: true)
    default: return .init("")
    }
  }
}
