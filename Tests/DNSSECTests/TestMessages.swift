// Messages for the DNSSEC tests, built with DNSWire's MessageWriter from
// records given in the tests' own terms.

import DNSSEC
import DNSWire
import Foundation
import TestSupport
import XCTest

/// One record to write: owner in presentation form (its case kept), raw RDATA.
struct TestRecord {
  var owner: String
  var type: RRType
  var ttl: UInt32 = 3600
  var rdata: [UInt8]
}

/// A response with `answers` then `authority`; owners are compressed
/// against earlier owners, RDATA is written as given.
func buildMessage(answers: [TestRecord], authority: [TestRecord] = []) -> [UInt8] {
  var buffer = [UInt8](repeating: 0, count: 16384)
  let count = buffer.withUnsafeMutableBytes { raw -> Int in
    var writer = MessageWriter(buffer: raw)
    try! writer.writeHeader(
      id: 1, flags: HeaderFlags(rawValue: 0x8180), answers: UInt16(answers.count),
      authorities: UInt16(authority.count))
    for record in answers + authority {
      wireName(record.owner).withUnsafeBytes { owner in
        record.rdata.withUnsafeBytes { rdata in
          try! writer.writeRecord(
            name: owner, type: record.type, rrClass: .internet, ttl: record.ttl, rdata: rdata)
        }
      }
    }
    return writer.count
  }
  return Array(buffer[0..<count])
}

/// Calls `body` with the validated message and its records in order.
func withMessage<Result>(
  _ bytes: [UInt8], _ body: (Message, [ResourceRecord]) throws -> Result
) rethrows -> Result {
  try bytes.withUnsafeBytes { raw in
    let message = try! Message(validating: raw)
    var records: [ResourceRecord] = []
    var iterator = message.records()
    while let record = iterator.next() { records.append(record) }
    return try body(message, records)
  }
}

func base64(_ text: String) -> [UInt8] { Array(Data(base64Encoded: text)!) }

func uint16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
func uint32(_ value: UInt32) -> [UInt8] {
  uint16(UInt16(value >> 16)) + uint16(UInt16(value & 0xFFFF))
}

func dnskeyRDATA(flags: UInt16, protocolField: UInt8 = 3, algorithm: UInt8, key: [UInt8]) -> [UInt8]
{
  uint16(flags) + [protocolField, algorithm] + key
}

func dsRDATA(keyTag: UInt16, algorithm: UInt8, digestType: UInt8, digest: [UInt8]) -> [UInt8] {
  uint16(keyTag) + [algorithm, digestType] + digest
}

/// RRSIG RDATA (RFC 4034 §3.1) with the signer name uncompressed.
func rrsigRDATA(
  covered: RRType, algorithm: UInt8, labels: UInt8, originalTTL: UInt32 = 3600,
  expiration: UInt32, inception: UInt32, keyTag: UInt16, signer: String, signature: [UInt8]
) -> [UInt8] {
  uint16(covered.rawValue) + [algorithm, labels] + uint32(originalTTL) + uint32(expiration)
    + uint32(inception) + uint16(keyTag) + wireName(signer) + signature
}

/// A type bitmap (RFC 4034 §4.1.2) with the given types.
func typeBitmap(_ types: [UInt16]) -> [UInt8] {
  var out: [UInt8] = []
  for window in Set(types.map { $0 >> 8 }).sorted() {
    let lows = types.filter { $0 >> 8 == window }.map { Int($0 & 0xFF) }
    var bits = [UInt8](repeating: 0, count: lows.max()! / 8 + 1)
    for low in lows { bits[low / 8] |= 0x80 >> UInt8(low % 8) }
    out += [UInt8(window), UInt8(bits.count)] + bits
  }
  return out
}

/// The signed data `SignedData.write` produces for the RRSIG at `index`.
func signedData(
  _ bytes: [UInt8], rrsigAt index: Int, section: Section = .answer, capacity: Int = 4096
) -> [UInt8]? {
  withMessage(bytes) { message, records in
    guard let rrsig = RRSIGRecord(records[index], in: message) else { return nil }
    var output = [UInt8](repeating: 0, count: capacity)
    let length = output.withUnsafeMutableBytes {
      SignedData.write(for: rrsig, in: message, section: section, into: $0)
    }
    return length.map { Array(output[0..<$0]) }
  }
}
