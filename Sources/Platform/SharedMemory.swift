import CLinux

/// Memory the workers share: an anonymous `MAP_SHARED` mapping made before
/// fork(2) stays the same pages in every process forked after it (mmap(2)).
/// Mapped once at start-up and never unmapped: it lives as long as the
/// processes.
public enum SharedMemory {
  /// `byteCount` zeroed bytes, page-aligned; nil when mmap fails.
  public static func map(byteCount: Int) -> UnsafeMutableRawPointer? {
    let pointer = mmap(
      nil, byteCount, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0)
    guard let pointer, pointer != UnsafeMutableRawPointer(bitPattern: -1) else { return nil }
    return pointer
  }
}
