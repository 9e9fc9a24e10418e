import CompiledConfig
import DNSWire
import TestSupport
import XCTest

@testable import Engine

/// The transaction table on its own (TransactionTable.swift), driven through
/// its methods. After every step `assertInvariants` walks the whole table and
/// checks the five invariants its doc comment states.
final class TransactionTableTests: XCTestCase {
  static let capacity = 4
  var table = TransactionTable(
    capacity: TransactionTableTests.capacity, hashKey: HashKey(k0: 1, k1: 2))

  // MARK: Helpers

  /// Takes a slot for `name` (lower-cased here, as the engine does). `hash`
  /// defaults to the keyed hash; tests pass one to put names in one bucket.
  @discardableResult
  func allocate(
    _ name: String, type: RRType = .a, dnssecOK: Bool = false,
    purpose: Transaction.Purpose = .answer, hash: UInt32? = nil
  ) -> Int? {
    let flat = wireName(name.lowercased())
    return flat.withUnsafeBytes {
      table.allocate(
        name: $0, hash: hash ?? Self.hash(name), type: type, rrClass: .internet,
        dnssecOK: dnssecOK, checkingDisabled: false, purpose: purpose, route: 0)
    }
  }

  func find(_ name: String, type: RRType = .a, dnssecOK: Bool = false, hash: UInt32? = nil)
    -> Int?
  {
    let flat = wireName(name.lowercased())
    return flat.withUnsafeBytes {
      table.findCoalescable(
        name: $0, hash: hash ?? Self.hash(name), type: type, rrClass: .internet,
        dnssecOK: dnssecOK, checkingDisabled: false)
    }
  }

  static func hash(_ name: String) -> UInt32 {
    wireName(name.lowercased()).withUnsafeBytes {
      UInt32(truncatingIfNeeded: Name.hashIgnoringCase($0, key: HashKey(k0: 1, k1: 2)))
    }
  }

  func waiter(_ host: UInt8, id: UInt16) -> Waiter {
    var waiter = Waiter()
    waiter.client = lanClient(host)
    waiter.clientID = id
    return waiter
  }

  func waiterIDs(_ slot: Int) -> [UInt16] { table.waiters(of: slot).map(\.clientID) }

