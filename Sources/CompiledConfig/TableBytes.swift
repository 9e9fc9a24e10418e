/// The read-only bytes of a static table.
///
/// A compiled config passes the bytes of a string literal, which stay where
/// the linker put them (read-only data, nothing copied at start-up); a config
/// read at run time (`--config`) passes an array, copied once into a buffer
/// this value owns. Either way the bytes never change after `init`, and
/// `bytes` stays valid as long as `owner` lives (for a literal, forever), so
/// `withUnsafeBytes` calls its body on one path: no copy of the body per
/// kind of storage in the (size-budgeted) firmware.
public struct TableBytes {
  /// Frees the copy of an array's bytes when the last `TableBytes` sharing
  /// it goes away.
  final class Owner {
    let storage: UnsafeMutableRawBufferPointer

    init(copying bytes: [UInt8]) {
      storage = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
      storage.copyBytes(from: bytes)
    }

    deinit { storage.deallocate() }
  }

  let bytes: UnsafeRawBufferPointer
  /// nil for a literal's bytes, which live as long as the program.
  let owner: Owner?

  public init() {
    bytes = UnsafeRawBufferPointer(start: nil, count: 0)
    owner = nil
  }

  public init(_ array: [UInt8]) {
    let owner = Owner(copying: array)
    self.owner = owner
    bytes = UnsafeRawBufferPointer(owner.storage)
  }

  /// The UTF-8 bytes of `literal`. A literal of one Unicode scalar may be
  /// stored as the scalar itself rather than as bytes in read-only data;
  /// those few bytes are copied.
  public init(_ literal: StaticString) {
    guard literal.hasPointerRepresentation else {
      self = TableBytes(literal.withUTF8Buffer { Array($0) })
      return
    }
    bytes = UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
    owner = nil
  }

  /// Calls `body` with the bytes. The pointer is valid only inside `body`.
  public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
    withExtendedLifetime(owner) { body(bytes) }
  }

  /// Whether `other` holds the same bytes.
  public func hasSameBytes(as other: TableBytes) -> Bool {
    withUnsafeBytes { mine in other.withUnsafeBytes { mine.elementsEqual($0) } }
  }

  /// Whether the bytes are a (non-empty) string literal's, in read-only data.
  public var isLiteral: Bool { owner == nil && bytes.count > 0 }
}

extension TableBytes: RandomAccessCollection {
  public var startIndex: Int { 0 }
  public var endIndex: Int { bytes.count }

  public subscript(position: Int) -> UInt8 {
    precondition(position >= 0 && position < bytes.count, "table byte index out of range")
    return withUnsafeBytes { $0[position] }
  }
}
