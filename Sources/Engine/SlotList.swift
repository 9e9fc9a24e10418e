/// Slot bookkeeping of the transaction table: a stack of free slots and a
/// doubly linked list of active ones in deadline order, both threaded
/// through `Transaction.previousInOrder` / `nextInOrder`. Every operation is
/// O(1) and allocates nothing.
///
/// Invariant: deadlines never decrease from `oldest` to `newest`, because a
/// slot is appended whenever an attempt starts, its deadline is
/// `now + timeout`, the clock never goes backwards and there is one timeout.
extension Engine {
  /// Takes a free slot for a new transaction and appends it to the deadline
  /// list; nil when all `inflight` slots are in use.
  func allocateSlot() -> Int? {
    guard freeSlots >= 0 else { return nil }
    let slot = Int(freeSlots)
    freeSlots = transactions[slot].nextInOrder
    transactions[slot].state = .active
    transactions[slot].generation &+= 1
    transactions[slot].firstWaiter = -1
    transactions[slot].nextInBucket = -1
    transactions[slot].purpose = .answer
    transactions[slot].purposeIndex = 0
    transactions[slot].heldBuffer = -1
    transactions[slot].trustedOnly = false
    appendToOrder(slot)
    activeTransactions += 1
    return slot
  }

  /// Unlinks an active slot from the deadline list and pushes it on the free
  /// stack. Its waiters and coalescing link are the caller's business.
  func freeSlot(_ slot: Int) {
    unlinkFromOrder(slot)
    transactions[slot].state = .free
    transactions[slot].nextInOrder = freeSlots
    freeSlots = Int32(slot)
    activeTransactions -= 1
  }

  /// Starts a new attempt in an active slot: a new generation, so late
  /// replies and socket events of the old attempt are stale, and the newest
  /// place in the deadline list, since the new deadline is the latest.
  func renewSlot(_ slot: Int) {
    unlinkFromOrder(slot)
    appendToOrder(slot)
    transactions[slot].generation &+= 1
  }

  /// The active slot after `slot` in deadline order (-1: the oldest), or nil.
  func activeSlot(after slot: Int) -> Int? {
    let next = slot < 0 ? oldest : transactions[slot].nextInOrder
    return next >= 0 ? Int(next) : nil
  }

  private func appendToOrder(_ slot: Int) {
    transactions[slot].previousInOrder = newest
    transactions[slot].nextInOrder = -1
    if newest >= 0 {
      transactions[Int(newest)].nextInOrder = Int32(slot)
    } else {
      oldest = Int32(slot)
    }
    newest = Int32(slot)
  }

  private func unlinkFromOrder(_ slot: Int) {
    let previous = transactions[slot].previousInOrder
    let next = transactions[slot].nextInOrder
    if previous >= 0 {
      transactions[Int(previous)].nextInOrder = next
    } else {
      oldest = next
    }
    if next >= 0 {
      transactions[Int(next)].previousInOrder = previous
    } else {
      newest = previous
    }
    transactions[slot].previousInOrder = -1
    transactions[slot].nextInOrder = -1
  }
}
