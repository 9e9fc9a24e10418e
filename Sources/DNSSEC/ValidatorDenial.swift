// Proofs that a name or type does not exist, from the signed NSEC and NSEC3
// records of the authority section: NXDOMAIN and NODATA (RFC 4035 §5.4,
// RFC 4034 §4, RFC 5155 §8.4–8.7, ValidatorNSEC3.swift) and the proof that
// a wildcard expansion was the best match (RFC 4035 §5.3.4, RFC 5155 §8.8).
//
// Only records of the zone that is authoritative for the name count: every
// SOA, NSEC and NSEC3 RRset of the authority section must verify, all from
// one signer, and the names proven must lie in that zone. An NSEC at a
// delegation (NS without SOA) or a DNAME cannot deny names below its owner,
// and the parent side of a delegation cannot deny types other than DS, nor
// the child's apex the DS (RFC 6840 §4.1, RFC 4035 §5.4).

import DNSWire

/// The verified SOA, NSEC and NSEC3 records of an authority section.
struct AuthorityProof {
  var ttl = UInt32.max
  var nsecCount = 0
  var nsec3Count = 0
  var zone: CanonicalName? = nil
}

enum AuthorityCheck {
  case proof(AuthorityProof)
  case verdict(ValidationVerdict)
}

extension Validator {
  /// Verifies each SOA, NSEC and NSEC3 RRset of the authority section.
  mutating func checkAuthority<Source: ValidatedRecordSource>(_ inputs: ValidationInputs<Source>)
    -> AuthorityCheck
  {
    let message = inputs.message
    var proof = AuthorityProof()
    var unsigned = false
    var rrsets = 0
    var records = SectionRecords(message, .authority)
    while let record = records.next() {
      guard record.type == .soa || record.type == .nsec || record.type == .nsec3,
        Self.isFirstOfRRset(record, in: message, .authority)
      else { continue }
      rrsets += 1
      guard rrsets <= Self.maxRRsets else { return .verdict(.bogus(.dnssecBogus)) }
      switch checkRRset(inputs, record, section: .authority) {
      case .verified(let ttl, _, var signer):
        proof.ttl = min(proof.ttl, ttl)
        if record.type == .nsec { proof.nsecCount += 1 }
        if record.type == .nsec3 { proof.nsec3Count += 1 }
        if var zone = proof.zone {
          let same = zone.withBytes { left in signer.withBytes { Name.equalIgnoringCase(left, $0) }
          }
          guard same else { return .verdict(.bogus(.dnssecBogus)) }
        } else {
          proof.zone = signer
        }
      case .unsigned: unsigned = true
      case .verdict(let verdict): return .verdict(verdict)
      }
    }
    if unsigned, proof.nsecCount + proof.nsec3Count > 0 { return .verdict(.bogus(.rrsigsMissing)) }
    return .proof(proof)
  }

  /// Proves that `name` has no data of `type` (NODATA) or, for an NXDOMAIN
  /// response, does not exist.
  mutating func proveDenial<Source: ValidatedRecordSource>(
    _ inputs: ValidationInputs<Source>, name: inout CanonicalName, type: RRType
  ) -> ValidationVerdict {
    let proof: AuthorityProof
    switch checkAuthority(inputs) {
    case .verdict(let verdict): return verdict
    case .proof(let checked): proof = checked
    }
    guard var zone = proof.zone, proof.nsecCount + proof.nsec3Count > 0 else {
      // A signed SOA without NSEC or NSEC3: the zone is signed, the proof
      // was stripped.
      if proof.zone != nil { return .bogus(.nsecMissing) }
      // Nothing signed: an unsigned zone, or everything was stripped.
      let verdict = proveInsecure(inputs, owner: &name, type: type)
      return verdict == .bogus(.rrsigsMissing) ? .bogus(.nsecMissing) : verdict
    }
    let nxdomain = inputs.message.rcode == .nameError
    let denial = name.withBytes { nameBytes in
      zone.withBytes { zoneBytes -> ValidationVerdict in
        guard ValidatorNames.isAtOrBelow(nameBytes, zoneBytes) else { return .bogus(.nsecMissing) }
        if proof.nsecCount > 0 {
          return Self.nsecDenial(
            inputs.message, name: nameBytes, type: type, zone: zoneBytes, nxdomain: nxdomain)
        }
        return nsec3Denial(
          inputs.message, name: nameBytes, type: type, zone: zoneBytes, nxdomain: nxdomain)
      }
    }
    var result = VerdictAccumulator()
    if let stop = result.add(.secure(ttl: proof.ttl)) { return stop }
    if let stop = result.add(denial) { return stop }
    return result.verdict
  }

  /// Proves that a wildcard expansion at `owner` (the RRSIG's `labels`
  /// naming the wildcard's parent) was the best match: no name closer to
  /// `owner` exists (RFC 4035 §5.3.4, RFC 5155 §8.8).
  mutating func proveWildcardExpansion<Source: ValidatedRecordSource>(
    _ inputs: ValidationInputs<Source>, owner: inout CanonicalName, labels: Int,
    zone signer: inout CanonicalName
  ) -> ValidationVerdict {
    let proof: AuthorityProof
    switch checkAuthority(inputs) {
    case .verdict(let verdict): return verdict
    case .proof(let checked): proof = checked
    }
    guard var zone = proof.zone, proof.nsecCount + proof.nsec3Count > 0,
      zone.withBytes({ left in signer.withBytes { Name.equalIgnoringCase(left, $0) } })
    else { return .bogus(.nsecMissing) }
    let message = inputs.message
    let proven = owner.withBytes { name in
      zone.withBytes { zoneBytes -> Bool in
        if proof.nsecCount > 0 {
          return Self.nsecClosestEncloser(message, of: name, zone: zoneBytes) == labels
        }
        let nextCloser = UnsafeRawBufferPointer(
          rebasing: name[ValidatorNames.offset(ofLast: labels + 1, in: name)...])
        return nsec3Covering(message, nextCloser, zone: zoneBytes) != nil
      }
    }
    guard proven else { return .bogus(.nsecMissing) }
    return .secure(ttl: proof.ttl)
  }

