// Signatures already verified. Whether a key's signature over some octets
// is valid never changes, so it is remembered: an NXDOMAIN or NODATA of a
// zone carries the same signed SOA and NSEC/NSEC3 records for many names,
// and a verification costs 0.1–0.8 ms of portable arithmetic (Tests/
// Benchmarks/README.md, what DNSSEC validation costs). Only the outcome of
// the cryptography is remembered: signature times, key trust and the RRset
// rules are checked on every validation as before.
//
// An entry is the SHA-256 (FIPS 180-4) of the signed data (RFC 4034
// §3.1.8.1: the RRSIG RDATA without its signature, then the RRset in
// canonical form), the signature and the key's RDATA, cut to 16 octets:
// finding two inputs with one digest is 2^64 work even at that length, and
// any change to the records, the signature or the key changes it. Failures
// are not remembered (KeyTrap: they stay bounded per call).

import Crypto

/// A direct-mapped table of `capacity` digests, allocated once.
struct VerifiedSignatures: ~Copyable {
  static let digestLength = 16
  let capacity: Int
  let digests: UnsafeMutableRawBufferPointer

  init(capacity: Int) {
    self.capacity = max(capacity, 1)
    digests = .allocate(byteCount: self.capacity * Self.digestLength, alignment: 8)
    digests.initializeMemory(as: UInt8.self, repeating: 0)
  }

  deinit { digests.deallocate() }

  typealias Digest = InlineArray<32, UInt8>

  static func digest(
    signedData: UnsafeRawBufferPointer, signature: UnsafeRawBufferPointer,
    keyRDATA: UnsafeRawBufferPointer
  ) -> Digest {
    var hash = SHA256()
    hash.update(signedData)
    hash.update(signature)
    hash.update(keyRDATA)
    return hash.finalize()
  }

  /// The slot of a digest: its first two octets (uniform, being a hash).
  func slot(_ digest: Digest) -> Int {
    (Int(digest[0]) << 8 | Int(digest[1])) % capacity
  }

  func contains(_ digest: Digest) -> Bool {
    let start = slot(digest) * Self.digestLength
    for index in 0..<Self.digestLength where digests[start + index] != digest[index] {
      return false
    }
    return true
  }

  /// Remembers `digest`, replacing what its slot held.
  func insert(_ digest: Digest) {
    let start = slot(digest) * Self.digestLength
    for index in 0..<Self.digestLength { digests[start + index] = digest[index] }
  }
}
