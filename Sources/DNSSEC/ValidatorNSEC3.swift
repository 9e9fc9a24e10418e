// NSEC3 denial proofs (RFC 5155 §8): the closest encloser proof (§8.3: an
// NSEC3 matching the closest encloser and one covering the next closer
// name), NXDOMAIN (§8.4: plus the wildcard at the closest encloser
// covered), NODATA (§8.5, DS §8.6, wildcard §8.7). An opt-out NSEC3
// covering the next closer name leaves the answer insecure (RFC 5155 §9.2),
// as do more than 150 iterations (RFC 9276 §3.2). The records used must
// share the first NSEC3's parameters and be owned by hashes in the zone;
// hash computations are bounded (`maxNSEC3Hashes`).

import DNSWire

/// The closest encloser proof's outcome.
enum EncloserProof {
  /// An NSEC3 matches the name itself.
  case exists(NSEC3Record)
  /// The closest encloser's labels and the NSEC3 covering the next closer.
  case found(labels: Int, covering: NSEC3Record)
  case missing
}

extension Validator {
  mutating func nsec3Denial(
    _ message: Message, name: UnsafeRawBufferPointer, type: RRType,
    zone: UnsafeRawBufferPointer, nxdomain: Bool
  ) -> ValidationVerdict {
    guard let parameters = Self.firstNSEC3Parameters(message, zone: zone) else {
      // RFC 5155 §8.1: NSEC3 records only of hash algorithms dnsward does
      // not know leave the answer insecure.
      return Self.hasUnknownHashAlgorithm(message) ? .insecure : .bogus(.nsecMissing)
    }
    if parameters.iterations > Self.maxNSEC3Iterations { return .insecure }
    let secure = ValidationVerdict.secure(ttl: .max)
    let proof = closestEncloser(message, of: name, zone: zone)
    switch proof {
    case .exists(let match):
      guard !nxdomain, Self.typesDeny(match.types, type: type, name: name, zone: zone) else {
        return .bogus(.nsecMissing)
      }
      return secure
    case .missing:
      // Past the hash bound the proof was not looked at in full.
      return nsec3Hashes >= Self.maxNSEC3Hashes ? .bogus(.dnssecBogus) : .bogus(.nsecMissing)
    case .found(let labels, let covering):
      // RFC 5155 §9.2 (and §8.6 for DS): an opt-out span may hide an
      // unsigned delegation.
      if covering.parameters.isOptOut, nxdomain || type == .ds { return .insecure }
      guard
        var wildcard = ValidatorNames.suffix(name, labels: labels).flatMap({ encloser in
          var copy = encloser
          return copy.withBytes { ValidatorNames.wildcard(below: $0) }
        })
      else { return .bogus(.nsecMissing) }
      return wildcard.withBytes { wildcardName -> ValidationVerdict in
        if nxdomain {
          return nsec3Covering(message, wildcardName, zone: zone) != nil
            ? secure : .bogus(.nsecMissing)
        }
        guard let match = nsec3Matching(message, wildcardName, zone: zone),
          Self.typesDeny(match.types, type: type, name: wildcardName, zone: zone)
        else {
          return covering.parameters.isOptOut ? .insecure : .bogus(.nsecMissing)
        }
        return secure
      }
    }
  }

  /// RFC 5155 §8.3: from `name` up to the zone, the first name an NSEC3
  /// matches is the closest encloser; the name one label longer must be
  /// covered. A delegation or DNAME cannot be the closest encloser of a
  /// name below it (RFC 6840 §4.1).
  mutating func closestEncloser(
    _ message: Message, of name: UnsafeRawBufferPointer, zone: UnsafeRawBufferPointer
  ) -> EncloserProof {
    let nameLabels = Name.labelCount(name)
    let zoneLabels = Name.labelCount(zone)
    var labels = nameLabels
    while labels >= zoneLabels {
      let candidate = UnsafeRawBufferPointer(
        rebasing: name[ValidatorNames.offset(ofLast: labels, in: name)...])
      if let match = nsec3Matching(message, candidate, zone: zone) {
        if labels == nameLabels { return .exists(match) }
        let types = match.types
        if (types.contains(.ns) && !types.contains(.soa)) || types.contains(.dname) {
          return .missing
        }
        let nextCloser = UnsafeRawBufferPointer(
          rebasing: name[ValidatorNames.offset(ofLast: labels + 1, in: name)...])
        guard let covering = nsec3Covering(message, nextCloser, zone: zone) else { return .missing }
        return .found(labels: labels, covering: covering)
      }
      if nsec3Hashes >= Self.maxNSEC3Hashes { return .missing }
      labels -= 1
    }
    return .missing
  }

