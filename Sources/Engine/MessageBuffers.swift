/// The engine's working buffers, allocated once and freed with it: the
/// reply and query being written (each with 2 bytes of headroom for TCP
/// framing, RFC 1035 §4.2.2), and room for one flat name each: the
/// lower-cased question, and a name as a client or upstream wrote it.
struct MessageBuffers: ~Copyable {
  /// Largest DNS message (RFC 1035 §4.2.2 length prefix is 16 bits).
  static let maxMessage = 65535
  static let framing = 2

  let reply: UnsafeMutableRawBufferPointer
  let query: UnsafeMutableRawBufferPointer
  let name: UnsafeMutableRawBufferPointer
  let casedName: UnsafeMutableRawBufferPointer

  init() {
    reply = .allocate(byteCount: Self.framing + Self.maxMessage, alignment: 8)
    query = .allocate(byteCount: Self.framing + 512, alignment: 8)
    name = .allocate(byteCount: TransactionTable.nameStride, alignment: 8)
    casedName = .allocate(byteCount: TransactionTable.nameStride, alignment: 8)
  }

  deinit {
    reply.deallocate()
    query.deallocate()
    name.deallocate()
    casedName.deallocate()
  }
}
