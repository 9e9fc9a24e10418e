/// The read-only bytes of a static table.
///
/// A compiled config passes the bytes of a string literal, which stay where
/// the linker put them (read-only data, nothing copied at start-up); a config
/// read at run time (`--config`) passes an array it built. Either way the
/// bytes never change after `init`.
public struct TableBytes {
  enum Storage {
    /// Invariant: `hasPointerRepresentation` (`init(_: StaticString)` copies
    /// the others into an array).
    case literal(StaticString)
    case array([UInt8])
  }

  let storage: Storage

  public init() {
    storage = .array([])
  }

  public init(_ bytes: [UInt8]) {
    storage = .array(bytes)
  }

  /// The UTF-8 bytes of `literal`. A literal of one Unicode scalar may be
  /// stored as the scalar itself rather than as bytes in read-only data;
  /// those few bytes are copied.
  public init(_ literal: StaticString) {
    if literal.hasPointerRepresentation {
      storage = .literal(literal)
    } else {
      storage = .array(literal.withUTF8Buffer { Array($0) })
    }
  }

  /// Calls `body` with the bytes. The pointer is valid only inside `body`.
  public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
    switch storage {
    case .literal(let literal):
      return body(
        UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    case .array(let bytes):
      return bytes.withUnsafeBytes(body)
    }
  }

  /// Whether the bytes are a string literal's, in read-only data.
  public var isLiteral: Bool {
    if case .literal = storage { return true }
    return false
  }
}

extension TableBytes: RandomAccessCollection {
  public var startIndex: Int { 0 }

  public var endIndex: Int {
    switch storage {
    case .literal(let literal): return literal.utf8CodeUnitCount
    case .array(let bytes): return bytes.count
    }
  }

  public subscript(position: Int) -> UInt8 {
    precondition(position >= 0 && position < endIndex, "table byte index out of range")
    switch storage {
    case .literal(let literal): return literal.utf8Start[position]
    case .array(let bytes): return bytes[position]
    }
  }
}
