import CompiledConfig
import Engine
import Platform

/// `cache-file`: the packet cache saved every `cache-save-interval` and at
/// shutdown, and loaded at start-up (format and trust: `CacheFile`).
struct CachePersistence {
  /// `cache-file`, `stale` and `cache-save-interval`: the three settings it
  /// reads (not the whole `Settings`, whose copies are kilobytes of code).
  let path: [UInt8]
  let staleSeconds: UInt32
  let saveSeconds: UInt32
  let engine: Engine
  let log: LogLine
  /// Which worker process this is: only worker 0 keeps the file.
  let worker: Int
  /// When the file was last written (or the loop started), and the
  /// engine's insert count then; a save with no insert since is skipped,
  /// which spares flash on a quiet network.
  var lastSave: UInt64 = 0
  var insertsAtLastSave: UInt64 = 0

  init(settings: Settings, engine: Engine, log: LogLine, worker: Int) {
    path = settings.cacheFilePath
    staleSeconds = settings.staleSeconds
    saveSeconds = settings.cacheSaveSeconds
    self.engine = engine
    self.log = log
    self.worker = worker
  }

  /// Whether the cache file is used: configured, with a cache, and with
  /// `stale` on (loaded answers are served only as stale ones); by worker 0
  /// alone, so that workers never write the file at once.
  var isUsed: Bool {
    worker == 0 && !path.isEmpty && engine.cache.isEnabled && staleSeconds > 0
  }

  var staleWindowMilliseconds: UInt64 { UInt64(staleSeconds) * 1000 }

  /// Loads the cache file into the empty cache at start-up and logs the
  /// outcome: a missing file is normal the first time; one that cannot be
  /// read, or is corrupt, truncated or from another format, is reported and
  /// ignored (nothing of it is inserted). Returns the entries loaded.
  func load() -> Int {
    guard !path.isEmpty else { return 0 }
    guard isUsed else {
      log.start(.warning).append("cache-file ").append(path).append(" is not used: ")
        .append(
          engine.cache.isEnabled
            ? "loaded answers are served only as stale ones, and stale is 0"
            : "the cache is off"
        ).emit(.warning)
      return 0
    }
    let bytes: [UInt8]
    do throws(Files.ReadError) {
      // One byte more than the largest file tells a file that is too large.
      // Only a file no other account could have written is trusted at all.
      bytes = try Files.contents(
        path: path, limit: engine.cache.maxFileSize + 1, privateOnly: true)
    } catch {
      switch error {
      case .system(let code) where code == Errno.noSuchFile:
        log.start(.info).append("no cached answers in ").append(path).append(" yet").emit(.info)
      case .system(let code):
        log.start(.warning).append("cannot read ").append(path).append(": ").append(errno: code)
          .emit(.warning)
      case .notPrivate:
        log.start(.warning).append("ignoring ").append(path)
          .append(": not a regular file of this user or root, or writable by others")
          .emit(.warning)
      }
      return 0
    }
    let loaded: Int
    do throws(CacheFileError) {
      loaded = try bytes.withUnsafeBytes { raw in
        Result { () throws(CacheFileError) in
          try engine.cache.load(from: raw, now: MonotonicClock.nowMilliseconds())
        }
      }.get()
    } catch {
      log.start(.warning).append("ignoring ").append(path).append(": ").append(error.reason.bytes)
      switch error {
      case .entryOutOfBounds(let entry), .badName(let entry), .badMessage(let entry),
        .keyMismatch(let entry):
        log.append(" (entry ").append(decimal: entry).append(")")
      default: break
      }
      log.emit(.warning)
      return 0
    }
    log.start(.info).append("loaded ").append(decimal: loaded).append(" cached answers from ")
      .append(path).emit(.info)
    return loaded
  }

  /// Writes the cache file (temporary file, fsync, rename), leaving out
  /// entries past the stale window. A periodic save is skipped when nothing
  /// was cached since the last one; the one at shutdown always writes (once
  /// per run is no wear). Logs periodic saves at debug level, the one at
  /// shutdown at info, and failures as warnings (the next save tries again).
  /// A periodic save, every `cache-save-interval`.
  mutating func saveIfDue(now: UInt64) {
    guard isUsed, now &- lastSave >= UInt64(saveSeconds) * 1000 else { return }
    save(now: now, atShutdown: false)
  }

  mutating func save(now: UInt64, atShutdown: Bool) {
    lastSave = now
    let inserts = engine.statistics[.cacheInserts]
    guard atShutdown || inserts != insertsAtLastSave else { return }
    var bytes: [UInt8] = []
    let saved = engine.cache.serialize(
      into: &bytes, now: now, keepExpired: staleWindowMilliseconds)
    if let error = Files.writeAtomically(path: path, bytes: bytes) {
      log.start(.warning).append("cannot save cached answers to ").append(path).append(": ")
        .append(errno: error).emit(.warning)
      return
    }
    insertsAtLastSave = inserts
    let severity: LogSeverity = atShutdown ? .info : .debug
    log.start(severity).append("saved ").append(decimal: saved).append(" cached answers to ")
      .append(path).emit(severity)
  }
}
