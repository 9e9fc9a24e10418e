/// SplitMix64 (Steele, Lea, Flood 2014): a tiny seeded generator, so every
/// randomized test (the mutation fuzzers, the engine's IDs and 0x20 bits,
/// the spoofing test's guesses) is the same run each time and a failure
/// replays from its seed. Its quality does not matter; its speed does.
public struct SplitMix64: RandomNumberGenerator {
  public var state: UInt64

  public init(seed: UInt64) { state = seed }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// Uniform enough in 0..<bound (bound > 0).
  public mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

  /// True with probability percent/100.
  public mutating func percent(_ percent: Int) -> Bool { below(100) < percent }
}
