import CompiledConfig

/// `dnssec` and the trust anchors in the generated source and the summary.
extension ConfigGenerator {
  /// `let trustAnchorBytes: [UInt8]`: the `TrustAnchors` table, one
  /// commented run of bytes per anchor (RDATA has bytes 0x80 and above, so
  /// an array rather than a string literal).
  static func emitTrustAnchors(_ anchors: TrustAnchors, into out: inout SourceText) {
    out.line("/// `trust-anchor`, `trust-anchor-file` and the root's (`dnssec-root on`), as")
    out.line("/// `TrustAnchors` lays them out: owner, type, RDATA length, RDATA. A firmware")
    out.line("/// built without DNSSEC (-DDNSWARD_DNSSEC=OFF) leaves them out.")
    out.line("#if !DNSWARD_NO_DNSSEC")
    defer {
      out.line("#endif")
      out.line()
    }
    guard anchors.count > 0 else {
      out.line("let trustAnchorBytes: [UInt8] = []")
      return
    }
    out.line("let trustAnchorBytes: [UInt8] = [")
    anchors.withIterator { iterator in
      while let anchor = iterator.next() {
        out.line("  // \(anchorLabel(anchor))")
        var entry: [UInt8] = []
        TrustAnchors.append(
          owner: Array(anchor.owner), type: anchor.type, rdata: Array(anchor.rdata), to: &entry)
        out.values(entry.map { "0x" + hexDigits(UInt64($0), width: 2) }, perLine: 12)
      }
    }
    out.line("]")
  }

  static func emitDNSSECSettings(_ settings: Settings, into out: inout SourceText) {
    let mode = settings.dnssec.word
    if settings.validatesDNSSEC {
      // A firmware built without the validator must not run a config that
      // asks for it: the build stops here, naming the option.
      out.line("  #if DNSWARD_NO_DNSSEC")
      out.line(
        "    #error(\"dnssec \(mode): this firmware is built without DNSSEC (-DDNSWARD_DNSSEC=ON)\")"
      )
      out.line("  #endif")
    }
    out.line("  settings.dnssec = .\(mode)")
    out.line("  #if !DNSWARD_NO_DNSSEC")
    out.line("    settings.trustAnchors = TrustAnchors(TableBytes(trustAnchorBytes))")
    out.line("  #endif")
  }

  /// `example. DS 31406 8 2` or `example. DNSKEY 257 3 13`: an anchor without
  /// its digest or key, for comments.
  static func anchorLabel(_ anchor: TrustAnchor) -> String {
    let rdata = anchor.rdata
    let head = rdata.count >= 4 ? Int(rdata[0]) << 8 | Int(rdata[1]) : 0
    var text: MessageText = "\(name: Array(anchor.owner))"
    let type: StaticString = anchor.type == .ds ? "DS" : "DNSKEY"
    text.append(" \(type) \(head)")
    if rdata.count >= 4 { text.append(" \(rdata[2]) \(rdata[3])") }
    return text.string
  }

  /// `dnssec: auto; trust anchors: 3 (root: 2)`, noting anchors that do
  /// nothing while `dnssec` is off.
  static func appendDNSSECSummary(_ settings: Settings, to out: inout MessageText) {
    let anchors = settings.trustAnchors
    var rootCount = 0
    anchors.withIterator { iterator in
      while let anchor = iterator.next() {
        if anchor.owner.count == 1 { rootCount += 1 }
      }
    }
    let count = anchors.count
    out.append("dnssec: \(settings.dnssec.word); trust anchors: \(count) (root: \(rootCount))")
    if !settings.validatesDNSSEC && count > rootCount { out.append(" (no effect: dnssec is off)") }
    out.append("\n")
  }
}