  // MARK: NSEC (RFC 4035 §5.4)

  static func nsecDenial(
    _ message: Message, name: UnsafeRawBufferPointer, type: RRType,
    zone: UnsafeRawBufferPointer, nxdomain: Bool
  ) -> ValidationVerdict {
    let secure = ValidationVerdict.secure(ttl: .max)
    if !nxdomain {
      if nsecMatchDenies(message, name: name, type: type, zone: zone) { return secure }
      if nsecProvesEmptyNonTerminal(message, name: name, zone: zone) { return secure }
    }
    guard let encloserLabels = nsecClosestEncloser(message, of: name, zone: zone),
      var wildcard = ValidatorNames.suffix(name, labels: encloserLabels).flatMap({ encloser in
        var copy = encloser
        return copy.withBytes { ValidatorNames.wildcard(below: $0) }
      })
    else { return .bogus(.nsecMissing) }
    return wildcard.withBytes { wildcardName in
      if nxdomain {
        // RFC 4035 §5.4: no wildcard at the closest encloser either.
        return nsecClosestEncloser(message, of: wildcardName, zone: zone) != nil
          ? secure : .bogus(.nsecMissing)
      }
      // A wildcard NODATA: the wildcard exists without the type.
      return nsecMatchDenies(message, name: wildcardName, type: type, zone: zone)
        ? secure : .bogus(.nsecMissing)
    }
  }

  /// Whether an NSEC owned by `name` shows `type` and CNAME absent, and is
  /// on the side of a zone cut that is authoritative for `type`.
  static func nsecMatchDenies(
    _ message: Message, name: UnsafeRawBufferPointer, type: RRType, zone: UnsafeRawBufferPointer
  ) -> Bool {
    var records = SectionRecords(message, .authority)
    while let record = records.next() {
      guard let nsec = NSECRecord(record, in: message), nsec.matches(name, in: message) else {
        continue
      }
      if typesDeny(nsec.types, type: type, name: name, zone: zone) { return true }
    }
    return false
  }

  /// The type bitmap rule shared by NSEC and NSEC3 NODATA proofs.
  static func typesDeny(
    _ types: TypeBitmap, type: RRType, name: UnsafeRawBufferPointer, zone: UnsafeRawBufferPointer
  ) -> Bool {
    guard !types.contains(type), !types.contains(.cname) else { return false }
    if type == .ds {
      // The child's apex record cannot deny the parent's DS.
      return !types.contains(.soa) || Name.labelCount(name) == 0
    }
    // The parent side of a delegation is not authoritative for the child.
    return !(types.contains(.ns) && !types.contains(.soa))
  }

  /// An empty non-terminal (RFC 4035 §3.1.3.2 NODATA): an NSEC covers
  /// `name` and its next name lies below `name`.
  static func nsecProvesEmptyNonTerminal(
    _ message: Message, name: UnsafeRawBufferPointer, zone: UnsafeRawBufferPointer
  ) -> Bool {
    var records = SectionRecords(message, .authority)
    while let record = records.next() {
      guard let nsec = NSECRecord(record, in: message), nsec.covers(name, in: message) else {
        continue
      }
      let next = nsec.nextName
      if next.count > name.count, ValidatorNames.isAtOrBelow(next, name) { return true }
    }
    return false
  }

  /// When an NSEC of the zone covers `name` (so it does not exist): the
  /// number of labels of its closest encloser, the longest ancestor shared
  /// with the NSEC's owner or next name (RFC 4035 §5.4). Nil when no NSEC
  /// covers it.
  static func nsecClosestEncloser(
    _ message: Message, of name: UnsafeRawBufferPointer, zone: UnsafeRawBufferPointer
  ) -> Int? {
    guard ValidatorNames.isAtOrBelow(name, zone) else { return nil }
    var records = SectionRecords(message, .authority)
    while let record = records.next() {
      guard let nsec = NSECRecord(record, in: message), nsec.covers(name, in: message),
        var owner = CanonicalName(in: message, at: record.offset)
      else { continue }
      let encloser = owner.withBytes { ownerName -> Int? in
        guard ValidatorNames.isAtOrBelow(ownerName, zone) else { return nil }
        let types = nsec.types
        // RFC 6840 §4.1: a delegation or DNAME cannot deny names below it.
        if ownerName.count < name.count, ValidatorNames.isAtOrBelow(name, ownerName),
          (types.contains(.ns) && !types.contains(.soa)) || types.contains(.dname)
        {
          return nil
        }
        return max(
          commonLabels(name, ownerName), commonLabels(name, nsec.nextName), Name.labelCount(zone))
      }
      if let encloser { return encloser }
    }
    return nil
  }

  /// The number of rightmost labels two names share (ignoring case).
  static func commonLabels(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Int {
    let most = min(Name.labelCount(lhs), Name.labelCount(rhs))
    var shared = 0
    while shared < most {
      let left = lhs[ValidatorNames.offset(ofLast: shared + 1, in: lhs)...]
      let right = rhs[ValidatorNames.offset(ofLast: shared + 1, in: rhs)...]
      guard
        Name.equalIgnoringCase(
          UnsafeRawBufferPointer(rebasing: left), UnsafeRawBufferPointer(rebasing: right))
      else { break }
      shared += 1
    }
    return shared
  }
}
