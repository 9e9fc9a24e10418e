import CompiledConfig
import DNSWire

/// 256 bits, one per octet of a flat name: which letters are upper case.
/// Records a client's question case (restored in its reply) and the 0x20
/// pattern sent upstream.
struct CaseMask: Equatable {
  var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

  static func == (lhs: CaseMask, rhs: CaseMask) -> Bool {
    lhs.words == rhs.words
  }

  subscript(index: Int) -> Bool {
    get {
      let bit = UInt64(1) << UInt64(index & 63)
      switch index >> 6 {
      case 0: return words.0 & bit != 0
      case 1: return words.1 & bit != 0
      case 2: return words.2 & bit != 0
      default: return words.3 & bit != 0
      }
    }
    set {
      let bit = UInt64(1) << UInt64(index & 63)
      switch index >> 6 {
      case 0: words.0 = newValue ? words.0 | bit : words.0 & ~bit
      case 1: words.1 = newValue ? words.1 | bit : words.1 & ~bit
      case 2: words.2 = newValue ? words.2 | bit : words.2 & ~bit
      default: words.3 = newValue ? words.3 | bit : words.3 & ~bit
      }
    }
  }

  /// The mask of the letters that are upper case in `name`.
  init(of name: UnsafeRawBufferPointer) {
    for index in 0..<min(name.count, 256) where name[index] &- 0x41 < 26 {
      self[index] = true
    }
  }

  init() {}

  /// Writes `lowercased` with this mask's case into `output`. Only letters
  /// are affected; length octets never are (they are below 64).
  func apply(to lowercased: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
    for index in 0..<lowercased.count {
      let byte = lowercased[index]
      output[index] = self[index] && byte &- 0x61 < 26 ? byte & ~0x20 : byte
    }
  }
}

/// One in-flight upstream query. Plain values only: the ring holds
/// `inflight` of them in one allocation made at start-up.
struct Transaction {
  enum State: UInt8 { case free, active }
  /// Why the question is asked. Only `.answer` transactions are found by
  /// coalescing, relayed to clients and cached; the others check upstreams.
  enum Purpose: UInt8 {
    /// For waiting clients, or a refresh whose answer goes into the cache.
    case answer
    /// `verify`: the plain upstream's view, compared with a trusted answer
    /// already given (`purposeIndex`: the entry in the verification table).
    case verification
    /// `detect-nxdomain-redirect`: a name that cannot exist, or the control
    /// name (`purposeIndex`: which probe of the round).
    case redirectProbe
  }
  var state: State = .free
  var purpose: Purpose = .answer
  var purposeIndex: Int16 = 0
  /// Bumped every time the slot is reused.
  var generation: UInt32 = 0
  var deadline: UInt64 = 0
  /// When the current attempt was sent (the `now` of its dispatch), for the
  /// upstream's smoothed RTT.
  var sentAt: UInt64 = 0
  var upstream: Int16 = -1
  var transport: UpstreamTransport = .udp
  /// Upstreams already tried, one bit each (the first 64).
  var tried: UInt64 = 0
  /// `strict`: a `verify` name, to be asked of trusted upstreams only.
  var trustedOnly = false
  /// ID and 0x20 pattern of the query as sent upstream.
  var sentID: UInt16 = 0
  var sentCase = CaseMask()
  /// Whether `sentCase` was random (0x20 in use). If not, the reply's case
  /// carries no information and a case-only difference is accepted.
  var sentRandomCase = false
  /// False after an upstream answered in the wrong case: this transaction's
  /// next attempt goes out without 0x20.
  var caseAllowed = true
  var type: RRType = .a
  var rrClass: RRClass = .internet
  /// DO and CD bits of the question: part of the coalescing key, since the
  /// answer differs with them.
  var dnssecOK = false
  var checkingDisabled = false
  var nameLength: Int = 0
  var nameHash: UInt32 = 0
  /// First waiting client in the waiter pool, -1 when none.
  var firstWaiter: Int32 = -1
  /// Next transaction in the same coalescing bucket, -1 at the end.
  var nextInBucket: Int32 = -1
  /// `hold-on`: the hold buffer keeping the first answer while a second may
  /// still come (-1: none), that answer's digest and shape, and the IP TTL
  /// it arrived with.
  var heldBuffer: Int16 = -1
  var heldDigest: UInt64 = 0
  var heldScore: UInt8 = 0
  var heldTTL: UInt8 = 0
  /// Neighbours in the deadline list while active; `nextInOrder` links the
  /// free stack while free (SlotList.swift).
  var previousInOrder: Int32 = -1
  var nextInOrder: Int32 = -1
}

/// A client waiting for a transaction's answer.
struct Waiter {
  var client = ClientRef(endpoint: Endpoint(address: .anyV6, port: 0), listener: 0)
  var clientID: UInt16 = 0
  /// The client's RD and CD bits, copied into its reply (RFC 1035 §4.1.1).
  var clientFlags: UInt16 = 0
  var clientCase = CaseMask()
  var hasEDNS = false
  /// The client's DO bit, copied into its reply's OPT (RFC 3225 §3).
  var dnssecOK = false
  var clientPayloadSize: UInt16 = 512
  /// When the query arrived (engine milliseconds): its logged latency is
  /// measured from here.
  var askedAt: UInt64 = 0
  var next: Int32 = -1
}
