/// Every way an HTTPDNS exchange can fail, one case each, so that the
/// transport can count them apart. Small and closed: typed throws, as
/// Embedded Swift requires.
public enum HTTPDNSError: Error, Equatable {
  /// The output buffer cannot hold the request or the DNS response.
  case bufferTooSmall
  /// The query is not one question these APIs can ask: alibaba and dnspod
  /// know only A and AAAA, only dnsMessage takes other classes than IN, and
  /// no other API takes a name with a `.` inside a label.
  case unsupportedQuestion
  /// The bytes are not an HTTP/1.x response (RFC 9112), or its head is
  /// longer than `HTTPDNSLimits.maxHeadBytes`.
  case malformedHTTP
  /// The connection closed before the response was complete. With nothing
  /// received, the server had closed an idle keep-alive connection: ask again
  /// on a new one.
  case closedEarly
  /// A final status other than 200 OK.
  case httpStatus(UInt16)
  /// The body is not what the format promises: bad JSON (syntax, nesting
  /// over `HTTPDNSLimits.maxJSONDepth`, a bad escape), a missing field, a
  /// number out of range, an address or name that does not parse.
  case malformedBody
  /// A `json` answer record of a type that cannot be turned into RDATA; the
  /// engine then asks the next upstream.
  case unsupportedRecord
  /// A `dnsMessage` response whose Content-Type is missing or is not
  /// `application/dns-message` (RFC 8484 §6): a captive portal's or a
  /// proxy's page, say.
  case wrongContentType
  /// A `dnsMessage` response that answers another question than the one
  /// asked (or none).
  case questionMismatch
}

/// All limits of the codec in one place, each with its reason.
public enum HTTPDNSLimits {
  /// Status line and header fields, also of each interim 1xx response and of
  /// a chunked body's trailer section. The APIs send a few hundred bytes; 8 KiB
  /// is the common server default for request heads too.
  public static let maxHeadBytes = 8192
  /// One chunk-size line with its extensions (RFC 9112 §7.1.1).
  public static let maxChunkLineBytes = 256
  /// Hex digits of a chunk size: 7 keeps it below 2^28, inside a 32-bit Int
  /// (armv7) with room to add offsets.
  public static let maxChunkSizeDigits = 7
  /// Decimal digits of a Content-Length, for the same reason.
  public static let maxContentLengthDigits = 8
  /// Nesting of JSON arrays and objects. The answers nest three deep; the
  /// limit bounds the reader's recursion when it skips unknown values.
  public static let maxJSONDepth = 16
  /// One whitespace-separated token of presentation text inside a JSON
  /// `data` string or a dnspod body: a 255-octet name with a third of its
  /// octets escaped as `\DDD`. With a flat name beside it, the scratch stays
  /// within the 1024 bytes `withUnsafeTemporaryAllocation` keeps on the
  /// stack in Embedded Swift (above that it calls malloc).
  public static let maxTokenBytes = 768
  /// Interim (1xx) responses skipped before the final one.
  public static let maxInterimResponses = 4
}
