import CompiledConfig
import Engine
import Platform

/// What the pools share of the loop: the epoll instance their sockets are
/// registered with, the engine they hand messages to, the log, the settings,
/// each upstream's address (engine index order), and the statistics table
/// (the engine's: the transports count into it too). `Server` makes it once; each pool keeps a reference. Nothing
/// here refers to a pool, so there is no cycle, and a pool reaches no other
/// pool through it: what crosses pools goes through `LoopEnvironment`.
final class LoopContext {
  let epoll: Epoll
  let engine: Engine
  let log: LogLine
  /// Both replaced by a reload (Reload.swift), between two loop turns.
  var settings: Settings
  var upstreamAddresses: [SocketAddress]
  let statistics: Statistics

  /// Readiness events handled per socket before others get a turn
  /// (datagrams read, connections accepted).
  static let batchLimit = 64

  init(
    epoll: consuming Epoll, engine: Engine, log: LogLine, settings: Settings,
    upstreamAddresses: [SocketAddress]
  ) {
    self.epoll = epoll
    self.engine = engine
    statistics = engine.statistics
    self.log = log
    self.settings = settings
    self.upstreamAddresses = upstreamAddresses
  }
}
