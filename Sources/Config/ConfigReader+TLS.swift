import CompiledConfig
import DNSWire

/// The values of the TLS and HTTPS upstream options and of `ca-file`.
extension ConfigReader {
  /// The longest host name: 255 octets in wire form less the first length
  /// octet and the root (RFC 1035 §2.3.4), in text without the final dot.
  static let maxHostNameLength = 253
  /// `path=`: room for a real API's path and query.
  static let maxRequestPathLength = 200
  /// An https upstream's `name=` (its Host field, with a `:PORT` of up to 6
  /// more bytes) and `path=` together: a DoH request's head is 119 bytes
  /// besides them, and with a 640-byte query (RFC 8467 padding) it must
  /// fit the 1 KiB request buffer (HTTPDNSCodec.writeRequest).
  static let maxNameAndPathLength = 250

  /// `name=NAME`: the host name the server's certificate is checked
  /// against, sent as SNI (RFC 6066 §3, which takes no final dot and no IP
  /// address) and, for https, as the Host field. Letters, digits and `-`
  /// in labels of 1...63 that neither start nor end with `-` (RFC 1123
  /// §2.1); one final dot is dropped. An IP address is refused: the
  /// certificate's DNS names are what is checked.
  func tlsName(_ value: ArraySlice<UInt8>) throws(LineError) -> [UInt8] {
    let name =
      value.last == UInt8(ascii: ".") ? value[value.startIndex..<(value.endIndex - 1)] : value
    if !name.isEmpty,
      name.allSatisfy({ $0 == UInt8(ascii: ".") || $0 &- 0x30 < 10 })
        || name.contains(UInt8(ascii: ":"))
    {
      throw httpdnsError(
        "name=", value,
        """
         looks like an IP address; give the host name the server's certificate is issued to \
        (e.g. name=dns.google): the address goes before the options
        """)
    }
    guard isHostName(name) else {
      throw httpdnsError(
        "name=", value,
        """
         is not a host name (labels of 1...63 letters, digits and '-', not starting or \
        ending with '-', joined by dots, 253 characters at most; RFC 1123 §2.1)
        """)
    }
    return Array(name)
  }

  /// `pin=sha256/BASE64`: the SHA-256 of the server's SubjectPublicKeyInfo
  /// (RFC 7469 §2.4), 32 bytes in 44 characters of base64.
  func pin(_ value: ArraySlice<UInt8>) throws(LineError) -> [UInt8] {
    let prefix: StaticString = "sha256/"
    guard prefix.withUTF8Buffer({ value.starts(with: $0) }),
      let digest = decodeBase64(value.dropFirst(7)), digest.count == 32
    else {
      throw httpdnsError(
        "bad pin ", value,
        """
         (expected sha256/ and the base64 of the SHA-256 of the server's public key, \
        44 characters, RFC 7469 §2.4)
        """)
    }
    return digest
  }

  /// `path=/PATH`: the request target of an HTTP API (RFC 9112 §3.2.1
  /// origin-form): `/`, then the characters of a URI path and query (RFC
  /// 3986 §3.3, §3.4), so nothing needs escaping in a request or a comment.
  func requestPath(_ value: ArraySlice<UInt8>) throws(LineError) -> [UInt8] {
    guard value.first == UInt8(ascii: "/"), value.count <= Self.maxRequestPathLength,
      value.allSatisfy(isPathByte)
    else {
      throw httpdnsError(
        "bad path ", value,
        """
         (a '/', then up to 199 letters, digits and -._~%!$&'()*+,;=:@/?, \
        e.g. path=/dns-query; RFC 3986 §3.3)
        """)
    }
    return Array(value)
  }
}

