import CompiledConfig

#if TLS
  import TLS
#endif

/// The TLS client configuration shared by every DoT and DoH connection of
/// a worker: the CA chain (`ca-file`, or the system bundle), the random
/// generator and the verification rules. Made in each worker after fork(2),
/// never before: workers must not share the random generator's state.
/// Nothing is made when no upstream uses TLS (the CA bundle alone is
/// about 460 KB of heap).
final class TLSSetup {
  /// Why TLS could not be set up; the loop does not start.
  struct Failure: Error {
    var reason: StaticString
    /// mbedTLS's error code, 0 when there is none.
    var code: Int32
  }

  #if TLS
    let config: TLSClientConfig?
  #endif

  init(settings: Settings, upstreams: [UpstreamServer]) throws(Failure) {
    var needed = false
    for upstream in upstreams where upstream.transport.usesTLS { needed = true }
    #if TLS
      guard needed else {
        config = nil
        return
      }
      do throws(TLSError) {
        // Before the release date the clock has not been set (no
        // real-time clock, no NTP yet): certificate dates are not checked.
        let earliest = Release.dateEpochSeconds
        if settings.caFile.isEmpty {
          config = try TLSClientConfig(earliestCorrectTime: earliest)
        } else {
          // mbedtls_x509_crt_parse_file wants a C string.
          var path = settings.caFile
          path.append(0)
          config = try path.withUnsafeBufferPointer { (bytes) throws(TLSError) in
            try bytes.withMemoryRebound(to: CChar.self) { (text) throws(TLSError) in
              try TLSClientConfig(caFile: text.baseAddress, earliestCorrectTime: earliest)
            }
          }
        }
      } catch {
        throw Failure(reason: error.reason, code: error.code)
      }
    #else
      if needed {
        throw Failure(
          reason:
            "tls and https upstreams need dnsward built with TLS (swift build --traits TLS, or cmake -DDNSWARD_TLS=ON)",
          code: 0)
      }
    #endif
  }
}
