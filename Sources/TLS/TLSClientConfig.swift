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
  /// a connection. TLS 1.2 at least.
  public final class TLSClientConfig {
    /// Debian's and OpenWrt's (ca-bundle / ca-certificates) system bundle.
    public static let systemCAFile: StaticString = "/etc/ssl/certs/ca-certificates.crt"

    let entropy: UnsafeMutablePointer<mbedtls_entropy_context>
    let random: UnsafeMutablePointer<mbedtls_ctr_drbg_context>
    let trusted: UnsafeMutablePointer<mbedtls_x509_crt>
    let ssl: UnsafeMutablePointer<mbedtls_ssl_config>

    /// Loads the CA file (PEM, any number of certificates; ones mbedTLS
    /// cannot parse are skipped as long as one loads) and builds the config.
    /// - Parameter caFile: NUL-terminated path; the system bundle when nil.
    public init(caFile: UnsafePointer<CChar>? = nil) throws(TLSError) {
      entropy = .allocate(capacity: 1)
      random = .allocate(capacity: 1)
      trusted = .allocate(capacity: 1)
      ssl = .allocate(capacity: 1)
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
    }

    /// The version of the mbedTLS headers compiled against, e.g. 0x021C0300
    /// for 2.28.3 (for the start-up log line).
    public static var libraryVersion: UInt32 { dnsward_tls_version_number() }
  }
#endif
