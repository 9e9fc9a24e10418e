import CompiledConfig
import DNSWire

/// Answers from the LAN's own names (`hosts`, `leases`, `domain`), after
/// `override`/`block` and before the cache and the upstreams. As dnsmasq
/// answers its hosts and DHCP names: authoritative (AA), TTL 0, A and AAAA
/// for a known name, NODATA (NOERROR, no records) for its other types, PTR
/// for its addresses.
extension LocalAuthority {
  /// TTL 0, dnsmasq's `local-ttl` default: a lease that moves or ends is
  /// seen by the next question, and asking costs a LAN round trip.
  static let localNameTTL: UInt32 = 0

  /// The answer for a local name or a local address's reverse name
  /// (`in-addr.arpa`, `ip6.arpa`); nil when the active table knows
  /// neither (the question goes on). `name` is the lower-cased question.
  func answerLocalName(
    _ query: Message, name: UnsafeRawBufferPointer, ours: UInt16,
    buffers: borrowing MessageBuffers
  ) -> LocalReply? {
    let table = names.active
    guard table.count > 0, query.questionClass == .internet else { return nil }
    if let address = LocalZones.reverseAddress(name) {
      guard let record = table.firstRecord(for: address) else { return nil }
      return writeLocalAnswer(
        query, table: table, record: record, isReverse: true, ours: ours, buffers: buffers)
    }
    // LABEL.DOMAIN is also the bare LABEL: both names' addresses answer.
    let exact = table.firstRecord(named: name)
    let bare = names.bareName(name).flatMap { table.firstRecord(named: $0) }
    guard let record = exact ?? bare else { return nil }
    return writeLocalAnswer(
      query, table: table, record: record, alsoRecord: exact == nil ? nil : bare,
      isReverse: false, ours: ours, buffers: buffers)
  }

  /// A question at or below `domain` that local data did not answer:
  /// NXDOMAIN, never forwarded (the domain itself gets NODATA, since its
  /// names exist below it: RFC 8020). Nil outside the domain.
  func answerUnknownInLocalDomain(
    _ query: Message, name: UnsafeRawBufferPointer, settings: SettingsInForce,
    buffers: borrowing MessageBuffers
  ) -> LocalReply? {
    let domain = names.domain
    guard !domain.isEmpty, query.questionClass == .internet else { return nil }
    var offset = 0
    while name.count - offset > domain.count {
      offset += 1 + Int(name[offset])
    }
    guard name.count - offset == domain.count,
      Name.equalIgnoringCase(UnsafeRawBufferPointer(rebasing: name[offset...]), domain),
      // A name routed with `for` (`upstream udp 127.0.0.1:5353 for lan`)
      // goes to the server the operator named for it.
      settings.routeGroup(name) == 0
    else { return nil }
    var reply = writeLocalAnswer(
      query, table: nil, record: 0, isReverse: false,
      rcode: name.count == domain.count ? .noError : .nameError,
      ours: settings.value.ednsPayloadSize,
      buffers: buffers)
    reply.statistic = .localNXDomain
    return reply
  }

  /// Writes the answer for `record`'s name (`table` nil: no
  /// records, `rcode`): the A and AAAA records of its chain and of
  /// `alsoRecord`'s (without an address twice) that the type asks for, or
  /// a PTR record naming its canonical name (as NAME.DOMAIN when the name
  /// is bare and a `domain` is set). The answer count is patched in after.
  /// Not inlined: one copy serves its three callers.
  @inline(never)
  func writeLocalAnswer(
    _ query: Message, table: LocalNameTable?, record: Int, alsoRecord: Int? = nil,
    isReverse: Bool, rcode: ResponseCode = .noError, ours: UInt16,
    buffers: borrowing MessageBuffers
  ) -> LocalReply {
    let flags = HeaderFlags(replyingTo: query, rcode: rcode, authoritative: true)
    let type = query.questionType
    var writer = buffers.startReply(to: query, flags: flags)
    var fits = true
    do throws(WireError) {
      var answers: UInt16 = 0
      var walk = LocalRecordWalk(first: record, second: alsoRecord, isReverse: isReverse)
      while let table, let index = walk.next(in: table) {
        if try writeLocalRecord(
          &writer, table: table, record: index, isReverse: isReverse, type: type)
        {
          answers += 1
        }
      }
      writer.patchUInt16(answers, at: HeaderField.answerCount)
      try writer.writeClientOPT(answering: query, payloadSize: ours)
    } catch {
      fits = false
    }
    return LocalReply(
      length: fits ? writer.count : Int.max, flags: flags, statistic: .localAnswers,
      outcome: .localName)
  }

  /// One A, AAAA or PTR record for `record` if `type` asks for it (false
  /// when not), its owner a pointer to the question name; the RDATA is
  /// spelled in `names.recordData` first.
  func writeLocalRecord(
    _ writer: inout MessageWriter, table: LocalNameTable, record: Int, isReverse: Bool,
    type: RRType
  ) throws(WireError) -> Bool {
    let address = table.address(of: record)
    let recordType: RRType = isReverse ? .ptr : address.isIPv4 ? .a : .aaaa
    guard type == recordType || type == .any else { return false }
    let data = names.recordData
    var length = 0
    if isReverse {
      let target = table.name(of: record)
      let domain = names.domain
      // A bare canonical name is named as NAME.DOMAIN, when that is a name
      // (RFC 1035 §2.3.4: at most 255 octets).
      length = target.count
      UnsafeMutableRawBufferPointer(rebasing: data[0..<length]).copyMemory(from: target)
      if !domain.isEmpty && Name.labelCount(target) == 1
        && length - 1 + domain.count <= Name.maxLength
      {
        length -= 1
        UnsafeMutableRawBufferPointer(rebasing: data[length..<(length + domain.count)])
          .copyMemory(from: domain)
        length += domain.count
      }
    } else {
      length = address.isIPv4 ? 4 : 16
      for index in 0..<length { data[index] = address.byte(16 - length + index) }
    }
    try writer.writeRecord(
      pointerTo: HeaderField.size, type: recordType, rrClass: .internet, ttl: Self.localNameTTL,
      rdata: UnsafeRawBufferPointer(rebasing: data[0..<length]))
    return true
  }
}

/// The records an answer is written from: the chain of `first`'s name,
/// then that of `second`'s, skipping addresses `first`'s chain has; only
/// `first` for a reverse name.
struct LocalRecordWalk {
  var current: Int?
  let first: Int
  let second: Int?
  let isReverse: Bool
  var inSecond = false

  init(first: Int, second: Int?, isReverse: Bool) {
    current = first
    self.first = first
    self.second = second
    self.isReverse = isReverse
  }

  mutating func next(in table: LocalNameTable) -> Int? {
    while let index = current {
      if isReverse {
        current = nil
        return index
      }
      let isInSecond = inSecond
      current = table.nextRecord(sameNameAs: index)
      if current == nil && !inSecond {
        inSecond = true
        current = second
      }
      if isInSecond && hasAddressInFirstChain(index, table) { continue }
      return index
    }
    return nil
  }

  func hasAddressInFirstChain(_ index: Int, _ table: LocalNameTable) -> Bool {
    let address = table.address(of: index)
    var candidate: Int? = first
    while let other = candidate {
      if table.address(of: other) == address { return true }
      candidate = table.nextRecord(sameNameAs: other)
    }
    return false
  }
}
