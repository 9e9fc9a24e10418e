import CLinux

/// A Linux errno value; open, like the kernel's list.
public struct Errno: Error, Equatable {
  public var rawValue: Int32
  public init(rawValue: Int32) { self.rawValue = rawValue }
  public static var interrupted: Errno { Errno(rawValue: clinux_eintr()) }
  public static var wouldBlock: Errno { Errno(rawValue: clinux_eagain()) }
  public static var inProgress: Errno { Errno(rawValue: clinux_einprogress()) }
}

/// The one place every syscall goes through (Sources/README.md,
/// Conventions 5). Reads errno at
/// once, retries EINTR, and turns EAGAIN/EWOULDBLOCK into `nil`.
/// - Returns: the non-negative result, or nil when the call would block.
@inline(__always)
public func systemCall(_ call: () -> Int) throws(Errno) -> Int? {
  while true {
    let result = call()
    if result >= 0 { return result }
    let code = clinux_errno()
    if code == clinux_eintr() { continue }
    if code == clinux_eagain() || code == clinux_ewouldblock() { return nil }
    throw Errno(rawValue: code)
  }
}

/// A file descriptor number. Ownership is explicit: whoever opened it keeps
/// it in one slot and calls `close()` once.
public struct FileDescriptor: Equatable, Sendable {
  public var rawValue: Int32
  public init(rawValue: Int32) { self.rawValue = rawValue }
  public static let invalid = FileDescriptor(rawValue: -1)
  public var isValid: Bool { rawValue >= 0 }

  public func close() {
    if rawValue >= 0 { _ = CLinux.close(rawValue) }
  }

  /// read(2) into `buffer`; nil when it would block, 0 at end of stream.
  public func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int? {
    try systemCall { CLinux.read(rawValue, buffer.baseAddress, buffer.count) }
  }

  /// write(2); nil when it would block.
  public func write(_ bytes: UnsafeRawBufferPointer) throws(Errno) -> Int? {
    try systemCall { CLinux.write(rawValue, bytes.baseAddress, bytes.count) }
  }
}