/// Whether `name` is labels of 1...63 letters, digits and `-` that neither
/// start nor end with `-`, joined by dots, 253 bytes at most (RFC 1123
/// §2.1, RFC 1035 §2.3.4).
func isHostName(_ name: ArraySlice<UInt8>) -> Bool {
  guard name.count <= ConfigReader.maxHostNameLength else { return false }
  var labelLength = 0
  var previous = UInt8(ascii: ".")
  for byte in name {
    if byte == UInt8(ascii: ".") {
      guard labelLength > 0, previous != UInt8(ascii: "-") else { return false }
      labelLength = 0
    } else {
      guard isHostNameByte(byte), labelLength < 63,
        labelLength > 0 || byte != UInt8(ascii: "-")
      else { return false }
      labelLength += 1
    }
    previous = byte
  }
  return labelLength > 0 && previous != UInt8(ascii: "-")
}

/// A host name's characters: letters, digits and `-`.
func isHostNameByte(_ byte: UInt8) -> Bool {
  (Name.asciiLowercased(byte) &- 0x61 < 26) || (byte &- 0x30 < 10) || byte == UInt8(ascii: "-")
}

/// The characters of a URI path and query (RFC 3986 §3.3, §3.4): pchar
/// (unreserved, pct-encoded, sub-delims, `:`, `@`), `/` and `?`.
func isPathByte(_ byte: UInt8) -> Bool {
  if isHostNameByte(byte) { return true }
  let others: StaticString = "._~%!$&'()*+,;=:@/?"
  return others.withUTF8Buffer { $0.contains(byte) }
}

/// The bytes of base64 text (RFC 4648 §4: `A-Z a-z 0-9 + /`, padded with
/// `=` to a multiple of four characters), or nil if it is not exactly that:
/// no line breaks, no padding inside, and the bits that padding leaves over
/// are zero (§3.5), so each byte string has one spelling.
func decodeBase64(_ text: ArraySlice<UInt8>) -> [UInt8]? {
  guard text.count % 4 == 0 else { return nil }
  var output: [UInt8] = []
  var accumulator: UInt32 = 0
  var bits = 0
  var padding = 0
  for byte in text {
    if byte == UInt8(ascii: "=") {
      padding += 1
      continue
    }
    guard padding == 0, let value = base64Value(byte) else { return nil }
    accumulator = accumulator << 6 | UInt32(value)
    bits += 6
    if bits >= 8 {
      bits -= 8
      output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
      accumulator &= (1 << UInt32(bits)) - 1
    }
  }
  // Two characters of padding leave 4 bits over, one leaves 2: all zero.
  guard padding <= 2, accumulator == 0 else { return nil }
  return output
}

/// The 6-bit value of a base64 character (RFC 4648 Table 1).
func base64Value(_ byte: UInt8) -> UInt8? {
  if byte &- UInt8(ascii: "A") < 26 { return byte - UInt8(ascii: "A") }
  if byte &- UInt8(ascii: "a") < 26 { return byte - UInt8(ascii: "a") + 26 }
  if byte &- UInt8(ascii: "0") < 10 { return byte - UInt8(ascii: "0") + 52 }
  if byte == UInt8(ascii: "+") { return 62 }
  if byte == UInt8(ascii: "/") { return 63 }
  return nil
}

/// Base64 text of `bytes`, padded (RFC 4648 §4): a pin as `pin=` takes it.
func encodeBase64(_ bytes: [UInt8]) -> [UInt8] {
  let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
  let groups = (bytes.count + 2) / 3
  return [UInt8](unsafeUninitializedCapacity: 4 * groups) { text, count in
    for group in 0..<groups {
      var value: UInt32 = 0
      for offset in 0..<3 {
        let index = 3 * group + offset
        value = value << 8 | UInt32(index < bytes.count ? bytes[index] : 0)
      }
      // Characters past the data are padding, the alphabet's 65th.
      let characters = min(4, (bytes.count - 3 * group) * 4 / 3 + 1)
      for position in 0..<4 {
        let sextet = position < characters ? Int(value >> UInt32(18 - 6 * position) & 0x3F) : 64
        text[4 * group + position] = alphabet.utf8Start[sextet]
      }
    }
    count = 4 * groups
  }
}
