// CMbedTLS: the parts of mbedTLS that dnsward uses, and static-inline shims
// that hide the differences between mbedTLS 2.28 (Debian 12) and 3.x
// (OpenWrt 23.05+, Debian 13), so the Swift side has one API.
#ifndef DNSWARD_CMBEDTLS_H
#define DNSWARD_CMBEDTLS_H

// 3.x marks struct fields private (MBEDTLS_PRIVATE); the SPKI shim below
// reads the certificate's raw SubjectPublicKeyInfo, which is one of them.
#define MBEDTLS_ALLOW_PRIVATE_ACCESS 1

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

/// Whether an mbedtls_ssl_read/handshake result only means "call again":
/// 3.x with TLS 1.3 reports a NewSessionTicket this way.
static inline int dnsward_tls_is_retry(int code) {
#ifdef MBEDTLS_ERR_SSL_RECEIVED_NEW_SESSION_TICKET
  if (code == MBEDTLS_ERR_SSL_RECEIVED_NEW_SESSION_TICKET) return 1;
#endif
  (void)code;
  return 0;
}

#endif
