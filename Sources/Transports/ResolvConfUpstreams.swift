import CompiledConfig
import Platform

/// The upstream list in force: the configured servers with the nameservers
/// of `resolv-conf` inserted at its position. A nameserver that is one of
/// dnsward's own listen addresses is skipped — asking ourselves would loop.
public func resolveUpstreams(_ settings: Settings, log: LogLine) -> [UpstreamServer] {
  guard !settings.resolvConfPath.isEmpty else { return settings.upstreams }
  var fromFile: [UpstreamServer] = []
  if let contents = Files.read(path: settings.resolvConfPath) {
    let addresses = contents.withUnsafeBytes { ResolvConf.nameservers(in: $0) }
    for address in addresses {
      let endpoint = Endpoint(address: address, port: 53)
      let isSelf = settings.listen.contains { listen in
        listen.port == 53
          && (listen.address == address || listen.address == .anyV6
            || listen.address == IPAddress(ipv4: 0))
      }
      if isSelf {
        log.start(.warning).append("skipping nameserver ").append(
          address: SocketAddress(
            high: address.high, low: address.low, port: 53, isIPv6: !address.isIPv4)
        ).append(" from ").append(settings.resolvConfPath).append(": it is dnsward itself")
          .emit(.warning)
        continue
      }
      fromFile.append(UpstreamServer(transport: .udp, endpoint: endpoint))
    }
  } else {
    log.start(.warning).append("cannot read ").append(settings.resolvConfPath)
      .append("; no upstreams from it").emit(.warning)
  }
  var result = settings.upstreams
  let position = min(settings.resolvConfPosition, result.count)
  result.insert(contentsOf: fromFile, at: position)
  return result
}
