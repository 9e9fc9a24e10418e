import CompiledConfig
import Engine
import Platform

#if TLS
  import TLS
#endif

/// What one non-blocking send or receive on an upstream stream did.
enum StreamStep: Equatable {
  /// This many bytes went out or came in (never 0).
  case moved(Int)
  /// Nothing moves until the socket is readable.
  case waitReadable
  /// Nothing moves until the socket is writable (TLS may have to write
  /// before it can read, and the reverse).
  case waitWritable
  /// The peer closed the stream (FIN, or TLS close_notify).
  case ended
  /// The connection is broken: close it.
  case failed
}

/// How far a connection's TLS handshake got.
enum HandshakeStep: Equatable {
  case established
  case waitReadable
  case waitWritable
  /// Refused (certificate, pin, alert) or broken; logged, and the upstream
  /// waits out its backoff before the next connection.
  case refused
}

/// The TLS layer under the TCP pool (DoT, RFC 7858) and the HTTP pool (DoH,
/// RFC 8484): one `TLSSession` per connection slot of a `tls` or `https`
/// upstream, made at start-up (mbedTLS allocates each session's record
/// buffers there, about 37 KB), and each upstream's reconnect backoff.
/// Slots of plain upstreams have no session: their bytes go straight to the
/// socket. Without the TLS trait every slot is plain, and a config with a
/// TLS upstream is refused before the loop starts.
final class SecureChannels {
  /// For the log and the upstreams' addresses.
  let context: LoopContext
  /// Which upstream each connection slot belongs to.
  let slotUpstreams: [Int]
  /// `tls` for the TCP pool, `https` for the HTTP pool.
  let secure: UpstreamTransport
  /// After a refused handshake an upstream gets no new connection before
  /// `retryAt` (its queries go to the next upstream); the delay doubles
  /// from 1 s up to a minute and is forgotten after a handshake succeeds. A
  /// MITM on the path costs one handshake a minute, not one per query. A
  /// failed connect costs nothing, so it is retried with the next question
  /// (the engine's health rules skip an upstream that keeps failing), and a
  /// server that comes back answers the first question after it.
  var retryAt: [UInt64]
  var retryDelay: [UInt64]
  static let firstRetryMilliseconds: UInt64 = 1000
  static let longestRetryMilliseconds: UInt64 = 60_000
  /// Whether a handshake let certificate dates pass on an unset clock has
  /// been logged (once per process: it holds for every upstream until NTP).
  var loggedDatesUnchecked = false

  #if TLS
    /// Per slot; nil for plain ones.
    let sessions: [TLSSession?]
    /// Per upstream: `name=` and `pin=`.
    let names: [UnsafeRawBufferPointer]
    let pins: [SPKIPin?]
  #endif

  /// - Parameters:
  ///   - slotUpstreams: the upstream of each connection slot.
  ///   - secure: the transport whose slots get a session (`tls`, `https`).
  init(
    slotUpstreams: [Int], upstreams: [UpstreamServer], secure: UpstreamTransport,
    setup: TLSSetup, context: LoopContext
  ) throws(TLSSetup.Failure) {
    self.context = context
    self.slotUpstreams = slotUpstreams
    self.secure = secure
    retryAt = [UInt64](repeating: 0, count: upstreams.count)
    retryDelay = [UInt64](repeating: 0, count: upstreams.count)
    #if TLS
      var names: [UnsafeRawBufferPointer] = []
      var pins: [SPKIPin?] = []
      for upstream in upstreams {
        let name = UnsafeMutableRawBufferPointer.allocate(
          byteCount: max(upstream.tlsName.count, 1), alignment: 1)
        name.copyBytes(from: upstream.tlsName)
        names.append(UnsafeRawBufferPointer(rebasing: name[0..<upstream.tlsName.count]))
        pins.append(upstream.pin.withUnsafeBytes { SPKIPin(digest: $0) })
      }
      self.names = names
      self.pins = pins
      var sessions: [TLSSession?] = []
      for upstream in slotUpstreams {
        guard upstream >= 0, upstreams[upstream].transport == secure else {
          sessions.append(nil)
          continue
        }
        guard let config = setup.config else {
          throw TLSSetup.Failure(reason: "no TLS configuration", code: 0)
        }
        do throws(TLSError) {
          sessions.append(try TLSSession(config: config))
        } catch {
          throw TLSSetup.Failure(reason: error.reason, code: error.code)
        }
      }
      self.sessions = sessions
    #endif
  }

  #if TLS
    deinit {
      for name in names { name.deallocate() }
    }
  #endif

  func isSecure(_ slot: Int) -> Bool {
    #if TLS
      return sessions[slot] != nil
    #else
      return false
    #endif
  }

  /// Whether `upstream` may get a new connection now.
  func mayConnect(upstream: Int, now: UInt64) -> Bool { now >= retryAt[upstream] }

  private func backOff(upstream: Int, now: UInt64) {
    let delay = min(
      max(retryDelay[upstream] * 2, Self.firstRetryMilliseconds), Self.longestRetryMilliseconds)
    retryDelay[upstream] = delay
    retryAt[upstream] = now + delay
  }

