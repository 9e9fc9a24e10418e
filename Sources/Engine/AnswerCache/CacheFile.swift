import DNSWire

/// Why a cache file was not loaded. Whatever the error, nothing of the file
/// was inserted: every entry is checked before the first one goes in.
public enum CacheFileError: Error, Equatable {
  /// More bytes than this cache could ever have written
  /// (`PacketCache.maxFileSize`); for instance a file saved by a larger
  /// `cache`/`cache-bytes` configuration.
  case tooLarge
  /// Shorter than the header and the checksum.
  case truncated
  /// Not a dnsward cache file.
  case badMagic
  /// Another version of the format.
  case unsupportedVersion
  /// The checksum does not match: a torn write, a truncated or a corrupted
  /// file.
  case badChecksum
  /// Entry N (from 0) runs past the end of the entries.
  case entryOutOfBounds(Int)
  /// Entry N's key is not one flat, uncompressed name (RFC 1035 §3.1).
  case badName(Int)
  /// Entry N's message is not a valid stored answer: it fails
  /// `Message(validating:)`, or is not a response with exactly one question,
  /// or has TC, OPT, or an rcode other than NOERROR and NXDOMAIN.
  case badMessage(Int)
  /// Entry N's message answers another question than its key says, or its
  /// key flags have unknown bits.
  case keyMismatch(Int)
  /// Bytes left after the last entry the header counts.
  case trailingBytes

  /// For the log: what is wrong, without the entry number.
  public var reason: LiteralText {
    switch self {
    case .tooLarge: return "larger than the configured cache can hold"
    case .truncated: return "truncated"
    case .badMagic: return "not a dnsward cache file"
    case .unsupportedVersion: return "unsupported format version"
    case .badChecksum: return "checksum mismatch (truncated or corrupt)"
    case .entryOutOfBounds: return "an entry runs past the end"
    case .badName: return "an entry has a malformed name"
    case .badMessage: return "an entry has a malformed message"
    case .keyMismatch: return "an entry's message does not match its key"
    case .trailingBytes: return "bytes after the last entry"
    }
  }
}

/// The cache file: the packet cache's live entries, saved every few minutes
/// and on shutdown and loaded at start-up (`cache-file`). All integers are
/// big-endian, like DNS.
///
/// ```
/// offset  size  field
///      0     8  magic "DNSWARDC"
///      8     2  version (1)
///     10     4  entry count
///     14        entries, oldest first:
///                  1  name length N (1...255)
///                  N  key name: flat, lower case (RFC 1035 §3.1)
///                  2  type
///                  2  class
///                  1  key flags (PacketCache.doBit | cdBit)
///                  4  seconds of TTL left when saved, 0 if expired
///                  2  message length M (12...65535)
///                  M  the stored message (header, lower-case question,
///                     records without OPT; TTLs as stored)
///    end-8     8  FNV-1a 64 of every byte before it
/// ```
///
/// Loaded entries are trusted for nothing: the size is bounded by what this
/// cache could have written, the checksum must match, and every name,
/// message and key is validated before anything is inserted.
///
/// Loaded entries are inserted already expired (`storedAt == expiresAt ==
/// now`), whatever TTL they had left. The engine's clock starts again at
/// boot, and a router often has no real-time clock until NTP, which itself
/// needs DNS; so how long the file lay on disk is unknown, and no saved
/// answer may be served as fresh. Expired, an entry is served only as a
/// stale answer (RFC 8767) within `stale` of the load, with TTL 30, and the
/// first query for it asks upstream (at once in the background with
/// `stale-first`, else first); a good answer replaces it. The TTL left is
/// kept in the file for inspection. A save skips entries already past the
/// stale window, but each load starts the window again: an answer can be
/// served stale for longer than `stale` after it expired, for as long as
/// dnsward keeps being restarted within the window while no upstream gives
/// a fresh answer for it.
///
/// An entry's DNSSEC validation state is not saved: every loaded entry is
/// unchecked, so with `dnssec on` a client asking with CD=0 never gets one
/// (not even stale) — it is asked upstream and validated; a CD=1 client,
/// which wants answers unvalidated, may (RFC 4035 §3.2.2).
public enum CacheFile {
  /// "DNSWARDC".
  public static let magic: [UInt8] = [0x44, 0x4E, 0x53, 0x57, 0x41, 0x52, 0x44, 0x43]
  public static let version: UInt16 = 1

  enum Field {
    static let magic = 0..<8
    static let version = 8
    static let count = 10
    static let headerSize = 14
    static let checksumSize = 8
    /// Name length, type, class, key flags, TTL, message length.
    static let entryOverhead = 1 + 2 + 2 + 1 + 4 + 2
    /// The fields between the name and the message.
    static let afterName = 2 + 2 + 1 + 4 + 2
  }

