/// Client reply latencies in fixed buckets (`Statistics.answerLatency`), as a
/// Prometheus histogram counts them: recording one is two additions and no
/// allocation. The
/// latency is whole milliseconds from the query's arrival to its reply (0
/// for a reply written in the same call: local, cached, refused).
public struct LatencyHistogram {
  /// Buckets in use: `bucketCount - 1` bounded ones, then one past the last
  /// bound (+Inf).
  public static let bucketCount = 13
  /// Replies per bucket, not cumulative; `bucketCount` of them.
  private var buckets:
    (
      UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
      UInt64, UInt64
    ) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
  /// Replies recorded, and their latencies added up.
  public private(set) var count: UInt64 = 0
  public private(set) var sumMilliseconds: UInt64 = 0

  public init() {}

  /// The upper bound of bucket `index` in milliseconds (inclusive); the
  /// last bucket has none (`UInt64.max`).
  public static func boundMilliseconds(_ index: Int) -> UInt64 {
    switch index {
    case 0: return 1
    case 1: return 2
    case 2: return 5
    case 3: return 10
    case 4: return 20
    case 5: return 50
    case 6: return 100
    case 7: return 200
    case 8: return 500
    case 9: return 1000
    case 10: return 2000
    case 11: return 5000
    default: return UInt64.max
    }
  }

  /// Replies in bucket `index` alone (0..<bucketCount).
  public func bucket(_ index: Int) -> UInt64 {
    withUnsafeBytes(of: buckets) { $0.load(fromByteOffset: index * 8, as: UInt64.self) }
  }

  public mutating func record(milliseconds: UInt64) {
    var index = 0
    while milliseconds > Self.boundMilliseconds(index) { index += 1 }
    withUnsafeMutableBytes(of: &buckets) {
      let offset = index * 8
      $0.storeBytes(
        of: $0.load(fromByteOffset: offset, as: UInt64.self) &+ 1, toByteOffset: offset,
        as: UInt64.self)
    }
    count &+= 1
    sumMilliseconds &+= milliseconds
  }
}
