/// `count` slots of `stride` bytes each, in one allocation made by `init`
/// and freed by `deinit`: the per-connection and per-datagram buffers of the
/// loop's pools. Slot `i` is bytes `i * stride ..< (i + 1) * stride`.
///
/// The bytes are not initialized: a slot is written before it is read, and
/// pages no slot ever touched take no memory (a router's RSS counts only
/// what is used). Noncopyable, so that exactly one owner frees the memory,
/// and a slot costs a multiply and an add: no reference count, no bounds
/// check outside debug builds (as a slice of a raw buffer).
public struct SlotBuffer: ~Copyable {
  /// How many slots there are.
  public let count: Int
  /// Bytes in each slot.
  public let stride: Int
  @usableFromInline let base: UnsafeMutableRawPointer

  /// Allocates `count * stride` bytes (at least one) aligned to `alignment`.
  public init(count: Int, stride: Int, alignment: Int = 8) {
    precondition(count >= 0 && stride >= 0, "negative slot buffer size")
    self.count = count
    self.stride = stride
    base = .allocate(byteCount: max(count * stride, 1), alignment: alignment)
  }

  deinit { base.deallocate() }

  /// Slot `slot` (`0..<count`), `stride` bytes.
  @inlinable
  public subscript(slot: Int) -> UnsafeMutableRawBufferPointer {
    assert(slot >= 0 && slot < count, "slot out of range")
    return UnsafeMutableRawBufferPointer(start: base + slot * stride, count: stride)
  }
}
