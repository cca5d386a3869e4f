// The in-memory TLS 1.3 handshake for wolfSSL (catalogue kind `handshake`): a client and a
// server WOLFSSL in one thread, stepped by the shared driver (cryptobench/tls_driver.hpp). Their
// transport is wolfSSL's custom I/O callbacks (wolfSSL_CTX_SetIORecv/SetIOSend) over two byte
// queues, a read from an empty queue answering WOLFSSL_CBIO_ERR_WANT_READ as a non-blocking
// socket would. A fragment of wolfssl.cpp, included inside its anonymous namespace; wolfssl.cpp
// includes <wolfssl/options.h>, <wolfssl/ssl.h> and "cryptobench/tls_driver.hpp" at file scope.
#pragma once

// What the build must have: TLS 1.3 on both sides, X25519 in the supported-groups and key-share
// extensions, AES-GCM, the RFC 5705/8446 exporter (HAVE_KEYING_MATERIAL: the gate compares both
// sides' exporter values) and the OpenSSL-compatible calls for the signature-scheme list and the
// verification result (OPENSSL_EXTRA). Debian's 5.5.4 has all of them (wolfssl/options.h); a
// build without one offers no handshake.
#if defined(WOLFSSL_TLS13) && defined(HAVE_CURVE25519) && defined(HAVE_SUPPORTED_CURVES) && \
    defined(HAVE_AESGCM) && defined(HAVE_KEYING_MATERIAL) && defined(OPENSSL_EXTRA) &&      \
    !defined(NO_WOLFSSL_CLIENT) && !defined(NO_WOLFSSL_SERVER) && !defined(NO_CERTS) &&     \
    (defined(HAVE_ECC) || (!defined(NO_RSA) && defined(WC_RSA_PSS)))
#define CB_WOLFSSL_TLS13 1
#endif

#ifdef CB_WOLFSSL_TLS13

// What each handshake algorithm configures on both sides beyond the suite and the group: the one
// signature scheme the server's certificate signs with (wolfSSL_CTX_set1_sigalgs_list,
// <key>+<hash>; RSA-PSS is rsa_pss_rsae_* on an rsaEncryption key).
struct WolfTlsCase {
  const char* ours;
  const char* sigalgs;
};
constexpr WolfTlsCase kWolfTlsCases[] = {
#ifdef HAVE_ECC
    {"tls13-x25519-ecdsa-p256", "ECDSA+SHA256"},
#endif
#if !defined(NO_RSA) && defined(WC_RSA_PSS)
    {"tls13-x25519-rsa-2048", "RSA-PSS+SHA256"},
#endif
};
// wolfSSL's name of TLS_AES_128_GCM_SHA256.
constexpr const char* kWolfTlsSuite = "TLS13-AES128-GCM-SHA256";

inline const WolfTlsCase* wolf_tls_case(const std::string& algorithm) {
  for (const auto& c : kWolfTlsCases)
    if (algorithm == c.ours) return &c;
  return nullptr;
}

inline std::string wolf_tls_error(int err) {
  char text[WOLFSSL_MAX_ERROR_SZ] = {0};
  wolfSSL_ERR_error_string_n(static_cast<unsigned long>(err), text, sizeof text);
  return std::string(text) + " (" + std::to_string(err) + ")";
}

// The SSL layer's calls answer WOLFSSL_SUCCESS (1), or a failure.
inline void wolf_tls_check(int ret, const char* what) {
  if (ret != WOLFSSL_SUCCESS)
    throw Error(std::string("wolfSSL ") + what + ": " + wolf_tls_error(ret));
}

// What a connection's I/O callbacks see: the queue it reads, the one it writes.
struct WolfTlsIo {
  ByteQueue* in = nullptr;
  ByteQueue* out = nullptr;
};

inline int wolf_tls_recv(WOLFSSL*, char* buf, int sz, void* ctx) {
  const size_t n =
      static_cast<WolfTlsIo*>(ctx)->in->read(buf, sz > 0 ? static_cast<size_t>(sz) : 0);
  return n == 0 ? WOLFSSL_CBIO_ERR_WANT_READ : static_cast<int>(n);
}

inline int wolf_tls_send(WOLFSSL*, char* buf, int sz, void* ctx) {
  if (sz > 0) static_cast<WolfTlsIo*>(ctx)->out->write(buf, static_cast<size_t>(sz));
  return sz;
}

struct WolfTlsCtxFree {
  void operator()(WOLFSSL_CTX* c) const { wolfSSL_CTX_free(c); }
};

