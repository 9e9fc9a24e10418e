import CLinux

/// CLOCK_MONOTONIC in milliseconds: never jumps with wall-clock changes
/// (NTP on a router often steps the clock at boot).
public enum MonotonicClock {
  public static func nowMilliseconds() -> UInt64 { clinux_monotonic_ms() }
}

/// CLOCK_REALTIME in seconds since 1970: only for what must name the wall
/// time to someone else (an HTTPDNS signature's expiry); timeouts use the
/// monotonic clock.
public enum WallClock {
  public static func nowSeconds() -> UInt64 { clinux_realtime_s() }
}

/// Random bits from the kernel CSPRNG (getrandom(2)), drawn 256 bytes at a
/// time into a buffer allocated once, so a query costs no syscall most of
/// the time. Used for transaction IDs and 0x20 case bits (RFC 5452 §9.2).
public final class SecureRandom {
  private let pool: UnsafeMutablePointer<UInt64>
  private static let words = 32
  private var next = SecureRandom.words

  public init() {
    pool = .allocate(capacity: Self.words)
  }

  deinit { pool.deallocate() }

  public func nextUInt64() -> UInt64 {
    if next == Self.words { refill() }
    let value = pool[next]
    next += 1
    return value
  }

  private func refill() {
    var filled = 0
    let bytes = Self.words * 8
    let raw = UnsafeMutableRawPointer(pool)
    while filled < bytes {
      let count = getrandom(raw + filled, bytes - filled, 0)
      if count > 0 {
        filled += count
      } else if clinux_errno() != clinux_eintr() {
        // getrandom only fails before the pool is initialised on very early
        // boot; there is no safe fallback, so stop rather than answer with
        // predictable IDs.
        fatalError("getrandom failed")
      }
    }
    next = 0
  }
}