  /// Walks every structure of the table and checks invariants 1–5.
  func assertInvariants(file: StaticString = #filePath, line: UInt = #line) {
    let capacity = table.capacity
    let slots = table.slots
    let links = table.links
    // 1. Slots from `touchedSlots` on are untouched (not read here either);
    // below it, free slots on the stack, the others active and counted.
    let touched = table.touchedSlots
    XCTAssertLessThanOrEqual(touched, capacity, file: file, line: line)
    // Every walk stops after `capacity + 1` steps, so a loop fails, not hangs.
    var onFreeStack = Set<Int>()
    var cursor = table.freeSlots
    var steps = 0
    while cursor >= 0 && steps <= capacity {
      steps += 1
      let slot = Int(cursor)
      XCTAssertLessThan(slot, touched, "untouched slot on the free stack", file: file, line: line)
      XCTAssertTrue(onFreeStack.insert(slot).inserted, "free stack loops", file: file, line: line)
      XCTAssertEqual(
        links[slot].state, .free, "active slot \(slot) on the free stack", file: file, line: line)
      cursor = links[slot].nextInOrder
    }
    let active = (0..<touched).filter { links[$0].state == .active }
    XCTAssertEqual(active.count, table.activeCount, "activeCount", file: file, line: line)
    XCTAssertEqual(onFreeStack.count + active.count, touched, "slots lost", file: file, line: line)
    // 3. The armed slots, in non-decreasing deadline order, linked both ways.
    var armed: [Int] = []
    var previous: Int32 = -1
    cursor = table.oldest
    while cursor >= 0 && armed.count <= capacity {
      let slot = Int(cursor)
      XCTAssertEqual(links[slot].state, .active, "free slot \(slot) armed", file: file, line: line)
      XCTAssertEqual(links[slot].previousInOrder, previous, "back link", file: file, line: line)
      if let last = armed.last {
        XCTAssertLessThanOrEqual(
          links[last].deadline, links[slot].deadline, "deadlines out of order", file: file,
          line: line)
      }
      armed.append(slot)
      previous = cursor
      cursor = links[slot].nextInOrder
    }
    XCTAssertEqual(table.newest, armed.last.map(Int32.init) ?? -1, "newest", file: file, line: line)
    XCTAssertEqual(Set(armed).count, armed.count, "deadline list loops", file: file, line: line)
    XCTAssertEqual(
      Array(table.inDeadlineOrder().prefix(capacity + 1)), armed, "the walk", file: file,
      line: line)
    // 4. Each active .answer slot in exactly the bucket of its hash.
    var bucketed: [Int] = []
    for bucket in 0..<capacity {
      var cursor = table.buckets[bucket]
      while cursor >= 0 && bucketed.count <= capacity {
        let slot = Int(cursor)
        XCTAssertEqual(links[slot].state, .active, "free slot in a bucket", file: file, line: line)
        XCTAssertEqual(slots[slot].purpose, .answer, "a check in a bucket", file: file, line: line)
        XCTAssertEqual(
          Int(links[slot].nameHash & table.bucketMask), bucket, "wrong bucket", file: file,
          line: line)
        bucketed.append(slot)
        cursor = links[slot].nextInBucket
      }
    }
    XCTAssertEqual(
      bucketed.sorted(), active.filter { slots[$0].purpose == .answer },
      "bucketed slots", file: file, line: line)
    // 5. Each waiter free or on one active slot, counted.
    var seen = Set<Int32>()
    var waiting = 0
    steps = 0
    for slot in 0..<touched {
      var cursor = links[slot].firstWaiter
      if links[slot].state == .free {
        XCTAssertEqual(cursor, -1, "a free slot with waiters", file: file, line: line)
      }
      while cursor >= 0 && steps <= capacity {
        steps += 1
        XCTAssertTrue(seen.insert(cursor).inserted, "waiter on two lists", file: file, line: line)
        waiting += 1
        cursor = table.waiterPool[Int(cursor)].next
      }
    }
    XCTAssertEqual(waiting, table.waitersInUse, "waitersInUse", file: file, line: line)
    cursor = table.freeWaiters
    while cursor >= 0 && steps <= capacity {
      steps += 1
      XCTAssertTrue(seen.insert(cursor).inserted, "free waiter in use", file: file, line: line)
      cursor = table.waiterPool[Int(cursor)].next
    }
    XCTAssertTrue(
      seen.allSatisfy { $0 < table.touchedWaiters }, "untouched waiter in use", file: file,
      line: line)
    XCTAssertEqual(seen.count, table.touchedWaiters, "waiters lost", file: file, line: line)
    XCTAssertEqual(table.hasFreeWaiter, waiting < capacity, file: file, line: line)
  }

  // MARK: Invariants 1, 2: slots and generations

  func testAFreedSlotIsReusedWithANewGenerationAndItsOldHandleIsStale() throws {
    assertInvariants()
    let slots = (0..<4).map { allocate("n\($0).example") }
    XCTAssertEqual(slots.compactMap { $0 }.count, 4)
    XCTAssertNil(allocate("five.example"), "full at capacity")
    assertInvariants()

    let slot = try XCTUnwrap(slots[2])
    let old = table.handle(slot)
    XCTAssertEqual(table.slot(for: old), slot)
    table.free(slot)
    assertInvariants()
    XCTAssertNil(table.slot(for: old), "freed: its handle names nothing")
    XCTAssertNil(find("n2.example"), "freed: nobody joins it")

    // The free stack gives the slot back, one generation on.
    XCTAssertEqual(allocate("Reused.Example"), slot)
    assertInvariants()
    let reused = table.handle(slot)
    XCTAssertEqual(reused.generation, old.generation &+ 1)
    XCTAssertNil(table.slot(for: old), "a late reply to the first use is stale")
    XCTAssertEqual(table.slot(for: reused), slot)
    XCTAssertEqual(Array(table.name(slot)), wireName("reused.example"))

    // A new attempt in the same slot: the first attempt's handle is stale.
    table.renew(slot)
    XCTAssertNil(table.slot(for: reused))
    XCTAssertEqual(table.slot(for: table.handle(slot)), slot)
    XCTAssertNil(
      table.slot(for: TransactionHandle(slot: UInt32(table.capacity), generation: 0)),
      "out of range")
    assertInvariants()
  }

