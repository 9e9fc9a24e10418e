import CompiledConfig
import DNSSEC
import DNSWire

// libFuzzer target: the DNSSEC record layer and the Crypto verifiers on
// hostile records (built and run by .ci/fuzz.sh; not a SwiftPM target).
//
// An input that validates as a DNS message has every record read through
// the DNSSEC views (DNSKEY, DS, RRSIG, NSEC, NSEC3, NSEC3PARAM); every
// RRSIG's signed data is written and checked against every DNSKEY of the
// message (RSA, ECDSA and Ed25519 with whatever keys and signatures the
// input holds); every DS is compared with every DNSKEY; the question name
// is hashed with every NSEC3's parameters (iterations capped, as the
// validator caps them) and checked against every NSEC and NSEC3. Then the
// validator judges the message as the answer to its question, with the
// message's own DNSKEYs as trust anchors and the message itself as every
// cached DS/DNSKEY answer (its state chosen by the first byte), with and
// without signature times. Nothing may trap, and the invariants below must
// hold.

/// The most records of each kind looked at: keeps one input's work bounded
/// (every RRSIG is checked against every key).
let perKind = 8
/// RFC 9276 §3.2: more iterations than this make a zone insecure, so they
/// are never computed.
let maximumIterations = 150

var signedData = [UInt8](repeating: 0, count: 65_536)
var questionName = [UInt8](repeating: 0, count: Name.maxLength)

func sectionOf(_ offset: Int, in message: Message) -> Section {
  offset < message.authorityOffset
    ? .answer : offset < message.additionalOffset ? .authority : .additional
}

func exercise(_ message: Message) {
  var keys: [ResourceRecord] = []
  var signatures: [ResourceRecord] = []
  var delegations: [ResourceRecord] = []
  var denials: [ResourceRecord] = []
  var records = message.records()
  while let record = records.next() {
    if let key = DNSKEYRecord(record, in: message) {
      _ = (key.keyTag, key.isZoneKey, key.isRevoked, key.rsaPublicKey?.modulus.count)
      require(!key.publicKey.isEmpty, "a DNSKEY view with no public key")
      if keys.count < perKind { keys.append(record) }
    } else if let rrsig = RRSIGRecord(record, in: message) {
      _ = (rrsig.labels, rrsig.isCurrent(at: 1_700_000_000), rrsig.signerEnclosesOwner(in: message))
      if signatures.count < perKind { signatures.append(record) }
    } else if DSRecord(record, in: message) != nil {
      if delegations.count < perKind { delegations.append(record) }
    } else if NSECRecord(record, in: message) != nil || NSEC3Record(record, in: message) != nil {
      if denials.count < perKind { denials.append(record) }
    } else {
      _ = NSEC3PARAMRecord(record, in: message)
    }
  }
  for signatureRecord in signatures {
    let rrsig = RRSIGRecord(signatureRecord, in: message)!
    let section = sectionOf(signatureRecord.offset, in: message)
    let written = signedData.withUnsafeMutableBytes {
      SignedData.write(for: rrsig, in: message, section: section, into: $0)
    }
    guard let length = written else { continue }
    require(length > 18, "signed data shorter than the RRSIG's fixed fields")
    for keyRecord in keys {
      let key = DNSKEYRecord(keyRecord, in: message)!
      let check = signedData.withUnsafeBytes {
        rrsig.verify(key: key, signedData: UnsafeRawBufferPointer(rebasing: $0[0..<length]))
      }
      if !rrsig.algorithm.isSupported {
        require(check == .unsupportedAlgorithm, "an unsupported algorithm did not say so")
      } else if key.algorithm != rrsig.algorithm {
        require(check == .invalid, "a key of another algorithm verified a signature")
      }
    }
  }
  for dsRecord in delegations {
    let ds = DSRecord(dsRecord, in: message)!
    for keyRecord in keys {
      let key = DNSKEYRecord(keyRecord, in: message)!
      guard let owner = CanonicalName(in: message, at: keyRecord.offset) else { continue }
      var ownerCopy = owner
      let result = ownerCopy.withBytes { ds.check(key: key, keyOwner: $0) }
      if ds.digestType.supportedDigestLength == nil {
        require(result == .unsupportedDigestType, "an unknown digest type compared")
      }
    }
  }
  guard message.hasQuestion else { return }
  let nameLength = questionName.withUnsafeMutableBytes {
    message.copyQuestionName(into: $0, lowercase: true)
  }
  questionName.withUnsafeBytes { raw in
    let name = UnsafeRawBufferPointer(rebasing: raw[0..<nameLength])
    for denialRecord in denials {
      if let nsec = NSECRecord(denialRecord, in: message) {
        // A name cannot both match an NSEC's owner and lie strictly after it.
        if nsec.matches(name, in: message) {
          require(!nsec.covers(name, in: message), "an NSEC covers its own owner")
        }
      } else if let nsec3 = NSEC3Record(denialRecord, in: message),
        nsec3.parameters.iterations <= maximumIterations,
        let hash = NSEC3Hash(hashing: name, parameters: nsec3.parameters)
      {
        if nsec3.matches(hash) {
          require(!nsec3.covers(hash), "an NSEC3 covers its own owner hash")
        }
      }
    }
  }
}

