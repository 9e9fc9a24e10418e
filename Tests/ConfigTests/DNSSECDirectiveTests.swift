import CompiledConfig
import Config
import TestSupport
import XCTest

/// `dnssec`, `dnssec-root`, `trust-anchor` and `trust-anchor-file`: the
/// trust anchors as `Settings.trustAnchors` holds them.
final class DNSSECDirectiveTests: XCTestCase, ParsesDirectives {
  /// The root's DS records as the IANA root trust anchors file gives them
  /// (KSK-2017 and KSK-2024), in text, to check the compiled-in bytes.
  static let rootKSK2017 =
    ". IN DS 20326 8 2 E06D44B80B8F1D39A95C0B0D7C65D08458E880409BBC683457104237C7F8EC8D"
  static let rootKSK2024 =
    ". IN DS 38696 8 2 683D2D0ACB8C9B712A1948B27F741219298D0A450D612C483AF444A4C0FB2B16"
  /// RFC 4034 §5.4's example DS record.
  static let exampleDS =
    "dskey.example.com. 86400 IN DS 60485 5 1 2BB183AF5F22588179A53B0A98631FAD1A292118"
  static let exampleDSData: [UInt8] =
    [0xEC, 0x45, 5, 1] + hexBytes("2BB183AF5F22588179A53B0A98631FAD1A292118")
  /// Bytes 0...31 in base64: a made-up 32-byte public key.
  static let keyBase64 = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="

  /// Each anchor as (owner in presentation form, type, RDATA).
  static func entries(_ anchors: TrustAnchors) -> [(String, TrustAnchorType, [UInt8])] {
    var result: [(String, TrustAnchorType, [UInt8])] = []
    anchors.withIterator { iterator in
      while let anchor = iterator.next() {
        result.append((describeName(Array(anchor.owner)), anchor.type, Array(anchor.rdata)))
      }
    }
    return result
  }

  func testDefaultsAreOffWithTheRootAnchors() throws {
    for settings in [Settings(), try XCTUnwrap(parse("log info"))] {
      XCTAssertEqual(settings.dnssec, .off)
      let entries = Self.entries(settings.trustAnchors)
      XCTAssertEqual(entries.map(\.0), [".", "."])
      XCTAssertEqual(entries.map(\.1), [.ds, .ds])
      XCTAssertEqual(entries.map { Int($0.2[0]) << 8 | Int($0.2[1]) }, [20326, 38696])
    }
    XCTAssertEqual(try XCTUnwrap(parse("dnssec on")).dnssec, .on)
    XCTAssertEqual(try XCTUnwrap(parse("dnssec off")).dnssec, .off)
    XCTAssertEqual(try XCTUnwrap(parse("dnssec auto")).dnssec, .auto)
  }

  /// `dnssec` takes off, on or auto; anything else is refused at its line.
  func testDNSSECTakesOffOnOrAuto() throws {
    let error = try XCTUnwrap(parseError("listen 127.0.0.1\ndnssec maybe\n"))
    XCTAssertEqual(error.description, "test.conf:2: 'dnssec' expects off, on or auto, got 'maybe'")
    // `auto` validates, so it needs what `on` needs, said with its word.
    let noCache = try XCTUnwrap(parseError("listen 127.0.0.1\ncache 0\ndnssec auto\n"))
    XCTAssertEqual(
      noCache.description,
      "test.conf:3: dnssec auto: needs the cache (cache 0 turns it off): the chain of trust is "
        + "kept there")
    XCTAssertTrue(try XCTUnwrap(parse("dnssec auto")).validatesDNSSEC)
    XCTAssertFalse(try XCTUnwrap(parse("dnssec off")).validatesDNSSEC)
  }

  /// The compiled-in bytes are the IANA records, as the parser reads them.
  func testRootAnchorsAreTheIANAOnes() throws {
    let settings = try XCTUnwrap(
      parse("dnssec-root off\ntrust-anchor \(Self.rootKSK2017)\ntrust-anchor \(Self.rootKSK2024)"))
    XCTAssertEqual(Array(settings.trustAnchors.bytes), TrustAnchors.rootEntries)
    XCTAssertTrue(settings.trustAnchors.hasSameEntries(as: .root))
    XCTAssertEqual(TrustAnchors.root.count, 2)
  }