  /// Slots and waiters are initialized when first taken, so that pages of
  /// the tables a light load never reaches stay out of memory: a handle
  /// naming a slot never taken finds nothing (its memory is not read), and
  /// every slot and waiter can still be taken, fresh ones in order.
  func testSlotsAndWaitersAreTakenInOrderAndAnUntouchedSlotNamesNothing() throws {
    XCTAssertEqual(table.touchedSlots, 0)
    XCTAssertEqual(allocate("one.example"), 0)
    XCTAssertEqual(table.touchedSlots, 1)
    for generation: UInt32 in [0, 1, 2] {
      XCTAssertNil(table.slot(for: TransactionHandle(slot: 1, generation: generation)))
    }
    table.free(0)
    XCTAssertEqual(allocate("two.example"), 0, "a freed slot before an untouched one")
    XCTAssertEqual(table.touchedSlots, 1)
    XCTAssertEqual(
      (1..<table.capacity).map { _ in allocate("n.example") }, Array(1..<table.capacity))
    XCTAssertNil(allocate("full.example"))
    for _ in 0..<table.capacity {
      XCTAssertTrue(table.hasFreeWaiter)
      table.addWaiter(Waiter(), to: 0)
    }
    XCTAssertFalse(table.hasFreeWaiter)
    XCTAssertEqual(table.touchedWaiters, table.capacity)
    assertInvariants()
  }

  func testAllocateStartsFromDefaultFields() throws {
    let first = try XCTUnwrap(allocate("a.example"))
    table.slots[first].tried = ~0
    table.slots[first].sentCase = CaseMask()
    table.slots[first].caseAllowed = false
    table.free(first)
    let again = try XCTUnwrap(allocate("b.example", type: .aaaa, purpose: .verification))
    XCTAssertEqual(again, first)
    let transaction = table.slots[again]
    XCTAssertEqual(transaction.tried, 0)
    XCTAssertNil(transaction.sentCase)
    XCTAssertTrue(transaction.caseAllowed)
    XCTAssertEqual(transaction.type, .aaaa)
    XCTAssertEqual(transaction.purpose, .verification)
    XCTAssertEqual(table.links[again].firstWaiter, -1)
    assertInvariants()
  }

  // MARK: Invariant 4: coalescing

  func testOnlyAnActiveAnswerWithTheSameQuestionCoalesces() throws {
    let answer = try XCTUnwrap(allocate("www.Example.com"))
    let check = try XCTUnwrap(allocate("www.example.com", purpose: .verification))
    let probe = try XCTUnwrap(allocate("www.example.com", purpose: .redirectProbe))
    assertInvariants()
    XCTAssertEqual(find("WWW.example.COM"), answer, "case does not matter (RFC 4343)")
    XCTAssertNil(find("www.example.com", type: .aaaa), "another type")
    XCTAssertNil(find("www.example.com", dnssecOK: true), "another DO bit")
    XCTAssertNil(find("www.example.org"))
    table.free(answer)
    assertInvariants()
    XCTAssertNil(find("www.example.com"), "checks of upstreams are never joined")
    table.free(check)
    table.free(probe)
    assertInvariants()
  }

