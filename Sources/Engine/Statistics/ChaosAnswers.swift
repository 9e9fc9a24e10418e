import CompiledConfig
import DNSWire

/// Statistics in class CHAOS, the way router users ask dnsmasq
/// (`dig @router chaos txt hits.bind`): the engine owns the `bind.`,
/// `server.` and `dnsward.` zones and answers every question in them itself
/// (QTYPE TXT, TTL 0, AA set); the names and what they hold are listed in
/// Sources/Engine/Statistics/README.md. Only clients inside `allow` get
/// here: the ACL check comes first. Any other name or type in those zones
/// gets REFUSED; CHAOS questions outside them take the ordinary path.
///
/// Nothing is allocated: the reply is written straight into the reply
/// buffer and numbers are formatted into it digit by digit.
extension Engine {
  /// Brings the `level` statistics, figures of the engine's tables rather
  /// than counts, up to date; called before the table is read.
  public func refreshLevels() {
    statistics[.cacheEntries] = UInt64(cache.count)
    statistics[.cacheCapacity] = UInt64(cache.enabledCapacity)
    statistics[.activeTransactions] = UInt64(activeTransactions)
    statistics[.waitersInUse] = UInt64(waitersInUse)
    statistics[.cacheBytesInUse] = UInt64(cache.isEnabled ? cache.bytesInUse : 0)
    statistics[.localNamesDropped] = UInt64(local.names.active.dropped)
    statistics[.overrideAddressesDown] = UInt64(local.overrideHealth.count)
  }

  /// Answers a CHAOS-class question in the `bind.`, `server.` or `dnsward.`
  /// zone (see above) and returns true; returns false for anything else,
  /// which then takes the ordinary path. `name` is the lower-cased flat
  /// question name.
  func answerChaos<E: EngineEnvironment>(
    query: Message, name: UnsafeRawBufferPointer, client: ClientRef, environment: inout E
  ) -> Bool {
    guard query.questionClass == .chaos, ChaosTXT.isChaosZone(name) else { return false }
    guard query.questionType == .txt,
      let answer = ChaosAnswer(
        name, statistics: statistics, cacheCapacity: cache.enabledCapacity)
    else {
      statistics[.refused] += 1
      replyError(
        .refused, to: query.bytes, query: query, client: client, environment: &environment)
      return true
    }
    // Counted before the values are written, so that `stats.dnsward.`
    // includes itself in `chaosAnswered` as it does in `queries`.
    statistics[.chaosAnswered] += 1
    let flags = HeaderFlags(replyingTo: query, rcode: .noError, authoritative: true)
    var answers = 1
    if case .statistics = answer { answers = Statistics.recordCount(upstreams: upstreams.count) }
    var writer = buffers.startReply(to: query, flags: flags, answers: UInt16(answers))
    var fits = true
    do throws(WireError) {
      switch answer {
      case .number(let value): try ChaosTXT.writeTXT(&writer, value: value)
      case .text(let text): try ChaosTXT.writeTXT(&writer, text: text)
      case .release: try ChaosTXT.writeReleaseTXT(&writer)
      case .statistics:
        refreshLevels()
        for index in 0..<Statistic.count {
          let statistic = Statistic(index: index)
          try ChaosTXT.writeTXT(&writer, key: statistic.name, value: statistics[statistic])
        }
        for upstream in 0..<min(upstreams.count, Statistics.upstreamLimit) {
          let entry = selection.statistics(upstream)
          try ChaosTXT.writeTXT(&writer, upstream: upstream, key: "answers", value: entry.answers)
          try ChaosTXT.writeTXT(&writer, upstream: upstream, key: "timeouts", value: entry.timeouts)
          try ChaosTXT.writeTXT(&writer, upstream: upstream, key: "failures", value: entry.failures)
          try ChaosTXT.writeTXT(
            &writer, upstream: upstream, key: "srtt-ms", value: entry.smoothedRTTMilliseconds)
          try ChaosTXT.writeTXT(
            &writer, upstream: upstream, key: "disagreements", value: entry.disagreements)
        }
      }
      try writer.writeClientOPT(answering: query, payloadSize: settings.ednsPayloadSize)
    } catch {
      fits = false
    }
    sendLocal(
      LocalReply(
        length: fits ? writer.count : Int.max, flags: flags, statistic: nil, outcome: .chaos),
      query: query, name: name, client: client, environment: &environment)
    return true
  }
}