  func testDNSSECRootOffDropsTheRootAnchors() throws {
    XCTAssertEqual(try XCTUnwrap(parse("dnssec-root off")).trustAnchors.count, 0)
    let settings = try XCTUnwrap(
      parse("dnssec on\ndnssec-root off\ntrust-anchor \(Self.exampleDS)"))
    let entries = Self.entries(settings.trustAnchors)
    XCTAssertEqual(entries.map(\.0), ["dskey.example.com."])
    XCTAssertEqual(entries.first?.2, Self.exampleDSData)
    XCTAssertFalse(settings.trustAnchors.hasSameEntries(as: .root))
  }

  /// The root's first, then the others in config order; TTL and class in
  /// either order or absent; hex and base64 split by spaces; names and
  /// mnemonics in any case; a `;` comment after the record.
  func testRecordForms() throws {
    let settings = try XCTUnwrap(
      parse(
        """
        trust-anchor DSKey.Example.COM ds 60485 5 1 2bb183af5f22588179a5 3B0A98631FAD1A292118
        trust-anchor example. IN 3600 DNSKEY 257 3 15 AAECAwQFBgcICQoLDA0ODxAR EhMUFRYXGBkaGxwdHh8= ; KSK
        trust-anchor example.net DNSKEY 256 3 13 \(Self.keyBase64);no space before it
        trust-anchor org. 0 IN DS 1 8 3 00ff
        """))
    let entries = Self.entries(settings.trustAnchors)
    XCTAssertEqual(
      entries.map(\.0), [".", ".", "dskey.example.com.", "example.", "example.net.", "org."])
    XCTAssertEqual(entries.map(\.1), [.ds, .ds, .ds, .dnskey, .dnskey, .ds])
    XCTAssertEqual(entries[2].2, Self.exampleDSData)
    XCTAssertEqual(entries[3].2, [0x01, 0x01, 3, 15] + (0..<32))
    XCTAssertEqual(entries[4].2, [0x01, 0x00, 3, 13] + (0..<32))
    // Digest type 3 has no length to check: kept as written.
    XCTAssertEqual(entries[5].2, [0, 1, 8, 3, 0x00, 0xFF])
    XCTAssertEqual(settings.trustAnchors.count, 6)
  }