  func testNamesSharingABucketAreToldApartAndUnlinkedFromAnyPlace() throws {
    // One hash for all: one bucket, a chain of three.
    let names = ["a.example", "b.example", "c.example"]
    var slots: [Int] = []
    for name in names { slots.append(try XCTUnwrap(allocate(name, hash: 7))) }
    assertInvariants()
    for (name, slot) in zip(names, slots) { XCTAssertEqual(find(name, hash: 7), slot) }
    XCTAssertNil(find("d.example", hash: 7))
    // Out of the middle of the chain, then its head, then the last.
    for index in [1, 2, 0] {
      table.free(slots[index])
      assertInvariants()
      XCTAssertNil(find(names[index], hash: 7))
      for other in 0..<3 where table.links[slots[other]].state == .active {
        XCTAssertEqual(find(names[other], hash: 7), slots[other])
      }
    }
  }

  // MARK: Invariant 5: waiters

  func testWaitersRunOutAtCapacityAndComeBackWhenTheirSlotIsFreed() throws {
    let busy = try XCTUnwrap(allocate("busy.example"))
    let other = try XCTUnwrap(allocate("other.example"))
    for id in 1...3 { table.addWaiter(waiter(UInt8(id), id: UInt16(id)), to: busy) }
    table.addWaiter(waiter(9, id: 9), to: other)
    assertInvariants()
    XCTAssertFalse(table.hasFreeWaiter, "every waiter taken")
    XCTAssertEqual(table.waitersInUse, 4)
    XCTAssertEqual(waiterIDs(busy), [3, 2, 1], "newest first")
    XCTAssertTrue(table.isWaiting(lanClient(2), id: 2, on: busy), "a retransmission")
    XCTAssertFalse(table.isWaiting(lanClient(2), id: 3, on: busy), "another ID")
    XCTAssertFalse(table.isWaiting(lanClient(9), id: 9, on: busy), "waits elsewhere")

    // Freeing a slot frees its waiters, and only its own.
    table.free(busy)
    assertInvariants()
    XCTAssertEqual(table.waitersInUse, 1)
    XCTAssertEqual(waiterIDs(other), [9])
    let next = try XCTUnwrap(allocate("next.example"))
    for id in 10...12 { table.addWaiter(waiter(10, id: UInt16(id)), to: next) }
    assertInvariants()
    XCTAssertEqual(waiterIDs(next), [12, 11, 10])
    XCTAssertEqual(waiterIDs(other), [9])
    table.free(other)
    table.free(next)
    assertInvariants()
    XCTAssertEqual(table.waitersInUse, 0)
  }

  // MARK: Invariant 3: deadlines

  func testDeadlinesExpireOldestFirstAndReArmingMovesToTheNewestEnd() throws {
    let first = try XCTUnwrap(allocate("first.example"))
    let second = try XCTUnwrap(allocate("second.example"))
    let third = try XCTUnwrap(allocate("third.example"))
    XCTAssertNil(table.oldestArmed, "allocated, not yet armed")
    XCTAssertNil(table.earliestDeadline)
    table.arm(first, deadline: 100)
    table.arm(second, deadline: 200)
    table.arm(third, deadline: 300)
    assertInvariants()
    XCTAssertEqual(Array(table.inDeadlineOrder().prefix(8)), [first, second, third])
    XCTAssertEqual(table.earliestDeadline, 100)
    XCTAssertNil(table.expired(now: 99))
    XCTAssertEqual(table.expired(now: 100), first)

    // A new attempt is re-armed at the newest end.
    table.renew(first)
    table.arm(first, deadline: 400)
    assertInvariants()
    XCTAssertEqual(Array(table.inDeadlineOrder().prefix(8)), [second, third, first])
    XCTAssertEqual(table.expired(now: 250), second)

    // A slot finishing early leaves the list at once.
    table.free(third)
    assertInvariants()
    XCTAssertEqual(Array(table.inDeadlineOrder().prefix(8)), [second, first])

    // Walking the expired ones: each is freed or re-armed before the next.
    var expired: [Int] = []
    while let slot = table.expired(now: 1000), expired.count <= table.capacity {
      expired.append(slot)
      if slot == second {
        table.arm(slot, deadline: 1100)
      } else {
        table.free(slot)
      }
      assertInvariants()
    }
    XCTAssertEqual(expired, [second, first])
    XCTAssertEqual(table.oldestArmed, second)
    XCTAssertEqual(table.earliestDeadline, 1100)
  }

