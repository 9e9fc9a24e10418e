// The NSEC3 hash of a name (RFC 5155 §5): SHA-1, iterated.
//
//     IH(salt, x, 0) = H(x | salt)
//     IH(salt, x, k) = H(IH(salt, x, k-1) | salt)   for k > 0
//
// with x the owner name in canonical form (RFC 4034 §6.2).

import Crypto

extension NSEC3Hash {
  /// The hash of `name` (flat, any case) with `salt` and `iterations`
  /// additional rounds; nil for a malformed name. The cost is
  /// `iterations + 1` SHA-1 computations: callers bound `iterations` first
  /// (RFC 9276 §3.2: a validator may treat more than 150 as insecure).
  public init?(hashing name: UnsafeRawBufferPointer, salt: UnsafeRawBufferPointer, iterations: Int)
  {
    guard var canonical = CanonicalName(name) else { return nil }
    var digest = canonical.withBytes { nameBytes in
      var hasher = SHA1()
      hasher.update(nameBytes)
      hasher.update(salt)
      return hasher.finalize()
    }
    var round = 0
    while round < iterations {
      var hasher = SHA1()
      withUnsafeBytes(of: &digest) { hasher.update($0) }
      hasher.update(salt)
      digest = hasher.finalize()
      round += 1
    }
    self.init()
    octets = digest
  }

  /// The hash of `name` with the salt and iterations of an NSEC3 or
  /// NSEC3PARAM record.
  public init?(hashing name: UnsafeRawBufferPointer, parameters: NSEC3Parameters) {
    guard parameters.hashAlgorithm == NSEC3Parameters.sha1 else { return nil }
    self.init(hashing: name, salt: parameters.salt, iterations: parameters.iterations)
  }
}
