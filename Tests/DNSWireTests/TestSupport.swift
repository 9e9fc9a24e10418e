import DNSWire
import XCTest

/// The error `Message(validating:)` throws for `bytes`, or nil if it accepts them.
func validationError(_ bytes: [UInt8], allowTrailingData: Bool = false) -> WireError? {
  bytes.withUnsafeBytes { raw -> WireError? in
    do throws(WireError) {
      _ = try Message(validating: raw, allowTrailingData: allowTrailingData)
      return nil
    } catch {
      return error
    }
  }
}

/// The error `Name.read` throws for the name at `offset`, or nil if it reads.
func nameReadError(_ bytes: [UInt8], at offset: Int) -> WireError? {
  bytes.withUnsafeBytes { raw -> WireError? in
    do throws(WireError) {
      try Name.read(in: raw, at: offset)
      return nil
    } catch {
      return error
    }
  }
}

/// Reads the possibly compressed name at `offset` of `raw` as a flat name.
func readFlat(_ raw: UnsafeRawBufferPointer, at offset: Int, lowercase: Bool = false) throws
  -> (name: [UInt8], end: Int)
{
  var output = [UInt8](repeating: 0, count: Name.maxLength)
  let result = try output.withUnsafeMutableBytes { out in
    try Name.read(in: raw, at: offset, into: out, lowercase: lowercase)
  }
  return (Array(output[0..<result.length]), result.end)
}

/// The presentation form of a flat name.
func formatted(_ flat: [UInt8]) -> String {
  var output = [UInt8](repeating: 0, count: 1200)
  let count = flat.withUnsafeBytes { raw in
    output.withUnsafeMutableBytes { out in Name.format(raw, into: out) }
  }
  return String(decoding: output[0..<count], as: UTF8.self)
}

func bytesOf(_ raw: UnsafeRawBufferPointer, _ range: Range<Int>) -> [UInt8] {
  Array(raw[range])
}

/// `withUnsafeBytes` for typed-throws bodies (the stdlib one rethrows `any Error`).
func withBytes<R>(
  _ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(WireError) -> R
) throws(WireError) -> R {
  let result: Result<R, WireError> = bytes.withUnsafeBytes { raw in
    do throws(WireError) { return .success(try body(raw)) } catch { return .failure(error) }
  }
  return try result.get()
}
