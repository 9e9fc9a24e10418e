#if TLS
  import CLinux
  import CMbedTLS
  import Platform

  /// How far a handshake got; the loop waits for the named readiness and
  /// calls `handshake()` again.
  public enum TLSHandshakeResult: Equatable, Sendable {
    case done
    case wantRead
    case wantWrite
    case failed(TLSError)
  }

  /// The result of one `read` or `write`.
  public enum TLSTransferResult: Equatable, Sendable {
    /// Bytes delivered (read) or taken (write); never 0.
    case bytes(Int)
    /// Nothing could move until the socket is readable / writable. A write
    /// that said so must be repeated with the same bytes (mbedTLS rule).
    case wantRead
    case wantWrite
    /// The peer sent close_notify or closed the TCP connection.
    case closed
    case failed(TLSError)
  }

  /// The state the BIO and verify callbacks see: which socket, the errno of
  /// the last failed send/recv so the error can name it, and whether the
  /// running handshake verified a certificate. One per session, in a fixed
  /// heap cell (mbedTLS keeps the pointer).
  struct BIOState {
    var fd: Int32 = -1
    var lastErrno: Int32 = 0
    /// Set by the verify callback, which mbedTLS calls for each certificate
    /// of a chain the server sent; cleared by `attach`.
    var certificateVerified = false
    /// `TLSClientConfig.earliestCorrectTime`, for the verify callback.
    var earliestCorrectTime: Int64 = 0
    /// Set by the verify callback when it let a certificate's validity
    /// dates pass because the wall clock is known wrong; cleared by `attach`.
    var datesUnchecked = false
  }

  /// net_sockets.h's codes (not imported: dnsward does its own sockets);
  /// mbedtls_strerror knows them.
  enum BIOCode {
    static let receiveFailed: Int32 = -0x004C  // MBEDTLS_ERR_NET_RECV_FAILED
    static let sendFailed: Int32 = -0x004E  // MBEDTLS_ERR_NET_SEND_FAILED
  }

  /// One TLS client connection over a socket the caller connected
  /// (non-blocking TCP) and owns. Made at start-up, one per connection slot,
  /// and reused: `attach` starts a new connection on a new socket, `detach`
  /// forgets it (the caller closes the socket).
  ///
  /// Allocation: `init` runs mbedtls_ssl_setup, which mallocs the record
  /// buffers (about 2 × 16.6 KiB with the default MBEDTLS_SSL_*_CONTENT_LEN).
  /// A handshake mallocs its transient state, the peer's certificate chain
  /// and the session; `attach` mallocs a copy of the server name. Reads and
  /// writes after the handshake allocate nothing.
  ///
  /// Session resumption (TLS 1.2: RFC 5077 tickets or RFC 5246 session IDs;
  /// TLS 1.3: RFC 8446 §2.2 PSK from a NewSessionTicket): the session is
  /// saved in a cell owned by this slot (a copy of the peer's leaf
  /// certificate and the ticket: ~1–2 KB of heap, replaced each time), and
  /// the next `attach` for the same server name offers it. With TLS 1.2 it
  /// is saved when the handshake completes. With TLS 1.3 the server sends
  /// its tickets after the handshake (RFC 8446 §4.6.1), so it is saved when
  /// `read` meets one, and kept until the next one (see `handshake`); a
  /// first connection closed before any read leaves nothing to offer. The
  /// server decides: `resumed` tells afterwards.
  ///
  /// Security of a resumed connection: an abbreviated handshake sends no
  /// certificate. The peer proves it holds the saved session's master
  /// secret (TLS 1.2) or the ticket's resumption PSK (TLS 1.3, RFC 8446
  /// §4.6.1) — only the server of the full handshake, or one holding its
  /// ticket key, can — and the session carries the leaf certificate verified
  /// — chain, validity and name — at that full handshake, with its verify
  /// result. The pin is checked again against that certificate on every
  /// handshake, resumed or not. A server with another certificate cannot
  /// resume (it knows neither the secret nor the ticket key), so it
  /// gets a full handshake and full verification. A certificate or pin
  /// failure forgets the saved session; `forgetSession()` does it on demand
  /// (e.g. when the operator changes the pin or CA file).
  public final class TLSSession {
    public let config: TLSClientConfig
    let context: UnsafeMutablePointer<mbedtls_ssl_context>
    let bio: UnsafeMutablePointer<BIOState>
    /// The server name, NUL-terminated (mbedtls_ssl_set_hostname's input).
    let name: UnsafeMutableBufferPointer<CChar>
    var pin: SPKIPin? = nil
    var handshakeDone = false
    /// The session of the last full or resumed handshake, for the next
    /// `attach` (mbedtls_ssl_session_init'ed in init; freed in deinit).
    let savedSession: UnsafeMutablePointer<mbedtls_ssl_session>
    /// The server name `savedSession` was made with, NUL-terminated
    /// (`savedNameLength` 0: nothing saved).
    let savedName: UnsafeMutableBufferPointer<CChar>
    var savedNameLength = 0
    /// Whether the running handshake offered `savedSession`.
    var offered = false
    /// True when the last completed handshake resumed the saved session
    /// (abbreviated handshake: no certificate sent, no key exchange).
    public private(set) var resumed = false

    /// Whether the last handshake let the certificates' validity dates pass
    /// because the wall clock was earlier than the config's
    /// `earliestCorrectTime` (the chain, name and pin were checked).
    public var certificateDatesUnchecked: Bool { bio.pointee.datesUnchecked }

    /// Longest DNS name in text form (RFC 1035 §2.3.4: 255 octets on the
    /// wire, so 253 characters without the final dot).
    public static let maximumNameLength = 253

    public init(config: TLSClientConfig) throws(TLSError) {
      self.config = config
      context = .allocate(capacity: 1)
      bio = .allocate(capacity: 1)
      bio.initialize(to: BIOState())
      name = .allocate(capacity: Self.maximumNameLength + 1)
      name.initialize(repeating: 0)
      savedName = .allocate(capacity: Self.maximumNameLength + 1)
      savedName.initialize(repeating: 0)
      savedSession = .allocate(capacity: 1)
      mbedtls_ssl_session_init(savedSession)
      mbedtls_ssl_init(context)
      let code = mbedtls_ssl_setup(context, config.ssl)
      guard code == 0 else { throw .setup(.sessionSetup, code: code) }
      // Resumption detection: a resumed handshake carries no Certificate
      // message (TLS 1.2 abbreviated handshake, RFC 5246 §7.3; TLS 1.3 PSK
      // modes, RFC 8446 §4.4.2), so mbedTLS calls the verify callback only
      // in a full one, for every certificate of the chain, pass or fail.
      // mbedTLS has no public "was resumed" call in 2.28 or 3.6, and its own
      // flag lives in handshake state freed when the handshake ends.
      //
      // The same callback lets validity dates pass while the wall clock is
      // earlier than `earliestCorrectTime` (RFC 5280 §4.1.2.5 validity can
      // only be judged against a true clock); every other flag stands.
      mbedtls_ssl_set_verify(
        context,
        { state, _, _, flags in
          // Safe: `state` is this session's BIOState cell, `flags` this
          // certificate's verification flags (mbedTLS contract).
          let state = state!.assumingMemoryBound(to: BIOState.self)
          state.pointee.certificateVerified = true
          let dates = UInt32(MBEDTLS_X509_BADCERT_EXPIRED | MBEDTLS_X509_BADCERT_FUTURE)
          if let flags, flags.pointee & dates != 0,
            Int64(WallClock.nowSeconds()) < state.pointee.earliestCorrectTime
          {
            flags.pointee &= ~dates
            state.pointee.datesUnchecked = true
          }
          return 0
        }, UnsafeMutableRawPointer(bio))
      mbedtls_ssl_set_bio(
        context, UnsafeMutableRawPointer(bio),
        { state, bytes, count in
          // Safe: `state` is this session's BIOState cell, alive as long as
          // the context; `bytes` holds `count` bytes (mbedTLS contract).
          let state = state!.assumingMemoryBound(to: BIOState.self)
          do throws(Errno) {
            let fd = FileDescriptor(rawValue: state.pointee.fd)
            guard let sent = try Socket.send(fd, UnsafeRawBufferPointer(start: bytes, count: count))
            else { return MBEDTLS_ERR_SSL_WANT_WRITE }
            return Int32(sent)
          } catch {
            state.pointee.lastErrno = error.rawValue
            return BIOCode.sendFailed
          }
        },
        { state, bytes, count in
          let state = state!.assumingMemoryBound(to: BIOState.self)
          do throws(Errno) {
            let fd = FileDescriptor(rawValue: state.pointee.fd)
            // 0 is end of stream, which mbedTLS turns into CONN_EOF.
            guard
              let received = try fd.read(
                into: UnsafeMutableRawBufferPointer(start: bytes, count: count))
            else { return MBEDTLS_ERR_SSL_WANT_READ }
            return Int32(received)
          } catch {
            state.pointee.lastErrno = error.rawValue
            return BIOCode.receiveFailed
          }
        },
        nil)
    }

    deinit {
      mbedtls_ssl_free(context)
      mbedtls_ssl_session_free(savedSession)
      context.deallocate()
      bio.deallocate()
      name.deallocate()
      savedName.deallocate()
      savedSession.deallocate()
    }

    /// Starts a new connection on `fd` (connected, or still connecting: the
    /// first `handshake()` then reports `.wantWrite`/`.wantRead`). The
    /// certificate must be valid for `serverName` (SNI and verification,
    /// RFC 6125) and, with a pin, carry that public key. Offers the saved
    /// session when the last successful handshake was for the same name.
    public func attach(
      fd: FileDescriptor, serverName: UnsafeRawBufferPointer, pin: SPKIPin?
    ) throws(TLSError) {
      handshakeDone = false
      resumed = false
      offered = false
      guard serverName.count > 0, serverName.count <= Self.maximumNameLength,
        !serverName.contains(0)
      else { throw .setup(.serverName, code: 0) }
      var code = mbedtls_ssl_session_reset(context)
      guard code == 0 else { throw .setup(.sessionSetup, code: code) }
      for index in 0..<serverName.count { name[index] = CChar(bitPattern: serverName[index]) }
      name[serverName.count] = 0
      code = mbedtls_ssl_set_hostname(context, name.baseAddress)
      guard code == 0 else { throw .setup(.serverName, code: code) }
      bio.pointee = BIOState(
        fd: fd.rawValue, lastErrno: 0, certificateVerified: false,
        earliestCorrectTime: config.earliestCorrectTime, datesUnchecked: false)
      self.pin = pin
      // mbedTLS 2.28 does not tie a saved session to a name (RFC 6066 §3:
      // the client resumes with the name of the full handshake), so only
      // offer it to the name it was verified for.
      if savedNameLength == serverName.count,
        (0..<serverName.count).allSatisfy({ savedName[$0] == name[$0] })
      {
        // Copies it into the new handshake; on failure (out of memory) the
        // handshake is simply a full one.
        offered = mbedtls_ssl_set_session(context, savedSession) == 0
      }
    }

    /// Drops the saved session: the next handshake is a full one.
    public func forgetSession() {
      mbedtls_ssl_session_free(savedSession)
      mbedtls_ssl_session_init(savedSession)
      savedNameLength = 0
      offered = false
    }

    /// Keeps the session of the handshake that just completed for the next
    /// `attach`; the previous one is freed first (mbedtls_ssl_get_session
    /// wants an initialised, empty session).
    func saveSession() {
      mbedtls_ssl_session_free(savedSession)
      mbedtls_ssl_session_init(savedSession)
      guard mbedtls_ssl_get_session(context, savedSession) == 0 else {
        forgetSession()
        return
      }
      var index = 0
      while index <= Self.maximumNameLength, name[index] != 0 {
        savedName[index] = name[index]
        index += 1
      }
      savedName[index] = 0
      savedNameLength = index
    }

    /// Forgets the socket; the caller closes it. No close_notify is sent
    /// (call `close()` first for a polite end).
    public func detach() {
      bio.pointee.fd = -1
      handshakeDone = false
    }

    public var isEstablished: Bool { handshakeDone }

    /// Drives the handshake as far as the socket allows. After `.done` the
    /// certificate was verified against the CA chain and the name, and the
    /// pin (if any) matched.
    public func handshake() -> TLSHandshakeResult {
      if handshakeDone { return .done }
      var code: Int32
      repeat { code = mbedtls_ssl_handshake(context) } while dnsward_tls_is_new_ticket(code) != 0
      switch code {
      case 0:
        resumed = offered && !bio.pointee.certificateVerified
        offered = false
        // A resumed session carries the certificate of its full handshake,
        // so the pin is checked against the key that was verified then.
        if let pin, peerPin() != pin {
          resumed = false
          forgetSession()
          return .failed(.pinMismatch)
        }
        handshakeDone = true
        if negotiatedVersion != Self.tls13 {
          saveSession()
        } else if !resumed {
          // A TLS 1.3 full handshake: the ticket offered, if any, was
          // refused; the server's NewSessionTicket will bring a new one.
          forgetSession()
        }
        // A resumed TLS 1.3 handshake keeps its ticket until a new one
        // arrives (`read`): some servers send none after a resumption
        // (dnsdist 1.7). RFC 8446 Appendix C.4 advises against reuse so that
        // connections cannot be linked; these connections go to one fixed
        // address with the name in the SNI, so reuse links nothing new, and
        // a server that refuses reuse answers with a full handshake.
        return .done
      case MBEDTLS_ERR_SSL_WANT_READ: return .wantRead
      case MBEDTLS_ERR_SSL_WANT_WRITE: return .wantWrite
      case MBEDTLS_ERR_X509_CERT_VERIFY_FAILED:
        forgetSession()
        return .failed(.certificate(flags: mbedtls_ssl_get_verify_result(context)))
      case MBEDTLS_ERR_SSL_CONN_EOF: return .failed(.peerClosed)
      default:
        if code == BIOCode.sendFailed || code == BIOCode.receiveFailed {
          return .failed(.io(errno: bio.pointee.lastErrno))
        }
        return .failed(.handshake(code: code))
      }
    }

    /// The protocol version on the wire (RFC 8446 §4.2.1).
    public static let tls12: UInt16 = 0x0303
    public static let tls13: UInt16 = 0x0304

    /// The version the last handshake negotiated: `tls12` or `tls13`
    /// (only where both ends have it: mbedTLS 3.x with TLS 1.3 enabled);
    /// 0 before a handshake completes.
    public var negotiatedVersion: UInt16 {
      handshakeDone ? dnsward_tls_negotiated_version(context) : 0
    }

    /// The ALPN protocol the server chose (RFC 7301), one of
    /// `config.alpnProtocols`; nil when none was offered or the server
    /// ignored ALPN (an HTTP/1.1-only DoH server may). After `.done`.
    public var negotiatedALPN: StaticString? {
      guard handshakeDone, let chosen = dnsward_tls_alpn_chosen(context) else { return nil }
      // mbedTLS returns the config's own pointer, so identity suffices.
      for candidate in config.alpnProtocols
      where candidate.hasPointerRepresentation
        && UnsafeRawPointer(candidate.utf8Start) == UnsafeRawPointer(chosen)
      {
        return candidate
      }
      return nil
    }

    /// Whether the server chose HTTP/1.1 by ALPN (DoH, RFC 8484 §5.2).
    public var negotiatedHTTP11: Bool {
      guard let chosen = negotiatedALPN else { return false }
      return Self.equal(chosen, TLSClientConfig.http11)
    }

    /// Byte equality of two pointer-represented StaticStrings.
    static func equal(_ a: StaticString, _ b: StaticString) -> Bool {
      guard a.utf8CodeUnitCount == b.utf8CodeUnitCount else { return false }
      for index in 0..<a.utf8CodeUnitCount where a.utf8Start[index] != b.utf8Start[index] {
        return false
      }
      return true
    }

    /// The pin of the peer's certificate (after a handshake), or nil.
    public func peerPin() -> SPKIPin? {
      var digest: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
      let code = withUnsafeMutableBytes(of: &digest) { out in
        dnsward_tls_peer_spki_sha256(context, out.baseAddress!.assumingMemoryBound(to: UInt8.self))
      }
      guard code == 0 else { return nil }
      return withUnsafeBytes(of: &digest) { SPKIPin(digest: $0) }
    }

    /// Decrypted bytes into `buffer`. Call again while `hasBufferedData`:
    /// mbedTLS may hold a whole record already read from the socket, which
    /// epoll will not report.
    public func read(into buffer: UnsafeMutableRawBufferPointer) -> TLSTransferResult {
      guard let base = buffer.baseAddress, buffer.count > 0 else { return .bytes(0) }
      var code: Int32
      while true {
        code = mbedtls_ssl_read(context, base.assumingMemoryBound(to: UInt8.self), buffer.count)
        guard dnsward_tls_is_new_ticket(code) != 0 else { break }
        // A TLS 1.3 NewSessionTicket: keep it for the next connection.
        saveSession()
      }
      return transferResult(code)
    }

    /// Encrypts and sends up to `bytes.count` bytes (at most one record).
    public func write(_ bytes: UnsafeRawBufferPointer) -> TLSTransferResult {
      guard let base = bytes.baseAddress, bytes.count > 0 else { return .bytes(0) }
      let code = mbedtls_ssl_write(context, base.assumingMemoryBound(to: UInt8.self), bytes.count)
      return transferResult(code)
    }

    /// Whether mbedTLS holds received data the socket no longer shows.
    public var hasBufferedData: Bool {
      mbedtls_ssl_get_bytes_avail(context) > 0 || mbedtls_ssl_check_pending(context) != 0
    }

    /// Sends close_notify (best effort; `.wantWrite` means call again).
    public func close() -> TLSTransferResult {
      transferResult(mbedtls_ssl_close_notify(context))
    }

    func transferResult(_ code: Int32) -> TLSTransferResult {
      if code > 0 { return .bytes(Int(code)) }
      switch code {
      case 0: return .closed
      case MBEDTLS_ERR_SSL_WANT_READ: return .wantRead
      case MBEDTLS_ERR_SSL_WANT_WRITE: return .wantWrite
      case MBEDTLS_ERR_SSL_PEER_CLOSE_NOTIFY, MBEDTLS_ERR_SSL_CONN_EOF: return .closed
      case BIOCode.sendFailed, BIOCode.receiveFailed:
        return .failed(.io(errno: bio.pointee.lastErrno))
      default: return .failed(.record(code: code))
      }
    }
  }
#endif
