import CompiledConfig
import DNSWire

/// What dnsward answers on its own authority, before the cache and the
/// upstreams (Sources/README.md, path of a query): the `override` and
/// `block` tables (in the settings) with the health of the override
/// addresses, the LAN's names (`hosts`, `leases`, `domain`), the names
/// never forwarded (NeverForwarded.swift) and CHAOS
/// (Statistics/ChaosAnswers.swift). Its two tables are filled by the loop
/// (local name files, override probes) and read here.
public struct LocalAuthority {
  /// `hosts`, `leases`, `domain`: the two tables of local names
  /// (LocalNames.swift).
  public let names: LocalNames
  /// `override-check`: the override addresses marked down
  /// (OverrideHealth.swift).
  public let overrideHealth = OverrideHealth()

  init(settings: Settings, hashKey: HashKey) {
    let hasLocalFiles = !settings.hostsFiles.isEmpty || !settings.leaseFiles.isEmpty
    names = LocalNames(
      capacity: hasLocalFiles ? settings.localNamesCapacity : 0, domain: settings.localDomain,
      hashKey: hashKey)
  }
}

extension LocalAuthority {
  /// The answer to `query` (lower-cased flat `name`) if the local authority
  /// has one, written in `buffers.replyOutput`; nil, and the question goes
  /// on to the cache and the upstreams, if not. In order of precedence: an
  /// override or block (unless `override-check` found its addresses down),
  /// a local name, a name unknown in `domain`, a question never forwarded.
  func answer(
    _ query: Message, name: UnsafeRawBufferPointer, settings: SettingsInForce,
    buffers: borrowing MessageBuffers
  ) -> LocalReply? {
    if let match = settings.value.overrides.lookup(name),
      !overrideHealth.fallsBack(match, type: query.questionType, in: settings.value.overrides)
    {
      return answerOverride(query, match: match, settings: settings, buffers: buffers)
    }
    if let reply = answerLocalName(
      query, name: name, ours: settings.value.ednsPayloadSize, buffers: buffers)
    {
      return reply
    }
    if let reply = answerUnknownInLocalDomain(
      query, name: name, settings: settings, buffers: buffers)
    {
      return reply
    }
    return answerNeverForwarded(query, name: name, settings: settings, buffers: buffers)
  }
}

/// A reply a stage made itself (an override, a local name, a question never
/// forwarded, CHAOS, minimal ANY), written in `MessageBuffers.replyOutput`
/// for the pipeline to fit to the client, count, send and log
/// (`Engine.sendLocal`).
struct LocalReply {
  /// Bytes written; `Int.max` when it did not fit the buffer.
  var length: Int
  /// Its header's flags, for a TC=1 reply in its place.
  var flags: HeaderFlags
  /// Counted when it is sent; nil when the stage counted it already.
  var statistic: Statistic?
  var outcome: QueryOutcome
}
