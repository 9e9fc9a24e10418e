/// Every way a DNS message can be malformed, one case each, so that a test (and
/// a counter) can tell them apart. Small and closed on purpose: parsers throw
/// `WireError` with typed throws, which Embedded Swift requires.
public enum WireError: Error, Equatable {
  /// Fewer than the 12 header bytes (RFC 1035 §4.1.1).
  case truncatedHeader
  /// A name runs past the end of the message.
  case truncatedName
  /// A length byte 0x40...0x7F: a label longer than 63 octets (RFC 1035 §2.3.4).
  case labelTooLong
  /// A length byte 0x80...0xBF: the reserved label types (RFC 6891 §5).
  case reservedLabelType
  /// The uncompressed name is longer than 255 octets (RFC 1035 §2.3.4).
  case nameTooLong
  /// A compression pointer whose target is at or past the end of the message.
  case pointerOutOfBounds
  /// A compression pointer to a later offset. Only backward pointers are
  /// followed, so decompression always terminates.
  case forwardPointer
  /// A compression pointer into the run of labels it is part of.
  case pointerLoop
  /// A compression pointer into a message's header, where no name is
  /// (RFC 1035 §4.1.4): the name would change with the ID.
  case pointerIntoHeader
  /// A name that follows more compression pointers than it has labels could
  /// need (a valid name has at most 127 labels); bounds the work per name.
  case tooManyPointers
  /// A question's type or class runs past the end.
  case truncatedQuestion
  /// A resource record's fixed fields (type, class, TTL, RDLENGTH) run past the end.
  case truncatedRecord
  /// RDLENGTH points past the end of the message.
  case rdataPastEnd
  /// The names and fixed fields in the RDATA of an NS, CNAME, PTR, MX or
  /// SOA record do not fill its RDLENGTH exactly (RFC 1035 §3.3).
  case rdataLengthMismatch
  /// A section count promises more entries than the message holds.
  case countExceedsData
  /// Bytes remain after the last record that the counts announce.
  case trailingData
  /// More than one question: no server answers that (RFC 9619).
  case unsupportedQuestionCount
  /// More than one OPT record (RFC 6891 §6.1.1).
  case duplicateOPT
  /// An OPT record whose owner is not the root, or outside the additional section.
  case misplacedOPT
  /// An OPT record's RDATA is cut inside an option (RFC 6891 §6.1.2).
  case truncatedOPT
  /// A name given as text is not a valid host name.
  case badName
  /// The output buffer is too small for what is being written.
  case bufferFull
}
