import CompiledConfig
import DNSWire

/// `dnssec`, `dnssec-root`, `trust-anchor RR` and `trust-anchor-file PATH`:
/// the DNSSEC trust anchors, checked here and laid out as `TrustAnchors`
/// (the root's first, unless `dnssec-root off`).
///
/// A record is one line of zone-file presentation form (RFC 1035 §5.1):
/// `OWNER [TTL] [IN] DS KEYTAG ALGORITHM DIGESTTYPE HEX` (RFC 4034 §5.3) or
/// `OWNER [TTL] [IN] DNSKEY FLAGS PROTOCOL ALGORITHM BASE64` (§2.2), the hex
/// or base64 possibly split by spaces; `;` starts a comment. The owner is
/// absolute whether or not it ends in a dot; numbers are decimal (no
/// algorithm mnemonics); no parentheses across lines.
/// What the reader keeps of the DNSSEC directives until the file's end
/// (`finishTrustAnchors`).
struct TrustAnchorReading {
  /// `dnssec-root`: whether the root's anchors lead the table.
  var keepsRoot = true
  /// `trust-anchor`, `trust-anchor-file`: their entries (`TrustAnchors`).
  var entries: [UInt8] = []
  /// `trust-anchor-file`: each file and the line naming it.
  var files: [(path: [UInt8], line: Int)] = []
}

extension ConfigReader {
  /// This build has the validator (the stand-in says false).
  static let dnssecIsBuiltIn = true

  /// `dnssec`, `dnssec-root`, `trust-anchor` and `trust-anchor-file`.
  mutating func readDNSSECDirective(
    _ directive: Directive, value: ArraySlice<UInt8>, arguments: [ArraySlice<UInt8>], line: Int
  ) throws(LineError) {
    switch directive {
    case .dnssec: settings.dnssec = try Self.dnssecMode(value)
    case .dnssecRoot: trustAnchorReading.keepsRoot = try ConfigValues.onOff(value, for: directive)
    case .trustAnchor: try addTrustAnchor(arguments)
    case .trustAnchorFile: try addTrustAnchorFile(value, line: line)
    default: break
    }
  }

  /// `off`, `on` or `auto`.
  static func dnssecMode(_ token: ArraySlice<UInt8>) throws(LineError) -> DNSSECMode {
    for mode in [DNSSECMode.off, .on, .auto] where ConfigValues.isWord(token, mode.word) {
      return mode
    }
    throw LineError("'dnssec' expects off, on or auto, got \(quoted: token)")
  }

  mutating func addTrustAnchor(_ tokens: [ArraySlice<UInt8>]) throws(LineError) {
    let record = Self.recordTokens(tokens)
    guard !record.isEmpty else {
      throw LineError(
        "missing argument to 'trust-anchor' (usage: \(Directive.trustAnchor.usage))")
    }
    try trustAnchorReading.entries += trustAnchorEntry(record)
  }

  /// Reads and checks every record of a `trust-anchor-file`, one per line;
  /// a bad line fails the config as `PATH:LINE: message`.
  mutating func addTrustAnchorFile(_ token: ArraySlice<UInt8>, line: Int) throws(LineError) {
    let path = try listPath(token, directive: "trust-anchor-file")
    if let first = trustAnchorReading.files.first(where: { $0.path == path }) {
      throw .duplicate("trust-anchor-file \(quoted: token)", firstOn: first.line)
    }
    trustAnchorReading.files.append((path, line))
    let contents = try readList(path, directive: "trust-anchor-file")
    var entries: [UInt8] = []
    try Self.forEachListLine(contents) { (tokens, lineNumber) throws(LineError) in
      let record = Self.recordTokens(tokens)
      guard !record.isEmpty else { return }
      do throws(LineError) {
        entries += try trustAnchorEntry(record)
      } catch {
        throw LineError(error.message, file: path, line: lineNumber)
      }
    }
    trustAnchorReading.entries += entries
  }

