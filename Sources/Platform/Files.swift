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

extension Files {
  /// Appended to a path for the file `writeAtomically` writes first.
  public static let temporarySuffix: [UInt8] = [0x2E, 0x74, 0x6D, 0x70]  // ".tmp"

  /// Why `contents` returned nothing.
  public enum ReadError: Error, Equatable {
    /// open, fstat or read failed; `Errno.noSuchFile` when there is no file.
    case system(Errno)
    /// `privateOnly` was asked and the file is not a regular file owned by
    /// this process's user (or root) and writable by nobody else: someone
    /// else could have put anything in it.
    case notPrivate
  }

  /// The whole file, at most `limit` bytes of it (pass one more than the
  /// largest size accepted to tell a file that is too large). With
  /// `privateOnly`, a file others could have written is refused (checked on
  /// the open descriptor, so it cannot be swapped in between).
  public static func contents(path: [UInt8], limit: Int, privateOnly: Bool = false)
    throws(ReadError) -> [UInt8]
  {
    let fd = withCString(path) { clinux_open_read($0) }
    guard fd >= 0 else { throw .system(Errno(rawValue: clinux_errno())) }
    let file = FileDescriptor(rawValue: fd)
    defer { file.close() }
    if privateOnly {
      let isPrivate = clinux_is_private_file(fd)
      guard isPrivate >= 0 else { throw .system(Errno(rawValue: clinux_errno())) }
      guard isPrivate == 1 else { throw .notPrivate }
    }
    do throws(Errno) {
      return try readAll(file, limit: limit)
    } catch {
      throw .system(error)
    }
  }

  static func readAll(_ file: FileDescriptor, limit: Int) throws(Errno) -> [UInt8] {
    var contents: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while contents.count < limit {
      let wanted = min(chunk.count, limit - contents.count)
      // `withUnsafeMutableBytes` rethrows untyped errors: the result comes
      // out as a `Result` to keep the error typed.
      let read = chunk.withUnsafeMutableBytes { buffer in
        Result { () throws(Errno) in
          try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]))
        }
      }
      // A regular file never blocks; nil would be a pipe or a FIFO.
      guard let count = try read.get() else { throw Errno.wouldBlock }
      if count == 0 { break }
      contents.append(contentsOf: chunk[0..<count])
    }
    return contents
  }

  /// Replaces the file at `path` with `bytes` so that a crash or a power
  /// cut leaves either the old file or the new one, never a torn one: writes
  /// `PATH.tmp`, fsyncs it, renames it over `PATH` and fsyncs the directory
  /// (best effort: some file systems refuse that). `PATH.tmp` is created
  /// afresh, mode 0600, never through a symlink: a leftover one is removed
  /// first, and one that reappears in between makes the write fail rather
  /// than go into a file someone else prepared. On failure `PATH.tmp` is
  /// removed and `PATH` is untouched.
  /// - Returns: nil, or the errno of the step that failed.
  public static func writeAtomically(path: [UInt8], bytes: [UInt8]) -> Errno? {
    var temporary = path
    temporary.append(contentsOf: temporarySuffix)
    _ = withCString(temporary) { unlink($0) }
    let fd = withCString(temporary) { clinux_open_new($0) }
    guard fd >= 0 else { return Errno(rawValue: clinux_errno()) }
    var failure: Errno? = nil
    do throws(Errno) {
      let wrote = bytes.withUnsafeBytes { all in
        Result { () throws(Errno) in
          var written = 0
          while written < all.count {
            // A regular file never blocks, and writes at least a byte.
            guard
              let count = try FileDescriptor(rawValue: fd).write(
                UnsafeRawBufferPointer(rebasing: all[written...])), count > 0
            else { throw Errno.wouldBlock }
            written += count
          }
        }
      }
      try wrote.get()
      _ = try systemCall { Int(fsync(fd)) }
    } catch {
      failure = error
    }
    // close(2) can report a failed delayed write; it is not retried (Linux
    // closes the descriptor even when it returns EINTR).
    if CLinux.close(fd) != 0 && failure == nil { failure = Errno(rawValue: clinux_errno()) }
    if failure == nil {
      let renamed = withCString(temporary) { from in
        withCString(path) { to in CLinux.rename(from, to) }
      }
      if renamed != 0 { failure = Errno(rawValue: clinux_errno()) }
    }
    if let failure {
      _ = withCString(temporary) { unlink($0) }
      return failure
    }
    syncDirectory(containing: path)
    return nil
  }

  /// fsyncs the directory of `path` so that a rename in it is durable.
  static func syncDirectory(containing path: [UInt8]) {
    guard let slash = path.lastIndex(of: UInt8(ascii: "/")) else { return }
    let directory = slash == 0 ? [UInt8(ascii: "/")] : Array(path[..<slash])
    let fd = withCString(directory) { clinux_open_directory($0) }
    guard fd >= 0 else { return }
    _ = fsync(fd)
    _ = CLinux.close(fd)
  }

  /// Calls `body` with `bytes` as a NUL-terminated C string.
  static func withCString<Result>(
    _ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> Result
  ) -> Result {
    var terminated = bytes
    terminated.append(0)
    return terminated.withUnsafeBufferPointer { pointer in
      pointer.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
    }
  }
}

/// What tells that a file changed, from stat(2): a rewrite changes the
/// size or the modification time, a replacement by rename the inode.
public struct FileStamp: Equatable {
  public var device: UInt64 = 0
  public var inode: UInt64 = 0
  public var size: UInt64 = 0
  /// Nanoseconds since 1970.
  public var modified: UInt64 = 0
  public init() {}
}

extension Files {
  /// The stamp of the file at `path`, a NUL-terminated path (so that
  /// polling allocates nothing).
  public static func stamp(terminatedPath path: [UInt8]) throws(Errno) -> FileStamp {
    var device: UInt64 = 0
    var inode: UInt64 = 0
    var size: UInt64 = 0
    var modified: UInt64 = 0
    let result = path.withUnsafeBufferPointer { pointer in
      pointer.withMemoryRebound(to: CChar.self) {
        clinux_file_stamp($0.baseAddress!, &device, &inode, &size, &modified)
      }
    }
    guard result == 0 else { throw Errno(rawValue: clinux_errno()) }
    var stamp = FileStamp()
    stamp.device = device
    stamp.inode = inode
    stamp.size = size
    stamp.modified = modified
    return stamp
  }

  /// Opens the file at `path`, NUL-terminated, for reading.
  public static func open(terminatedPath path: [UInt8]) throws(Errno) -> FileDescriptor {
    let fd = path.withUnsafeBufferPointer { pointer in
      pointer.withMemoryRebound(to: CChar.self) { clinux_open_read($0.baseAddress!) }
    }
    guard fd >= 0 else { throw Errno(rawValue: clinux_errno()) }
    return FileDescriptor(rawValue: fd)
  }
}

extension Errno {
  /// ENOENT: no such file or directory.
  public static var noSuchFile: Errno { Errno(rawValue: clinux_enoent()) }
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
