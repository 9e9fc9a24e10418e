import CompiledConfig
import DNSWire

/// What the A and AAAA records in an upstream answer's answer section say
/// about it, for the hijack defences (Sources/README.md, Threat model). One walk
/// over the records fills it; nothing is allocated.
struct AnswerScreen {
  /// A and AAAA records of class IN in the answer section.
  var addressCount = 0
  /// One of them is inside a `bogus` prefix: the answer is forged.
  var hasBogusAddress = false
  /// Every one of them is a redirect address (`bogus-nxdomain`, or learned
  /// by the redirect probes); meaningful when `addressCount > 0`.
  var onlyRedirectAddresses = true
  /// One of them is private, loopback, link-local, CGNAT or ULA.
  var hasPrivateAddress = false
  /// Order-independent digest of the response code and the address set:
  /// two answers with the same digest say the same thing (`hold-on`).
  var digest: UInt64 = 0

  /// The answer is an ISP's redirect for a name that does not exist.
  var isRedirect: Bool { addressCount > 0 && onlyRedirectAddresses }
}

/// Address ranges a public name has no business pointing at (DNS
/// rebinding): the LAN ranges of the default ACL (RFC 1918, loopback,
/// link-local, CGNAT shared space RFC 6598, ULA RFC 4193) and the
/// unspecified ones, "this network" 0.0.0.0/8 and `::`.
let rebindPrefixes: [AddressPrefix] =
  defaultAllowPrefixes + [
    AddressPrefix(address: IPAddress(ipv4: 0), length: 96 + 8),
    AddressPrefix(address: IPAddress.anyV6, length: 128),
  ]

extension Defences {
  /// Whether any defence needs to look at the addresses of an answer.
  func screensAnswers(_ settings: SettingsInForce) -> Bool {
    !settings.value.bogusPrefixes.isEmpty || !settings.value.bogusNXDomainPrefixes.isEmpty
      || learnedRedirects.count > 0 || settings.value.rebindProtection
      || settings.value.holdOnMilliseconds > 0
      || !settings.value.verifyNames.isEmpty || settings.value.detectNXDomainRedirect
  }

  /// Walks the answer section of an accepted reply.
  func screen(_ reply: Message, settings: SettingsInForce) -> AnswerScreen {
    var screen = AnswerScreen()
    screen.digest = UInt64(reply.rcode.rawValue) &* 0x9E37_79B9_7F4A_7C15
    var records = reply.records()
    while let record = records.next(), record.offset < reply.authorityOffset {
      guard record.rrClass == .internet, let address = Self.address(of: record, in: reply.bytes)
      else { continue }
      screen.addressCount += 1
      if isBogus(address, settings) { screen.hasBogusAddress = true }
      if !isRedirectAddress(address, settings) { screen.onlyRedirectAddresses = false }
      if isPrivate(address) { screen.hasPrivateAddress = true }
      // Adding a keyed hash of each address makes the digest independent
      // of record order; a duplicated record changes it, which is fine.
      var hasher = SipHasher(key: digestKey)
      hasher.combine(address.high)
      hasher.combine(address.low)
      screen.digest &+= hasher.finalize()
    }
    return screen
  }

  /// The address in an A or AAAA record's RDATA, nil for other records (or
  /// a malformed length).
  static func address(of record: ResourceRecord, in bytes: UnsafeRawBufferPointer) -> IPAddress? {
    let isAddress =
      (record.type == .a && record.rdataLength == 4)
      || (record.type == .aaaa && record.rdataLength == 16)
    guard isAddress else { return nil }
    return IPAddress(networkBytes: bytes, at: record.rdataOffset, count: record.rdataLength)
  }

  func isPrivate(_ address: IPAddress) -> Bool {
    for prefix in rebindRanges where prefix.contains(address) { return true }
    return false
  }

  func isBogus(_ address: IPAddress, _ settings: SettingsInForce) -> Bool {
    for prefix in settings.value.bogusPrefixes where prefix.contains(address) { return true }
    return false
  }

  /// Inside a `bogus-nxdomain` prefix, or learned by the redirect probes.
  func isRedirectAddress(_ address: IPAddress, _ settings: SettingsInForce) -> Bool {
    for prefix in settings.value.bogusNXDomainPrefixes where prefix.contains(address) {
      return true
    }
    return learnedRedirects.contains(address)
  }
}

extension Name {
  /// Whether lower-cased flat `name` is one of `suffixes` (concatenated
  /// lower-cased flat names, as `verifyNames`) or below one of them.
  /// Not inlined: its callers test a setting that is usually empty.
  @inline(never)
  static func isNameOrBelow(_ name: UnsafeRawBufferPointer, anyOf suffixes: [UInt8]) -> Bool {
    guard !suffixes.isEmpty else { return false }
    return suffixes.withUnsafeBytes { list in
      var start = 0
      while start < list.count {
        var end = start
        while end < list.count, list[end] != 0 { end += 1 + Int(list[end]) }
        let suffix = UnsafeRawBufferPointer(rebasing: list[start..<min(end + 1, list.count)])
        if isNameOrBelow(name, suffix) { return true }
        start = end + 1
      }
      return false
    }
  }

  /// Whether `name` equals `suffix` or ends with it at a label boundary.
  /// Both are lower-cased flat names.
  static func isNameOrBelow(_ name: UnsafeRawBufferPointer, _ suffix: UnsafeRawBufferPointer)
    -> Bool
  {
    var offset = 0
    while name.count - offset >= suffix.count {
      if name.count - offset == suffix.count {
        return Name.equalIgnoringCase(UnsafeRawBufferPointer(rebasing: name[offset...]), suffix)
      }
      guard name[offset] != 0 else { return false }
      offset += 1 + Int(name[offset])
    }
    return false
  }
}
