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
