import CompiledConfig
import DNSWire

/// The hijack-defence directives (Sources/README.md, Threat model): forged
/// addresses, names checked against a trusted upstream, rebinding, override
/// health checks and abuse limits.
extension ConfigReader {
  /// `bogus ADDRESS[/LENGTH]` or `bogus-nxdomain ADDRESS[/LENGTH]`. The same
  /// prefix in both lists is a conflict (keep one); one inside the other is
  /// accepted, and the summary notes that the `bogus-nxdomain` entry wins
  /// for answers with only its addresses.
  mutating func addBogus(_ token: ArraySlice<UInt8>, for directive: Directive, line: Int)
    throws(LineError)
  {
    let prefix: AddressPrefix
    do throws(AddressSyntaxError) {
      prefix = try AddressSyntax.parsePrefix(token)
    } catch {
      throw LineError(error)
    }
    // Length 0, or an IPv4 /0 (the mapped /96): every address of a family.
    guard prefix.length != 0, !(prefix.address.isIPv4 && prefix.length == 96) else {
      let family: StaticString = prefix.length == 0 ? "" : "IPv4 "
      let outcome: StaticString = directive == .bogus ? "dropped" : "NXDOMAIN"
      throw LineError(
        """
        \(directive.name) \(prefix) would match every \(family)address, so every answer \
        would be \(outcome)
        """)
    }
    let isNXDomain = directive == .bogusNXDomain
    let (same, sameLines) =
      isNXDomain
      ? (settings.bogusNXDomainPrefixes, bogusNXDomainLines)
      : (settings.bogusPrefixes, bogusLines)
    if let index = same.firstIndex(of: prefix) {
      throw .duplicate("\(directive.name) \(prefix)", firstOn: sameLines[index])
    }
    let (other, otherLines) =
      isNXDomain
      ? (settings.bogusPrefixes, bogusLines)
      : (settings.bogusNXDomainPrefixes, bogusNXDomainLines)
    if let index = other.firstIndex(of: prefix) {
      let otherName = isNXDomain ? Directive.bogus.name : Directive.bogusNXDomain.name
      throw LineError(
        """
        \(directive.name) \(prefix) is also '\(otherName)' on line \(otherLines[index]) \
        (bogus drops the answer, bogus-nxdomain turns it into NXDOMAIN: keep one)
        """)
    }
    if isNXDomain {
      settings.bogusNXDomainPrefixes.append(prefix)
      bogusNXDomainLines.append(line)
    } else {
      settings.bogusPrefixes.append(prefix)
      bogusLines.append(line)
    }
  }

  /// `verify NAME`: NAME and every name below it are checked against a
  /// trusted upstream (which `finish` requires).
  mutating func addVerify(_ token: ArraySlice<UInt8>, line: Int) throws(LineError) {
    let name = try suffixName(
      token, for: .verify,
      rootMessage: """
        verify . would ask the trusted upstream about every name; list the sensitive names \
        instead (or keep only trusted upstreams)
        """)
    var lines = nameLines.lines(for: name) ?? NameLines()
    if lines.verify != 0 {
      throw .duplicate("verify of \(quoted: token)", firstOn: lines.verify)
    }
    lines.verify = line
    nameLines.setLines(lines, for: name)
    settings.verifyNames.append(contentsOf: name)
    if firstVerifyLine == 0 { firstVerifyLine = line }
  }

  /// `rebind-allow NAME`: NAME and every name below it may resolve to
  /// private addresses. Accepted without `rebind-protection on` (it then
  /// does nothing, and the summary says so), so that the list can stay in
  /// a config while the protection is switched off and on.
  mutating func addRebindAllow(_ token: ArraySlice<UInt8>, line: Int) throws(LineError) {
    let name = try suffixName(
      token, for: .rebindAllow,
      rootMessage: "rebind-allow . would allow every name; write rebind-protection off instead")
    var lines = nameLines.lines(for: name) ?? NameLines()
    if lines.rebindAllow != 0 {
      throw .duplicate("rebind-allow of \(quoted: token)", firstOn: lines.rebindAllow)
    }
    lines.rebindAllow = line
    nameLines.setLines(lines, for: name)
    settings.rebindAllowNames.append(contentsOf: name)
  }

  /// The flat name of a directive that covers a name and every name below
  /// it, so a wildcard would say nothing more, and the root would mean
  /// every name.
  func suffixName(_ token: ArraySlice<UInt8>, for directive: Directive, rootMessage: StaticString)
    throws(LineError) -> [UInt8]
  {
    if token.first == UInt8(ascii: "*") {
      throw LineError(
        """
        \(directive.name) takes a name, not a wildcard: '\(directive.name) NAME' already \
        covers every name below NAME
        """)
    }
    let name = try ConfigValues.flatName(token, written: token)
    guard name != Name.root else { throw LineError("\(rootMessage)") }
    return name
  }

  /// `verify` compares a plain upstream's answer with a trusted one's, so
  /// it needs an upstream marked `trusted` (anywhere in the file); reported
  /// on the first `verify` line.
  func checkVerifyHasTrustedUpstream() throws(LineError) {
    guard firstVerifyLine != 0, !settings.upstreams.contains(where: { $0.trusted }) else {
      return
    }
    throw LineError(
      "verify needs an upstream marked trusted (e.g. upstream tcp 9.9.9.9 trusted)",
      file: fileName, line: firstVerifyLine)
  }

  /// `override-check tcp:PORT` or `off` (0).
  func overrideCheckPort(_ token: ArraySlice<UInt8>) throws(LineError) -> UInt16 {
    if ConfigValues.isWord(token, "off") { return 0 }
    let scheme: StaticString = "tcp:"
    let hasScheme = scheme.withUTF8Buffer { token.starts(with: $0) }
    guard hasScheme else {
      throw LineError(
        "bad override-check \(quoted: token) (usage: \(Directive.overrideCheck.usage))")
    }
    do throws(AddressSyntaxError) {
      return try AddressSyntax.parsePort(token.dropFirst(4), in: token)
    } catch {
      throw LineError(error)
    }
  }

  /// `rate-limit COUNT/s`, `off` or `0` (off; so is `0/s`).
  func rateLimit(_ token: ArraySlice<UInt8>) throws(LineError) -> UInt32 {
    if ConfigValues.isWord(token, "off") || ConfigValues.isWord(token, "0") { return 0 }
    let digits = token.prefix(while: AddressSyntax.isDigit)
    let unit = token[digits.endIndex...]
    guard !digits.isEmpty else {
      throw LineError(
        "bad rate \(quoted: token) for 'rate-limit' (usage: \(Directive.rateLimit.usage))")
    }
    guard ConfigValues.isWord(unit, "/s") else {
      if unit.isEmpty {
        throw LineError(
          """
          rate-limit \(escaped: token) needs its unit: write \(escaped: token)/s \
          (queries per second per client)
          """)
      }
      throw LineError("unknown unit \(quoted: unit) in \(quoted: token) (use /s)")
    }
    // `0/s` is off too; its declared range starts at 1.
    if AddressSyntax.decimal(digits) == 0 { return 0 }
    return UInt32(try ConfigValues.number(token, for: .rateLimit))
  }
}
