import Foundation

/// What a client got for one name.
struct ClientAnswer: CustomStringConvertible {
  /// The response code as the tool prints it (`NOERROR`, `NXDOMAIN`), or
  /// nil when it got no reply. `getent` reports only found or not found:
  /// `NOERROR` for exit 0, `NXDOMAIN` for exit 2 (RFC 1035 name error and
  /// NODATA look alike through glibc).
  let status: String?
  let addresses: [String]
  /// The PTR targets of the answer section, with their final dot.
  var pointers: [String] = []
  let transcript: String

  var description: String { transcript }
}

/// The real clients of the client namespace: dig and kdig asking the router
/// directly, and glibc's stub resolver through `getent hosts`, which finds
/// the router in the namespace's own /etc/resolv.conf.
enum Clients {
  /// `dig` from the client namespace to the router, or from `namespace`
  /// to `server`, say from the router to an upstream to check the bench.
  static func dig(
    _ name: String, type: String = "A", in topology: Topology, timeoutSeconds: Int = 3,
    server: String = Topology.routerLANAddress, port: UInt16 = 53, tcp: Bool = false,
    from namespace: String? = nil
  ) -> ClientAnswer {
    let result = Command.run([
      "ip", "netns", "exec", namespace ?? topology.client, "dig", "@\(server)", "-p", "\(port)",
      name, type, tcp ? "+tcp" : "+notcp", "+tries=1", "+time=\(timeoutSeconds)",
    ])
    return parse(result)
  }

  /// `dig -x ADDRESS` from the client namespace to the router.
  static func reverse(_ address: String, in topology: Topology) -> ClientAnswer {
    let result = Command.run([
      "ip", "netns", "exec", topology.client, "dig", "@\(Topology.routerLANAddress)", "-x",
      address, "+notcp", "+tries=1", "+time=3",
    ])
    return parse(result)
  }

  static func kdig(_ name: String, type: String = "A", in topology: Topology) -> ClientAnswer {
    let result = Command.run([
      "ip", "netns", "exec", topology.client, "kdig", "@\(Topology.routerLANAddress)", name, type,
      "+retry=0", "+timeout=3",
    ])
    return parse(result)
  }

  /// `getent hosts NAME`: exit 0 and `ADDRESS  NAME` lines when found,
  /// exit 2 when not.
  static func getent(_ name: String, in topology: Topology) -> ClientAnswer {
    let result = Command.run(["ip", "netns", "exec", topology.client, "getent", "hosts", name])
    let addresses = result.output.split(separator: "\n").compactMap {
      $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init)
    }
    let status: String? =
      switch result.status {
      case 0: "NOERROR"
      case 2: "NXDOMAIN"
      default: nil
      }
    return ClientAnswer(status: status, addresses: addresses, transcript: result.description)
  }

  /// dnsward's counters: `dig @router chaos txt stats.dnsward +tcp`, whose
  /// TXT strings are `name=value`.
  static func dnswardStats(in topology: Topology) -> [String: UInt64] {
    let result = Command.run([
      "ip", "netns", "exec", topology.client, "dig", "@\(Topology.routerLANAddress)", "chaos",
      "txt", "stats.dnsward", "+tcp", "+short", "+tries=1", "+time=3",
    ])
    var counters: [String: UInt64] = [:]
    for line in result.output.split(separator: "\n") {
      let text = line.trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
      let parts = text.split(separator: "=", maxSplits: 1)
      if parts.count == 2, let value = UInt64(parts[1]) {
        counters[String(parts[0])] = value
      }
    }
    return counters
  }

  /// Status from the header line (dig: `status: NXDOMAIN,`, kdig:
  /// `status: NXDOMAIN;`) and the A/AAAA data of the answer section.
  private static func parse(_ result: CommandResult) -> ClientAnswer {
    var status: String? = nil
    var addresses: [String] = []
    var pointers: [String] = []
    var inAnswerSection = false
    for line in result.output.split(separator: "\n", omittingEmptySubsequences: false) {
      if let range = line.range(of: "status: ") {
        status = String(line[range.upperBound...].prefix { $0.isLetter })
      }
      if line.hasPrefix(";") {
        inAnswerSection = line.contains("ANSWER SECTION")
        continue
      }
      if line.isEmpty { inAnswerSection = false }
      let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
      if inAnswerSection, fields.count >= 5, fields[2] == "IN",
        fields[3] == "A" || fields[3] == "AAAA"
      {
        addresses.append(String(fields[4]))
      }
      if inAnswerSection, fields.count >= 5, fields[2] == "IN", fields[3] == "PTR" {
        pointers.append(String(fields[4]))
      }
    }
    return ClientAnswer(
      status: status, addresses: addresses, pointers: pointers, transcript: result.description)
  }
}
