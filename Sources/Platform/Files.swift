import CLinux

public enum Files {
  /// Reads a whole file at start-up: resolv.conf, a config. Reads at most
  /// `limit` bytes; nil if the file cannot be opened.
  public static func read(path: [UInt8], limit: Int = 1 << 20) -> [UInt8]? {
    var terminated = path
    terminated.append(0)
    let fd = terminated.withUnsafeBufferPointer { pointer in
      pointer.withMemoryRebound(to: CChar.self) { clinux_open_read($0.baseAddress!) }
    }
    guard fd >= 0 else { return nil }
    let file = FileDescriptor(rawValue: fd)
    defer { file.close() }
    var contents: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while contents.count < limit {
      let count = chunk.withUnsafeMutableBytes { buffer in
        (try? file.read(into: buffer)) ?? nil
      }
      guard let count, count > 0 else { break }
      contents.append(contentsOf: chunk[0..<min(count, limit - contents.count)])
    }
    return contents
  }
}

public enum ResourceLimits {
  /// Raises the open-descriptor limit towards `wanted` (each upstream UDP
  /// query has a socket of its own, so `inflight` of them can be open at
  /// once) and returns the limit in force, or nil if it cannot be read.
  public static func raiseOpenFiles(to wanted: Int) -> Int? {
    let limit = clinux_raise_open_files(UInt(wanted))
    return limit < 0 ? nil : Int(limit)
  }
}

extension LogLine {
  /// Appends the C library's text for an errno value.
  @discardableResult
  public func append(errno: Errno) -> LogLine {
    guard let text = strerror(errno.rawValue) else { return append(decimal: Int(errno.rawValue)) }
    return append(UnsafeRawBufferPointer(start: text, count: strlen(text)))
  }
}