  func testBadLines() {
    let sha256 = String(repeating: "ab", count: 32)
    let usage =
      "trust-anchor OWNER [TTL] [IN] DS|DNSKEY RDATA, "
      + "one zone-file record, e.g. dskey.example.com. DS 60485 5 1 HEX"
    assertBadLines([
      ("dnssec maybe", "'dnssec' expects off, on or auto, got 'maybe'", 1),
      ("dnssec-root yes", "'dnssec-root' expects on or off, got 'yes'", 1),
      ("dnssec on\ndnssec off", "duplicate 'dnssec' directive (first on line 4)", 2),
      ("trust-anchor", "missing argument to 'trust-anchor' (usage: \(usage))", 1),
      ("trust-anchor ;comment", "missing argument to 'trust-anchor' (usage: \(usage))", 1),
      (
        "trust-anchor example. A 192.0.2.1",
        "trust anchor: unknown type 'A' (expected DS or DNSKEY)", 1
      ),
      (
        "trust-anchor example. 3600 IN",
        "trust anchor: unknown type 'IN' (expected DS or DNSKEY)", 1
      ),
      (
        "trust-anchor exa$mple. DS 1 8 2 \(sha256)",
        "trust anchor owner: bad name 'exa$mple.': unexpected character '$' "
          + "(use letters, digits, '-' and '_')", 1
      ),
      (
        "trust-anchor a..b DS 1 8 2 \(sha256)",
        "trust anchor owner: bad name 'a..b': empty label (two dots in a row, or a leading dot)", 1
      ),
      (
        "trust-anchor example. DS 1 8 2",
        "trust anchor: DS needs KEYTAG ALGORITHM DIGESTTYPE DIGEST", 1
      ),
      (
        "trust-anchor example. DS 65536 8 2 \(sha256)",
        "trust anchor: bad DS key tag '65536': expected a number 0...65535", 1
      ),
      (
        "trust-anchor example. DS 1 RSASHA256 2 \(sha256)",
        "trust anchor: bad DS algorithm 'RSASHA256': expected a number 0...255", 1
      ),
      (
        "trust-anchor example. DS 1 8 256 00",
        "trust anchor: bad DS digest type '256': expected a number 0...255", 1
      ),
      (
        "trust-anchor example. DS 1 8 1 \(sha256)",
        "trust anchor: DS digest type 1 takes 20 bytes (40 hex digits), got 32", 1
      ),
      (
        "trust-anchor example. DS 1 8 2 \(sha256.dropLast(2))",
        "trust anchor: DS digest type 2 takes 32 bytes (64 hex digits), got 31", 1
      ),
      (
        "trust-anchor example. DS 1 8 4 \(sha256)",
        "trust anchor: DS digest type 4 takes 48 bytes (96 hex digits), got 32", 1
      ),
      (
        "trust-anchor example. DS 1 8 2 \(sha256.dropLast())",
        "trust anchor: the DS digest has an odd number of hex digits", 1
      ),
      (
        "trust-anchor example. DS 1 8 2 \(sha256.dropLast(2))zz",
        "trust anchor: bad hex digit 'z' in the DS digest", 1
      ),
      (
        "trust-anchor example. DNSKEY 257 3 15",
        "trust anchor: DNSKEY needs FLAGS PROTOCOL ALGORITHM PUBLICKEY", 1
      ),
      (
        "trust-anchor example. DNSKEY 1 3 15 \(Self.keyBase64)",
        "trust anchor: DNSKEY flags 1 lack the zone key bit (256; RFC 4034 §2.1.1)", 1
      ),
      (
        "trust-anchor example. DNSKEY 257 2 15 \(Self.keyBase64)",
        "trust anchor: DNSKEY protocol 2 is not 3 (RFC 4034 §2.1.2)", 1
      ),
      (
        "trust-anchor example. DNSKEY 257 3 15 \(Self.keyBase64.dropLast())",
        "trust anchor: bad base64 in the DNSKEY public key (RFC 4648 §4, padded with '=')", 1
      ),
      (
        "trust-anchor example. DNSKEY 257 3 15 AAEC*wQF",
        "trust anchor: bad base64 in the DNSKEY public key (RFC 4648 §4, padded with '=')", 1
      ),
      (
        "trust-anchor example. DNSKEY -1 3 15 \(Self.keyBase64)",
        "trust anchor: bad DNSKEY flags '-1': expected a number 0...65535", 1
      ),
      (
        "trust-anchor example. DS 1 8 3 " + String(repeating: "00", count: 65_532),
        "trust anchor: RDATA of 65536 bytes, more than 65535", 1
      ),
    ])
  }

  /// `dnssec on` needs the cache, where the chain of trust is kept:
  /// reported on its line; with `dnssec off` a cache of 0 is fine.
  func testDNSSECOnNeedsTheCache() throws {
    for cache in ["cache 0"] {
      let error = try XCTUnwrap(parseError("listen 127.0.0.1\n\(cache)\ndnssec on\n"), cache)
      XCTAssertEqual(
        error.description,
        "test.conf:3: dnssec on: needs the cache (cache 0 turns it off): the chain of trust is "
          + "kept there", cache)
      XCTAssertEqual(parse("\(cache)\ndnssec off")?.cacheEntries, 0, cache)
    }
  }

  /// `dnssec on` needs an anchor: reported on its line. Off, none is needed,
  /// and anchors are kept though unused.
  func testDNSSECOnNeedsAnAnchor() throws {
    let error = try XCTUnwrap(
      parseError("listen 127.0.0.1\n\ndnssec on\ndnssec-root off\n"))
    XCTAssertEqual(
      error.description,
      "test.conf:3: dnssec on: no trust anchor: dnssec-root is off and no trust-anchor or "
        + "trust-anchor-file gives one")
    XCTAssertNotNil(parse("dnssec off\ndnssec-root off"))
    let unused = try XCTUnwrap(parse("dnssec-root off\ntrust-anchor \(Self.exampleDS)"))
    XCTAssertEqual(unused.dnssec, .off)
    XCTAssertEqual(unused.trustAnchors.count, 1)
  }

  // MARK: trust-anchor-file

  func parse(_ config: String, files: [String: String]) throws(ConfigError) -> Settings {
    try ConfigParser.parse(
      config, fileName: "/etc/dnsward/dnsward.conf",
      readFile: { path in
        let name = String(decoding: path, as: UTF8.self)
        guard let text = files[name] else {
          return .failure(ConfigFileError(reason: "No such file or directory"))
        }
        return .success(Array(text.utf8))
      })
  }

