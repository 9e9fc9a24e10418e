// The DNSSEC validator (RFC 4033 §5, RFC 4035 §5): decides whether an
// upstream answer, received with DO=1 CD=1, is secure, insecure or bogus,
// or which DS or DNSKEY RRset it still needs. Pure: the engine supplies
// the message, the trust anchors, its cache of validated DS and DNSKEY
// answers and the time; the validator does no I/O and allocates only in
// `init` (its scratch for signed data and the needed name).
//
// A call runs twice over the message: first without any signature
// arithmetic, to find the first missing DS or DNSKEY (so the engine fetches
// before any cryptography is spent), then with it.
//
//   ValidatorRRset.swift       one RRset and its RRSIGs, keys, DS, anchors
//   ValidatorDenial.swift      NSEC and NSEC3 proofs (RFC 4035 §5.4, RFC 5155 §8)
//   ValidatorInsecurity.swift  unsigned data: the DS walk down from the anchor
//   ValidatorNames.swift       name ancestry, anchors, RRset look-ups

import CompiledConfig
import DNSWire

/// What one `validate` call reads.
struct ValidationInputs<Source: ValidatedRecordSource> {
  let message: Message
  let anchors: TrustAnchors
  let records: Source
  let now: UInt32?
}

/// Allocates its scratch (signed data, names) once in init; nothing per call.
public struct Validator: ~Copyable {
  /// KeyTrap bounds (CVE-2023-50387), per `validate` call.
  static let maxFailedVerifications = 8
  static let maxKeysPerRRSIG = 4
  static let maxRRSIGsPerRRset = 4
  /// NSEC3 hashes of names computed per call; each costs at most
  /// `maxNSEC3Iterations + 1` SHA-1 blocks.
  static let maxNSEC3Hashes = 32
  /// RFC 9276 §3.2: NSEC3 with more iterations is treated as insecure.
  static let maxNSEC3Iterations = 150
  /// The most RRsets and CNAME/DNAME links one answer may have.
  static let maxRRsets = 64
  static let maxChainLinks = 16

  /// Signed data (RFC 4034 §3.1.8.1) of one RRSIG: a message is at most
  /// 65,535 octets, and decompressing names may lengthen it.
  let scratch: UnsafeMutableRawBufferPointer
  let neededStorage: UnsafeMutableRawBufferPointer
  var neededLength = 0
  var verifying = false
  var failedVerifications = 0
  var nsec3Hashes = 0
  /// Signature verifications done by the last `validate` call (those
  /// `verified` remembered are not done again).
  public internal(set) var verifications = 0
  let verified: VerifiedSignatures

  /// Verified signatures a validator keeps (8 KB).
  public static let rememberedSignatures = 512

  /// `remembering`: how many verified signatures are kept (a validator
  /// that is never used passes 1).
  public init(remembering: Int = Validator.rememberedSignatures) {
    verified = VerifiedSignatures(capacity: remembering)
    scratch = .allocate(byteCount: 2 * 65_536, alignment: 8)
    neededStorage = .allocate(byteCount: Name.maxLength, alignment: 1)
  }

  deinit {
    scratch.deallocate()
    neededStorage.deallocate()
  }

