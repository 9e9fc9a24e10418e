#if TLS
  import CMbedTLS

  /// What every TLS client connection shares, created once at start-up:
  /// the entropy source, the CTR-DRBG seeded from it, the trusted CA chain
  /// and the `mbedtls_ssl_config` that points at them. mbedTLS keeps raw
  /// pointers to all four, so they live in fixed heap cells owned here and
  /// the config must outlive every `TLSSession` made from it (sessions hold
  /// a strong reference).
  ///
  /// Verification is always required (MBEDTLS_SSL_VERIFY_REQUIRED): a
  /// handshake with a certificate that fails it ends in an error, never in
  /// a connection. TLS 1.2 at least. Session tickets (RFC 5077) are offered,
  /// so `TLSSession` can resume.
  ///
  /// ALPN (RFC 7301) is per config, so DoH (`alpn: [TLSClientConfig.http11]`)
  /// and DoT (no ALPN) each get their own config.
  public final class TLSClientConfig {
    /// Debian's and OpenWrt's (ca-bundle / ca-certificates) system bundle.
    public static let systemCAFile: StaticString = "/etc/ssl/certs/ca-certificates.crt"
    /// RFC 7301 §6 protocol IDs. DoH over HTTP/1.1 offers `http11`; RFC 7858
    /// DoT needs none (RFC 8310 §8.1's "dot" is optional).
    public static let http11: StaticString = "http/1.1"
    public static let dot: StaticString = "dot"

    let entropy: UnsafeMutablePointer<mbedtls_entropy_context>
    let random: UnsafeMutablePointer<mbedtls_ctr_drbg_context>
    let trusted: UnsafeMutablePointer<mbedtls_x509_crt>
    let ssl: UnsafeMutablePointer<mbedtls_ssl_config>
    /// The protocols offered by ALPN, most preferred first (empty: no ALPN).
    public let alpnProtocols: [StaticString]
    /// The NULL-terminated `const char *` array mbedTLS keeps a pointer to
    /// (mbedtls_ssl_conf_alpn_protocols), or nil without ALPN. The strings
    /// are StaticString literals: NUL-terminated, in read-only data forever.
    let alpnList: UnsafeMutablePointer<UnsafePointer<CChar>?>?
    /// Whether this mbedTLS sends session tickets (MBEDTLS_SSL_SESSION_TICKETS);
    /// without them sessions resume by session ID, if the server caches it.
    /// (A var with a default: every stored property is set before the first
    /// `throw`, so deinit runs and frees the cells even when init fails.)
    public private(set) var sessionTickets = false

    /// Seconds since 1970 before which the wall clock is known to be wrong
    /// (a board without a real-time clock, before NTP has run: it boots in
    /// 1970 or at its last saved time). While the clock is earlier,
    /// certificate validity dates are not checked — every certificate would
    /// look "not yet valid" — while the chain, the name and the pin still
    /// are. 0: dates are always checked.
    public let earliestCorrectTime: Int64

    /// Loads the CA file (PEM, any number of certificates; ones mbedTLS
    /// cannot parse are skipped as long as one loads) and builds the config.
    /// - Parameters:
    ///   - caFile: NUL-terminated path; the system bundle when nil.
    ///   - alpn: protocol IDs to offer, most preferred first; each a string
    ///     literal of 1...255 bytes. A bad one, or an mbedTLS without
    ///     MBEDTLS_SSL_ALPN, is `.setup(.configDefaults, code:)`.
    ///   - earliestCorrectTime: see the property.
    public init(
      caFile: UnsafePointer<CChar>? = nil, alpn: [StaticString] = [],
      earliestCorrectTime: Int64 = 0
    ) throws(TLSError) {
      self.earliestCorrectTime = earliestCorrectTime
      entropy = .allocate(capacity: 1)
      random = .allocate(capacity: 1)
      trusted = .allocate(capacity: 1)
      ssl = .allocate(capacity: 1)
      alpnProtocols = alpn
      if alpn.isEmpty {
        alpnList = nil
      } else {
        let list = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: alpn.count + 1)
        list.initialize(repeating: nil, count: alpn.count + 1)
        alpnList = list
      }
      mbedtls_entropy_init(entropy)
      mbedtls_ctr_drbg_init(random)
      mbedtls_x509_crt_init(trusted)
      mbedtls_ssl_config_init(ssl)
      // From here on deinit frees whatever was set up, even if init throws.

      var code = dnsward_tls_global_init()
      guard code == 0 else { throw .setup(.globalInit, code: code) }

      let personalization: StaticString = "dnsward tls client"
      code = mbedtls_ctr_drbg_seed(
        random, mbedtls_entropy_func, entropy, personalization.utf8Start,
        personalization.utf8CodeUnitCount)
      guard code == 0 else { throw .setup(.randomSeed, code: code) }

      if let caFile {
        code = mbedtls_x509_crt_parse_file(trusted, caFile)
      } else {
        code = Self.systemCAFile.withUTF8Buffer { path in
          // StaticString literals are NUL-terminated.
          path.baseAddress!.withMemoryRebound(to: CChar.self, capacity: path.count + 1) {
            mbedtls_x509_crt_parse_file(trusted, $0)
          }
        }
      }
      // A positive result counts certificates that failed to parse; an empty
      // chain (version 0) means nothing usable was in the file.
      guard code >= 0, trusted.pointee.version != 0 else {
        throw .setup(.caFile, code: code < 0 ? code : -1)
      }

      code = mbedtls_ssl_config_defaults(
        ssl, MBEDTLS_SSL_IS_CLIENT, MBEDTLS_SSL_TRANSPORT_STREAM, MBEDTLS_SSL_PRESET_DEFAULT)
      guard code == 0 else { throw .setup(.configDefaults, code: code) }
      mbedtls_ssl_conf_authmode(ssl, MBEDTLS_SSL_VERIFY_REQUIRED)
      mbedtls_ssl_conf_ca_chain(ssl, trusted, nil)
      mbedtls_ssl_conf_rng(ssl, mbedtls_ctr_drbg_random, random)
      dnsward_tls_conf_min_tls12(ssl)
      sessionTickets = dnsward_tls_conf_session_tickets(ssl) != 0

      if let alpnList {
        for (index, name) in alpn.enumerated() {
          // A one-scalar StaticString has no pointer; mbedTLS takes 1...255
          // bytes (RFC 7301 §3.1).
          guard name.hasPointerRepresentation, name.utf8CodeUnitCount > 0,
            name.utf8CodeUnitCount <= 255
          else { throw .setup(.configDefaults, code: MBEDTLS_ERR_SSL_BAD_INPUT_DATA) }
          // Safe: literals are NUL-terminated and live for the whole process.
          alpnList[index] = UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
        }
        code = dnsward_tls_conf_alpn(ssl, alpnList)
        guard code == 0 else { throw .setup(.configDefaults, code: code) }
      }
    }

    deinit {
      mbedtls_ssl_config_free(ssl)
      mbedtls_x509_crt_free(trusted)
      mbedtls_ctr_drbg_free(random)
      mbedtls_entropy_free(entropy)
      ssl.deallocate()
      trusted.deallocate()
      random.deallocate()
      entropy.deallocate()
      alpnList?.deallocate()
    }

    /// The version of the mbedTLS headers compiled against, e.g. 0x021C0300
    /// for 2.28.3 (for the start-up log line).
    public static var libraryVersion: UInt32 { dnsward_tls_version_number() }

    /// The version of the mbedTLS library loaded at run time (0xMMNNPP00),
    /// e.g. 0x03060600 for 3.6.6. Its major and minor must be the headers'.
    public static var linkedLibraryVersion: UInt32 { dnsward_tls_linked_version_number() }

    /// Whether this mbedTLS offers TLS 1.3 (3.6 does by default, 2.28 never);
    /// a server with 1.3 then negotiates it, others 1.2.
    public static var offersTLS13: Bool { dnsward_tls_has_tls13() != 0 }
  }
#endif
