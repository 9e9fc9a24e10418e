/// EDNS(0) option codes (RFC 6891 §6.1.2, IANA "DNS EDNS0 Option Codes");
/// open, so unknown options are carried.
public struct EDNSOptionCode: RawRepresentable, Equatable, Sendable {
  public var rawValue: UInt16
  public init(rawValue: UInt16) { self.rawValue = rawValue }
  public static let clientSubnet = EDNSOptionCode(rawValue: 8)
  public static let cookie = EDNSOptionCode(rawValue: 10)
  /// RFC 7830.
  public static let padding = EDNSOptionCode(rawValue: 12)
}

/// The EDNS(0) Padding option (RFC 7830) with the Block-Length Padding
/// policy of RFC 8467 §4.1, so that the length of an encrypted query (DoT,
/// DoH) says little about the name in it:
///
///     OPTION-CODE = 12 (2) | OPTION-LENGTH (2) | 0x00 × OPTION-LENGTH
public enum EDNSPadding {
  /// RFC 8467 §4.1: queries are padded to a multiple of 128 octets.
  public static let queryBlockLength = 128
  /// OPTION-CODE and OPTION-LENGTH.
  static let optionHeaderSize = 4
  /// An OPT record without options: root (1), TYPE, CLASS (2 + 2), TTL (4),
  /// RDLENGTH (2) — RFC 6891 §6.1.2.
  static let emptyOPTSize = 11
  /// The most octets `padQuery` adds with the default block length: a new
  /// OPT, the option's header and almost a whole block.
  public static let maximumQueryGrowth = emptyOPTSize + optionHeaderSize + queryBlockLength
  /// The largest message a stream transport can frame (RFC 7766 §8,
  /// RFC 7858 §3.3: a two-byte length).
  static let maximumMessageSize = 0xFFFF

  /// Pads the query in `buffer[0..<length]` in place so that its length is
  /// a multiple of `blockLength`:
  ///
  /// - with an OPT record, the Padding option is appended to its RDATA and
  ///   RDLENGTH grows (the OPT must be the last record: one after it, like a
  ///   TSIG, signs the bytes before it, and moving it would break any
  ///   compression pointer into it);
  /// - without one, an OPT record (CLASS = `udpPayloadSize`, TTL 0: version
  ///   0, no DO bit) with only the option is appended and ARCOUNT grows. The
  ///   upstream's answer then carries OPT too, and may be larger than 512
  ///   octets: the caller relays it as for any EDNS query;
  /// - a message that already has a Padding option is left as it is
  ///   (RFC 7830 §3: one option; the sender chose its size).
  ///
  /// Never allocates; the message is validated first, so hostile bytes
  /// cannot make it read or write outside `buffer`.
  ///
  /// - Returns: the new length (equal to `length` when padding was already
  ///   there), or nil when the message is malformed, its OPT is not the last
  ///   record, the padded message does not fit `buffer` (or 65535 octets),
  ///   or `blockLength` is not positive. The buffer is unchanged then.
  public static func padQuery(
    _ buffer: UnsafeMutableRawBufferPointer, length: Int,
    blockLength: Int = queryBlockLength, udpPayloadSize: UInt16 = 1232
  ) -> Int? {
    guard blockLength > 0, length >= 0, length <= buffer.count else { return nil }
    let bytes = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<length])
    guard let message = try? Message(validating: bytes) else { return nil }

    if let opt = message.opt {
      var position = opt.rdataOffset
      while position < opt.end {  // options were checked to fit by validation
        if bytes.getUInt16(at: position) == EDNSOptionCode.padding.rawValue { return length }
        position += optionHeaderSize + Int(bytes.getUInt16(at: position + 2))
      }
      guard opt.end == message.end else { return nil }
      guard let padded = paddedLength(length + optionHeaderSize, blockLength, buffer.count),
        opt.rdataLength + (padded - length) <= 0xFFFF
      else { return nil }
      writeOption(buffer, at: length, through: padded)
      // RDLENGTH sits just before the RDATA (RFC 1035 §4.1.3).
      buffer.setUInt16(UInt16(opt.rdataLength + padded - length), at: opt.rdataOffset - 2)
      return padded
    }

    guard message.additionalCount < 0xFFFF,
      let padded = paddedLength(
        length + emptyOPTSize + optionHeaderSize, blockLength, buffer.count)
    else { return nil }
    var position = length
    buffer[position] = 0  // NAME: root
    buffer.setUInt16(RRType.opt.rawValue, at: position + 1)
    buffer.setUInt16(udpPayloadSize, at: position + 3)
    buffer.setUInt32(0, at: position + 5)  // EXTENDED-RCODE 0, VERSION 0, DO 0, Z 0
    buffer.setUInt16(UInt16(padded - position - emptyOPTSize), at: position + 9)
    position += emptyOPTSize
    writeOption(buffer, at: position, through: padded)
    buffer.setUInt16(UInt16(message.additionalCount + 1), at: HeaderField.additionalCount)
    return padded
  }

  /// The smallest multiple of `blockLength` at least `minimum`, if it fits
  /// `capacity` and a stream frame.
  static func paddedLength(_ minimum: Int, _ blockLength: Int, _ capacity: Int) -> Int? {
    let remainder = minimum % blockLength
    let (padded, overflow) = minimum.addingReportingOverflow(
      remainder == 0 ? 0 : blockLength - remainder)
    guard !overflow, padded <= capacity, padded <= maximumMessageSize else { return nil }
    return padded
  }

  /// The Padding option from `start` to `end`: header, then zeros (RFC 7830 §3).
  static func writeOption(_ buffer: UnsafeMutableRawBufferPointer, at start: Int, through end: Int)
  {
    buffer.setUInt16(EDNSOptionCode.padding.rawValue, at: start)
    buffer.setUInt16(UInt16(end - start - optionHeaderSize), at: start + 2)
    for index in (start + optionHeaderSize)..<end { buffer[index] = 0 }
  }
}