  func testAnchorFileWithCommentsAndBlankLines() throws {
    let file = """
      ; anchors for the lab, as dig prints them
      \(Self.exampleDS)

         example. 3600 IN DNSKEY 257 3 15 AAECAwQFBgcICQoLDA0ODxAR EhMUFRYXGBkaGxwdHh8= ; KSK\r
      # a '#' comment too

      """
    let settings = try parse(
      "listen 127.0.0.1\ndnssec on\ndnssec-root off\ntrust-anchor-file anchors.txt\n"
        + "trust-anchor org. DS 1 8 3 00\n",
      files: ["/etc/dnsward/anchors.txt": file])
    let entries = Self.entries(settings.trustAnchors)
    XCTAssertEqual(entries.map(\.0), ["dskey.example.com.", "example.", "org."])
    XCTAssertEqual(entries.map(\.1), [.ds, .dnskey, .ds])
    XCTAssertEqual(entries[1].2, [0x01, 0x01, 3, 15] + (0..<32))
    // A file of comments alone gives no anchor.
    XCTAssertThrowsError(
      try parse(
        "listen 127.0.0.1\ndnssec on\ndnssec-root off\ntrust-anchor-file /a\n",
        files: ["/a": "; nothing\n\n"]))
  }

  func testAnchorFileErrors() {
    let config = "listen 127.0.0.1\ntrust-anchor-file anchors.txt\n"
    func failure(_ config: String, _ files: [String: String]) -> String? {
      do throws(ConfigError) {
        _ = try parse(config, files: files)
        XCTFail("expected an error for \(config)")
        return nil
      } catch {
        return error.description
      }
    }
    XCTAssertEqual(
      failure(config, ["/etc/dnsward/anchors.txt": "; ok\n\(Self.exampleDS)\n\nexample. TXT x\n"]),
      "/etc/dnsward/anchors.txt:4: trust anchor: unknown type 'TXT' (expected DS or DNSKEY)")
    XCTAssertEqual(
      failure(config, ["/etc/dnsward/anchors.txt": "example. DNSKEY 257 3 15 AA==\nexample.\n"]),
      "/etc/dnsward/anchors.txt:2: trust anchor: expected OWNER [TTL] [IN] DS|DNSKEY RDATA")
    XCTAssertEqual(
      failure(config, [:]),
      "/etc/dnsward/dnsward.conf:2: cannot read trust-anchor-file "
        + "'/etc/dnsward/anchors.txt': No such file or directory")
    XCTAssertEqual(
      failure(
        config + "trust-anchor-file /etc/dnsward/anchors.txt\n", ["/etc/dnsward/anchors.txt": ""]),
      "/etc/dnsward/dnsward.conf:3: duplicate trust-anchor-file '/etc/dnsward/anchors.txt' "
        + "(first on line 2)")
    // Without a file reader (the parse of a string), naming a file fails.
    XCTAssertEqual(
      parseError("listen 127.0.0.1\ntrust-anchor-file /a\n")?.message,
      "cannot read trust-anchor-file '/a': files cannot be read here")
  }

  // MARK: Summary, generated source, table

  func testSummary() {
    assertSummary(
      of: "dnssec on\ntrust-anchor \(Self.exampleDS)",
      contains: "\ndnssec: on; trust anchors: 3 (root: 2)\n")
    assertSummary(
      of: "trust-anchor \(Self.exampleDS)",
      contains: "\ndnssec: off; trust anchors: 3 (root: 2) (no effect: dnssec is off)\n")
    assertSummary(of: "dnssec-root off", contains: "\ndnssec: off; trust anchors: 0 (root: 0)\n")
    assertSummary(of: "dnssec auto", contains: "\ndnssec: auto; trust anchors: 2 (root: 2)\n")
  }

