#if TLS
  import CMbedTLS

  /// What a configuration step was doing when it failed (start-up only).
  public enum TLSSetupStep: UInt8, Equatable, Sendable {
    case globalInit  // psa_crypto_init (mbedTLS 3.x)
    case randomSeed  // mbedtls_ctr_drbg_seed from the kernel's entropy
    case caFile  // mbedtls_x509_crt_parse_file: unreadable, or no certificate in it
    case configDefaults  // mbedtls_ssl_config_defaults
    case sessionSetup  // mbedtls_ssl_setup (allocates the record buffers)
    case serverName  // empty, longer than 253 bytes, or mbedtls_ssl_set_hostname failed
  }

  /// Why a TLS connection was refused or broke — small and closed
  /// (Sources/README.md, Conventions 6), one case per thing the log must be able to say. The
  /// certificate cases carry mbedTLS's verify flags (MBEDTLS_X509_BADCERT_*)
  /// for the detail; the `code` cases carry a negative mbedTLS error code.
  public enum TLSError: Error, Equatable, Sendable {
    case setup(TLSSetupStep, code: Int32)
    /// Not signed by a CA in the configured CA file (a MITM, a self-signed
    /// certificate, a missing intermediate).
    case untrustedCertificate(flags: UInt32)
    case expiredCertificate(flags: UInt32)
    case notYetValidCertificate(flags: UInt32)
    /// Valid and trusted, but for another name than the upstream's `name=`.
    case nameMismatch(flags: UInt32)
    /// Any other verify failure: revoked, key usage, weak hash or key.
    case certificateRejected(flags: UInt32)
    /// Verified, but the SHA-256 of its SubjectPublicKeyInfo is not the pin.
    case pinMismatch
    /// An mbedTLS failure during the handshake: an alert from the peer, no
    /// common cipher suite or version, a malformed message.
    case handshake(code: Int32)
    /// An mbedTLS failure after the handshake (bad record MAC, ...).
    case record(code: Int32)
    /// The peer closed the TCP connection in the middle of the handshake.
    case peerClosed
    /// send(2)/recv(2) failed with this errno (ECONNRESET, ECONNREFUSED, ...).
    case io(errno: Int32)

    /// A fixed phrase for the log line (no String formatting needed).
    public var reason: StaticString {
      switch self {
      case .setup(let step, _):
        switch step {
        case .globalInit: return "TLS library initialisation failed"
        case .randomSeed: return "could not seed the TLS random generator"
        case .caFile: return "could not load the CA file"
        case .configDefaults: return "could not set up the TLS configuration"
        case .sessionSetup: return "could not set up a TLS session"
        case .serverName: return "bad TLS server name"
        }
      case .untrustedCertificate: return "certificate refused: not signed by a trusted CA"
      case .expiredCertificate: return "certificate refused: expired"
      case .notYetValidCertificate: return "certificate refused: not yet valid"
      case .nameMismatch: return "certificate refused: issued for another name"
      case .certificateRejected: return "certificate refused"
      case .pinMismatch: return "certificate refused: public key does not match the pin"
      case .handshake: return "TLS handshake failed"
      case .record: return "TLS connection failed"
      case .peerClosed: return "TLS peer closed the connection during the handshake"
      case .io: return "TLS socket error"
      }
    }

    /// The negative mbedTLS error code the case carries, 0 for the others.
    public var code: Int32 {
      switch self {
      case .setup(_, let code), .handshake(let code), .record(let code): return code
      default: return 0
      }
    }

    /// The verify flags classified, most fundamental first: a forged
    /// certificate is usually untrusted *and* for another name, and
    /// "untrusted" is what the operator must hear.
    static func certificate(flags: UInt32) -> TLSError {
      if flags & UInt32(MBEDTLS_X509_BADCERT_NOT_TRUSTED) != 0 {
        return .untrustedCertificate(flags: flags)
      }
      if flags & UInt32(MBEDTLS_X509_BADCERT_EXPIRED) != 0 {
        return .expiredCertificate(flags: flags)
      }
      if flags & UInt32(MBEDTLS_X509_BADCERT_FUTURE) != 0 {
        return .notYetValidCertificate(flags: flags)
      }
      if flags & UInt32(MBEDTLS_X509_BADCERT_CN_MISMATCH) != 0 {
        return .nameMismatch(flags: flags)
      }
      return .certificateRejected(flags: flags)
    }

    /// mbedTLS's own text for a negative error code (mbedtls_strerror),
    /// NUL-terminated into `buffer`, for a debug log line.
    public static func writeLibraryText(
      code: Int32, into buffer: UnsafeMutableBufferPointer<CChar>
    ) {
      guard let base = buffer.baseAddress, buffer.count > 0 else { return }
      mbedtls_strerror(code, base, buffer.count)
    }
  }
#endif
