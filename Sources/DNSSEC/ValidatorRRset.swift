// Verifying one RRset of a message with its RRSIGs (RFC 4035 §5.3): the
// RRSIG must name a signer that encloses the owner at or below the closest
// trust anchor (§5.3.1), be current (§5.3.1, RFC 4034 §3.1.5), and verify
// over the signed data (§5.3.2) with a DNSKEY of the signer whose owner,
// tag and algorithm match. The keys come from the signer's DNSKEY RRset as
// the engine cached and validated it — or, for the signer's own DNSKEY
// RRset, from the set itself, trusted through an anchor or the secure DS
// RRset of the parent (RFC 4035 §5.2).
//
// KeyTrap bounds (CVE-2023-50387): at most `maxRRSIGsPerRRset` RRSIGs are
// looked at, `maxKeysPerRRSIG` keys tried for each, and a validation stops
// as bogus once `maxFailedVerifications` signatures have failed.

import CompiledConfig
import DNSWire

/// What checking one RRset found.
enum RRsetCheck {
  /// A signature verified. `ttl`: RFC 4035 §5.3.3's bound; `expandedLabels`:
  /// the RRSIG's Labels when the RRset was synthesized from a wildcard
  /// (RFC 4035 §5.3.4), nil otherwise; `signer`: the zone that signed it.
  case verified(ttl: UInt32, expandedLabels: Int?, signer: CanonicalName)
  /// The RRset has no RRSIG at all.
  case unsigned
  /// Anything else: insecure, bogus or a missing DS/DNSKEY.
  case verdict(ValidationVerdict)
}

/// What trying one RRSIG found.
enum SignatureOutcome {
  case valid
  case invalid
  case noKey
  case unsupported
  case insecure
  case stop(ValidationVerdict)
}

extension Validator {
  /// Checks the RRset of `record` (its owner, class and type) in `section`.
  mutating func checkRRset<Source: ValidatedRecordSource>(
    _ inputs: ValidationInputs<Source>, _ record: ResourceRecord, section: Section
  ) -> RRsetCheck {
    let message = inputs.message
    guard var owner = CanonicalName(in: message, at: record.offset) else {
      return .verdict(.bogus(.dnssecBogus))
    }
    let anchorLabels = owner.withBytes { ValidatorNames.closestAnchorLabels(inputs.anchors, $0) }
    var seen = 0
    var expired = 0
    var notYetValid = 0
    var invalid = 0
    var noKey = 0
    var unsupported = 0
    var insecureSigner = false
    var stop: ValidationVerdict? = nil
    var candidates = SectionRecords(message, section)
    while let candidate = candidates.next() {
      guard candidate.type == .rrsig, candidate.rrClass == record.rrClass,
        let rrsig = RRSIGRecord(candidate, in: message), rrsig.typeCovered == record.type,
        owner.withBytes({ ValidatorNames.isOwned(candidate, by: $0, in: message) })
      else { continue }
      seen += 1
      guard seen <= Self.maxRRSIGsPerRRset else { break }
      guard let anchorLabels else { return .verdict(.insecure) }
      // RFC 4035 §5.3.1: the signer is the zone holding the RRset, at or
      // below the trust anchor the chain starts from.
      // A DS RRset belongs to the parent zone (RFC 4034 §5, RFC 4035 §5.2):
      // its signer is a proper ancestor.
      let signerLabels = Name.labelCount(rrsig.signerName)
      guard rrsig.signerEnclosesOwner(in: message), signerLabels >= anchorLabels,
        record.type != .ds || signerLabels < owner.labelCount
      else {
        invalid += 1
        continue
      }
      if let now = inputs.now, !rrsig.isCurrent(at: now) {
        if serialLess(now, rrsig.inception) { notYetValid += 1 } else { expired += 1 }
        continue
      }
      switch trySignature(inputs, rrsig, owner: &owner, section: section) {
      case .valid:
        return verified(inputs, rrsig, record: record, owner: &owner, section: section)
      case .invalid: invalid += 1
      case .noKey: noKey += 1
      case .unsupported: unsupported += 1
      case .insecure: insecureSigner = true
      case .stop(let verdict): if stop == nil { stop = verdict }
      }
      if failedVerifications >= Self.maxFailedVerifications {
        return .verdict(.bogus(.dnssecBogus))
      }
    }
    if seen == 0 { return .unsigned }
    if let stop { return .verdict(stop) }
    if insecureSigner { return .verdict(.insecure) }
    if invalid > 0 || unsupported > 0 { return .verdict(.bogus(.dnssecBogus)) }
    if expired > 0 { return .verdict(.bogus(.signatureExpired)) }
    if notYetValid > 0 { return .verdict(.bogus(.signatureNotYetValid)) }
    if noKey > 0 { return .verdict(.bogus(.dnskeyMissing)) }
    return .verdict(.bogus(.dnssecBogus))
  }

