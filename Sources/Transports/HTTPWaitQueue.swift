import Engine
import Platform

/// Queries for an HTTP upstream (httpdns, DoH) whose connections were all
/// busy: HTTP/1.1 carries one request at a time on a connection, so a
/// burst of more questions than connections waits here, oldest first,
/// instead of failing over. Each keeps its engine deadline: one that waits
/// too long times out like any attempt, and the engine's release removes
/// it.
///
/// Fixed at start-up: `capacity` entries and their query bytes; when it is
/// full the query fails over at once. Entries are kept in arrival order;
/// a removed one leaves a hole until the next `compact()`.
struct HTTPWaitQueue: ~Copyable {
  struct Entry {
    var transaction = TransactionHandle(slot: 0, generation: 0)
    var upstream = -1
    var length = 0
    var active = false
  }

  /// Twice what the ring of transactions usually has in flight toward one
  /// busy upstream on a home LAN; beyond it, failing over is better than
  /// queueing behind an upstream that is too slow anyway.
  static let defaultCapacity = 64

  let capacity: Int
  let queryCapacity: Int
  private let entries: UnsafeMutablePointer<Entry>
  private let queries: SlotBuffer
  /// Entries in use, holes included: `entries[0..<count]`.
  private(set) var count = 0

  init(capacity: Int, queryCapacity: Int) {
    self.capacity = capacity
    self.queryCapacity = queryCapacity
    entries = .allocate(capacity: max(capacity, 1))
    entries.initialize(repeating: Entry(), count: max(capacity, 1))
    queries = SlotBuffer(count: capacity, stride: queryCapacity)
  }

  deinit {
    entries.deinitialize(count: max(capacity, 1))
    entries.deallocate()
  }

  /// Queues `query` (at most `queryCapacity` bytes); false when full.
  mutating func add(_ query: UnsafeRawBufferPointer, upstream: Int, transaction: TransactionHandle)
    -> Bool
  {
    guard query.count <= queryCapacity else { return false }
    if count == capacity { compact() }
    guard count < capacity else { return false }
    entries[count] = Entry(
      transaction: transaction, upstream: upstream, length: query.count, active: true)
    queries[count].baseAddress!.copyMemory(
      from: query.baseAddress!, byteCount: query.count)
    count += 1
    return true
  }

  /// The entry at `position` (0..<count), possibly a hole (`active` false).
  func entry(at position: Int) -> Entry { entries[position] }

  func query(at position: Int) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(rebasing: queries[position][0..<entries[position].length])
  }

  /// Drops `transaction`'s entry, if it waits here.
  mutating func remove(transaction: TransactionHandle) {
    for position in 0..<count
    where entries[position].active && entries[position].transaction == transaction {
      entries[position].active = false
    }
    while count > 0 && !entries[count - 1].active { count -= 1 }
  }

  /// Closes the holes, keeping the order.
  mutating func compact() {
    var kept = 0
    for position in 0..<count where entries[position].active {
      if position != kept {
        entries[kept] = entries[position]
        queries[kept].baseAddress!.copyMemory(
          from: queries[position].baseAddress!,
          byteCount: entries[position].length)
      }
      kept += 1
    }
    count = kept
  }
}
