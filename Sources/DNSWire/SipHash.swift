/// A 128-bit key for the hash tables an attacker can aim at (the packet
/// cache index, the in-flight coalescing buckets). Drawn from the CSPRNG at
/// start-up, so nobody outside can choose names that collide.
public struct HashKey: Equatable, Sendable {
  public var k0: UInt64
  public var k1: UInt64
  public init(k0: UInt64, k1: UInt64) {
    self.k0 = k0
    self.k1 = k1
  }
}

/// SipHash-c-d (Aumasson and Bernstein, "SipHash: a fast short-input PRF",
/// 2012), fed a byte at a time so callers can transform bytes on the way in
/// (lower-casing a name) without a copy. SipHash-1-3 is what the hot path
/// uses; SipHash-2-4 is there for the published test vectors.
public struct SipHasher {
  var v0: UInt64
  var v1: UInt64
  var v2: UInt64
  var v3: UInt64
  /// Bytes not yet compressed, little-endian, and how many were fed in all.
  var pending: UInt64 = 0
  var length: UInt64 = 0
  let compressionRounds: Int
  let finalizationRounds: Int

  public init(key: HashKey, compressionRounds: Int = 1, finalizationRounds: Int = 3) {
    // "somepseudorandomlygeneratedbytes", as the paper initialises the state.
    v0 = key.k0 ^ 0x736f_6d65_7073_6575
    v1 = key.k1 ^ 0x646f_7261_6e64_6f6d
    v2 = key.k0 ^ 0x6c79_6765_6e65_7261
    v3 = key.k1 ^ 0x7465_6462_7974_6573
    self.compressionRounds = compressionRounds
    self.finalizationRounds = finalizationRounds
  }

  @inline(__always)
  static func rotate(_ value: UInt64, _ count: UInt64) -> UInt64 {
    (value << count) | (value >> (64 - count))
  }

  @inline(__always)
  mutating func sipRound() {
    v0 &+= v1
    v1 = Self.rotate(v1, 13)
    v1 ^= v0
    v0 = Self.rotate(v0, 32)
    v2 &+= v3
    v3 = Self.rotate(v3, 16)
    v3 ^= v2
    v0 &+= v3
    v3 = Self.rotate(v3, 21)
    v3 ^= v0
    v2 &+= v1
    v1 = Self.rotate(v1, 17)
    v1 ^= v2
    v2 = Self.rotate(v2, 32)
  }

  @inline(__always)
  mutating func compress(_ word: UInt64) {
    v3 ^= word
    for _ in 0..<compressionRounds { sipRound() }
    v0 ^= word
  }

  @inline(__always)
  public mutating func combine(_ byte: UInt8) {
    pending |= UInt64(byte) << ((length & 7) * 8)
    length &+= 1
    if length & 7 == 0 {
      compress(pending)
      pending = 0
    }
  }

  /// Feeds a 64-bit value as eight little-endian bytes.
  public mutating func combine(_ value: UInt64) {
    for shift in stride(from: UInt64(0), to: 64, by: 8) {
      combine(UInt8(truncatingIfNeeded: value >> shift))
    }
  }

  public mutating func finalize() -> UInt64 {
    compress(pending | (length & 0xFF) << 56)
    v2 ^= 0xFF
    for _ in 0..<finalizationRounds { sipRound() }
    return v0 ^ v1 ^ v2 ^ v3
  }
}

extension Name {
  /// Keyed SipHash-1-3 of a flat name's lower-cased bytes followed by
  /// `tweak` (the record type, flags: whatever else is in the table key).
  /// Names equal ignoring case hash alike.
  public static func hashIgnoringCase(
    _ name: UnsafeRawBufferPointer, key: HashKey, tweak: UInt64 = 0
  ) -> UInt64 {
    var hasher = SipHasher(key: key)
    for byte in name { hasher.combine(asciiLowercased(byte)) }
    hasher.combine(tweak)
    return hasher.finalize()
  }
}