  /// The largest file a cache of `capacity` entries and `arenaBytes` bytes
  /// writes: every entry's name and message lie in the arena.
  public static func maxFileSize(capacity: Int, arenaBytes: Int) -> Int {
    Field.headerSize + capacity * Field.entryOverhead + arenaBytes + Field.checksumSize
  }

  /// FNV-1a, 64 bits: any single changed byte changes it (each step is a
  /// bijection of the state), and it needs no table.
  public static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in bytes {
      hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }
    return hash
  }

  /// One entry of a file, checked.
  struct Entry {
    var name: UnsafeRawBufferPointer
    var type: RRType
    var rrClass: RRClass
    var keyFlags: UInt8
    var message: UnsafeRawBufferPointer
    var end: Int
  }

  /// Checks the whole file and returns its entry count; throws at the first
  /// problem.
  static func validate(_ bytes: UnsafeRawBufferPointer, maxSize: Int) throws(CacheFileError)
    -> Int
  {
    guard bytes.count <= maxSize else { throw .tooLarge }
    // The magic first, so that another kind of file is named as such.
    guard bytes.count >= Field.magic.count else { throw .truncated }
    for index in Field.magic where bytes[index] != magic[index] { throw .badMagic }
    guard bytes.count >= Field.headerSize + Field.checksumSize else { throw .truncated }
    guard bytes.getUInt16(at: Field.version) == version else { throw .unsupportedVersion }
    let bodyEnd = bytes.count - Field.checksumSize
    let stored =
      UInt64(bytes.getUInt32(at: bodyEnd)) << 32 | UInt64(bytes.getUInt32(at: bodyEnd + 4))
    guard checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<bodyEnd])) == stored else {
      throw .badChecksum
    }
    // Each entry takes at least one byte, so a valid count is at most the
    // file's size; clamping there keeps the conversion safe where Int is 32
    // bits (armv7), and a count past the real entries still fails below, at
    // the first entry that is not there.
    let count = Int(min(UInt64(bytes.getUInt32(at: Field.count)), UInt64(bytes.count)))
    var position = Field.headerSize
    // Each entry takes at least one byte, so the loop ends within the file
    // whatever the count says.
    for index in 0..<count {
      position = try entry(index, at: position, in: bytes, bodyEnd: bodyEnd).end
    }
    guard position == bodyEnd else { throw .trailingBytes }
    return count
  }

  /// Reads and validates entry `index` at `position`.
  static func entry(
    _ index: Int, at position: Int, in bytes: UnsafeRawBufferPointer, bodyEnd: Int
  ) throws(CacheFileError) -> Entry {
    guard position < bodyEnd else { throw .entryOutOfBounds(index) }
    let nameLength = Int(bytes[position])
    let nameStart = position + 1
    let fixed = nameStart + nameLength
    guard nameLength > 0, fixed + Field.afterName <= bodyEnd else {
      throw .entryOutOfBounds(index)
    }
    let messageLength = Int(bytes.getUInt16(at: fixed + 9))
    let messageStart = fixed + Field.afterName
    guard messageStart + messageLength <= bodyEnd else { throw .entryOutOfBounds(index) }
    let name = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<fixed])
    let message = UnsafeRawBufferPointer(
      rebasing: bytes[messageStart..<(messageStart + messageLength)])
    // Exactly one flat name: no pointer (it would point into the file), no
    // bytes after its root octet.
    guard let read = try? Name.read(in: name, at: 0), read.end == nameLength,
      read.length == nameLength
    else { throw .badName(index) }
    let type = RRType(rawValue: bytes.getUInt16(at: fixed))
    let rrClass = RRClass(rawValue: bytes.getUInt16(at: fixed + 2))
    let keyFlags = bytes[fixed + 4]
    guard let parsed = try? Message(validating: message), parsed.hasQuestion,
      parsed.flags.has(HeaderFlags.response), !parsed.flags.has(HeaderFlags.truncated),
      parsed.opt == nil, parsed.rcode == .noError || parsed.rcode == .nameError
    else { throw .badMessage(index) }
    // The engine answers from the entry by writing the client's spelling of
    // the name over the question at offset 12, so the question must be the
    // key, uncompressed, right there.
    let questionName = UnsafeRawBufferPointer(
      rebasing: message[HeaderField.size..<min(HeaderField.size + nameLength, message.count)])
    guard keyFlags & ~(PacketCache.doBit | PacketCache.cdBit) == 0,
      parsed.questionEnd == HeaderField.size + nameLength + 4,
      Name.equalIgnoringCase(questionName, name),
      parsed.questionType == type, parsed.questionClass == rrClass
    else { throw .keyMismatch(index) }
    return Entry(
      name: name, type: type, rrClass: rrClass, keyFlags: keyFlags, message: message,
      end: messageStart + messageLength)
  }
}

