import CompiledConfig
import DNSWire

/// Questions answered at once and never sent upstream, because no upstream
/// can answer them usefully and asking leaks the LAN's own names to the ISP:
///
/// - **Locally served zones** (RFC 6303 §4, RFC 7793; dnsmasq's
///   `bogus-priv`): every question of class IN at or below the reverse
///   zones of private, loopback, link-local, CGNAT, documentation and
///   locally assigned ULA addresses. dnsward serves each as the empty zone
///   RFC 6303 §3 describes: the apex has an SOA and an NS record (both
///   named after the zone itself), so the apex answers SOA, NS and ANY with
///   them and other types with NODATA; names below the apex are NXDOMAIN.
///   Negative answers carry the SOA in the authority section so that they
///   can be cached (RFC 2308 §3). Off with `forward-private-reverse on`.
/// - **Single-label names** (dnsmasq's `domain-needed`): a question of
///   class IN for A, AAAA, ANY or HTTPS about a name of one label
///   (`printer`, not the root) is NXDOMAIN. Other types are forwarded:
///   resolvers and validators ask NS, SOA, DS and DNSKEY of top-level
///   domains (`com`). Off with `forward-single-label on`.
///
/// `filter-aaaa on` (dnsmasq's `filter-AAAA`) answers every AAAA question
/// that would be forwarded with NODATA; overrides and local names come
/// first and still answer AAAA.
///
/// The check parses the labels once into integers: no table of zone names
/// is searched, nothing is allocated.
extension LocalAuthority {
  /// The answer to a question that is never forwarded (see above); nil for
  /// any other question. `name` is the lower-cased flat question name.
  func answerNeverForwarded(
    _ query: Message, name: UnsafeRawBufferPointer, settings: SettingsInForce,
    buffers: borrowing MessageBuffers
  ) -> LocalReply? {
    guard query.questionClass == .internet else { return nil }
    let type = query.questionType
    // A name routed with `for` (`for 168.192.in-addr.arpa`) goes to the
    // server the operator named for it; the route is looked up only for a
    // name that would otherwise be kept here.
    if !settings.value.forwardPrivateReverse, let zone = LocalZones.locallyServedZone(name),
      settings.routeGroup(name) == 0
    {
      return answerLocalZone(
        query, zone: zone, ours: settings.value.ednsPayloadSize, buffers: buffers)
    }
    if !settings.value.forwardSingleLabel, LocalZones.isSingleLabel(name),
      type == .a || type == .aaaa || type == .any || type == .https,
      settings.routeGroup(name) == 0
    {
      let length = buffers.writeError(
        .nameError, to: query.bytes, query: query, ours: settings.value.ednsPayloadSize)
      return LocalReply(
        length: length,
        flags: HeaderFlags(rawValue: buffers.replyOutput.getUInt16(at: HeaderField.flags)),
        statistic: .notForwarded, outcome: .answered(.nameError))
    }
    return nil
  }

  /// The authoritative answer of the empty zone `zone` (RFC 6303 §3): at
  /// the apex, SOA, NS and ANY with the zone's records and other types with
  /// NODATA; below it NXDOMAIN. A negative answer carries the SOA as
  /// authority.
  func answerLocalZone(
    _ query: Message, zone: LocalZone, ours: UInt16, buffers: borrowing MessageBuffers
  ) -> LocalReply {
    let rcode: ResponseCode = zone.isApex ? .noError : .nameError
    let flags = HeaderFlags(replyingTo: query, rcode: rcode, authoritative: true)
    let type = query.questionType
    let answersSOA = zone.isApex && (type == .soa || type == .any)
    let answersNS = zone.isApex && (type == .ns || type == .any)
    let answerCount = (answersSOA ? 1 : 0) + (answersNS ? 1 : 0)
    // The question starts right after the header; the apex is a suffix of it.
    let apex = HeaderField.size + zone.apexOffset
    // At most 12 + 259 + 50 + 12 + 11 = 344 bytes: within every client's
    // size (512 at least, RFC 1035 §4.2.1), so never truncated.
    var writer = buffers.startReply(
      to: query, flags: flags, answers: UInt16(answerCount),
      authorities: answerCount == 0 ? 1 : 0)
    do throws(WireError) {
      if answersSOA || answerCount == 0 {
        try LocalZones.writeZoneRecord(&writer, .soa, apex: apex)
      }
      if answersNS { try LocalZones.writeZoneRecord(&writer, .ns, apex: apex) }
      try writer.writeClientOPT(answering: query, payloadSize: ours)
    } catch {
      preconditionFailure("a local zone's answer always fits")
    }
    return LocalReply(
      length: writer.count, flags: flags, statistic: .notForwarded, outcome: .answered(rcode))
  }
}