  /// Starts TLS on a new connection of a secure slot (connected or still
  /// connecting). False when the session cannot be reset or take the name
  /// (mbedTLS out of memory; the config already checked the name): the
  /// attempt then fails over like a failed connect.
  func start(slot: Int, fd: FileDescriptor) -> Bool {
    #if TLS
      guard let session = sessions[slot] else { return true }
      let upstream = slotUpstreams[slot]
      do throws(TLSError) {
        try session.attach(fd: fd, serverName: names[upstream], pin: pins[upstream])
      } catch {
        return false
      }
    #endif
    return true
  }

  /// Drives a secure slot's handshake as far as the socket allows. A
  /// refusal is logged at warning with the upstream, its name and the
  /// reason (a forged certificate is the attack this exists for).
  func handshake(slot: Int, now: UInt64) -> HandshakeStep {
    #if TLS
      guard let session = sessions[slot] else { return .established }
      let upstream = slotUpstreams[slot]
      switch session.handshake() {
      case .done:
        context.statistics[.tlsHandshakes] += 1
        if session.resumed { context.statistics[.tlsResumptions] += 1 }
        if session.certificateDatesUnchecked && !loggedDatesUnchecked {
          loggedDatesUnchecked = true
          context.log.start(.warning).append(
            "the clock is earlier than this build's release date, so it has not been set yet "
          ).append(
            "(no real-time clock, NTP not run): certificate validity dates are not checked "
          ).append("until it is; chain, name and pin still are").emit(.warning)
        }
        retryDelay[upstream] = 0
        retryAt[upstream] = 0
        return .established
      case .wantRead: return .waitReadable
      case .wantWrite: return .waitWritable
      case .failed(let error):
        context.statistics[.tlsRefusals] += 1
        backOff(upstream: upstream, now: now)
        logRefusal(error, upstream: upstream)
        return .refused
      }
    #else
      return .established
    #endif
  }

  /// Sends what the stream takes of `bytes`. After `.waitWritable` or
  /// `.waitReadable` the caller repeats with the same leading bytes (it may
  /// append more): mbedTLS has already taken the first record's worth.
  func send(slot: Int, fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer) -> StreamStep {
    #if TLS
      if let session = sessions[slot] {
        // One record at most per call (16 KiB); the callers loop.
        return Self.step(session.write(bytes))
      }
    #endif
    do {
      guard let sent = try Socket.send(fd, bytes) else { return .waitWritable }
      return .moved(sent)
    } catch {
      return .failed
    }
  }

  /// Receives into `buffer`. The caller loops until `.waitReadable`: a TLS
  /// session may hold a decrypted record that epoll cannot report.
  func receive(slot: Int, fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer)
    -> StreamStep
  {
    #if TLS
      if let session = sessions[slot] {
        return Self.step(session.read(into: buffer))
      }
    #endif
    do {
      guard let received = try fd.read(into: buffer) else { return .waitReadable }
      return received == 0 ? .ended : .moved(received)
    } catch {
      return .failed
    }
  }

  /// The slot's connection is being closed. `polite`: an established TLS
  /// connection gets a close_notify first (best effort, never waited for).
  func stop(slot: Int, polite: Bool) {
    #if TLS
      guard let session = sessions[slot] else { return }
      if polite && session.isEstablished { _ = session.close() }
      session.detach()
    #endif
  }

  #if TLS
    /// A TLS read's or write's result as a stream step (an empty read, which
    /// only an empty buffer gives, waits like any other).
    private static func step(_ result: TLSTransferResult) -> StreamStep {
      switch result {
      case .bytes(let count): return count > 0 ? .moved(count) : .waitReadable
      case .wantRead: return .waitReadable
      case .wantWrite: return .waitWritable
      case .closed: return .ended
      case .failed: return .failed
      }
    }

    /// `tls upstream 192.0.2.1:853 (dns.example): certificate refused: not
    /// signed by a trusted CA (verify flags 0x8); next attempt in 1 s`
    private func logRefusal(_ error: TLSError, upstream: Int) {
      let log = context.log
      guard log.enabled(.warning) else { return }
      let transport: StaticString = secure == .https ? "https upstream " : "tls upstream "
      log.start(.warning).append(transport).append(address: context.upstreamAddresses[upstream])
        .append(" (").append(names[upstream]).append("): ").append(error.reason)
      switch error {
      case .untrustedCertificate(let flags), .expiredCertificate(let flags),
        .notYetValidCertificate(let flags), .nameMismatch(let flags),
        .certificateRejected(let flags):
        log.append(" (verify flags 0x").append(hex: UInt64(flags), digits: 1).append(")")
      case .handshake(let code), .record(let code):
        log.append(" (mbedTLS -0x").append(hex: UInt64(-Int64(code)), digits: 4).append(")")
      case .io(let code):
        log.append(": ").append(errno: Errno(rawValue: code))
      case .setup, .pinMismatch, .peerClosed: break
      }
      log.append("; next attempt in ").append(decimal: retryDelay[upstream] / 1000)
        .append(" s").emit(.warning)
    }
  #endif
}
