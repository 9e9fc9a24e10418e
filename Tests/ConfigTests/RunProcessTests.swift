import Foundation
import TestSupport
import XCTest

/// `runProcess`, which the generated-source tests use to run swiftc: a
/// child that fills its standard error pipe (a long compiler error) before
/// it writes its output must not hang the test.
final class RunProcessTests: XCTestCase {
  func testMuchStandardErrorBeforeTheOutputDoesNotBlockTheChild() throws {
    let result = try runProcess(
      URL(fileURLWithPath: "/bin/sh"),
      ["-c", "head -c 300000 /dev/zero | tr '\\0' e >&2; echo done; exit 3"])
    XCTAssertEqual(result.status, 3)
    XCTAssertEqual(String(decoding: result.output, as: UTF8.self), "done\n")
    XCTAssertEqual(result.error.count, 300_000)
  }
}
