import CLinux

/// One epoll instance and a preallocated event array. Each registration
/// carries a caller-chosen 64-bit token (kind, slot, generation), so a stale
/// event for a recycled descriptor can be recognised and ignored. The
/// owner closes `descriptor`; the event arrays are freed with the value.
/// Noncopyable: one owner frees them, and a borrow (`context.epoll.add`)
/// costs no reference count.
public struct Epoll: ~Copyable {
  public let descriptor: FileDescriptor
  public static let capacity = 64
  private let events: UnsafeMutablePointer<UInt32>
  private let tokens: UnsafeMutablePointer<UInt64>

  public static var readable: UInt32 { clinux_epollin() }
  public static var writable: UInt32 { clinux_epollout() }
  /// Hang-up, error or peer shutdown.
  public static var hangup: UInt32 { clinux_epollhup() }

  public init() throws(Errno) {
    let fd = try systemCall { Int(epoll_create1(Int32(EPOLL_CLOEXEC))) } ?? -1
    descriptor = FileDescriptor(rawValue: Int32(fd))
    events = .allocate(capacity: Self.capacity)
    tokens = .allocate(capacity: Self.capacity)
  }

  deinit {
    events.deallocate()
    tokens.deallocate()
  }

  public func add(_ fd: FileDescriptor, events: UInt32, token: UInt64) throws(Errno) {
    _ = try systemCall {
      Int(clinux_epoll_ctl(descriptor.rawValue, EPOLL_CTL_ADD, fd.rawValue, events, token))
    }
  }

  public func modify(_ fd: FileDescriptor, events: UInt32, token: UInt64) throws(Errno) {
    _ = try systemCall {
      Int(clinux_epoll_ctl(descriptor.rawValue, EPOLL_CTL_MOD, fd.rawValue, events, token))
    }
  }

  /// Closing a descriptor removes it too; this is for ones that stay open.
  public func remove(_ fd: FileDescriptor) {
    _ = clinux_epoll_ctl(descriptor.rawValue, EPOLL_CTL_DEL, fd.rawValue, 0, 0)
  }

  /// Waits up to `timeoutMilliseconds` (-1: forever) and returns how many
  /// events are ready; read them with `event(at:)`.
  public func wait(timeoutMilliseconds: Int32) throws(Errno) -> Int {
    try systemCall {
      Int(
        clinux_epoll_wait(
          descriptor.rawValue, events, tokens, Int32(Self.capacity), timeoutMilliseconds))
    } ?? 0
  }

  public func event(at index: Int) -> (events: UInt32, token: UInt64) {
    (events[index], tokens[index])
  }
}