  func testTheDeadlineWalkSeesEachSlotOnceWhileSlotsAreReArmedOrFreed() throws {
    let slots = try (0..<4).map { try XCTUnwrap(allocate("w\($0).example")) }
    for (index, slot) in slots.enumerated() { table.arm(slot, deadline: UInt64(index)) }
    var visited: [Int] = []
    for slot in table.inDeadlineOrder().prefix(8) {
      visited.append(slot)
      // Re-arming moves the slot past the end the walk stops at.
      if slot % 2 == 0 { table.arm(slot, deadline: 10) } else { table.free(slot) }
      assertInvariants()
    }
    XCTAssertEqual(visited, slots)
    XCTAssertEqual(Array(table.inDeadlineOrder().prefix(8)), slots.filter { $0 % 2 == 0 })
  }

  func testAnUnarmedSlotIsFreedWithoutTouchingTheDeadlineList() throws {
    let armed = try XCTUnwrap(allocate("armed.example"))
    table.arm(armed, deadline: 5)
    // Dispatch found no upstream: the slot is freed before it is armed.
    let unarmed = try XCTUnwrap(allocate("unarmed.example"))
    table.addWaiter(waiter(1, id: 1), to: unarmed)
    table.free(unarmed)
    assertInvariants()
    XCTAssertEqual(Array(table.inDeadlineOrder().prefix(8)), [armed])
  }

  // MARK: Everything at once

  /// Random operations against a plain model; the invariants after each.
  func testRandomOperationsKeepTheInvariantsAndMatchAModel() {
    var random = SplitMix64(seed: 0x7AB1E)
    var now: UInt64 = 0
    // slot -> (name, deadline if armed, waiter IDs newest first)
    var model: [Int: (name: String, deadline: UInt64?, waiters: [UInt16])] = [:]
    var nextID: UInt16 = 0
    for step in 0..<4000 {
      now += UInt64(random.below(3))
      let active = model.keys.sorted()
      switch random.below(6) {
      case 0, 1:
        // Few names and one forced bucket for some: chains and duplicates.
        let name = "n\(random.below(6)).example"
        let hash: UInt32? = random.percent(50) ? 1 : nil
        let purpose: Transaction.Purpose = random.percent(20) ? .verification : .answer
        let slot = allocate(name, purpose: purpose, hash: hash)
        XCTAssertEqual(slot == nil, active.count == table.capacity, "step \(step)")
        if let slot {
          XCTAssertNil(model[slot])
          model[slot] = (name, nil, [])
        }
      case 2:
        guard let slot = active.randomElement(using: &random) else { continue }
        table.free(slot)
        model[slot] = nil
      case 3:
        guard let slot = active.randomElement(using: &random) else { continue }
        table.arm(slot, deadline: now + 10)
        model[slot]?.deadline = now + 10
      case 4:
        guard let slot = active.randomElement(using: &random), table.hasFreeWaiter else { continue }
        nextID &+= 1
        table.addWaiter(waiter(1, id: nextID), to: slot)
        model[slot]?.waiters.insert(nextID, at: 0)
      default:
        var expired = 0
        while let slot = table.expired(now: now), expired <= table.capacity {
          expired += 1
          XCTAssertLessThanOrEqual(model[slot]?.deadline ?? .max, now, "step \(step)")
          table.free(slot)
          model[slot] = nil
        }
      }
      assertInvariants()
      XCTAssertEqual(table.activeCount, model.count, "step \(step)")
      for (slot, entry) in model {
        XCTAssertEqual(waiterIDs(slot), entry.waiters, "step \(step)")
        XCTAssertEqual(Array(table.name(slot)), wireName(entry.name), "step \(step)")
      }
      let armed = model.filter { $0.value.deadline != nil }
      XCTAssertEqual(Set(table.inDeadlineOrder().prefix(8)), Set(armed.keys), "step \(step)")
      XCTAssertEqual(table.earliestDeadline, armed.values.compactMap(\.deadline).min())
    }
  }
}
