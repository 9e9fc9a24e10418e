import XCTest

@testable import HTTPDNS

/// Where a response ends (RFC 9112 §6.3): Content-Length, chunked, close.
final class FramingTests: XCTestCase {
  func assertFrame(
    _ text: String, closed: Bool = false, _ length: Int?, keepAlive: Bool = true,
    file: StaticString = #filePath, line: UInt = #line
  ) {
    switch frame(text, closed: closed) {
    case .success(let result):
      XCTAssertEqual(result?.0, length, "length", file: file, line: line)
      if let result { XCTAssertEqual(result.1, keepAlive, "keepAlive", file: file, line: line) }
    case .failure(let error):
      XCTFail("\(error)", file: file, line: line)
    }
  }

  func assertError(
    _ text: String, closed: Bool = false, _ error: HTTPDNSError,
    file: StaticString = #filePath, line: UInt = #line
  ) {
    XCTAssertEqual(frame(text, closed: closed).failure, error, file: file, line: line)
  }

  static let contentLength = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nServer: x\r\n\r\nhello"
  static let chunked =
    "HTTP/1.1 200 OK\r\ntransfer-encoding: gzip, Chunked\r\n\r\n"
    + "5;name=value;x=\"q\"\r\nhello\r\n1 \r\n,\r\n0a\r\n0123456789\r\n"
    + "0\r\nX-Trailer: 1\r\nY: 2\r\n\r\n"

  func testContentLength() {
    let full = Self.contentLength.utf8.count
    assertFrame(Self.contentLength, full)
    assertFrame(Self.contentLength + "HTTP/1.1 200 OK\r\n", full)  // the next response follows
    assertFrame(String(Self.contentLength.dropLast()), nil)
    assertError(String(Self.contentLength.dropLast()), closed: true, .closedEarly)
    assertFrame("HTTP/1.1 200 OK\r\nContent-Length: 3, 3\r\n\r\nabc", 44)
    assertError("HTTP/1.1 200 OK\r\nContent-Length: 3, 4\r\n\r\nabc", .malformedHTTP)
    assertError("HTTP/1.1 200 OK\r\nContent-Length: -3\r\n\r\nabc", .malformedHTTP)
    assertError("HTTP/1.1 200 OK\r\nContent-Length: 999999999\r\n\r\n", .malformedHTTP)
    assertError(
      "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", .malformedHTTP)
  }

  func testChunkedWithExtensionsAndTrailers() {
    assertFrame(Self.chunked, Self.chunked.utf8.count)
    assertFrame(String(Self.chunked.dropLast(2)), nil)
    assertError(String(Self.chunked.dropLast(2)), closed: true, .closedEarly)
    assertError("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", .malformedHTTP)
    assertError("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX", .malformedHTTP)
    assertError(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n12345678\r\n", .malformedHTTP)
    // Transfer-Encoding without chunked last: the body ends at close.
    assertFrame("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\nxyz", nil)
    assertFrame(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\nxyz", closed: true, 56,
      keepAlive: false)
  }

  /// Every prefix of a response is incomplete; the whole is complete; the
  /// same with the connection closed at each point is closedEarly.
  func testSplitAtEveryByte() {
    for text in [Self.contentLength, Self.chunked, "HTTP/1.1 100 Continue\r\n\r\n" + Self.chunked] {
      let bytes = Array(text.utf8)
      for cut in 0..<bytes.count {
        let prefix = Array(bytes[0..<cut])
        XCTAssertNil(try frame(prefix).get() ?? nil, "cut at \(cut)")
        XCTAssertEqual(frame(prefix, closed: true).failure, .closedEarly, "cut at \(cut)")
      }
      XCTAssertEqual(try frame(bytes).get()?.0, bytes.count)
    }
  }

  func testConnectionAndVersions() {
    let close = "HTTP/1.1 200 OK\r\nConnection: Close\r\nContent-Length: 0\r\n\r\n"
    assertFrame(close, close.utf8.count, keepAlive: false)
    let list = "HTTP/1.1 200 OK\r\nConnection: foo, close\r\nContent-Length: 0\r\n\r\n"
    assertFrame(list, list.utf8.count, keepAlive: false)
    assertFrame("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", 38, keepAlive: false)
    assertFrame(
      "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n", 62)
    // No length: the body runs to the close.
    let unframed = "HTTP/1.0 200 OK\r\n\r\n1.2.3.4"
    assertFrame(unframed, nil)
    assertFrame(unframed, closed: true, unframed.utf8.count, keepAlive: false)
    // Bare LF line ends (RFC 9112 §2.2); 204 has no body; 1xx is skipped.
    assertFrame("HTTP/1.1 200 OK\nContent-Length: 2\n\nab", 37)
    assertFrame("HTTP/1.1 204 No Content\r\n\r\nxyz", 27)
    let interim = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx"
    assertFrame(interim, interim.utf8.count)
    assertFrame("HTTP/1.1 404\r\nContent-Length: 1\r\n\r\nx", 36)
  }

  func testMalformedHeads() {
    for text in [
      "HTTP/2 200 OK\r\n\r\n", "HTTP/1.1 20 OK\r\n\r\n", "HTTP/1.1 2000 OK\r\n\r\n",
      "HTTP/1.1 099 x\r\n\r\n", "http/1.1200 OK\r\n\r\n", "SSH-2.0-OpenSSH\r\n\r\n",
      "HTTP/1.1 200 OK\r\nNo colon\r\n\r\n", "HTTP/1.1 200 OK\r\nName : value\r\n\r\n",
      "HTTP/1.1 200 OK\r\nA: b\r\n folded\r\n\r\n",
    ] {
      assertError(text, .malformedHTTP)
    }
    // A head over the limit, complete or not.
    let long = "HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 9000)
    assertError(long, .malformedHTTP)
    assertError(long + "\r\n\r\n", .malformedHTTP)
    assertFrame(String(long.prefix(8000)), nil)
    // Nothing at all, then closed: the server dropped an idle connection.
    assertFrame("", nil)
    assertError("", closed: true, .closedEarly)
    // Too many interim responses.
    assertError(String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: 5), .malformedHTTP)
  }
}