  /// The NSEC3 of the zone whose owner hash is `name`'s hash.
  mutating func nsec3Matching(
    _ message: Message, _ name: UnsafeRawBufferPointer, zone: UnsafeRawBufferPointer
  ) -> NSEC3Record? {
    nsec3Find(message, name, zone: zone, matching: true)
  }

  /// The NSEC3 of the zone whose span covers `name`'s hash.
  mutating func nsec3Covering(
    _ message: Message, _ name: UnsafeRawBufferPointer, zone: UnsafeRawBufferPointer
  ) -> NSEC3Record? {
    nsec3Find(message, name, zone: zone, matching: false)
  }

  private mutating func nsec3Find(
    _ message: Message, _ name: UnsafeRawBufferPointer, zone: UnsafeRawBufferPointer,
    matching: Bool
  ) -> NSEC3Record? {
    guard let parameters = Self.firstNSEC3Parameters(message, zone: zone),
      parameters.iterations <= Self.maxNSEC3Iterations,
      let hash = nsec3Hash(name, parameters)
    else { return nil }
    var records = SectionRecords(message, .authority)
    while let record = records.next() {
      guard let nsec3 = NSEC3Record(record, in: message), Self.hasKnownFlags(nsec3),
        Self.sameParameters(nsec3.parameters, parameters),
        Self.isHashedOwner(record, in: message, zone: zone)
      else { continue }
      if matching ? nsec3.matches(hash) : nsec3.covers(hash) { return nsec3 }
    }
    return nil
  }

  /// The parameters of the first NSEC3 of the zone in the authority section.
  static func firstNSEC3Parameters(_ message: Message, zone: UnsafeRawBufferPointer)
    -> NSEC3Parameters?
  {
    var records = SectionRecords(message, .authority)
    while let record = records.next() {
      if let nsec3 = NSEC3Record(record, in: message), hasKnownFlags(nsec3),
        isHashedOwner(record, in: message, zone: zone)
      {
        return nsec3.parameters
      }
    }
    return nil
  }

  /// Whether the NSEC3's owner is one hash label directly below the zone.
  static func isHashedOwner(
    _ record: ResourceRecord, in message: Message, zone: UnsafeRawBufferPointer
  )
    -> Bool
  {
    guard var owner = CanonicalName(in: message, at: record.offset) else { return false }
    return owner.withBytes { name in
      name.count == 1 + NSEC3Hash.textLength + zone.count
        && Name.equalIgnoringCase(
          UnsafeRawBufferPointer(rebasing: name[(1 + NSEC3Hash.textLength)...]), zone)
    }
  }

  /// RFC 5155 §8.2: NSEC3 records with flags other than Opt-Out are ignored.
  static func hasKnownFlags(_ nsec3: NSEC3Record) -> Bool {
    nsec3.parameters.flags & ~NSEC3Parameters.optOutFlag == 0
  }

  /// Whether the authority section has an NSEC3 of a hash algorithm other
  /// than SHA-1.
  static func hasUnknownHashAlgorithm(_ message: Message) -> Bool {
    var records = SectionRecords(message, .authority)
    while let record = records.next() {
      if record.type == .nsec3, record.rdataLength > 0,
        message.bytes[record.rdataOffset] != NSEC3Parameters.sha1
      {
        return true
      }
    }
    return false
  }

  static func sameParameters(_ lhs: NSEC3Parameters, _ rhs: NSEC3Parameters) -> Bool {
    lhs.hashAlgorithm == rhs.hashAlgorithm && lhs.iterations == rhs.iterations
      && SignedData.compareOctets(lhs.salt, rhs.salt) == 0
  }
}