  /// At the end of the file: the table, and `dnssec on` (or `auto`) must
  /// have an anchor and the cache, reported on its line.
  mutating func finishTrustAnchors() throws(LineError) {
    let mode = settings.dnssec.word
    if settings.validatesDNSSEC && !trustAnchorReading.keepsRoot
      && trustAnchorReading.entries.isEmpty
    {
      throw LineError(
        """
        dnssec \(mode): no trust anchor: dnssec-root is off and no trust-anchor or \
        trust-anchor-file gives one
        """, file: fileName, line: firstLine[Directive.dnssec.rawValue])
    }
    // The chain's DS and DNSKEY answers are kept in the packet cache, where
    // the validator reads them: without it no signed answer could be proven.
    if settings.validatesDNSSEC && settings.cacheEntries == 0 {
      throw LineError(
        "dnssec \(mode): needs the cache (cache 0 turns it off): the chain of trust is kept there",
        file: fileName, line: firstLine[Directive.dnssec.rawValue])
    }
    let table =
      (trustAnchorReading.keepsRoot ? TrustAnchors.rootEntries : []) + trustAnchorReading.entries
    settings.trustAnchors = TrustAnchors(table.isEmpty ? TableBytes() : TableBytes(table))
  }

  /// The tokens before a `;` comment.
  static func recordTokens(_ tokens: [ArraySlice<UInt8>]) -> [ArraySlice<UInt8>] {
    var record: [ArraySlice<UInt8>] = []
    for token in tokens {
      guard let semicolon = token.firstIndex(of: UInt8(ascii: ";")) else {
        record.append(token)
        continue
      }
      if semicolon > token.startIndex { record.append(token[..<semicolon]) }
      break
    }
    return record
  }

  /// One record's `TrustAnchors` entry: owner, type, RDATA length, RDATA.
  func trustAnchorEntry(_ tokens: [ArraySlice<UInt8>]) throws(LineError) -> [UInt8] {
    let owner: [UInt8]
    do throws(LineError) {
      owner = try ConfigValues.flatName(tokens[0], written: tokens[0])
    } catch {
      throw LineError("trust anchor owner: \(bytes: error.message)")
    }
    // TTL and class, in either order (RFC 1035 §5.1): the TTL is unused.
    var index = 1
    while index < tokens.count - 1,
      tokens[index].allSatisfy({ $0 &- 0x30 < 10 }) || isWordIgnoringCase(tokens[index], "in")
    {
      index += 1
    }
    guard index < tokens.count else {
      throw LineError("trust anchor: expected OWNER [TTL] [IN] DS|DNSKEY RDATA")
    }
    let typeToken = tokens[index]
    let fields = Array(tokens[(index + 1)...])
    let type: TrustAnchorType
    let rdata: [UInt8]
    if isWordIgnoringCase(typeToken, "ds") {
      (type, rdata) = (.ds, try dsData(fields))
    } else if isWordIgnoringCase(typeToken, "dnskey") {
      (type, rdata) = (.dnskey, try dnskeyData(fields))
    } else {
      throw LineError("trust anchor: unknown type \(quoted: typeToken) (expected DS or DNSKEY)")
    }
    // RDLENGTH is 16 bits (RFC 1035 §3.2.1).
    guard rdata.count <= 0xFFFF else {
      throw LineError("trust anchor: RDATA of \(rdata.count) bytes, more than 65535")
    }
    var entry: [UInt8] = []
    TrustAnchors.append(owner: owner, type: type, rdata: rdata, to: &entry)
    return entry
  }