class WolfTlsHandshakeOp : public TlsHandshakeDriver {
 public:
  WolfTlsHandshakeOp(const WolfTlsCase& c, const Params& p) : TlsHandshakeDriver(p.server_name) {
    server_ctx_ = context(wolfTLSv1_3_server_method(), c);
    WOLFSSL_CTX* s = server_ctx_.get();
    wolfSSL_CTX_set_verify(s, WOLFSSL_VERIFY_NONE, nullptr);  // no client certificate
    wolf_tls_check(wolfSSL_CTX_use_certificate_buffer(s, p.certificate.data(),
                                                      static_cast<long>(p.certificate.size()),
                                                      WOLFSSL_FILETYPE_ASN1),
                   "server certificate");
    wolf_tls_check(wolfSSL_CTX_use_PrivateKey_buffer(s, p.private_key.data(),
                                                     static_cast<long>(p.private_key.size()),
                                                     WOLFSSL_FILETYPE_ASN1),
                   "server key");
#ifndef NO_CHECK_PRIVATE_KEY
    wolf_tls_check(wolfSSL_CTX_check_private_key(s), "the certificate's key");
#endif
#ifdef HAVE_SESSION_TICKET
    // No resumption: no NewSessionTicket after the handshake (wolfSSL's server sends one, with
    // its built-in ticket key, unless told not to). This call answers 0 when it succeeds.
    if (const int ret = wolfSSL_CTX_no_ticket_TLSv13(s); ret < 0)
      throw Error("wolfSSL no session tickets: " + wolf_tls_error(ret));
#endif
    client_ctx_ = context(wolfTLSv1_3_client_method(), c);
    wolfSSL_CTX_set_verify(client_ctx_.get(), WOLFSSL_VERIFY_PEER, nullptr);
    wolf_tls_check(wolfSSL_CTX_load_verify_buffer(client_ctx_.get(), p.certificate.data(),
                                                  static_cast<long>(p.certificate.size()),
                                                  WOLFSSL_FILETYPE_ASN1),
                   "trust anchor");
  }
  ~WolfTlsHandshakeOp() override { release(); }

 private:
  static std::unique_ptr<WOLFSSL_CTX, WolfTlsCtxFree> context(WOLFSSL_METHOD* method,
                                                              const WolfTlsCase& c) {
    std::unique_ptr<WOLFSSL_CTX, WolfTlsCtxFree> ctx(wolfSSL_CTX_new(method));
    if (!ctx) throw Error("wolfSSL_CTX_new failed");
    WOLFSSL_CTX* x = ctx.get();
    // The suite list first: setting it resets the signature schemes to the library's defaults.
    wolf_tls_check(wolfSSL_CTX_set_cipher_list(x, kWolfTlsSuite), "TLS 1.3 cipher suite");
    int groups[] = {WOLFSSL_ECC_X25519};
    wolf_tls_check(wolfSSL_CTX_set_groups(x, groups, 1), "key exchange group");
    wolf_tls_check(wolfSSL_CTX_set1_sigalgs_list(x, c.sigalgs), "signature scheme");
    wolfSSL_CTX_set_session_cache_mode(x, WOLFSSL_SESS_CACHE_OFF);
    wolfSSL_CTX_SetIORecv(x, wolf_tls_recv);
    wolfSSL_CTX_SetIOSend(x, wolf_tls_send);
    return ctx;
  }

  WOLFSSL* ssl(TlsSide side) const { return side == TlsSide::Client ? client_ : server_; }

  // The exporter reads secrets the handshake keeps only when asked to (wolfSSL frees its
  // "arrays" at the end of the handshake otherwise); they go with the connection.
  static void attach(WOLFSSL* ssl, WolfTlsIo* io) {
    wolfSSL_SetIOReadCtx(ssl, io);
    wolfSSL_SetIOWriteCtx(ssl, io);
    wolfSSL_KeepArrays(ssl);
  }

  void open_client() override {
    wolfSSL_ERR_clear_error();
    c2s_ = ByteQueue{};  // new buffers per handshake, as a new connection's would be
    s2c_ = ByteQueue{};
    client_ = wolfSSL_new(client_ctx_.get());
    if (!client_) throw Error("wolfSSL_new (client) failed");
    attach(client_, &client_io_);
    wolf_tls_check(wolfSSL_check_domain_name(client_, server_name_.c_str()), "host name to verify");
#ifdef HAVE_SNI
    wolf_tls_check(wolfSSL_UseSNI(client_, WOLFSSL_SNI_HOST_NAME, server_name_.data(),
                                  static_cast<unsigned short>(server_name_.size())),
                   "SNI");
#endif
    // The client's one key share: X25519, so the server answers without a HelloRetryRequest.
    wolf_tls_check(wolfSSL_UseKeyShare(client_, WOLFSSL_ECC_X25519), "X25519 key share");
  }