  func testGeneratedSourceHoldsTheTable() throws {
    let settings = try XCTUnwrap(parse("dnssec on\ntrust-anchor \(Self.exampleDS)"))
    let source = ConfigGenerator.swiftSource(settings, sourceName: "d.conf")
    XCTAssertEqual(
      integers(of: "trustAnchorBytes", type: "UInt8", in: source)?.map { UInt8($0) },
      Array(settings.trustAnchors.bytes))
    XCTAssertTrue(source.contains("\n  // . DS 20326 8 2\n"), source)
    XCTAssertTrue(source.contains("\n  // dskey.example.com. DS 60485 5 1\n"), source)
    XCTAssertTrue(source.contains("\n  settings.dnssec = .on\n"), source)
    // A firmware without DNSSEC leaves the table out, and refuses to build
    // a config that turns validation on.
    XCTAssertTrue(
      source.contains(
        """

          #if !DNSWARD_NO_DNSSEC
            settings.trustAnchors = TrustAnchors(TableBytes(trustAnchorBytes))
          #endif

        """), source)
    XCTAssertTrue(source.contains("\n#if !DNSWARD_NO_DNSSEC\nlet trustAnchorBytes: [UInt8] = [\n"))
    XCTAssertTrue(
      source.contains(
        """
          #if DNSWARD_NO_DNSSEC
            #error("dnssec on: this firmware is built without DNSSEC (-DDNSWARD_DNSSEC=ON)")
          #endif
        """), source)
    let empty = ConfigGenerator.swiftSource(
      try XCTUnwrap(parse("dnssec-root off")), sourceName: "e.conf")
    XCTAssertTrue(empty.contains("\nlet trustAnchorBytes: [UInt8] = []\n#endif\n"), empty)
    XCTAssertTrue(empty.contains("\n  settings.dnssec = .off\n"))
    XCTAssertFalse(empty.contains("#error"))
  }

  /// The generated source compiled and run holds the parsed anchors.
  func testGeneratedSourceCompiles() throws {
    let settings = try XCTUnwrap(
      parse(
        "dnssec on\ntrust-anchor \(Self.exampleDS)\ntrust-anchor example. DNSKEY 257 3 15 "
          + Self.keyBase64))
    let main = """
      let settings = compiledSettings()
      print(settings.dnssec)
      settings.trustAnchors.withIterator { iterator in
        while let anchor = iterator.next() {
          print(anchor.owner.count, anchor.type.rawValue, Array(anchor.rdata))
        }
      }
      """
    let output = try runGeneratedSource(
      ConfigGenerator.swiftSource(settings, sourceName: "c.conf"), main: main)
    var expected = ["on"]
    for (owner, type, rdata) in Self.entries(settings.trustAnchors) {
      expected.append("\(flatName(owner).count) \(type.rawValue) \(rdata)")
    }
    XCTAssertEqual(output, expected)
  }

  /// `dnssec auto` compiled in: the mode and the `#error` that keeps it
  /// out of a firmware without the validator.
  func testGeneratedSourceForAutoCompiles() throws {
    let source = ConfigGenerator.swiftSource(
      try XCTUnwrap(parse("dnssec auto")), sourceName: "a.conf")
    XCTAssertTrue(source.contains("\n  settings.dnssec = .auto\n"), source)
    XCTAssertTrue(
      source.contains(
        "#error(\"dnssec auto: this firmware is built without DNSSEC (-DDNSWARD_DNSSEC=ON)\")"),
      source)
    let main = """
      let settings = compiledSettings()
      print(settings.dnssec, settings.validatesDNSSEC, settings.trustAnchors.count)
      """
    XCTAssertEqual(try runGeneratedSource(source, main: main), ["auto true 2"])
  }

  /// A damaged table ends the walk where it is damaged, without trapping.
  func testDamagedTableEndsTheWalk() {
    var table: [UInt8] = []
    TrustAnchors.append(owner: [0], type: .ds, rdata: [1, 2, 3, 4], to: &table)
    XCTAssertEqual(TrustAnchors(TableBytes(table)).count, 1)
    for cut in 0..<table.count {
      XCTAssertEqual(TrustAnchors(TableBytes(Array(table[..<cut]) + [])).count, 0, "cut \(cut)")
    }
    // An unknown type, a label running past the end, an RDATA too long.
    XCTAssertEqual(TrustAnchors(TableBytes(table + [0, 0, 1, 0, 0])).count, 1)
    XCTAssertEqual(TrustAnchors(TableBytes(table + [63, 1, 0, 43, 0, 0])).count, 1)
    XCTAssertEqual(TrustAnchors(TableBytes(table + [0, 0, 48, 0xFF, 0xFF, 1])).count, 1)
    XCTAssertEqual(TrustAnchors().count, 0)
  }
}
