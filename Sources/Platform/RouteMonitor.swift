import CLinux

/// Watches the kernel's routing tables over rtnetlink (rtnetlink(7)): a WAN
/// address or route added or removed (PPPoE reconnect, DHCP renew), a link
/// going up or down. The loop registers `descriptor` with epoll and calls
/// `drain` when it is readable.
public struct RouteMonitor {
  public let descriptor: FileDescriptor
  /// One read's worth; rtnetlink datagrams are a page or a few.
  static let bufferBytes = 8192
  let buffer: UnsafeMutableRawBufferPointer

  /// nil where rtnetlink is not available (a restricted container): the
  /// upstreams then recover by their timeouts alone.
  public init?() {
    let fd = clinux_route_monitor()
    guard fd >= 0 else { return nil }
    descriptor = FileDescriptor(rawValue: fd)
    buffer = .allocate(byteCount: Self.bufferBytes, alignment: 8)
  }

  /// Reads every pending datagram; returns how many change messages they
  /// held (0: nothing that matters, e.g. a neighbour update).
  public func drain() -> Int {
    var changes = 0
    while true {
      let received: Int?
      do {
        received = try descriptor.read(into: buffer)
      } catch {
        // ENOBUFS: the kernel dropped messages; something changed.
        return changes + 1
      }
      guard let received, received > 0 else { return changes }
      changes += Int(clinux_route_changes(buffer.baseAddress!, received))
    }
  }

  public func close() {
    descriptor.close()
    buffer.deallocate()
  }
}
