// The DNSSEC case table: one question per case, the tampering (if any) the
// relay applies on its way, and the outcome unbound 1.17 gives — the
// reference every validator behind the same relay must reproduce.
//
// RFC 8914 §4 codes used here: 6 DNSSEC Bogus, 7 Signature Expired,
// 9 DNSKEY Missing, 10 RRSIGs Missing, 12 NSEC Missing.

import Foundation
import TestSupport

struct ValidationCase: CustomStringConvertible {
  let name: String
  let question: String
  let type: UInt16
  let tampering: TamperRule?
  /// unbound's outcome, exactly.
  let expected: ValidationOutcome
  /// Other RFC 8914 codes a validator may give instead of unbound's, where
  /// unbound's code comes from how it happens to find the failure (each
  /// case says why); rcode and AD must still be unbound's.
  var otherExtendedErrors: [UInt16] = []

  var description: String { "\(name): \(question) type \(type)" }

  static let a: UInt16 = 1
  static let txt: UInt16 = 16
  static let aaaa: UInt16 = 28
  static let ds: UInt16 = 43
  static let dnskey: UInt16 = 48

  /// Whether `outcome` is unbound's, or differs only by an EDE code the
  /// case also accepts: what a validator under test must give.
  func accepts(_ outcome: ValidationOutcome?) -> Bool {
    guard let outcome else { return false }
    if outcome == expected { return true }
    return outcome.rcode == expected.rcode && outcome.authenticData == expected.authenticData
      && outcome.extendedError.map(otherExtendedErrors.contains) == true
  }

  static func secure(_ rcode: Int = 0) -> ValidationOutcome {
    ValidationOutcome(rcode: rcode, authenticData: true, extendedError: nil)
  }
  static func insecure(_ rcode: Int = 0) -> ValidationOutcome {
    ValidationOutcome(rcode: rcode, authenticData: false, extendedError: nil)
  }
  static func bogus(_ code: UInt16) -> ValidationOutcome {
    ValidationOutcome(rcode: 2, authenticData: false, extendedError: code)
  }
}

enum ValidationCases {
  typealias Case = ValidationCase
  static let top = TestZones.top

  /// In this order: honest questions first, so that the chain's keys are
  /// cached validated before a tampered answer arrives; every tampered
  /// case asks a name no other case asks, so no case depends on another
  /// one's cache.
  static let all: [ValidationCase] = honest + tampered

  static let honest: [ValidationCase] = [
    Case(
      name: "ECDSA P-256 (13), NSEC, the anchor's zone", question: "www.\(top)", type: Case.a,
      tampering: nil, expected: Case.secure()),
    Case(
      name: "RSA/SHA-256 (8) child", question: "www.rsa.\(top)", type: Case.a, tampering: nil,
      expected: Case.secure()),
    Case(
      name: "Ed25519 (15) child", question: "www.ed.\(top)", type: Case.a, tampering: nil,
      expected: Case.secure()),
    Case(
      name: "NSEC3 child", question: "www.nsec3.\(top)", type: Case.a, tampering: nil,
      expected: Case.secure()),
    Case(
      name: "NSEC3 opt-out child", question: "www.optout.\(top)", type: Case.a, tampering: nil,
      expected: Case.secure()),
    Case(
      name: "NXDOMAIN, NSEC proof", question: "nx.\(top)", type: Case.a, tampering: nil,
      expected: Case.secure(3)),
    Case(
      name: "NXDOMAIN, NSEC3 proof", question: "nx.nsec3.\(top)", type: Case.a, tampering: nil,
      expected: Case.secure(3)),
    Case(
      name: "NXDOMAIN, NSEC3 proof with a salt", question: "nx.salted.\(top)", type: Case.a,
      tampering: nil, expected: Case.secure(3)),
    Case(
      name: "NODATA, NSEC proof", question: "www.\(top)", type: Case.aaaa, tampering: nil,
      expected: Case.secure()),
    Case(
      name: "NODATA, NSEC3 proof", question: "www.nsec3.\(top)", type: Case.aaaa,
      tampering: nil, expected: Case.secure()),
    Case(
      name: "NODATA, NSEC3 proof with a salt", question: "www.salted.\(top)", type: Case.aaaa,
      tampering: nil, expected: Case.secure()),
    Case(
      name: "wildcard answer (*.wild)", question: "anything.wild.\(top)", type: Case.a,
      tampering: nil, expected: Case.secure()),
    Case(
      name: "wildcard answer in the NSEC3 zone", question: "anything.wild.nsec3.\(top)",
      type: Case.a, tampering: nil, expected: Case.secure()),
    Case(
      name: "CNAME chain through two signed zones", question: "alias.\(top)", type: Case.a,
      tampering: nil, expected: Case.secure()),
    Case(
      name: "DS asked itself (RSA child's, signed by the top zone)", question: "rsa.\(top)",
      type: Case.ds, tampering: nil, expected: Case.secure()),
    Case(
      name: "DNSKEY asked itself (Ed25519 child's)", question: "ed.\(top)", type: Case.dnskey,
      tampering: nil, expected: Case.secure()),
    // RFC 4035 §3.2.3: AD only when every RRset in the answer is secure; the
    // CNAME is, its target (unsigned zone) is not.
    Case(
      name: "CNAME from a signed zone into the unsigned child", question: "plainalias.\(top)",
      type: Case.a, tampering: nil, expected: Case.insecure()),
    // RFC 5155 §9.2: an NSEC3 with the opt-out flag covering the next
    // closer name proves no more than "maybe an unsigned delegation is
    // there": the NXDOMAIN cannot be secure. unbound answers it insecure.
    Case(
      name: "NXDOMAIN in the opt-out zone", question: "nx.optout.\(top)", type: Case.a,
      tampering: nil, expected: Case.insecure(3)),
    Case(
      name: "under the opt-out zone's unsigned delegation", question: "www.sub.optout.\(top)",
      type: Case.a, tampering: nil, expected: Case.insecure()),
    Case(
      name: "unsigned child (no DS, NSEC proves it)", question: "www.plain.\(top)", type: Case.a,
      tampering: nil, expected: Case.insecure()),
    Case(
      name: "parent publishes a DS of another key", question: "www.wrongds.\(top)",
      type: Case.a, tampering: nil, expected: Case.bogus(9), otherExtendedErrors: [6]),
  ]

