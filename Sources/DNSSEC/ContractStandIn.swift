// TEMPORARY STAND-IN (wt-engine only): the contract's types
// (/work/wt/notes/validator-contract.md) so that the engine compiles before
// wt-validator's Validator*.swift exists. NOT a validator: it never proves
// anything secure. It only reports the first RRSIG's signer DNSKEY as
// missing until one is cached (so the engine's chain-fetch plumbing can be
// exercised), a cached bogus DNSKEY as bogus, and everything else insecure.
// Deleted before `git merge wt-validator`.

import CompiledConfig
import DNSWire

public enum ValidationState: UInt8, Sendable {
  case unchecked = 0, secure = 1, insecure = 2, bogus = 3
}

public struct ExtendedDNSError: RawRepresentable, Equatable, Sendable {
  public var rawValue: UInt16
  public init(rawValue: UInt16) { self.rawValue = rawValue }
  public static let unsupportedDNSKEYAlgorithm = ExtendedDNSError(rawValue: 1)
  public static let unsupportedDSDigestType = ExtendedDNSError(rawValue: 2)
  public static let dnssecIndeterminate = ExtendedDNSError(rawValue: 5)
  public static let dnssecBogus = ExtendedDNSError(rawValue: 6)
  public static let signatureExpired = ExtendedDNSError(rawValue: 7)
  public static let signatureNotYetValid = ExtendedDNSError(rawValue: 8)
  public static let dnskeyMissing = ExtendedDNSError(rawValue: 9)
  public static let rrsigsMissing = ExtendedDNSError(rawValue: 10)
  public static let nsecMissing = ExtendedDNSError(rawValue: 12)
}

public enum ValidationVerdict: Equatable, Sendable {
  case secure(ttl: UInt32)
  case insecure
  case bogus(ExtendedDNSError)
  case needs(RRType)
}

public protocol ValidatedRecordSource {
  func withValidatedAnswer<Result>(
    name: UnsafeRawBufferPointer, type: RRType, _ body: (Message, ValidationState) -> Result
  ) -> Result?
}

public struct Validator: ~Copyable {
  let scratch: UnsafeMutableRawBufferPointer
  var neededLength = 0

  public init() { scratch = .allocate(byteCount: 256, alignment: 8) }
  deinit { scratch.deallocate() }

  public var neededName: UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(rebasing: scratch[0..<neededLength])
  }

  public mutating func validate<Source: ValidatedRecordSource>(
    _ answer: Message, questionName: UnsafeRawBufferPointer, questionType: RRType,
    anchors: TrustAnchors, records: Source, now: UInt32?
  ) -> ValidationVerdict {
    var iterator = answer.records()
    while let record = iterator.next() {
      guard record.type == .rrsig, record.rdataLength > 18 else { continue }
      guard
        let read = try? Name.read(
          in: answer.bytes, at: record.rdataOffset + 18, into: scratch, lowercase: true)
      else { return .bogus(.dnssecBogus) }
      neededLength = read.length
      if questionType == .dnskey && Name.equalIgnoringCase(neededName, questionName) {
        return .insecure
      }
      let state = records.withValidatedAnswer(name: neededName, type: .dnskey) { $1 }
      guard let state else { return .needs(.dnskey) }
      return state == .bogus ? .bogus(.dnskeyMissing) : .insecure
    }
    return .insecure
  }
}
