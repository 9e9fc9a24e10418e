import XCTest

@testable import HTTPDNS

extension Result {
  var failure: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
}

func capture<T>(_ body: () throws(HTTPDNSError) -> T) -> Result<T, HTTPDNSError> {
  do throws(HTTPDNSError) {
    return .success(try body())
  } catch {
    return .failure(error)
  }
}

func frame(_ bytes: [UInt8], closed: Bool = false) -> Result<(Int, Bool)?, HTTPDNSError> {
  bytes.withUnsafeBytes { raw in
    capture { () throws(HTTPDNSError) in
      try HTTPDNSCodec.frame(raw, connectionClosed: closed).map { ($0.length, $0.keepAlive) }
    }
  }
}

func frame(_ text: String, closed: Bool = false) -> Result<(Int, Bool)?, HTTPDNSError> {
  frame(Array(text.utf8), closed: closed)
}
