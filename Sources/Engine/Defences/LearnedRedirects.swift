import CompiledConfig

/// The redirect addresses `detect-nxdomain-redirect` learned (RedirectProbes
/// .swift): a fixed table of `capacity`; when full, the oldest is replaced.
struct LearnedRedirects: ~Copyable {
  static let capacity = 16
  private let addresses: UnsafeMutablePointer<IPAddress>
  private(set) var count = 0
  private var next = 0

  init() {
    addresses = .allocate(capacity: Self.capacity)
    addresses.initialize(repeating: .anyV6, count: Self.capacity)
  }

  deinit {
    addresses.deallocate()
  }

  func contains(_ address: IPAddress) -> Bool {
    for index in 0..<count where addresses[index] == address { return true }
    return false
  }

  mutating func learn(_ address: IPAddress) {
    addresses[next] = address
    next = (next + 1) % Self.capacity
    count = min(count + 1, Self.capacity)
  }
}
