import CompiledConfig
import DNSWire
import Engine
import Platform

/// `hosts` and `leases`: the files are read into the engine's inactive
/// local-name table, which then replaces the active one (Engine
/// LocalNames.swift), so a query sees the old names or the new ones, never
/// a mix. Every second the loop's housekeeping takes each file's stat(2)
/// stamp; when one changed, appeared or vanished, or a lease
/// loaded has expired since, every file is read again.
///
/// Nothing is allocated after `init`: the paths are kept NUL-terminated, a
/// file is read through one fixed buffer a few lines at a time (a line
/// longer than the buffer is a bad line), and the table is refilled in
/// place. A missing file or a bad line is logged once, with `file:line`,
/// and skipped; the other lines and files are still answered.
final class LocalNameFiles {
  struct WatchedFile {
    /// As the config names it, for the log.
    let path: [UInt8]
    /// The same with a NUL, for the system calls.
    let terminatedPath: [UInt8]
    let isLeases: Bool
    /// At the last poll; nil when the file could not be found.
    var stamp: FileStamp?
    /// The errno of the failure last logged for it, 0 when it was read.
    var failureLogged: Int32 = 0
  }

  let context: LoopContext
  var files: [WatchedFile] = []
  /// Where a file is read and its lines parsed.
  var buffer: [UInt8]
  static let bufferBytes = 16 << 10
  var hasLoaded = false
  /// Keyed hashes of the bad lines already logged (file and content), so
  /// that a line left unfixed is not logged again at every reload.
  var loggedBadLines: [UInt64]
  var nextLoggedBadLine = 0
  let fingerprintKey: HashKey
  /// Whether the table being full was logged (again once it is not).
  var overflowLogged = false

  init(context: LoopContext, fingerprintKey: HashKey) {
    self.context = context
    self.fingerprintKey = fingerprintKey
    buffer = [UInt8](repeating: 0, count: Self.bufferBytes)
    loggedBadLines = [UInt64](repeating: 0, count: 64)
    for path in context.settings.hostsFiles { watch(path, isLeases: false) }
    for path in context.settings.leaseFiles { watch(path, isLeases: true) }
  }

  func watch(_ path: [UInt8], isLeases: Bool) {
    var terminated = path
    terminated.append(0)
    files.append(WatchedFile(path: path, terminatedPath: terminated, isLeases: isLeases))
  }

  /// Reads the files the first time, and again when they changed or a
  /// lease expired: a stat(2) per file when nothing did.
  func poll() {
    var changed = !hasLoaded
    for index in files.indices {
      let stamp = try? Files.stamp(terminatedPath: files[index].terminatedPath)
      if stamp != files[index].stamp {
        files[index].stamp = stamp
        changed = true
      }
    }
    let engine = context.engine
    if changed || WallClock.nowSeconds() >= engine.local.names.active.earliestExpiry {
      reload()
    }
  }

  /// Reads every file into the inactive table and makes it the active one.
  func reload() {
    let log = context.log
    let table = context.engine.local.names.inactive
    table.clear()
    let now = WallClock.nowSeconds()
    for index in files.indices { read(file: index, into: table, now: now) }
    context.engine.local.names.swap()
    if table.dropped > 0 && !overflowLogged {
      log.start(.warning).append("local-names ").append(decimal: table.capacity)
        .append(" is full: ").append(decimal: table.dropped)
        .append(" names from hosts and lease files dropped (raise local-names)").emit(.warning)
    }
    overflowLogged = table.dropped > 0
    let severity: LogSeverity = hasLoaded ? .debug : .info
    hasLoaded = true
    log.start(severity).append("local names: ").append(decimal: table.count)
      .append(" from ").append(decimal: files.count).append(" hosts and lease files")
      .emit(severity)
  }

  func read(file index: Int, into table: LocalNameTable, now: UInt64) {
    let log = context.log
    let descriptor: FileDescriptor
    do throws(Errno) {
      descriptor = try Files.open(terminatedPath: files[index].terminatedPath)
    } catch {
      if files[index].failureLogged != error.rawValue {
        files[index].failureLogged = error.rawValue
        log.start(.warning).append("cannot read ").append(files[index].path).append(": ")
          .append(errno: error).append(" (its names are answered once it can be read)")
          .emit(.warning)
      }
      return
    }
    defer { descriptor.close() }
    if files[index].failureLogged != 0 {
      files[index].failureLogged = 0
      log.start(.info).append("reading ").append(files[index].path).append(" again").emit(.info)
    }
    var filled = 0
    var lineNumber = 0
    // Inside a line longer than the buffer, already reported.
    var skippingLongLine = false
    var atEnd = false
    while !atEnd {
      let count = buffer.withUnsafeMutableBytes { raw in
        (try? descriptor.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...])))
          ?? nil
      }
      if let count, count > 0 { filled += count } else { atEnd = true }
      var start = 0
      while start < filled {
        let end = buffer[start..<filled].firstIndex(of: UInt8(ascii: "\n"))
        guard end != nil || atEnd else { break }
        let lineEnd = end ?? filled
        lineNumber += 1
        if skippingLongLine {
          skippingLongLine = false
        } else {
          parse(buffer[start..<lineEnd], file: index, line: lineNumber, into: table, now: now)
        }
        start = lineEnd + 1
      }
      if start >= filled {
        filled = 0
      } else if start > 0 {
        // The partial line moves to the front (memmove: they may overlap).
        let kept = filled - start
        buffer.withUnsafeMutableBytes { raw in
          raw.baseAddress!.copyMemory(from: raw.baseAddress! + start, byteCount: kept)
        }
        filled = kept
      } else if filled == buffer.count {
        reportBadLine(
          buffer[0..<min(filled, 80)], problem: .tooLong, file: index, line: lineNumber + 1)
        skippingLongLine = true
        filled = 0
      }
    }
  }

  func parse(
    _ line: ArraySlice<UInt8>, file index: Int, line lineNumber: Int, into table: LocalNameTable,
    now: UInt64
  ) {
    let outcome =
      files[index].isLeases ? table.addLeaseLine(line, now: now) : table.addHostsLine(line)
    if case .bad(let problem) = outcome {
      reportBadLine(line, problem: problem, file: index, line: lineNumber)
    }
  }

  /// Logs `file:line: reason` unless this line (by content) was logged before.
  func reportBadLine(
    _ line: ArraySlice<UInt8>, problem: LocalNameProblem, file index: Int, line lineNumber: Int
  ) {
    let fingerprint =
      line.withUnsafeBytes {
        Name.hashIgnoringCase($0, key: fingerprintKey, tweak: UInt64(index))
      } | 1
    guard !loggedBadLines.contains(fingerprint) else { return }
    loggedBadLines[nextLoggedBadLine] = fingerprint
    nextLoggedBadLine = (nextLoggedBadLine + 1) % loggedBadLines.count
    context.log.start(.warning).append(files[index].path).append(":").append(decimal: lineNumber)
      .append(": ").append(problem.reason.bytes).append(" (line skipped)").emit(.warning)
  }
}