  /// The outcome of an RRSIG that verified: RFC 4035 §5.3.3's TTL bound and
  /// whether the RRset is a wildcard expansion.
  private func verified<Source: ValidatedRecordSource>(
    _ inputs: ValidationInputs<Source>, _ rrsig: RRSIGRecord, record: ResourceRecord,
    owner: inout CanonicalName, section: Section
  ) -> RRsetCheck {
    var ttl = UInt32.max
    if let now = inputs.now {
      ttl = min(rrsig.originalTTL, rrsig.expiration &- now)
      var members = SectionRecords(inputs.message, section)
      while let member = members.next() {
        guard member.type == record.type, member.rrClass == record.rrClass,
          owner.withBytes({ ValidatorNames.isOwned(member, by: $0, in: inputs.message) })
        else { continue }
        ttl = min(ttl, member.ttl)
      }
    }
    let ownerLabels = owner.withBytes { name -> Int in
      let count = Name.labelCount(name)
      return count > 0 && name[0] == 1 && name[1] == UInt8(ascii: "*") ? count - 1 : count
    }
    guard let signer = CanonicalName(rrsig.signerName) else {
      return .verdict(.bogus(.dnssecBogus))
    }
    return .verified(
      ttl: ttl, expandedLabels: rrsig.labels < ownerLabels ? rrsig.labels : nil, signer: signer)
  }

  /// Tries one current RRSIG with the keys of its signer.
  private mutating func trySignature<Source: ValidatedRecordSource>(
    _ inputs: ValidationInputs<Source>, _ rrsig: RRSIGRecord, owner: inout CanonicalName,
    section: Section
  ) -> SignatureOutcome {
    guard var signer = CanonicalName(rrsig.signerName) else { return .invalid }
    let isOwnKeySet =
      rrsig.typeCovered == .dnskey
      && owner.withBytes { name in signer.withBytes { Name.equalIgnoringCase(name, $0) } }
    if isOwnKeySet {
      return trySelfSigned(inputs, rrsig, signer: &signer, section: section)
    }
    let outcome = signer.withBytes { signerName in
      inputs.records.withValidatedAnswer(name: signerName, type: .dnskey) {
        keyMessage, state -> SignatureOutcome in
        switch state {
        case .secure:
          return verify(
            rrsig, in: inputs.message, section: section, keys: keyMessage,
            keySection: .answer, signer: signerName, trusting: .validatedKeySet)
        case .insecure: return .insecure
        case .bogus: return .stop(.bogus(.dnskeyMissing))
        case .unchecked: return .stop(.bogus(.dnssecIndeterminate))
        }
      }
    }
    if let outcome { return outcome }
    signer.withBytes { setNeeded($0) }
    return .stop(.needs(.dnskey))
  }

  /// An RRSIG over the signer's own DNSKEY RRset: the key that made it must
  /// be one an anchor at the signer or the parent's secure DS RRset names
  /// (RFC 4035 §5.2). A DS RRset or anchors with only unsupported
  /// algorithms or digest types make the zone insecure (RFC 4035 §5.2,
  /// RFC 6840 §5.2); a proven absent DS too.
  private mutating func trySelfSigned<Source: ValidatedRecordSource>(
    _ inputs: ValidationInputs<Source>, _ rrsig: RRSIGRecord, signer: inout CanonicalName,
    section: Section
  ) -> SignatureOutcome {
    signer.withBytes { signerName -> SignatureOutcome in
      let anchorCount = inputs.anchors.withIterator { iterator in
        var count = (all: 0, supported: 0)
        while let anchor = iterator.next() {
          guard Name.equalIgnoringCase(anchor.owner, signerName) else { continue }
          count.all += 1
          if Self.anchorIsSupported(anchor) { count.supported += 1 }
        }
        return count
      }
      if anchorCount.all > 0 {
        guard anchorCount.supported > 0 else { return .insecure }
        return verify(
          rrsig, in: inputs.message, section: section, keys: inputs.message,
          keySection: section, signer: signerName, trusting: .anchors(inputs.anchors))
      }
      let outcome = inputs.records.withValidatedAnswer(name: signerName, type: .ds) {
        dsMessage, state -> SignatureOutcome in
        switch state {
        case .secure: break
        case .insecure: return .insecure
        case .bogus: return .stop(.bogus(.dnssecBogus))
        case .unchecked: return .stop(.bogus(.dnssecIndeterminate))
        }
        guard Self.hasSupportedDS(dsMessage, owner: signerName) else { return .insecure }
        return verify(
          rrsig, in: inputs.message, section: section, keys: inputs.message,
          keySection: section, signer: signerName, trusting: .delegation(dsMessage))
      }
      if let outcome { return outcome }
      setNeeded(signerName)
      return .stop(.needs(.ds))
    }
  }

  /// Which of the signer's zone keys `verify` may use. An enum rather than a
  /// closure: with a closure the optimizer made a copy of `verify` for each
  /// caller's (2.4 KB of firmware).
  private enum KeyTrust {
    /// Every key: the DNSKEY RRset was validated as secure.
    case validatedKeySet
    /// The keys a trust anchor at the signer names (`anchorsTrust`).
    case anchors(TrustAnchors)
    /// The keys a DS in the answer of this secure DS reply matches (`dsTrusts`).
    case delegation(Message)

