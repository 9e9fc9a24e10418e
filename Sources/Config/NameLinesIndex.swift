/// The `NameLines` of every name overridden or blocked so far, keyed by the
/// lower-cased flat wire name.
///
/// An open-addressing hash table (FNV-1a over the name bytes, linear probing)
/// instead of a `Dictionary`: the stdlib's hashing seeds itself per process
/// with `arc4random_buf`, which Embedded Swift builds for older glibc and
/// musl lack. The seed is a defence against crafted keys; the keys here come
/// from the operator's own config, and the parser only has to stay fast for
/// large block lists.
///
/// Invariants: `slots.count` is a power of two, at most half full; entry `i`
/// has the name `bytes[starts[i]..<starts[i + 1]]`, its hash `hashes[i]` and
/// the value `values[i]`; every entry appears in exactly one slot, reachable
/// from the slot of its hash without crossing an empty one.
struct NameLinesIndex {
  private var bytes: [UInt8] = []
  private var starts: [Int] = [0]
  private var hashes: [UInt32] = []
  private var values: [NameLines] = []
  /// Entry numbers, -1 for an empty slot.
  private var slots = [Int32](repeating: -1, count: 64)

  /// The lines recorded for `name`, or `nil` if it has none yet.
  func lines(for name: [UInt8]) -> NameLines? {
    let entry = find(name, hash: Self.hash(name)).entry
    return entry < 0 ? nil : values[entry]
  }

  /// Records `lines` for `name`, replacing what was there.
  mutating func setLines(_ lines: NameLines, for name: [UInt8]) {
    let hash = Self.hash(name)
    let found = find(name, hash: hash)
    if found.entry >= 0 {
      values[found.entry] = lines
      return
    }
    let entry = values.count
    bytes.append(contentsOf: name)
    starts.append(bytes.count)
    hashes.append(hash)
    values.append(lines)
    if 2 * values.count > slots.count {
      grow()
    } else {
      slots[found.slot] = Int32(truncatingIfNeeded: entry)
    }
  }

  /// FNV-1a, 32 bits.
  static func hash(_ name: [UInt8]) -> UInt32 {
    var hash: UInt32 = 0x811C_9DC5
    var index = 0
    while index < name.count {
      hash = (hash ^ UInt32(name[index])) &* 0x0100_0193
      index += 1
    }
    return hash
  }

  /// The slot holding `name`'s entry (`entry` its number), or the empty slot
  /// where it would go (`entry` -1).
  private func find(_ name: [UInt8], hash: UInt32) -> (slot: Int, entry: Int) {
    let mask = slots.count - 1
    var slot = Int(truncatingIfNeeded: hash) & mask
    while true {
      let entry = Int(slots[slot])
      if entry < 0 { return (slot, -1) }
      if hashes[entry] == hash && hasName(entry, name) { return (slot, entry) }
      slot = (slot + 1) & mask
    }
  }

  private func hasName(_ entry: Int, _ name: [UInt8]) -> Bool {
    let start = starts[entry]
    guard starts[entry + 1] - start == name.count else { return false }
    var index = 0
    while index < name.count {
      guard bytes[start + index] == name[index] else { return false }
      index += 1
    }
    return true
  }

  /// Doubles the slots and puts every entry back, including one just added.
  private mutating func grow() {
    slots = [Int32](repeating: -1, count: 2 * slots.count)
    let mask = slots.count - 1
    for entry in 0..<values.count {
      var slot = Int(truncatingIfNeeded: hashes[entry]) & mask
      while slots[slot] >= 0 { slot = (slot + 1) & mask }
      slots[slot] = Int32(truncatingIfNeeded: entry)
    }
  }
}