/// The cache as the validator sees it: the input message answers every
/// DS and DNSKEY question whose owner it holds records of, with one state.
struct MessageAsCache: ValidatedRecordSource {
  let message: Message
  let state: ValidationState

  func withValidatedAnswer<Result>(
    name: UnsafeRawBufferPointer, type: RRType, _ body: (Message, ValidationState) -> Result
  ) -> Result? {
    var records = message.records()
    while let record = records.next() {
      guard record.type == type, var owner = CanonicalName(in: message, at: record.offset)
      else { continue }
      if owner.withBytes({ Name.equalIgnoringCase($0, name) }) { return body(message, state) }
    }
    return nil
  }
}

var validator = Validator()

/// Every DNSKEY of the message as a trust anchor at its owner.
func anchors(of message: Message) -> TrustAnchors {
  var table: [UInt8] = []
  var records = message.records()
  while let record = records.next() {
    guard record.type == .dnskey, var owner = CanonicalName(in: message, at: record.offset)
    else { continue }
    let name = owner.withBytes { Array($0) }
    TrustAnchors.append(
      owner: name, type: .dnskey, rdata: Array(message.bytes[record.rdataOffset..<record.end]),
      to: &table)
  }
  return TrustAnchors(TableBytes(table))
}

func judge(_ message: Message, state: ValidationState, now: UInt32?) {
  guard message.hasQuestion else { return }
  let nameLength = questionName.withUnsafeMutableBytes {
    message.copyQuestionName(into: $0, lowercase: true)
  }
  let trusted = anchors(of: message)
  let verdict = questionName.withUnsafeBytes {
    validator.validate(
      message, questionName: UnsafeRawBufferPointer(rebasing: $0[0..<nameLength]),
      questionType: message.questionType, anchors: trusted,
      records: MessageAsCache(message: message, state: state), now: now)
  }
  // KeyTrap bounds: at most 8 failed verifications, so at most 8 + the
  // RRsets that verified (64) per call.
  require(validator.verifications <= 8 + 64, "validate verified \(validator.verifications) times")
  if case .needs = verdict {
    require(!validator.neededName.isEmpty, "a .needs verdict without a name")
  }
}

let states: [ValidationState] = [.secure, .insecure, .bogus, .unchecked]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  guard size >= 1 else { return 0 }
  let selector = data[0]
  let bytes = UnsafeRawBufferPointer(start: data + 1, count: size - 1)
  guard let message = try? Message(validating: bytes, allowTrailingData: true) else { return 0 }
  exercise(message)
  let now: UInt32? = selector & 0x80 == 0 ? 1_700_000_000 &+ UInt32(selector) << 20 : nil
  judge(message, state: states[Int(selector & 3)], now: now)
  return 0
}
