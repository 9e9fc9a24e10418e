import CompiledConfig
import DNSWire

/// The HTTPDNS upstream protocol, sans I/O: the HTTP/1.1 request for a DNS
/// query, where a response ends in the received bytes, and the DNS response
/// made from it. Nothing is allocated; all work is in the caller's buffers
/// and a little stack.
public enum HTTPDNSCodec {
  /// How long a signed Alibaba request stays valid: `t` = now + this. Ten
  /// minutes covers a router clock that is a few minutes off.
  public static let signatureValidity: UInt64 = 600

  /// How far a response received so far extends: nil while incomplete; else
  /// the byte count of the whole response (status line, headers, body) and
  /// whether the server keeps the connection open. Content-Length and the
  /// chunked coding (RFC 9112 §6, §7.1) are both read; a response with
  /// neither ends when the connection closes, which the transport says with
  /// `connectionClosed` (and then an incomplete response throws
  /// `closedEarly`). Interim 1xx responses are skipped and counted in the
  /// length. A head over `HTTPDNSLimits.maxHeadBytes` throws `malformedHTTP`.
  public static func frame(_ received: UnsafeRawBufferPointer, connectionClosed: Bool)
    throws(HTTPDNSError) -> (length: Int, keepAlive: Bool)?
  {
    guard let response = try FramedResponse(received, connectionClosed: connectionClosed) else {
      return nil
    }
    return (response.end, response.head.keepAlive)
  }

  /// The query as a validated message with one IN question the format can ask.
  static func question(of query: UnsafeRawBufferPointer, format: HTTPDNSFormat)
    throws(HTTPDNSError) -> Message
  {
    let message: Message
    do throws(WireError) {
      message = try Message(validating: query)
    } catch { throw .unsupportedQuestion }
    guard message.hasQuestion, !message.flags.isResponse, message.questionClass == .internet
    else { throw .unsupportedQuestion }
    let type = message.questionType
    guard format == .json || type == .a || type == .aaaa else { throw .unsupportedQuestion }
    return message
  }
}
