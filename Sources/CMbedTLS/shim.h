// CMbedTLS: the parts of mbedTLS that dnsward uses, and static-inline shims
// that hide the differences between mbedTLS 2.28 (Debian 12) and 3.x
// (OpenWrt 23.05+, Debian 13), so the Swift side has one API.
#ifndef DNSWARD_CMBEDTLS_H
#define DNSWARD_CMBEDTLS_H

// Only public API and public struct fields are used (3.x hides most fields
// behind MBEDTLS_PRIVATE; the certificate's pk_raw and 2.28's major_ver /
// minor_ver are not among them), so MBEDTLS_ALLOW_PRIVATE_ACCESS is not set.

#include <stddef.h>
#include <stdint.h>
#include <mbedtls/version.h>
#include <mbedtls/ssl.h>
#include <mbedtls/x509_crt.h>
#include <mbedtls/ctr_drbg.h>
#include <mbedtls/entropy.h>
#include <mbedtls/error.h>
#include <mbedtls/sha256.h>
#include <mbedtls/pk.h>
#if MBEDTLS_VERSION_NUMBER >= 0x03000000 && \
    (defined(MBEDTLS_USE_PSA_CRYPTO) || defined(MBEDTLS_SSL_PROTO_TLS1_3))
#include <psa/crypto.h>
#define DNSWARD_TLS_NEEDS_PSA 1
#endif

/// Version of the mbedTLS headers compiled against (0xMMNNPP00).
static inline uint32_t dnsward_tls_version_number(void) { return MBEDTLS_VERSION_NUMBER; }

/// Version of the mbedTLS library linked at run time (0xMMNNPP00); the
/// headers' when the library was built without MBEDTLS_VERSION_C. The two
/// must agree in major and minor: the structs dnsward allocates have the
/// headers' layout.
static inline uint32_t dnsward_tls_linked_version_number(void) {
#if defined(MBEDTLS_VERSION_C)
  return (uint32_t)mbedtls_version_get_number();
#else
  return MBEDTLS_VERSION_NUMBER;
#endif
}

/// 1 when this mbedTLS can speak TLS 1.3 (RFC 8446): 3.x with
/// MBEDTLS_SSL_PROTO_TLS1_3, on by default since 3.6. 2.28 cannot.
static inline int dnsward_tls_has_tls13(void) {
#if defined(MBEDTLS_SSL_PROTO_TLS1_3)
  return 1;
#else
  return 0;
#endif
}

/// The protocol version of the established connection as on the wire:
/// 0x0303 TLS 1.2, 0x0304 TLS 1.3 (RFC 8446 §4.2.1); 0 before a handshake.
static inline uint16_t dnsward_tls_negotiated_version(const mbedtls_ssl_context *ssl) {
#if MBEDTLS_VERSION_NUMBER >= 0x03000000
  return (uint16_t)mbedtls_ssl_get_version_number(ssl);
#else
  return (uint16_t)((ssl->major_ver << 8) | ssl->minor_ver);
#endif
}

/// Once per process, before any config: 3.x with TLS 1.3 or PSA needs the
/// PSA crypto core. 0 on success.
static inline int dnsward_tls_global_init(void) {
#ifdef DNSWARD_TLS_NEEDS_PSA
  return (int)psa_crypto_init();
#else
  return 0;
#endif
}

/// SHA-256 of `length` bytes into `out` (32 bytes). 0 on success.
static inline int dnsward_tls_sha256(const uint8_t *input, size_t length, uint8_t *out) {
#if MBEDTLS_VERSION_NUMBER >= 0x03000000
  return mbedtls_sha256(input, length, out, 0);
#else
  return mbedtls_sha256_ret(input, length, out, 0);
#endif
}

/// SHA-256 of the peer (leaf) certificate's SubjectPublicKeyInfo DER — the
/// RFC 7469 pin — into `out` (32 bytes). -1 when there is no peer
/// certificate (MBEDTLS_SSL_KEEP_PEER_CERTIFICATE off, or no handshake).
static inline int dnsward_tls_peer_spki_sha256(const mbedtls_ssl_context *ssl, uint8_t *out) {
  const mbedtls_x509_crt *peer = mbedtls_ssl_get_peer_cert(ssl);
  if (peer == NULL || peer->pk_raw.p == NULL || peer->pk_raw.len == 0) return -1;
  return dnsward_tls_sha256(peer->pk_raw.p, peer->pk_raw.len, out);
}

