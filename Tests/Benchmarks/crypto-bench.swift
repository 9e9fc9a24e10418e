// The Crypto module's verifications and hashes, timed alone: compiled by
// crypto.sh with Sources/Crypto into one optimized program (no SwiftPM
// target, no test framework). Each line of standard input is one job:
//
//   p256 DIGEST SIGNATURE KEY
//   p384 DIGEST SIGNATURE KEY
//   ed25519 MESSAGE SIGNATURE KEY
//   rsa DIGEST SIGNATURE MODULUS EXPONENT      (SHA-256 DigestInfo)
//   sha256 | sha384 | sha512 | sha1            (hashing 16 KiB blocks)
//
// all values in hex, made by crypto.sh with openssl. Before timing, a job
// checks that its signature verifies and that the same signature with one
// bit flipped does not: a benchmark of a verifier that says no proves
// nothing. It then runs for DURATION seconds (environment, default 2) and prints
// `NAME OPERATIONS-PER-SECOND`, or with COUNT=N runs exactly N operations
// and prints only `NAME` (for instruction counts under callgrind).

import Foundation

func bytes(hex: Substring) -> [UInt8] {
  var result: [UInt8] = []
  result.reserveCapacity(hex.count / 2)
  var index = hex.startIndex
  while index < hex.endIndex {
    let next = hex.index(index, offsetBy: 2)
    guard let byte = UInt8(hex[index..<next], radix: 16) else {
      fatalError("not hex: \(hex)")
    }
    result.append(byte)
    index = next
  }
  return result
}

/// Runs `operation` for `seconds` (or exactly `count` times) and returns
/// operations per second; `operation` returns its verdict, kept so the
/// optimizer cannot drop the work.
func measure(seconds: Double, count: Int?, _ operation: () -> Bool) -> Double {
  var verdicts = 0
  if let count {
    for _ in 0..<count where operation() { verdicts += 1 }
    precondition(verdicts == count, "a verification failed while counting")
    return 0
  }
  let start = DispatchTime.now().uptimeNanoseconds
  let end = start + UInt64(seconds * 1e9)
  var done = 0
  var now = start
  while now < end {
    for _ in 0..<8 where operation() { verdicts += 1 }
    done += 8
    now = DispatchTime.now().uptimeNanoseconds
  }
  precondition(verdicts == done, "a verification failed while timing")
  return Double(done) / (Double(now - start) / 1e9)
}

func flipped(_ value: [UInt8]) -> [UInt8] {
  var copy = value
  copy[copy.count / 2] ^= 0x01
  return copy
}

/// `bytes` in memory of their own, for the life of the program (a
/// benchmark's inputs), so the timed calls take them as they are.
func buffer(_ bytes: [UInt8]) -> UnsafeRawBufferPointer {
  let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 8)
  memory.copyBytes(from: bytes)
  return UnsafeRawBufferPointer(memory)
}

/// The verification of one job, as a function of its signature.
func verifier(_ fields: [Substring]) -> (
  name: String, verify: (UnsafeRawBufferPointer) -> Bool, signature: [UInt8]
) {
  let name = String(fields[0])
  let signature = bytes(hex: fields[2])
  let signed = buffer(bytes(hex: fields[1]))  // the digest, or Ed25519's message
  let key = buffer(bytes(hex: fields[3]))
  switch name {
  case "p256":
    return (name, { ECDSA.verifyP256(digest: signed, signature: $0, publicKey: key) }, signature)
  case "p384":
    return (name, { ECDSA.verifyP384(digest: signed, signature: $0, publicKey: key) }, signature)
  case "ed25519":
    return (name, { Ed25519.verify(signature: $0, publicKey: key, message: signed) }, signature)
  case "rsa":
    let exponent = buffer(bytes(hex: fields[4]))
    let verify = { (signature: UnsafeRawBufferPointer) in
      RSA.verifyPKCS1v15(
        signature: signature, modulus: key, exponent: exponent, digest: signed,
        digestKind: .sha256)
    }
    return ("rsa\(key.count * 8)", verify, signature)
  default:
    fatalError("unknown job \(name)")
  }
}

/// Hashes one 16 KiB block; returns true (the first digest byte is kept).
func hasher(_ name: Substring, block: [UInt8], sink: UnsafeMutablePointer<UInt8>) -> () -> Bool {
  let firstByte: (UnsafeRawBufferPointer) -> UInt8
  switch name {
  case "sha1": firstByte = { SHA1.hash($0)[0] }
  case "sha256": firstByte = { SHA256.hash($0)[0] }
  case "sha384": firstByte = { SHA384.hash($0)[0] }
  case "sha512": firstByte = { SHA512.hash($0)[0] }
  default: fatalError("unknown hash \(name)")
  }
  return {
    block.withUnsafeBytes { sink.pointee ^= firstByte($0) }
    return true
  }
}

@main
enum CryptoBench {
  static func main() {
    let environment = ProcessInfo.processInfo.environment
    let seconds = Double(environment["DURATION"] ?? "2") ?? 2
    let count = environment["COUNT"].flatMap { Int($0) }
    let block = [UInt8](repeating: 0xA5, count: 16384)
    let sink = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
    sink.initialize(to: 0)
    while let line = readLine() {
      let fields = line.split(separator: " ")
      guard let first = fields.first else { continue }
      if first.hasPrefix("sha") {
        let rate = measure(seconds: seconds, count: count, hasher(first, block: block, sink: sink))
        let megabytes = rate * Double(block.count) / 1e6
        print(count == nil ? "\(first) \(String(format: "%.1f", megabytes))" : "\(first)")
        continue
      }
      let job = verifier(fields)
      let signature = buffer(job.signature)
      precondition(job.verify(signature), "\(job.name): openssl's signature does not verify")
      precondition(
        !job.verify(buffer(flipped(job.signature))), "\(job.name): a flipped bit verifies")
      let rate = measure(seconds: seconds, count: count) { job.verify(signature) }
      print(count == nil ? "\(job.name) \(String(format: "%.1f", rate))" : job.name)
    }
    if sink.pointee == 0x5A { print("") }  // keeps the hashes' results alive
  }
}
