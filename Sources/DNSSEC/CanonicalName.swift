// Names in DNSSEC canonical form (RFC 4034 §6.2: uncompressed, lower-case
// ASCII) and the canonical ordering of names (RFC 4034 §6.1).

import DNSWire

/// A flat name in canonical form, on the stack: at most 255 octets,
/// lower-cased, uncompressed.
public struct CanonicalName {
  var storage: InlineArray<255, UInt8> = .init(repeating: 0)
  public private(set) var count = 0

  /// The canonical form of a flat name; nil unless it is a well-formed name
  /// that fills `flat` exactly.
  public init?(_ flat: UnsafeRawBufferPointer) {
    guard uncompressedNameLength(in: flat, at: 0, limit: flat.count) == flat.count else {
      return nil
    }
    count = flat.count
    withUnsafeMutableBytes(of: &storage) { output in
      for index in 0..<flat.count { output[index] = Name.asciiLowercased(flat[index]) }
    }
  }

  /// The canonical form of the (possibly compressed) name at `offset` in a
  /// validated message.
  public init?(in message: Message, at offset: Int) {
    guard
      let length = withUnsafeMutableBytes(
        of: &storage,
        { output in
          try? Name.read(
            in: message.bytes, at: offset, into: output, lowercase: true,
            firstTarget: HeaderField.size
          ).length
        })
    else { return nil }
    count = length
  }

  /// Calls `body` with the name's octets.
  public mutating func withBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
    let length = count
    return withUnsafeBytes(of: &storage) { body(UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
  }

  /// Number of labels, not counting the root.
  public var labelCount: Int {
    var copy = self
    return copy.withBytes { Name.labelCount($0) }
  }
}

/// Canonical DNS name order (RFC 4034 §6.1): names compare label by label
/// from the rightmost, each label as a string of lower-cased octets (a
/// prefix sorts first), and a name sorts before the names below it.
public enum CanonicalOrder {
  /// Compares two flat names; returns <0, 0 or >0. A malformed name (a label
  /// past its end) compares as the well-formed labels it has.
  public static func compare(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Int {
    var leftStarts = InlineArray<128, UInt8>(repeating: 0)
    var rightStarts = InlineArray<128, UInt8>(repeating: 0)
    let leftCount = labelStarts(lhs, into: &leftStarts)
    let rightCount = labelStarts(rhs, into: &rightStarts)
    var leftIndex = leftCount - 1
    var rightIndex = rightCount - 1
    while leftIndex >= 0, rightIndex >= 0 {
      let order = compareLabel(
        lhs, at: Int(leftStarts[leftIndex]), rhs, at: Int(rightStarts[rightIndex]))
      if order != 0 { return order }
      leftIndex -= 1
      rightIndex -= 1
    }
    return leftCount - rightCount
  }

  /// The offsets of the labels of `name` (not the root), left to right;
  /// returns how many. At most 127 labels fit in 255 octets.
  static func labelStarts(
    _ name: UnsafeRawBufferPointer, into starts: inout InlineArray<128, UInt8>
  )
    -> Int
  {
    var count = 0
    var position = 0
    let limit = min(name.count, Name.maxLength)
    while position < limit, name[position] != 0, count < 128 {
      guard position + 1 + Int(name[position]) <= limit else { break }
      starts[count] = UInt8(position)
      count += 1
      position += 1 + Int(name[position])
    }
    return count
  }

  static func compareLabel(
    _ lhs: UnsafeRawBufferPointer, at leftStart: Int, _ rhs: UnsafeRawBufferPointer,
    at rightStart: Int
  ) -> Int {
    let leftLength = Int(lhs[leftStart])
    let rightLength = Int(rhs[rightStart])
    var index = 1
    while index <= min(leftLength, rightLength) {
      let left = Name.asciiLowercased(lhs[leftStart + index])
      let right = Name.asciiLowercased(rhs[rightStart + index])
      if left != right { return left < right ? -1 : 1 }
      index += 1
    }
    return leftLength - rightLength
  }
}
