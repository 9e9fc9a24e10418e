// Data without RRSIGs is insecure only when a secure chain proves that the
// zone holding it is unsigned (RFC 4035 §4.3, §5.2): walking from the
// closest trust anchor down towards the owner, each name's DS answer (as
// the engine cached and validated it) either
//   - is a proven absence at a delegation (NSEC: NS, no DS, no SOA; NSEC3
//     matching with NS and no DS; opt-out, which validates as insecure):
//     the zone below is unsigned → insecure;
//   - holds DS records of only unsupported algorithms or digest types:
//     insecure (RFC 4035 §5.2, RFC 6840 §5.2);
//   - holds a usable DS: the zone below is signed, go on;
//   - proves the name is no delegation: go on;
//   - proves the name does not exist: nothing below it can be unsigned.
// Reaching the owner inside a signed zone means its RRSIGs were stripped:
// bogus (EDE 10). Names under no anchor are insecure. The walk starts below
// the deepest zone of the message's RRSIGs whose keys are already secure.

import CompiledConfig
import DNSWire

/// What one name's DS answer says about the zone below it.
enum DelegationStatus {
  case unsigned
  case signed
  case notDelegation
}

extension Validator {
  /// Proves that the zone holding `owner`'s data of `type` is unsigned:
  /// `.insecure`, or bogus with EDE 10, or the DS RRset still needed. A DS
  /// RRset lives in the parent zone (RFC 4034 §5), so for it the walk stops
  /// above the owner — never asking for the answer being validated.
  mutating func proveInsecure<Source: ValidatedRecordSource>(
    _ inputs: ValidationInputs<Source>, owner: inout CanonicalName, type: RRType
  ) -> ValidationVerdict {
    owner.withBytes { name -> ValidationVerdict in
      guard let anchorLabels = ValidatorNames.closestAnchorLabels(inputs.anchors, name) else {
        return .insecure
      }
      let ownerLabels = Name.labelCount(name) - (type == .ds ? 1 : 0)
      var labels = max(
        anchorLabels + 1,
        securedSignerLabels(inputs, enclosing: name, atMost: ownerLabels).map { $0 + 1 } ?? 0)
      while labels <= ownerLabels {
        let zone = UnsafeRawBufferPointer(
          rebasing: name[ValidatorNames.offset(ofLast: labels, in: name)...])
        let status = inputs.records.withValidatedAnswer(name: zone, type: .ds) {
          dsMessage, state -> ValidationVerdict? in
          switch state {
          case .secure:
            // A proven NXDOMAIN: nothing exists below this name in a
            // signed zone, so the owner's data is forged or stripped.
            if dsMessage.rcode == .nameError { return .bogus(.rrsigsMissing) }
            switch delegationStatus(of: zone, in: dsMessage) {
            case .unsigned: return .insecure
            case .signed, .notDelegation: return nil
            }
          case .insecure: return .insecure
          case .bogus: return .bogus(.dnssecBogus)
          case .unchecked: return .bogus(.dnssecIndeterminate)
          }
        }
        switch status {
        case .none:
          setNeeded(zone)
          return .needs(.ds)
        case .some(.none): labels += 1
        case .some(.some(let verdict)): return verdict
        }
      }
      return .bogus(.rrsigsMissing)
    }
  }

  /// The labels of the deepest signer of an RRSIG in the message that
  /// encloses `name` (with at most `limit` labels) and whose DNSKEY RRset the
  /// cache holds as secure: a secure chain reaches that zone, so no
  /// delegation above it can be the insecure one and the walk starts below
  /// it (a signed CNAME's zone often encloses the unsigned target).
  func securedSignerLabels<Source: ValidatedRecordSource>(
    _ inputs: ValidationInputs<Source>, enclosing name: UnsafeRawBufferPointer, atMost limit: Int
  ) -> Int? {
    let message = inputs.message
    var best: Int? = nil
    var records = SectionRecords(message, .answer)
    records.end = message.additionalOffset
    while let record = records.next() {
      guard record.type == .rrsig, let rrsig = RRSIGRecord(record, in: message) else { continue }
      let signer = rrsig.signerName
      let labels = Name.labelCount(signer)
      guard labels <= limit, labels > (best ?? -1), ValidatorNames.isAtOrBelow(name, signer),
        var canonical = CanonicalName(signer)
      else { continue }
      let secured = canonical.withBytes { signerName in
        inputs.records.withValidatedAnswer(name: signerName, type: .dnskey) { keys, state in
          state == .secure
            && SectionRecords.first(keys, .answer, type: .dnskey, owner: signerName) != nil
        }
      }
      if secured == true { best = labels }
    }
    return best
  }

  /// Reads a secure answer to (zone, DS).
  mutating func delegationStatus(of zone: UnsafeRawBufferPointer, in dsMessage: Message)
    -> DelegationStatus
  {
    if SectionRecords.first(dsMessage, .answer, type: .ds, owner: zone) != nil {
      return Self.hasSupportedDS(dsMessage, owner: zone) ? .signed : .unsigned
    }
    var records = SectionRecords(dsMessage, .authority)
    while let record = records.next() {
      if let nsec = NSECRecord(record, in: dsMessage), nsec.matches(zone, in: dsMessage) {
        let types = nsec.types
        if types.contains(.ns), !types.contains(.ds), !types.contains(.soa) { return .unsigned }
      }
      if let nsec3 = NSEC3Record(record, in: dsMessage),
        nsec3.parameters.iterations <= Self.maxNSEC3Iterations,
        let hash = nsec3Hash(zone, nsec3.parameters), nsec3.matches(hash)
      {
        let types = nsec3.types
        if types.contains(.ns), !types.contains(.ds), !types.contains(.soa) { return .unsigned }
      }
    }
    return .notDelegation
  }

  /// The NSEC3 hash of `name`, counted against `maxNSEC3Hashes`; nil past
  /// the bound or for a malformed name.
  mutating func nsec3Hash(_ name: UnsafeRawBufferPointer, _ parameters: NSEC3Parameters)
    -> NSEC3Hash?
  {
    guard nsec3Hashes < Self.maxNSEC3Hashes else { return nil }
    nsec3Hashes += 1
    return NSEC3Hash(hashing: name, parameters: parameters)
  }
}