  static let tampered: [ValidationCase] = [
    Case(
      name: "address changed", question: "addr.\(top)", type: Case.a,
      tampering: TamperRule(suffix: "addr.\(top)", type: Case.a, tampering: .changeAddress),
      expected: Case.bogus(6)),
    Case(
      name: "address changed, RSA/SHA-256 (8) zone", question: "addr.rsa.\(top)", type: Case.a,
      tampering: TamperRule(suffix: "addr.rsa.\(top)", type: Case.a, tampering: .changeAddress),
      expected: Case.bogus(6)),
    Case(
      name: "address changed, Ed25519 (15) zone", question: "addr.ed.\(top)", type: Case.a,
      tampering: TamperRule(suffix: "addr.ed.\(top)", type: Case.a, tampering: .changeAddress),
      expected: Case.bogus(6)),
    Case(
      name: "RRSIGs stripped", question: "nosig.\(top)", type: Case.a,
      tampering: TamperRule(suffix: "nosig.\(top)", type: Case.a, tampering: .stripSignatures),
      expected: Case.bogus(10), otherExtendedErrors: [6]),
    Case(
      name: "expired RRSIG replayed", question: "expired.\(top)", type: Case.a,
      tampering: TamperRule(
        suffix: "expired.\(top)", type: Case.a, tampering: .replayExpiredSignature),
      expected: Case.bogus(7)),
    // A negative answer without its NSEC/NSEC3 has only the SOA's RRSIG
    // left, which unbound 1.17 does not take as the signer ("no signer,
    // using gone.dnssec.test."): it looks for a zone cut at the question
    // name, asks its DS, finds the nonexistence of that DS unproven and
    // reports the broken chain (9), not the missing proof (12). The DS
    // answer it gets is honest (the rule selects type A only): the code is
    // unbound's, so 12 and 6 are accepted from another validator.
    Case(
      name: "NXDOMAIN, NSEC proof deleted", question: "gone.\(top)", type: Case.a,
      tampering: TamperRule(suffix: "gone.\(top)", type: Case.a, tampering: .deleteDenialProof),
      expected: Case.bogus(9), otherExtendedErrors: [12, 6]),
    Case(
      name: "NXDOMAIN, NSEC3 proof deleted", question: "gone.nsec3.\(top)", type: Case.a,
      tampering: TamperRule(
        suffix: "gone.nsec3.\(top)", type: Case.a, tampering: .deleteDenialProof),
      expected: Case.bogus(9), otherExtendedErrors: [12, 6]),
    // The same search for a signer; here unbound ends at "no signatures".
    Case(
      name: "NODATA, NSEC3 proof deleted", question: "www.nsec3.\(top)", type: Case.txt,
      tampering: TamperRule(
        suffix: "www.nsec3.\(top)", type: Case.txt, tampering: .deleteDenialProof),
      expected: Case.bogus(10), otherExtendedErrors: [12, 6]),
    // The answer is signed (by the wildcard's RRSIG, labels 3 < 4), but
    // nothing proves the name itself absent (RFC 4035 §5.3.4):
    // "wildcard proof failed".
    Case(
      name: "wildcard answer, its NSEC deleted", question: "gone.wild.\(top)", type: Case.a,
      tampering: TamperRule(
        suffix: "gone.wild.\(top)", type: Case.a, tampering: .deleteDenialProof),
      expected: Case.bogus(6), otherExtendedErrors: [12]),
    Case(
      name: "wildcard answer in the NSEC3 zone, its NSEC3 deleted",
      question: "gone.wild.nsec3.\(top)", type: Case.a,
      tampering: TamperRule(
        suffix: "gone.wild.nsec3.\(top)", type: Case.a, tampering: .deleteDenialProof),
      expected: Case.bogus(6), otherExtendedErrors: [12]),
    // The DS keeps its RRSIG, which no longer verifies: unbound says
    // "signature crypto failed ... for DS while building chain of trust"
    // and, being in the chain, 9; a validator may say 6 (bogus signature).
    Case(
      name: "DS swapped on the way", question: "www.dsswap.\(top)", type: Case.a,
      tampering: TamperRule(
        suffix: "dsswap.\(top)", type: Case.ds, tampering: .swapRecords(donor: "nsec3.\(top)")),
      expected: Case.bogus(9), otherExtendedErrors: [6]),
    // No DNSKEY matches the (honest) DS: "no keys have a DS with algorithm
    // ECDSAP256SHA256", 9 (DNSKEY Missing).
    Case(
      name: "DNSKEY set swapped on the way", question: "www.keyswap.\(top)", type: Case.a,
      tampering: TamperRule(
        suffix: "keyswap.\(top)", type: Case.dnskey, tampering: .swapRecords(donor: "nsec3.\(top)")),
      expected: Case.bogus(9), otherExtendedErrors: [6]),
  ]