  void open_server() override {
    server_ = wolfSSL_new(server_ctx_.get());
    if (!server_) throw Error("wolfSSL_new (server) failed");
    attach(server_, &server_io_);
  }

  bool step(TlsSide side) override {
    const int rc = side == TlsSide::Client ? wolfSSL_connect(client_) : wolfSSL_accept(server_);
    if (rc == WOLFSSL_SUCCESS) return true;
    const int err = wolfSSL_get_error(ssl(side), rc);
    if (err == WOLFSSL_ERROR_WANT_READ || err == WOLFSSL_ERROR_WANT_WRITE) return false;
    throw Error(std::string(side_name(side)) + ": wolfSSL handshake: " + wolf_tls_error(err));
  }

  size_t client_output_bytes() override { return c2s_.pending(); }

  uint8_t* server_output(size_t* len) override {
    *len = s2c_.pending();
    return *len > 0 ? s2c_.unread() : nullptr;
  }

  void free_client() override {
    wolfSSL_free(client_);
    client_ = nullptr;
  }
  bool server_open() const override { return server_ != nullptr; }
  void free_server() override {
    wolfSSL_free(server_);
    server_ = nullptr;
  }

  std::string version(TlsSide side) override {
    const char* name = wolfSSL_get_version(ssl(side));
    return name ? name : "?";
  }
  std::string suite(TlsSide side) override {
    const int id = wolfSSL_get_current_cipher_suite(ssl(side));  // (first byte << 8) | second
    const char* name = wolfSSL_get_cipher_name_iana_from_suite(
        static_cast<unsigned char>((id >> 8) & 0xff), static_cast<unsigned char>(id & 0xff));
    return name ? name : "(none)";
  }
  std::string group() override {
    const char* name = wolfSSL_get_curve_name(client_);
    return name ? name : "";
  }
  std::string verified() override {
    if (wolfSSL_get_verify_result(client_) != 0) return "";  // X509_V_OK
    return "WOLFSSL_VERIFY_PEER and wolfSSL_check_domain_name: the test certificate as the only "
           "trust anchor, host name " +
           server_name_;
  }
  Bytes exporter(TlsSide side) override {
    Bytes out(kExporterBytes);
    wolf_tls_check(wolfSSL_export_keying_material(ssl(side), out.data(), out.size(), kExporterLabel,
                                                  std::strlen(kExporterLabel), nullptr, 0, 0),
                   "wolfSSL_export_keying_material");
    return out;
  }

  std::unique_ptr<WOLFSSL_CTX, WolfTlsCtxFree> server_ctx_, client_ctx_;
  WOLFSSL* client_ = nullptr;
  WOLFSSL* server_ = nullptr;
  ByteQueue c2s_, s2c_;
  WolfTlsIo client_io_{&s2c_, &c2s_};
  WolfTlsIo server_io_{&c2s_, &s2c_};
};

#endif  // CB_WOLFSSL_TLS13

// The handshake algorithms this build offers.
inline std::vector<std::string> wolf_tls_algorithms() {
  std::vector<std::string> out;
#ifdef CB_WOLFSSL_TLS13
  for (const auto& c : kWolfTlsCases) out.push_back(c.ours);
#endif
  return out;
}

// Why a handshake of the catalogue is not offered even where the build has TLS 1.3 (the runner's
// `list` gives it as not_offered).
inline std::string wolf_tls_not_offered(const std::string& algorithm) {
  if (algorithm == "tls13-x25519mlkem768-ecdsa-p256")
    return ": wolfSSL " LIBWOLFSSL_VERSION_STRING
           " has no X25519MLKEM768 group (wolfssl/ssl.h: its only post-quantum groups are "
           "liboqs's round-3 Kyber ones, behind HAVE_PQC)";
  return "";
}

inline std::unique_ptr<HandshakeOperation> prepare_wolf_tls_handshake(const std::string& algorithm,
                                                                      const Params& params) {
#ifdef CB_WOLFSSL_TLS13
  const WolfTlsCase* c = wolf_tls_case(algorithm);
  if (!c)
    throw Unsupported("wolfssl does not offer " + algorithm + wolf_tls_not_offered(algorithm));
  check_handshake_params(algorithm, params);
  return std::make_unique<WolfTlsHandshakeOp>(*c, params);
#else
  (void)params;
  throw Unsupported("wolfssl does not offer " + algorithm +
                    ": this wolfSSL build lacks TLS 1.3, X25519, AES-GCM, the exporter "
                    "(HAVE_KEYING_MATERIAL) or OPENSSL_EXTRA");
#endif
}
