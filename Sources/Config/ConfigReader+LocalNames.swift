import CompiledConfig
import DNSWire

/// `local-names`, `hosts`, `leases` and `domain`: the LAN's own names
/// (Engine/LocalNames.swift). The files are only named here; they are read
/// while dnsward runs, and again whenever they change.
extension ConfigReader {
  /// `hosts PATH` or `leases PATH`: an absolute path, named once across
  /// both directives (a directory is reported when it cannot be read).
  mutating func addLocalNameFile(
    _ token: ArraySlice<UInt8>, for directive: Directive, line: Int
  ) throws(LineError) {
    let isHosts = directive == .hosts
    let label: StaticString = isHosts ? "hosts" : "leases"
    let path = try ConfigValues.path(token, label: label)
    if let first = localNameFiles.first(where: { $0.path == path }) {
      throw .duplicate("file \(quoted: token)", firstOn: first.line)
    }
    localNameFiles.append((path, line))
    if isHosts {
      settings.hostsFiles.append(path)
    } else {
      settings.leaseFiles.append(path)
    }
  }

  /// `domain NAME`: a name, not the root and not a wildcard.
  mutating func setLocalDomain(_ token: ArraySlice<UInt8>) throws(LineError) {
    if token.first == UInt8(ascii: "*") {
      throw LineError("domain takes a name, not a wildcard: every name below it is local")
    }
    let name = try ConfigValues.flatName(token, written: token)
    guard name != Name.root else {
      throw LineError("the root cannot be the local domain (no name would be forwarded)")
    }
    settings.localDomain = name
  }
}