  /// The relay's rules: one per tampered case.
  static var rules: [TamperRule] { all.compactMap(\.tampering) }

  /// What a resolver says to each case's question, in table order; nil
  /// where it did not answer. `ask` sends one query (DO=1, its ID given)
  /// and returns the reply's bytes.
  static func outcomes(
    cases: [ValidationCase] = all, ask: (_ query: [UInt8]) -> [UInt8]?
  ) -> [ValidationOutcome?] {
    cases.enumerated().map { index, item in
      let query = dnsQuery(
        item.question, type: item.type, id: UInt16(0x5100 + index), edns: 1232, dnssecOK: true)
      return ask(query).flatMap { ValidationOutcome(reply: $0) }
    }
  }

  /// The same, asked over UDP of the resolver on 127.0.0.1:`port`. All
  /// the questions share one budget of `seconds` (a resolver that hangs
  /// ends the run with the rest unanswered, not in minutes); one question
  /// waits at most 5 s, longer than a resolver's own upstream timeouts
  /// need here (every answer comes from loopback).
  static func outcomes(
    resolverPort port: UInt16, cases: [ValidationCase] = all, seconds: TimeInterval = 30
  ) -> [ValidationOutcome?] {
    let deadline = Date().addingTimeInterval(seconds)
    return outcomes(cases: cases) { query in
      let left = min(5, deadline.timeIntervalSinceNow)
      return left > 0 ? StubClient.udpMatchingID(query, port: port, timeout: left) : nil
    }
  }

  /// One line per case whose outcome the case does not accept: empty when
  /// the resolver on `port` (dnsward behind the same relay, say) agrees
  /// with unbound on every case.
  ///
  /// Ask a resolver whose cache is cold, once: unbound 1.17 answers a
  /// bogus answer from its cache (`val-bogus-ttl`) with EDE 6 where the
  /// first answer had the specific code (7 for the expired RRSIG).
  static func disagreements(resolverPort port: UInt16, cases: [ValidationCase] = all)
    -> [String]
  {
    disagreements(outcomes(resolverPort: port, cases: cases), cases: cases)
  }

  static func disagreements(_ outcomes: [ValidationOutcome?], cases: [ValidationCase] = all)
    -> [String]
  {
    zip(cases, outcomes).compactMap { item, outcome in
      item.accepts(outcome)
        ? nil : "\(item): \(outcome.map { "\($0)" } ?? "no answer"), unbound: \(item.expected)"
    }
  }
}
