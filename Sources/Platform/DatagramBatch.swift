import CLinux

/// A fixed set of datagram buffers for recvmmsg(2) and sendmmsg(2): one
/// system call moves up to `capacity` datagrams. Allocated once; receiving
/// and sending reuse the same records.
///
/// Invariant: `count <= capacity <= CLINUX_BATCH_MAX`, and records
/// `0..<count` hold the datagrams last received or queued for sending.
public final class DatagramBatch {
  public let capacity: Int
  /// Bytes each datagram buffer holds.
  public let slotSize: Int
  public private(set) var count = 0
  let records: UnsafeMutablePointer<clinux_datagram>
  let buffers: SlotBuffer

  public init(capacity: Int, slotSize: Int) {
    precondition(capacity > 0 && capacity <= Int(CLINUX_BATCH_MAX), "batch size out of range")
    self.capacity = capacity
    self.slotSize = slotSize
    records = .allocate(capacity: capacity)
    buffers = SlotBuffer(count: capacity, stride: slotSize)
    for index in 0..<capacity {
      records.advanced(by: index).initialize(
        to: clinux_datagram(
          bytes: buffers[index].baseAddress!.assumingMemoryBound(to: UInt8.self),
          capacity: UInt32(slotSize), length: 0, truncated: 0,
          peer_length: 0, peer: sockaddr_storage()))
    }
  }

  deinit {
    records.deinitialize(count: capacity)
    records.deallocate()
  }

  public var isFull: Bool { count == capacity }

  /// Receives what is waiting on `fd`, up to `capacity` datagrams; returns
  /// how many arrived (0 when none). Fewer than `capacity` means the socket
  /// was drained at that moment.
  public func receive(from fd: FileDescriptor) throws(Errno) -> Int {
    let received = clinux_receive_datagrams(fd.rawValue, records, Int32(capacity))
    guard received >= 0 else {
      count = 0
      throw Errno(rawValue: clinux_errno())
    }
    count = Int(received)
    return count
  }

  /// The bytes of datagram `index` (cut to the buffer when truncated).
  public func bytes(at index: Int) -> UnsafeRawBufferPointer {
    let record = records[index]
    return UnsafeRawBufferPointer(
      start: record.bytes, count: min(Int(record.length), Int(record.capacity)))
  }

  /// Whether datagram `index` was larger than its buffer.
  public func isTruncated(at index: Int) -> Bool { records[index].truncated != 0 }

  /// Where datagram `index` came from; nil for a family other than IPv4/IPv6.
  public func peer(at index: Int) -> SocketAddress? {
    SocketAddress(storage: &records[index].peer)
  }

  /// Queues a copy of `bytes` for `address`. Returns false, queuing nothing,
  /// when the batch is full or the datagram is larger than a buffer.
  public func append(_ bytes: UnsafeRawBufferPointer, to address: SocketAddress) -> Bool {
    guard count < capacity, bytes.count <= slotSize else { return false }
    let record = records.advanced(by: count)
    if let source = bytes.baseAddress, bytes.count > 0 {
      UnsafeMutableRawPointer(record.pointee.bytes).copyMemory(from: source, byteCount: bytes.count)
    }
    record.pointee.length = UInt32(bytes.count)
    record.pointee.peer_length = address.write(into: &record.pointee.peer)
    count += 1
    return true
  }

  /// Sends every queued datagram on `fd` with as few sendmmsg calls as the
  /// kernel allows, and empties the batch. A datagram the kernel refuses is
  /// skipped (lost, as on a busy network); when the socket buffer is full,
  /// the rest are too. Returns how many were not sent.
  @discardableResult
  public func send(on fd: FileDescriptor) -> Int {
    var start = 0
    var failed = 0
    while start < count {
      let sent = clinux_send_datagrams(fd.rawValue, records + start, Int32(count - start))
      if sent > 0 {
        start += Int(sent)
        continue
      }
      let code = clinux_errno()
      if code == clinux_eagain() || code == clinux_ewouldblock() {
        failed += count - start
        break
      }
      failed += 1
      start += 1
    }
    count = 0
    return failed
  }

  /// Forgets queued datagrams without sending them.
  public func clear() { count = 0 }
}
