// What the validator tests share: the fixture answers as bytes, a cache
// standing in for the engine's (ValidatedRecordSource), and the loop that
// resolves `.needs` verdicts the way the engine does — fetch the named
// DS/DNSKEY answer (from the fixtures), validate it as its own question,
// cache it with the state it got, validate again.

import CompiledConfig
import DNSSEC
import DNSWire
import TestSupport
import XCTest

/// A fixture answer's bytes by its key, "name. TYPE".
func fixture(_ key: String) -> [UInt8] {
  guard let hex = ValidatorFixtures.answers[key] else { fatalError("no fixture \(key)") }
  return hexBytes(hex)
}

/// The question of the fixture answer "name. TYPE".
func fixtureQuestion(_ key: String) -> (name: String, type: RRType) {
  let parts = key.split(separator: " ")
  let type: RRType =
    switch parts[1] {
    case "A": .a
    case "TXT": .txt
    case "DS": .ds
    default: .dnskey
    }
  return (String(parts[0]), type)
}

/// Trust anchors of one entry: `owner`'s `type` record with `rdata`.
func oneAnchor(_ owner: String, _ type: TrustAnchorType, rdata: [UInt8]) -> TrustAnchors {
  var table: [UInt8] = []
  TrustAnchors.append(owner: wireName(owner), type: type, rdata: rdata, to: &table)
  return TrustAnchors(TableBytes(table))
}

/// An anchor DS of `owner` with an algorithm and a made-up SHA-256 digest.
func madeUpDSAnchor(_ owner: String, algorithm: UInt8) -> TrustAnchors {
  oneAnchor(
    owner, .ds,
    rdata: dsRDATA(
      keyTag: 1, algorithm: algorithm, digestType: 2, digest: Array(repeating: 1, count: 32)))
}

/// The trust anchors of the fixtures: the DS of example.'s KSK.
func fixtureAnchors(digest: String = ValidatorFixtures.anchorDS.digest) -> TrustAnchors {
  let ds = ValidatorFixtures.anchorDS
  return oneAnchor(
    "example.", .ds,
    rdata: dsRDATA(
      keyTag: ds.keyTag, algorithm: ds.algorithm, digestType: ds.digestType,
      digest: hexBytes(digest)))
}

/// Seconds inside every fixture signature's validity.
let fixtureNow: UInt32? = ValidatorFixtures.capturedAt

/// The engine's cache of validated DS and DNSKEY answers, in a dictionary.
final class TestRecordCache: ValidatedRecordSource {
  var entries: [String: ([UInt8], ValidationState)] = [:]
  var lookups = 0

  static func key(_ name: [UInt8], _ type: RRType) -> String {
    "\(nameText(name).lowercased()). \(type == .ds ? "DS" : type == .dnskey ? "DNSKEY" : "\(type.rawValue)")"
  }

  func store(_ key: String, _ bytes: [UInt8], _ state: ValidationState) {
    entries[key] = (bytes, state)
  }

  func withValidatedAnswer<Result>(
    name: UnsafeRawBufferPointer, type: RRType, _ body: (Message, ValidationState) -> Result
  ) -> Result? {
    lookups += 1
    guard let (bytes, state) = entries[Self.key(Array(name), type)] else { return nil }
    return bytes.withUnsafeBytes { raw in body(try! Message(validating: raw), state) }
  }
}

func state(of verdict: ValidationVerdict) -> ValidationState {
  switch verdict {
  case .secure: return .secure
  case .insecure: return .insecure
  case .bogus: return .bogus
  case .needs: return .unchecked
  }
}

/// Resolves chains like the engine: validates `bytes` as the answer to
/// (name, type); each `.needs` is fetched from `fetch` (the fixtures by
/// default), validated in turn and cached; at most 16 fetches.
struct ChainResolver {
  var cache = TestRecordCache()

  /// Every DS and DNSKEY fixture, resolved once through the chain loop
  /// (cold) and cached with the state it got: what the engine's cache
  /// holds after a while.
  static let warmEntries: [String: ([UInt8], ValidationState)] = {
    var resolver = ChainResolver()
    for key in ValidatorFixtures.answers.keys.sorted()
    where key.hasSuffix(" DS") || key.hasSuffix(" DNSKEY") {
      if resolver.cache.entries[key] == nil {
        resolver.cache.store(key, fixture(key), state(of: resolver.validate(key)))
      }
    }
    return resolver.cache.entries
  }()

  /// A resolver whose cache starts cold, or warm with `warmEntries`.
  init(warm: Bool = false) {
    if warm { cache.entries = Self.warmEntries }
  }

  var anchors = fixtureAnchors()
  var now: UInt32? = fixtureNow
  var fetch: (String) -> [UInt8]? = { ValidatorFixtures.answers[$0].map(hexBytes) }
  var fetches = 0
  var verifications = 0

  mutating func validate(_ bytes: [UInt8], name: String, type: RRType) -> ValidationVerdict {
    var validator = Validator()
    for _ in 0..<20 {
      let verdict = bytes.withUnsafeBytes { raw in
        let message = try! Message(validating: raw)
        return wireName(name).withUnsafeBytes { question in
          validator.validate(
            message, questionName: question, questionType: type, anchors: anchors,
            records: cache, now: now)
        }
      }
      verifications += validator.verifications
      guard case .needs(let neededType) = verdict else { return verdict }
      let key = TestRecordCache.key(Array(validator.neededName), neededType)
      fetches += 1
      guard fetches <= 16, let answer = fetch(key) else { return verdict }
      let neededName = String(key.split(separator: " ")[0])
      let neededVerdict = validate(answer, name: neededName, type: neededType)
      cache.store(key, answer, state(of: neededVerdict))
    }
    return .bogus(.dnssecIndeterminate)
  }

  /// Validates the fixture answer to "name. TYPE".
  mutating func validate(_ key: String) -> ValidationVerdict {
    let question = fixtureQuestion(key)
    return validate(fixture(key), name: question.name, type: question.type)
  }
}

/// Rewrites the type of every record of `type` to a private type (only the `onlyIndex`th of them when given), as if the records were stripped: offsets and
/// compression stay intact.
func strip(_ type: RRType, from bytes: [UInt8], onlyIndex: Int? = nil) -> [UInt8] {
  var result = bytes
  withMessage(bytes) { _, records in
    for (index, record) in records.filter({ $0.type == type }).enumerated() {
      if let onlyIndex, index != onlyIndex { continue }
      result[record.fixedOffset] = 0xFF
      result[record.fixedOffset + 1] = 0x00
    }
  }
  return result
}

/// Flips a bit in the RDATA of the first record of `type`.
func tamper(_ type: RRType, in bytes: [UInt8], at index: Int = 0) -> [UInt8] {
  var result = bytes
  withMessage(bytes) { _, records in
    let record = records.first { $0.type == type }!
    result[record.rdataOffset + index] ^= 0x01
  }
  return result
}

/// The TTL-bounded verdict without its TTL, for comparing the kind.
func isSecure(_ verdict: ValidationVerdict) -> Bool {
  if case .secure = verdict { return true }
  return false
}
