/// What the writer asks the kernel about its sets (NFT_MSG_GETSET): the
/// set's flags and key length. `nftset` names a set, not its type, and the
/// kernel refuses a timeout for a set without `flags timeout` (EINVAL),
/// reads a lone address given to a `flags interval` set as an interval open
/// to the end of the address space, and refuses an element without data for
/// a map. So each set is asked about at start-up and again after each
/// refused batch (a firewall reloaded with other sets), and until the
/// answer comes the writer assumes timeouts.
extension NetfilterSetWriter {
  /// GETSET requests carry the top bit; batches never do (their element
  /// count, in bits 16 and up, stays below 2^15).
  static let querySequence: UInt32 = 0x8000_0000

  /// Asks the kernel about every set. Call once the sets are added, and
  /// when the firewall may have changed; the answers are read by
  /// `drainReplies`, and are already queued when this returns (the kernel
  /// answers inside the write).
  public func querySets() {
    for set in 0..<batches.count { query(set) }
  }

  /// One GETSET for `set`, unless one is awaiting its answer. A write that
  /// fails is not retried: the next refused batch asks again.
  func query(_ set: Int) {
    guard !health[set].queried else { return }
    let length = batches.writeQuery(
      set, sequence: Self.querySequence | UInt32(truncatingIfNeeded: set), into: request)
    do {
      let written = try descriptor.write(UnsafeRawBufferPointer(start: request, count: length))
      health[set].queried = written != nil
    } catch {
      health[set].queried = false
    }
  }

  /// The kernel answered a GETSET with an error: the set does not exist
  /// (ENOENT), or this process may not ask (EPERM). The refused batches say
  /// so in the log; here the set may simply be asked about again.
  func answered(query sequence: UInt32) {
    let set = Int(sequence & 0x7FFF)
    guard set < batches.count else { return }
    health[set].queried = false
  }

  /// Reads NFTA_SET_FLAGS and NFTA_SET_KEY_LEN from a NEWSET message (its
  /// attributes follow the nlmsghdr and nfgenmsg, each padded to 4 bytes)
  /// and decides how, and whether, the set is written.
  func learn(sequence: UInt32, from message: UnsafeRawPointer, length: Int) {
    let set = Int(sequence & 0x7FFF)
    guard set < batches.count else { return }
    health[set].queried = false
    var flags: UInt32?
    var keyLength: UInt32?
    var offset = Netlink.messageHeaderBytes + Netlink.nfgenBytes
    while offset + Netlink.attributeHeaderBytes <= length {
      let attributeLength = Int(message.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
      guard attributeLength >= Netlink.attributeHeaderBytes, offset + attributeLength <= length
      else { break }
      let type =
        message.loadUnaligned(fromByteOffset: offset + 2, as: UInt16.self)
        & Netlink.attributeTypeMask
      if attributeLength >= 8 {
        let value = UInt32(
          bigEndian: message.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
        if type == Netlink.setFlags { flags = value }
        if type == Netlink.setKeyLength { keyLength = value }
      }
      offset += Netlink.aligned(attributeLength)
    }
    // NFTA_SET_FLAGS is left out when the set has none.
    guard let keyLength else { return }
    let setFlags = flags ?? 0
    let wasUsable = !health[set].unsupported
    health[set].learned = true
    health[set].unsupported =
      setFlags & Netlink.setUnsupported != 0 || Int(keyLength) != batches.keyLength(of: set)
    if health[set].unsupported {
      counters.elementsUnsupported += batches.elements(in: set)
      batches.reset(set)
      guard wasUsable else { return }
      startLine(.error, set).append("not a plain set of ")
        .append(batches.keyLength(of: set) == 4 ? "IPv4" : "IPv6")
        .append(" addresses (flags 0x").append(hex: UInt64(setFlags), digits: 2)
        .append(", key of ").append(decimal: Int(keyLength))
        .append(" bytes; interval sets, maps and concatenations are not written): nothing is added")
        .emit(.error)
      return
    }
    if !wasUsable { startLine(.info, set).append("now a plain set; adding again").emit(.info) }
    counters.elementsDropped += batches.setTimeouts(set, setFlags & Netlink.setTimeout != 0)
  }
}