  /// The owner of the RRset a `.needs` verdict asks for (flat, lower-cased).
  public var neededName: UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(rebasing: neededStorage[0..<neededLength])
  }

  mutating func setNeeded(_ name: UnsafeRawBufferPointer) {
    let count = min(name.count, neededStorage.count)
    for index in 0..<count { neededStorage[index] = Name.asciiLowercased(name[index]) }
    neededLength = count
  }

  /// Validates `answer`, an upstream response to (questionName,
  /// questionType, IN) received with DO=1 CD=1. `now`: wall-clock seconds
  /// since 1970, or nil to skip the signature time checks. Pure: no I/O,
  /// no clock.
  public mutating func validate<Source: ValidatedRecordSource>(
    _ answer: Message, questionName: UnsafeRawBufferPointer, questionType: RRType,
    anchors: TrustAnchors, records: Source, now: UInt32?
  ) -> ValidationVerdict {
    let inputs = ValidationInputs(message: answer, anchors: anchors, records: records, now: now)
    guard var name = CanonicalName(questionName) else { return .bogus(.dnssecBogus) }
    // RRSIG RRsets are not signed (RFC 4035 §2.2): an answer to an RRSIG
    // question cannot be validated, and must not pass as secure.
    if questionType == .rrsig { return .bogus(.dnssecIndeterminate) }
    verifications = 0
    verifying = false
    failedVerifications = 0
    nsec3Hashes = 0
    let gathered = run(inputs, name: &name, type: questionType)
    if case .needs = gathered { return gathered }
    verifying = true
    failedVerifications = 0
    nsec3Hashes = 0
    return run(inputs, name: &name, type: questionType)
  }

  /// One pass: every RRset of the answer section, then the chain from the
  /// question name to its data or its denial.
  private mutating func run<Source: ValidatedRecordSource>(
    _ inputs: ValidationInputs<Source>, name: inout CanonicalName, type: RRType
  ) -> ValidationVerdict {
    let rcode = inputs.message.rcode
    guard rcode == .noError || rcode == .nameError else { return .bogus(.dnssecIndeterminate) }
    var result = VerdictAccumulator()
    if let stop = result.add(checkAnswerRRsets(inputs)) { return stop }
    if let stop = result.add(followChain(inputs, name: &name, type: type)) { return stop }
    return result.verdict
  }

  /// Checks each RRset of the answer section once (RFC 4035 §5.3), with
  /// the wildcard proof for expanded ones (§5.3.4). A CNAME without RRSIG
  /// passes when a DNAME of the answer synthesizes it (RFC 6672 §5.3.3):
  /// the chain walk then uses the DNAME's target, never the CNAME's.
  private mutating func checkAnswerRRsets<Source: ValidatedRecordSource>(
    _ inputs: ValidationInputs<Source>
  ) -> ValidationVerdict {
    let message = inputs.message
    var result = VerdictAccumulator()
    var rrsets = 0
    var records = SectionRecords(message, .answer)
    while let record = records.next() {
      guard record.type != .rrsig, Self.isFirstOfRRset(record, in: message, .answer) else {
        continue
      }
      rrsets += 1
      guard rrsets <= Self.maxRRsets else { return .bogus(.dnssecBogus) }
      let check = checkRRset(inputs, record, section: .answer)
      switch check {
      case .verified(let ttl, let expandedLabels, var signer):
        if let stop = result.add(.secure(ttl: ttl)) { return stop }
        if let expandedLabels {
          guard var owner = CanonicalName(in: message, at: record.offset) else {
            return .bogus(.dnssecBogus)
          }
          let proof = proveWildcardExpansion(
            inputs, owner: &owner, labels: expandedLabels, zone: &signer)
          if let stop = result.add(proof) { return stop }
        }
      case .unsigned:
        if record.type == .cname, isSynthesizedByDNAME(record, in: message) { continue }
        guard var owner = CanonicalName(in: message, at: record.offset) else {
          return .bogus(.dnssecBogus)
        }
        if let stop = result.add(proveInsecure(inputs, owner: &owner, type: record.type)) {
          return stop
        }
      case .verdict(let verdict):
        if let stop = result.add(verdict) { return stop }
      }
    }
    return result.verdict
  }

  /// Whether no earlier answer record has this record's owner, class and type.
  static func isFirstOfRRset(_ record: ResourceRecord, in message: Message, _ section: Section)
    -> Bool
  {
    guard var owner = CanonicalName(in: message, at: record.offset) else { return true }
    return owner.withBytes { name in
      var records = SectionRecords(message, section)
      while let earlier = records.next(), earlier.offset < record.offset {
        if earlier.type == record.type, earlier.rrClass == record.rrClass,
          ValidatorNames.isOwned(earlier, by: name, in: message)
        {
          return false
        }
      }
      return true
    }
  }

  /// Whether a DNAME of the answer section owns a proper ancestor of the
  /// CNAME's owner.
  private func isSynthesizedByDNAME(_ cname: ResourceRecord, in message: Message) -> Bool {
    guard var owner = CanonicalName(in: message, at: cname.offset) else { return false }
    return owner.withBytes { Self.hasDNAME(above: $0, in: message) }
  }

  /// Whether a DNAME of the answer section owns a proper ancestor of `name`.
  static func hasDNAME(above name: UnsafeRawBufferPointer, in message: Message) -> Bool {
    var records = SectionRecords(message, .answer)
    while let record = records.next() {
      guard record.type == .dname, var dnameOwner = CanonicalName(in: message, at: record.offset)
      else { continue }
      let encloses = dnameOwner.withBytes { ancestor in
        ancestor.count < name.count && ValidatorNames.isAtOrBelow(name, ancestor)
      }
      if encloses { return true }
    }
    return false
  }

  /// Follows CNAMEs and DNAMEs (RFC 6672 §2.2 substitution) from the
  /// question name; where the chain ends without data of `type` the
  /// authority section must deny it (RFC 4035 §5.4).
  private mutating func followChain<Source: ValidatedRecordSource>(
    _ inputs: ValidationInputs<Source>, name: inout CanonicalName, type: RRType
  ) -> ValidationVerdict {
    let message = inputs.message
    var current = name
    for _ in 0..<Self.maxChainLinks {
      let step = current.withBytes { currentName -> ChainStep in
        if type == .any {
          var records = SectionRecords(message, .answer)
          while let record = records.next() {
            if ValidatorNames.isOwned(record, by: currentName, in: message) { return .done }
          }
        } else if SectionRecords.first(message, .answer, type: type, owner: currentName) != nil {
          return .done
        }
        if let next = Self.dnameTarget(of: currentName, in: message) { return .next(next) }
        // A DNAME whose substitution does not fit a name (RFC 6672 §2.2,
        // YXDOMAIN): its synthesized CNAME cannot be trusted.
        if Self.hasDNAME(above: currentName, in: message) { return .broken }
        if type != .cname,
          let cname = SectionRecords.first(message, .answer, type: .cname, owner: currentName)
        {
          var target = InlineArray<255, UInt8>(repeating: 0)
          let next = withUnsafeMutableBytes(of: &target) { output -> CanonicalName? in
            guard
              let length = try? Name.read(
                in: message.bytes, at: cname.rdataOffset, into: output, lowercase: true,
                firstTarget: HeaderField.size
              ).length
            else { return nil }
            return CanonicalName(UnsafeRawBufferPointer(rebasing: output[0..<length]))
          }
          guard let next else { return .broken }
          return .next(next)
        }
        return .denial
      }
      switch step {
      case .done: return .secure(ttl: .max)
      case .broken: return .bogus(.dnssecBogus)
      case .next(let next): current = next
      case .denial:
        return proveDenial(inputs, name: &current, type: type)
      }
    }
    return .bogus(.dnssecBogus)
  }

  /// The name a DNAME of the answer section substitutes for `name`: the
  /// labels above the DNAME's owner, then its target (RFC 6672 §2.2).
  static func dnameTarget(of name: UnsafeRawBufferPointer, in message: Message) -> CanonicalName? {
    var records = SectionRecords(message, .answer)
    while let record = records.next() {
      guard record.type == .dname, var owner = CanonicalName(in: message, at: record.offset)
      else { continue }
      let result = owner.withBytes { ownerName -> CanonicalName? in
        guard ownerName.count < name.count, ValidatorNames.isAtOrBelow(name, ownerName) else {
          return nil
        }
        let prefixLength = name.count - ownerName.count
        var buffer = InlineArray<512, UInt8>(repeating: 0)
        return withUnsafeMutableBytes(of: &buffer) { output -> CanonicalName? in
          for index in 0..<prefixLength { output[index] = name[index] }
          guard
            let length = try? Name.read(
              in: message.bytes, at: record.rdataOffset,
              into: UnsafeMutableRawBufferPointer(rebasing: output[prefixLength...]),
              lowercase: true, firstTarget: HeaderField.size
            ).length
          else { return nil }
          return CanonicalName(
            UnsafeRawBufferPointer(rebasing: output[0..<(prefixLength + length)]))
        }
      }
      if let result { return result }
    }
    return nil
  }
}

enum ChainStep {
  case done
  case next(CanonicalName)
  case denial
  case broken
}

/// Combines the verdicts of the parts of an answer: the first bogus or
/// missing link ends the validation; insecure parts make it insecure;
/// otherwise it is secure for the least TTL.
struct VerdictAccumulator {
  var ttl = UInt32.max
  var insecure = false

  /// Adds a part's verdict; returns the verdict to end with, if any.
  mutating func add(_ verdict: ValidationVerdict) -> ValidationVerdict? {
    switch verdict {
    case .secure(let partTTL):
      ttl = min(ttl, partTTL)
      return nil
    case .insecure:
      insecure = true
      return nil
    case .bogus, .needs: return verdict
    }
  }

  var verdict: ValidationVerdict { insecure ? .insecure : .secure(ttl: ttl) }
}
