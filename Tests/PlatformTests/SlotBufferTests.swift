import Platform
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// SlotBuffer: fixed slots of one allocation, each its own bytes.
final class SlotBufferTests: XCTestCase {
  func testSlotsAreStrideApartAndStrideLong() {
    let buffer = SlotBuffer(count: 4, stride: 24)
    XCTAssertEqual(buffer.count, 4)
    XCTAssertEqual(buffer.stride, 24)
    let first = buffer[0].baseAddress!
    for slot in 0..<4 {
      XCTAssertEqual(buffer[slot].count, 24)
      XCTAssertEqual(buffer[slot].baseAddress! - first, slot * 24)
    }
  }

  func testWritingOneSlotLeavesItsNeighboursAlone() {
    let buffer = SlotBuffer(count: 3, stride: 5)
    for slot in 0..<3 { buffer[slot].initializeMemory(as: UInt8.self, repeating: UInt8(slot + 1)) }
    buffer[1].initializeMemory(as: UInt8.self, repeating: 0xEE)
    XCTAssertEqual(Array(buffer[0]), [1, 1, 1, 1, 1])
    XCTAssertEqual(Array(buffer[1]), [0xEE, 0xEE, 0xEE, 0xEE, 0xEE])
    XCTAssertEqual(Array(buffer[2]), [3, 3, 3, 3, 3])
  }

  func testSlotsAreAligned() {
    let buffer = SlotBuffer(count: 2, stride: 64, alignment: 16)
    XCTAssertEqual(Int(bitPattern: buffer[0].baseAddress!) % 16, 0)
    XCTAssertEqual(Int(bitPattern: buffer[1].baseAddress!) % 16, 0)
    let bytes = SlotBuffer(count: 2, stride: 3, alignment: 1)
    XCTAssertEqual(bytes[1].baseAddress! - bytes[0].baseAddress!, 3)
  }

  /// No slots (a pool with nothing configured) is allowed: nothing to index.
  func testEmptyBufferHasNoSlots() {
    let none = SlotBuffer(count: 0, stride: 1024)
    XCTAssertEqual(none.count, 0)
    let zeroStride = SlotBuffer(count: 3, stride: 0)
    XCTAssertEqual(zeroStride[2].count, 0)
  }

  /// The bytes are the buffer's until it goes, and then they are freed.
  /// 64 MiB is past glibc's largest mmap threshold (32 MiB), so the buffer
  /// is a mapping of its own: the process's size grows by it and falls back
  /// (/proc/self/statm, in pages; the pages are never touched, so this
  /// costs no memory).
  func testDeinitFreesTheMemory() throws {
    func mappedBytes() throws -> Int {
      let statm = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8)
      let pages = try XCTUnwrap(statm.split(separator: " ").first.flatMap { Int($0) })
      return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
    let size = 64 << 20
    let before = try mappedBytes()
    do {
      let buffer = SlotBuffer(count: 1024, stride: size / 1024)
      buffer[1023].storeBytes(of: 0x0102_0304_0506_0708 as UInt64, as: UInt64.self)
      XCTAssertEqual(buffer[1023].load(as: UInt64.self), 0x0102_0304_0506_0708)
      XCTAssertGreaterThanOrEqual(try mappedBytes() - before, size)
    }
    XCTAssertLessThan(try mappedBytes() - before, size / 4)
  }
}
