import CompiledConfig

/// `Release`'s description as one string, its parts joined.
public func releaseDescription() -> String {
  var bytes = [UInt8](repeating: 0, count: Release.descriptionCapacity)
  let length = bytes.withUnsafeMutableBytes { Release.copyDescription(into: $0) }
  return String(decoding: bytes[0..<length], as: UTF8.self)
}