extension PacketCache {
  /// The largest cache file this cache writes or loads.
  public var maxFileSize: Int {
    CacheFile.maxFileSize(capacity: capacity, arenaBytes: arenaBytes)
  }

  /// Whether ring entry `number` is live: an entry replaced by a newer
  /// answer for its question stays in the ring until its bytes are
  /// reclaimed, but it is out of the index.
  func isIndexed(_ number: Int) -> Bool {
    var position = Int(truncatingIfNeeded: entries[number].hash) & indexMask
    while index[position] >= 0 {
      if Int(index[position]) == number { return true }
      position = (position + 1) & indexMask
    }
    return false
  }

  /// Whether entry `number` goes into a file saved at `now`: live, and not
  /// expired more than `keepExpired` milliseconds ago.
  func isWorthSaving(_ number: Int, now: UInt64, keepExpired: UInt64) -> Bool {
    let expires = entries[number].expiresAt
    guard isIndexed(number) else { return false }
    return now < expires || now - expires < keepExpired
  }

  /// Writes the cache file (format: `CacheFile`) into `output`, replacing
  /// its contents: the live entries, oldest first, except those expired more
  /// than `keepExpired` milliseconds ago (pass the stale window: older ones
  /// could never be served). Runs every few minutes, not per query: it
  /// reserves the exact size once, then only appends.
  /// - Returns: the number of entries written.
  @discardableResult
  public func serialize(
    into output: inout [UInt8], now: UInt64, keepExpired: UInt64 = UInt64.max
  ) -> Int {
    var size = CacheFile.Field.headerSize + CacheFile.Field.checksumSize
    var saved = 0
    for step in 0..<count {
      let number = (oldest + step) % capacity
      guard isWorthSaving(number, now: now, keepExpired: keepExpired) else { continue }
      size += CacheFile.Field.entryOverhead + entries[number].length
      saved += 1
    }
    output.removeAll(keepingCapacity: true)
    output.reserveCapacity(size)
    output.append(contentsOf: CacheFile.magic)
    appendBigEndian(UInt64(CacheFile.version), bytes: 2, to: &output)
    appendBigEndian(UInt64(saved), bytes: 4, to: &output)
    for step in 0..<count {
      let number = (oldest + step) % capacity
      guard isWorthSaving(number, now: now, keepExpired: keepExpired) else { continue }
      let entry = entries[number]
      let left = entry.expiresAt > now ? min((entry.expiresAt - now) / 1000, 0xFFFF_FFFF) : 0
      output.append(UInt8(truncatingIfNeeded: entry.nameLength))
      output.append(contentsOf: name(of: entry))
      appendBigEndian(UInt64(entry.type.rawValue), bytes: 2, to: &output)
      appendBigEndian(UInt64(entry.rrClass.rawValue), bytes: 2, to: &output)
      output.append(entry.keyFlags)
      appendBigEndian(left, bytes: 4, to: &output)
      appendBigEndian(UInt64(entry.messageLength), bytes: 2, to: &output)
      output.append(contentsOf: storedMessage(number))
    }
    let sum = output.withUnsafeBytes { CacheFile.checksum($0) }
    appendBigEndian(sum, bytes: 8, to: &output)
    return saved
  }

  func appendBigEndian(_ value: UInt64, bytes: Int, to output: inout [UInt8]) {
    var shift = 8 * (bytes - 1)
    while shift >= 0 {
      output.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
      shift -= 8
    }
  }

  /// Loads a cache file written by `serialize`. The whole file is validated
  /// first (size, magic, version, checksum, then every entry's name,
  /// message and key); if anything is wrong nothing is inserted and the
  /// error says what. Entries go in oldest first, already expired
  /// (`expiresAt == now`, see `CacheFile`), so they are served only as
  /// stale answers. Entries for which a live one exists are replaced;
  /// entries too large for this cache are skipped.
  /// - Returns: the number of entries inserted (from a file with more
  ///   entries than this cache holds, the later ones evict earlier ones).
  @discardableResult
  public func load(from bytes: UnsafeRawBufferPointer, now: UInt64) throws(CacheFileError) -> Int {
    guard isEnabled else { return 0 }
    let count = try CacheFile.validate(bytes, maxSize: maxFileSize)
    let bodyEnd = bytes.count - CacheFile.Field.checksumSize
    var position = CacheFile.Field.headerSize
    var loaded = 0
    for index in 0..<count {
      // Validated above; the same checks cannot fail on the same bytes.
      guard let entry = try? CacheFile.entry(index, at: position, in: bytes, bodyEnd: bodyEnd)
      else { break }
      if insert(
        name: entry.name, type: entry.type, rrClass: entry.rrClass, keyFlags: entry.keyFlags,
        message: entry.message, now: now, expiresAt: now)
      {
        loaded += 1
      }
      position = entry.end
    }
    return loaded
  }
}
