import CompiledConfig
import DNSWire

extension LocalAuthority {
  /// Answers from the override table: addresses for A/AAAA/ANY, NODATA for
  /// other types, NXDOMAIN for blocked names. Authoritative, like a hosts file.
  /// Addresses `override-check` marked down are left out (OverrideHealth.swift).
  func answerOverride(
    _ query: Message, match: OverrideMatch, settings: SettingsInForce,
    buffers: borrowing MessageBuffers
  ) -> LocalReply {
    let isBlock = match.kind == .block
    let flags = HeaderFlags(
      replyingTo: query, rcode: isBlock ? .nameError : .noError, authoritative: true)
    let type = query.questionType
    let inInternet = query.questionClass == .internet
    let wantsIPv4 = !isBlock && inInternet && (type == .a || type == .any)
    let wantsIPv6 = !isBlock && inInternet && (type == .aaaa || type == .any)
    let health = overrideHealth
    let filtersDown = health.count > 0
    let up = health.addressesUp(match, in: settings.value.overrides)
    let ipv4Count = wantsIPv4 ? up.ipv4 : 0
    let ipv6Count = wantsIPv6 ? up.ipv6 : 0
    let ttl = settings.value.overrideTTL
    var writer = buffers.startReply(
      to: query, flags: flags, answers: UInt16(ipv4Count + ipv6Count))
    var fits = true
    settings.value.overrides.addressBytes.withUnsafeBytes { addresses in
      do throws(WireError) {
        for index in 0..<(wantsIPv4 ? match.ipv4Count : 0) {
          let start = match.ipv4Offset + 4 * index
          if filtersDown && health.isDown(ipv4: addresses, at: start) { continue }
          try writer.writeRecord(
            pointerTo: HeaderField.size, type: .a, rrClass: .internet, ttl: ttl,
            rdata: UnsafeRawBufferPointer(rebasing: addresses[start..<(start + 4)]))
        }
        for index in 0..<(wantsIPv6 ? match.ipv6Count : 0) {
          let start = match.ipv6Offset + 16 * index
          if filtersDown && health.isDown(ipv6: addresses, at: start) { continue }
          try writer.writeRecord(
            pointerTo: HeaderField.size, type: .aaaa, rrClass: .internet, ttl: ttl,
            rdata: UnsafeRawBufferPointer(rebasing: addresses[start..<(start + 16)]))
        }
        try writer.writeClientOPT(answering: query, payloadSize: settings.value.ednsPayloadSize)
      } catch {
        fits = false
      }
    }
    return LocalReply(
      length: fits ? writer.count : Int.max, flags: flags,
      statistic: isBlock ? .blocked : .overridden, outcome: isBlock ? .blocked : .overridden)
  }
}