  /// DS RDATA (RFC 4034 §5.1): key tag, algorithm, digest type, digest.
  /// Digest types 1 (SHA-1), 2 (SHA-256) and 4 (SHA-384) must have their
  /// hash's length (RFC 3658, RFC 4509, RFC 6605 §2); others are kept as
  /// written.
  func dsData(_ fields: [ArraySlice<UInt8>]) throws(LineError) -> [UInt8] {
    guard fields.count >= 4 else {
      throw LineError("trust anchor: DS needs KEYTAG ALGORITHM DIGESTTYPE DIGEST")
    }
    let keyTag = try anchorField(fields[0], "DS key tag", max: 0xFFFF)
    let algorithm = try anchorField(fields[1], "DS algorithm", max: 255)
    let digestType = try anchorField(fields[2], "DS digest type", max: 255)
    let digest = try hexDigest(fields[3...])
    let expected: Int
    switch digestType {
    case 1: expected = 20
    case 2: expected = 32
    case 4: expected = 48
    default: expected = digest.count
    }
    guard digest.count == expected else {
      throw LineError(
        """
        trust anchor: DS digest type \(digestType) takes \(expected) bytes \
        (\(2 * expected) hex digits), got \(digest.count)
        """)
    }
    return [UInt8(keyTag >> 8), UInt8(keyTag & 0xFF), UInt8(algorithm), UInt8(digestType)]
      + digest
  }

  /// DNSKEY RDATA (RFC 4034 §2.1): flags, protocol, algorithm, public key.
  /// A trust anchor must be a zone key (§2.1.1: flags bit 7, 256), of
  /// protocol 3 (§2.1.2).
  func dnskeyData(_ fields: [ArraySlice<UInt8>]) throws(LineError) -> [UInt8] {
    guard fields.count >= 4 else {
      throw LineError("trust anchor: DNSKEY needs FLAGS PROTOCOL ALGORITHM PUBLICKEY")
    }
    let flags = try anchorField(fields[0], "DNSKEY flags", max: 0xFFFF)
    let keyProtocol = try anchorField(fields[1], "DNSKEY protocol", max: 255)
    let algorithm = try anchorField(fields[2], "DNSKEY algorithm", max: 255)
    guard flags & 0x0100 != 0 else {
      throw LineError(
        "trust anchor: DNSKEY flags \(flags) lack the zone key bit (256; RFC 4034 §2.1.1)")
    }
    guard keyProtocol == 3 else {
      throw LineError("trust anchor: DNSKEY protocol \(keyProtocol) is not 3 (RFC 4034 §2.1.2)")
    }
    guard let key = decodeBase64(Array(fields[3...].joined())[...]) else {
      throw LineError(
        "trust anchor: bad base64 in the DNSKEY public key (RFC 4648 §4, padded with '=')")
    }
    return [UInt8(flags >> 8), UInt8(flags & 0xFF), UInt8(keyProtocol), UInt8(algorithm)] + key
  }

  /// A decimal field of at most `max`.
  func anchorField(_ token: ArraySlice<UInt8>, _ label: StaticString, max: Int) throws(LineError)
    -> Int
  {
    var value = 0
    for byte in token {
      guard byte &- 0x30 < 10, value <= max else { break }
      value = value * 10 + Int(byte - 0x30)
    }
    guard token.count <= 6, token.allSatisfy({ $0 &- 0x30 < 10 }), value <= max else {
      throw LineError("trust anchor: bad \(label) \(quoted: token): expected a number 0...\(max)")
    }
    return value
  }

  /// The bytes of hex digits split over `tokens`.
  func hexDigest(_ tokens: ArraySlice<ArraySlice<UInt8>>) throws(LineError) -> [UInt8] {
    var digest: [UInt8] = []
    var high: UInt8? = nil
    for byte in tokens.joined() {
      let lower = byte | 0x20
      let nibble: UInt8
      if byte &- 0x30 < 10 {
        nibble = byte - 0x30
      } else if lower &- 0x61 < 6 {
        nibble = lower - 0x61 + 10
      } else {
        throw LineError("trust anchor: bad hex digit \(quoted: [byte]) in the DS digest")
      }
      if let value = high {
        digest.append(value << 4 | nibble)
        high = nil
      } else {
        high = nibble
      }
    }
    guard high == nil else {
      throw LineError("trust anchor: the DS digest has an odd number of hex digits")
    }
    return digest
  }

  /// Whether `token` is `word` (lower case), ignoring ASCII case.
  func isWordIgnoringCase(_ token: ArraySlice<UInt8>, _ word: StaticString) -> Bool {
    word.withUTF8Buffer { token.lazy.map(Name.asciiLowercased).elementsEqual($0) }
  }
}
