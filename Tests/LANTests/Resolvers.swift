/// The bench's addresses and names: the truth, and the lies told about it.
enum Records {
  /// The true A records of the simulated internet. `example.com` is the
  /// control name of dnsward's NXDOMAIN-redirect probes, so it must exist
  /// and must not point at the ad server.
  static let truth: [String: String] = [
    "example.com": "203.0.113.10",
    "www.example": "203.0.113.20",
    "public.example": "203.0.113.30",
    "bank.example": "203.0.113.40",
  ]

  /// A name nobody has registered.
  static let nonexistent = "no-such-name.example"

  /// Where the ISP sends every name that does not exist (its ad server).
  static let adServer = "100.64.0.80"
  /// The wrong address of the forged answer that races the true one.
  static let forged = "198.51.100.66"
  /// The IP TTL of the forged datagram (the real ones leave with 64).
  static let forgedIPTTL: Int32 = 250
  /// How long after the forged datagram the true one follows.
  static let trueAnswerDelayMilliseconds = 20
  /// The LAN address the ISP gives the public name (a rebinding attack).
  static let rebindTarget = "192.168.77.50"
  /// A LAN device that the ISP's resolver knows and the internet does not.
  static let nas = "nas.example"
  static let nasAddress = "192.168.77.60"
  /// The phishing site intercepted queries for `bank.example` get.
  static let phishing = "100.64.0.66"

  /// The truthful answer: A records from `truth`, NODATA for other types
  /// of a known name, NXDOMAIN otherwise.
  static func trueAnswer(_ query: DNSQuery, extra: [String: String] = [:]) -> DNSAnswer {
    var answer = DNSAnswer()
    guard query.questionClass == DNSQuery.classIN,
      let address = truth[query.name] ?? extra[query.name]
    else {
      answer.responseCode = query.questionClass == DNSQuery.classIN ? .nameError : .serverFailure
      return answer
    }
    if query.type == DNSQuery.RecordType.a {
      answer.records = [(DNSQuery.RecordType.a, DNSAnswer.ipv4(address))]
    }
    return answer
  }
}

/// The honest upstream on the simulated internet: 203.0.113.53, ports 53
/// and 5353, UDP and TCP, always the truth.
enum HonestUpstream {
  static let ports: [UInt16] = [53, 5353]

  static func start(in topology: Topology) throws -> DNSServer {
    try DNSServer(
      namespace: topology.inet, address: Topology.honestUpstreamAddress, ports: ports
    ) { query, _ in
      [Outgoing(bytes: Records.trueAnswer(query).bytes(answering: query))]
    }
  }
}

/// The ISP's resolver, 100.64.0.1:53 UDP and TCP: it knows the truth and
/// tells it, except for the one lie a test chooses.
enum LyingISP {
  enum Lie {
    /// None: the ISP's resolver is honest (for checking the bench).
    case none
    /// Names that do not exist get A `adServer` instead of NXDOMAIN.
    case nxdomainRedirect
    /// Every A or AAAA question over UDP gets two answers: first a forged
    /// one (A `forged`, no OPT, IP TTL 250), 20 ms later the true one.
    case forgedFirst
    /// `public.example` gets the LAN address `rebindTarget`; the ISP also
    /// knows `nas.example` as `nasAddress`.
    case rebinding
    /// `bank.example` gets `phishing` (used with the port-53 DNAT that
    /// sends every query to this resolver whatever its destination).
    case interception
  }

  static func start(_ lie: Lie, in topology: Topology) throws -> DNSServer {
    try DNSServer(namespace: topology.isp, address: Topology.ispAddress, ports: [53]) {
      query, transport in
      respond(to: query, over: transport, lie: lie)
    }
  }

  static func respond(to query: DNSQuery, over transport: ServerTransport, lie: Lie)
    -> [Outgoing]
  {
    let isA = query.type == DNSQuery.RecordType.a
    let isAddressQuestion = isA || query.type == DNSQuery.RecordType.aaaa
    var answer = Records.trueAnswer(query)
    switch lie {
    case .none:
      break
    case .nxdomainRedirect:
      if answer.responseCode == .nameError && isA {
        answer = lyingAnswer(Records.adServer)
      }
    case .forgedFirst:
      if transport == .udp && isAddressQuestion {
        // Forgers answer AAAA questions with an A record too.
        var forgery = lyingAnswer(Records.forged)
        forgery.includeOPT = false
        return [
          Outgoing(bytes: forgery.bytes(answering: query), ipTTL: Records.forgedIPTTL),
          Outgoing(
            bytes: answer.bytes(answering: query),
            delayMilliseconds: Records.trueAnswerDelayMilliseconds),
        ]
      }
    case .rebinding:
      answer = Records.trueAnswer(query, extra: [Records.nas: Records.nasAddress])
      if query.name == "public.example" && isA {
        answer = lyingAnswer(Records.rebindTarget)
      }
    case .interception:
      if query.name == "bank.example" && isA {
        answer = lyingAnswer(Records.phishing)
      }
    }
    return [Outgoing(bytes: answer.bytes(answering: query))]
  }

  private static func lyingAnswer(_ address: String) -> DNSAnswer {
    var answer = DNSAnswer()
    answer.records = [(DNSQuery.RecordType.a, DNSAnswer.ipv4(address))]
    return answer
  }
}