/// TLS 1.2 at least (3.x already defaults to it; 2.28 still allows 1.0/1.1).
static inline void dnsward_tls_conf_min_tls12(mbedtls_ssl_config *conf) {
#if MBEDTLS_VERSION_NUMBER >= 0x03000000
  mbedtls_ssl_conf_min_tls_version(conf, MBEDTLS_SSL_VERSION_TLS1_2);
#else
  mbedtls_ssl_conf_min_version(conf, MBEDTLS_SSL_MAJOR_VERSION_3, MBEDTLS_SSL_MINOR_VERSION_3);
#endif
}

/// Whether an mbedtls_ssl_read/handshake result says a TLS 1.3
/// NewSessionTicket (RFC 8446 §4.6.1) just arrived: not an error, the
/// connection goes on; mbedtls_ssl_get_session now exports that ticket, and
/// the same call is made again. Only 3.x with TLS 1.3 returns it.
static inline int dnsward_tls_is_new_ticket(int code) {
#ifdef MBEDTLS_ERR_SSL_RECEIVED_NEW_SESSION_TICKET
  if (code == MBEDTLS_ERR_SSL_RECEIVED_NEW_SESSION_TICKET) return 1;
#endif
  (void)code;
  return 0;
}

/// Offer session tickets (RFC 5077) in the ClientHello. 1 when on; 0 when
/// this mbedTLS was built without MBEDTLS_SSL_SESSION_TICKETS (resumption by
/// session ID, RFC 5246 §7.4.1.2, still works then). Client default in both
/// 2.28 and 3.x is on; set explicitly so the dependency is visible.
///
/// TLS 1.3 sends its tickets after the handshake (RFC 8446 §4.6.1). Since
/// 3.6.1 an mbedTLS client drops them unless asked to report them
/// (MBEDTLS_ERR_SSL_RECEIVED_NEW_SESSION_TICKET from mbedtls_ssl_read);
/// 3.6.0 always reports them.
static inline int dnsward_tls_conf_session_tickets(mbedtls_ssl_config *conf) {
#if defined(MBEDTLS_SSL_SESSION_TICKETS) && defined(MBEDTLS_SSL_CLI_C)
  mbedtls_ssl_conf_session_tickets(conf, MBEDTLS_SSL_SESSION_TICKETS_ENABLED);
#if defined(MBEDTLS_SSL_PROTO_TLS1_3) && MBEDTLS_VERSION_NUMBER >= 0x03060100
  mbedtls_ssl_conf_tls13_enable_signal_new_session_tickets(
      conf, MBEDTLS_SSL_TLS1_3_SIGNAL_NEW_SESSION_TICKETS_ENABLED);
#endif
  return 1;
#else
  (void)conf;
  return 0;
#endif
}

/// The ALPN list (RFC 7301) for the config: `protocols` is a NULL-terminated
/// array that mbedTLS keeps (it must outlive the config). 0 on success;
/// MBEDTLS_ERR_SSL_FEATURE_UNAVAILABLE when built without MBEDTLS_SSL_ALPN.
static inline int dnsward_tls_conf_alpn(mbedtls_ssl_config *conf, const char **protocols) {
#if defined(MBEDTLS_SSL_ALPN)
  return mbedtls_ssl_conf_alpn_protocols(conf, protocols);
#else
  (void)conf;
  (void)protocols;
  return MBEDTLS_ERR_SSL_FEATURE_UNAVAILABLE;
#endif
}

/// The protocol the server chose (one of the config's pointers), or NULL.
static inline const char *dnsward_tls_alpn_chosen(const mbedtls_ssl_context *ssl) {
#if defined(MBEDTLS_SSL_ALPN)
  return mbedtls_ssl_get_alpn_protocol(ssl);
#else
  (void)ssl;
  return NULL;
#endif
}

#endif