    func trusts(_ key: DNSKEYRecord, signer: UnsafeRawBufferPointer) -> Bool {
      switch self {
      case .validatedKeySet: true
      case .anchors(let anchors): Validator.anchorsTrust(key, owner: signer, anchors)
      case .delegation(let dsMessage): Validator.dsTrusts(key, owner: signer, dsMessage)
      }
    }
  }

  /// Verifies `rrsig` with the zone keys of `signer` in `keySection` of
  /// `keys` that `trust` accepts, at most `maxKeysPerRRSIG` of them.
  private mutating func verify(
    _ rrsig: RRSIGRecord, in message: Message, section: Section, keys: Message,
    keySection: Section, signer: UnsafeRawBufferPointer, trusting trust: KeyTrust
  ) -> SignatureOutcome {
    var tried = 0
    var signedLength: Int? = nil
    var records = SectionRecords(keys, keySection)
    while let record = records.next() {
      // RFC 5011 §2.1: a revoked key is not used to validate.
      guard record.type == .dnskey, let key = DNSKEYRecord(record, in: keys), !key.isRevoked,
        rrsig.mayBeSigned(by: key, keyOwner: signer),
        ValidatorNames.isOwned(record, by: signer, in: keys), trust.trusts(key, signer: signer)
      else { continue }
      guard tried < Self.maxKeysPerRRSIG else { break }
      tried += 1
      // The first pass only gathers what is missing: a key that may have
      // signed counts as valid there.
      guard verifying else { return .valid }
      guard failedVerifications < Self.maxFailedVerifications else {
        return .stop(.bogus(.dnssecBogus))
      }
      if signedLength == nil {
        signedLength =
          SignedData.write(for: rrsig, in: message, section: section, into: scratch)
          ?? -1
      }
      guard let length = signedLength, length >= 0 else {
        failedVerifications += 1
        return .invalid
      }
      let signedData = UnsafeRawBufferPointer(rebasing: scratch[0..<length])
      let digest = VerifiedSignatures.digest(
        signedData: signedData, signature: rrsig.signature, keyRDATA: key.rdata)
      if verified.contains(digest) { return .valid }
      verifications += 1
      switch rrsig.verify(key: key, signedData: signedData) {
      case .valid:
        verified.insert(digest)
        return .valid
      case .unsupportedAlgorithm: return .unsupported
      case .invalid: failedVerifications += 1
      }
    }
    return tried == 0 ? .noKey : .invalid
  }

  /// Whether an anchor is of an algorithm (and digest type) dnsward checks.
  static func anchorIsSupported(_ anchor: TrustAnchor) -> Bool {
    switch anchor.type {
    case .ds:
      guard let ds = DSRecord(bytes: anchor.rdata, rdataOffset: 0, rdataLength: anchor.rdata.count)
      else { return false }
      return ds.algorithm.isSupported && ds.digestType.supportedDigestLength != nil
    case .dnskey:
      guard
        let key = DNSKEYRecord(
          bytes: anchor.rdata, rdataOffset: 0, rdataLength: anchor.rdata.count)
      else { return false }
      return key.algorithm.isSupported
    }
  }

  /// Whether an anchor at `owner` names `key`: a DS anchor whose digest
  /// matches, or a DNSKEY anchor with the same RDATA.
  static func anchorsTrust(
    _ key: DNSKEYRecord, owner: UnsafeRawBufferPointer, _ anchors: TrustAnchors
  ) -> Bool {
    anchors.withIterator { iterator in
      while let anchor = iterator.next() {
        guard Name.equalIgnoringCase(anchor.owner, owner) else { continue }
        switch anchor.type {
        case .ds:
          if let ds = DSRecord(
            bytes: anchor.rdata, rdataOffset: 0, rdataLength: anchor.rdata.count),
            ds.check(key: key, keyOwner: owner) == .match
          {
            return true
          }
        case .dnskey:
          if SignedData.compareOctets(anchor.rdata, key.rdata) == 0 { return true }
        }
      }
      return false
    }
  }

  /// Whether the DS RRset at `owner` in the answer of `dsMessage` has a DS
  /// of a supported algorithm and digest type (RFC 4035 §5.2).
  static func hasSupportedDS(_ dsMessage: Message, owner: UnsafeRawBufferPointer) -> Bool {
    var records = SectionRecords(dsMessage, .answer)
    while let record = records.next() {
      guard record.type == .ds, let ds = DSRecord(record, in: dsMessage),
        ValidatorNames.isOwned(record, by: owner, in: dsMessage)
      else { continue }
      if ds.algorithm.isSupported && ds.digestType.supportedDigestLength != nil { return true }
    }
    return false
  }

  /// Whether a DS at `owner` in the answer of `dsMessage` matches `key`.
  static func dsTrusts(_ key: DNSKEYRecord, owner: UnsafeRawBufferPointer, _ dsMessage: Message)
    -> Bool
  {
    var records = SectionRecords(dsMessage, .answer)
    while let record = records.next() {
      guard record.type == .ds, let ds = DSRecord(record, in: dsMessage),
        ValidatorNames.isOwned(record, by: owner, in: dsMessage)
      else { continue }
      if ds.check(key: key, keyOwner: owner) == .match { return true }
    }
    return false
  }
}
