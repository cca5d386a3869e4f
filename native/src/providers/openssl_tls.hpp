// The in-memory TLS 1.3 handshake for the OpenSSL family (catalogue kind `handshake`): a client
// and a server SSL in one thread, each writing into a memory BIO the other reads, stepped by the
// shared driver (cryptobench/tls_driver.hpp), so one run is one full handshake with no socket and
// no other thread. The calls are the same in the 1.1.1 API (1.1.1, AWS-LC, BoringSSL) and in
// OpenSSL 3 but for BoringSSL's TLS 1.3 suites (under OPENSSL_IS_BORINGSSL) and the negotiated
// group's name (BoringSSL's and AWS-LC's call), so, like openssl_keyload.hpp, this is a fragment of
// an adapter, not a header of its own: openssl.cpp and openssl11.cpp include it inside their
// anonymous namespace, after their `last_error` and `check`, when they are built with libssl
// (CB_HAS_LIBSSL: the system library, and a versioned build whose build.json lists libssl.a).
// The including adapter includes <openssl/ssl.h>, <openssl/x509.h>, <openssl/objects.h> and
// "cryptobench/tls_driver.hpp" at file scope first.
#pragma once

// The hybrid post-quantum group X25519MLKEM768 (draft-ietf-tls-ecdhe-mlkem, code point 0x11EC)
// is OpenSSL's from 3.5 on (its TLS group list, providers/common/capabilities.c), and BoringSSL's
// and AWS-LC's where their ssl.h defines SSL_GROUP_X25519_MLKEM768 (both on this fragment through
// openssl11.cpp, under the same group-list name).
#if (!defined(OPENSSL_IS_BORINGSSL) && !defined(OPENSSL_IS_AWSLC) && \
     OPENSSL_VERSION_NUMBER >= 0x30500000L) ||                       \
    ((defined(OPENSSL_IS_BORINGSSL) || defined(OPENSSL_IS_AWSLC)) && \
     defined(SSL_GROUP_X25519_MLKEM768))
#define CB_TLS_HYBRID_MLKEM 1
#endif
constexpr const char* kTlsHybridCase = "tls13-x25519mlkem768-ecdsa-p256";

// What each handshake algorithm configures on both sides: the one TLS 1.3 cipher suite, the one
// key exchange group and the one signature scheme the server's certificate signs with.
struct TlsCase {
  const char* ours;
  const char* group;    // SSL_CTX_set1_groups_list
  const char* sigalgs;  // SSL_CTX_set1_sigalgs_list
};
constexpr TlsCase kTlsCases[] = {
    {"tls13-x25519-ecdsa-p256", "X25519", "ECDSA+SHA256"},
    {"tls13-x25519-rsa-2048", "X25519", "rsa_pss_rsae_sha256"},
#ifdef CB_TLS_HYBRID_MLKEM
    {kTlsHybridCase, "X25519MLKEM768", "ECDSA+SHA256"},
#endif
};
constexpr const char* kTlsSuite = "TLS_AES_128_GCM_SHA256";

inline const TlsCase* tls_case(const std::string& algorithm) {
  for (const auto& c : kTlsCases)
    if (algorithm == c.ours) return &c;
  return nullptr;
}

// Why this build does not offer a handshake of the catalogue (the runner's `list` gives it as
// not_offered); "" when there is nothing more to say than that it does not.
inline std::string tls_not_offered_reason(const std::string& algorithm) {
#if !defined(CB_TLS_HYBRID_MLKEM) && (defined(OPENSSL_IS_BORINGSSL) || defined(OPENSSL_IS_AWSLC))
  if (algorithm == kTlsHybridCase)
    return ": this " OPENSSL_VERSION_TEXT " defines no SSL_GROUP_X25519_MLKEM768";
#elif !defined(CB_TLS_HYBRID_MLKEM)
  if (algorithm == kTlsHybridCase)
    return ": " OPENSSL_VERSION_TEXT " has no X25519MLKEM768 TLS group (it arrived in OpenSSL 3.5)";
#endif
  (void)algorithm;
  return "";
}

struct TlsCtxFree {
  void operator()(SSL_CTX* c) const { SSL_CTX_free(c); }
};
struct TlsX509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct TlsPkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};

class TlsHandshakeOp : public TlsHandshakeDriver {
 public:
  TlsHandshakeOp(const TlsCase& c, const Params& p) : TlsHandshakeDriver(p.server_name) {
    const unsigned char* q = p.certificate.data();
    std::unique_ptr<X509, TlsX509Free> cert(
        d2i_X509(nullptr, &q, static_cast<long>(p.certificate.size())));
    if (!cert) throw Error(last_error("server certificate"));
    q = p.private_key.data();
    std::unique_ptr<EVP_PKEY, TlsPkeyFree> key(
        d2i_AutoPrivateKey(nullptr, &q, static_cast<long>(p.private_key.size())));
    if (!key) throw Error(last_error("server key"));
    server_ctx_ = context(TLS_server_method(), c);
    check(SSL_CTX_use_certificate(server_ctx_.get(), cert.get()), "SSL_CTX_use_certificate");
    check(SSL_CTX_use_PrivateKey(server_ctx_.get(), key.get()), "SSL_CTX_use_PrivateKey");
    check(SSL_CTX_check_private_key(server_ctx_.get()), "the certificate's key");
    // No resumption: no session tickets after the handshake (which a TLS 1.3 server would
    // otherwise send, two by default, inside the handshake's last call).
    check(SSL_CTX_set_num_tickets(server_ctx_.get(), 0), "SSL_CTX_set_num_tickets");
    SSL_CTX_set_options(server_ctx_.get(), SSL_OP_NO_TICKET);
    client_ctx_ = context(TLS_client_method(), c);
    SSL_CTX_set_verify(client_ctx_.get(), SSL_VERIFY_PEER, nullptr);
    check(X509_STORE_add_cert(SSL_CTX_get_cert_store(client_ctx_.get()), cert.get()),
          "trust anchor");
  }
  ~TlsHandshakeOp() override { release(); }

 private:
  static std::unique_ptr<SSL_CTX, TlsCtxFree> context(const SSL_METHOD* method, const TlsCase& c) {
    std::unique_ptr<SSL_CTX, TlsCtxFree> ctx(SSL_CTX_new(method));
    if (!ctx) throw Error(last_error("SSL_CTX_new"));
    SSL_CTX* x = ctx.get();
    check(static_cast<int>(SSL_CTX_set_min_proto_version(x, TLS1_3_VERSION)), "TLS 1.3 only");
    check(static_cast<int>(SSL_CTX_set_max_proto_version(x, TLS1_3_VERSION)), "TLS 1.3 only");
#ifdef OPENSSL_IS_BORINGSSL
    // BoringSSL has no SSL_CTX_set_ciphersuites: its TLS 1.3 suites are given by protocol ID.
    const uint16_t suite = SSL_CIPHER_AES_128_GCM_SHA256;  // kTlsSuite
    check(SSL_CTX_set1_tls13_ciphers(x, &suite, nullptr, 1), "TLS 1.3 cipher suite");
#else
    check(SSL_CTX_set_ciphersuites(x, kTlsSuite), "TLS 1.3 cipher suite");
#endif
    check(static_cast<int>(SSL_CTX_set1_groups_list(x, c.group)), "key exchange group");
    check(static_cast<int>(SSL_CTX_set1_sigalgs_list(x, c.sigalgs)), "signature scheme");
    SSL_CTX_set_session_cache_mode(x, SSL_SESS_CACHE_OFF);
    return ctx;
  }

  // A memory BIO that reads -1 with "retry" when empty, as a non-blocking socket would; nullptr
  // when it cannot be made.
  static BIO* memory_pipe() {
    BIO* b = BIO_new(BIO_s_mem());
    if (b) BIO_set_mem_eof_return(b, -1);
    return b;
  }

  SSL* ssl(TlsSide side) const { return side == TlsSide::Client ? client_ : server_; }

  void open_client() override {
    ERR_clear_error();
    client_ = SSL_new(client_ctx_.get());
    if (!client_) throw Error(last_error("SSL_new (client)"));
#if defined(OPENSSL_VERSION_MAJOR) && OPENSSL_VERSION_MAJOR >= 4
    // 4.0 deprecates SSL_set1_host (a name or an IP address) for this, a DNS name only: the
    // same check for our host name, which is no IP address.
    check(SSL_set1_dnsname(client_, server_name_.c_str()), "SSL_set1_dnsname");
#else
    check(SSL_set1_host(client_, server_name_.c_str()), "SSL_set1_host");
#endif
    check(static_cast<int>(SSL_set_tlsext_host_name(client_, server_name_.c_str())), "SNI");
    SSL_set_connect_state(client_);
    // Client to server and server to client: each SSL reads one and writes the other, so each
    // BIO has two owners; the client takes its references here, the server in open_server.
    BIO* c2s = memory_pipe();
    BIO* s2c = memory_pipe();
    if (!c2s || !s2c) {
      BIO_free(c2s);
      BIO_free(s2c);
      throw Error(last_error("BIO_new"));
    }
    SSL_set_bio(client_, s2c, c2s);
    c2s_ = c2s;
    s2c_ = s2c;
  }

  void open_server() override {
    server_ = SSL_new(server_ctx_.get());
    if (!server_) throw Error(last_error("SSL_new (server)"));
    SSL_set_accept_state(server_);
    BIO_up_ref(c2s_);
    BIO_up_ref(s2c_);
    SSL_set_bio(server_, c2s_, s2c_);
  }

  bool step(TlsSide side) override {
    const int rc = SSL_do_handshake(ssl(side));
    if (rc == 1) return true;
    const int err = SSL_get_error(ssl(side), rc);
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) return false;
    throw Error(std::string(side_name(side)) + ": " + last_error("handshake"));
  }

  size_t client_output_bytes() override {
    const int n = BIO_pending(c2s_);
    return n > 0 ? static_cast<size_t>(n) : 0;
  }

  uint8_t* server_output(size_t* len) override {
    if (BIO_pending(s2c_) <= 0) return nullptr;
    char* data = nullptr;
    const long n = BIO_get_mem_data(s2c_, &data);
    *len = n > 0 ? static_cast<size_t>(n) : 0;
    return reinterpret_cast<uint8_t*>(data);
  }

  void free_client() override {
    SSL_free(client_);  // the BIOs go with the last of their two owners
    client_ = nullptr;
    c2s_ = s2c_ = nullptr;
  }
  bool server_open() const override { return server_ != nullptr; }
  void free_server() override {
    SSL_free(server_);
    server_ = nullptr;
  }

  std::string version(TlsSide side) override { return SSL_get_version(ssl(side)); }

  std::string suite(TlsSide side) override {
    const SSL_CIPHER* c = SSL_get_current_cipher(ssl(side));
    const char* name = c ? SSL_CIPHER_standard_name(c) : nullptr;
    return name ? name : "(none)";
  }

  std::string group() override {
#if defined(OPENSSL_IS_BORINGSSL) || defined(OPENSSL_IS_AWSLC)
    // BoringSSL has no SSL_get_peer_tmp_key, and a KEM group leaves AWS-LC's client no peer key:
    // both name the group the handshake used.
    const char* group_name = SSL_get_group_name(SSL_get_group_id(client_));
    return group_name ? group_name : "";
#else
    EVP_PKEY* share = nullptr;
    if (SSL_get_peer_tmp_key(client_, &share) == 1 && share) {
      const char* sn = OBJ_nid2sn(EVP_PKEY_id(share));
      std::string name = sn ? sn : "?";
      EVP_PKEY_free(share);
      return name;
    }
#ifdef CB_TLS_HYBRID_MLKEM
    // A KEM group leaves the client no peer key (it decapsulated the server's ciphertext): the
    // group's TLS name instead (SSL_get0_group_name, OpenSSL >= 3.2).
    if (const char* name = SSL_get0_group_name(client_)) return name;
#endif
    return "";
#endif
  }

  std::string verified() override {
    if ((SSL_get_verify_mode(client_) & SSL_VERIFY_PEER) &&
        SSL_get_verify_result(client_) == X509_V_OK)
      return "SSL_VERIFY_PEER, X509_V_OK against the test certificate as the only trust "
             "anchor, host name " +
             server_name_;
    return "";
  }

  Bytes exporter(TlsSide side) override {
    Bytes out(kExporterBytes);
    if (SSL_export_keying_material(ssl(side), out.data(), out.size(), kExporterLabel,
                                   std::strlen(kExporterLabel), nullptr, 0, 0) != 1)
      throw Error(last_error("SSL_export_keying_material"));
    return out;
  }

  std::unique_ptr<SSL_CTX, TlsCtxFree> server_ctx_, client_ctx_;
  SSL* client_ = nullptr;
  SSL* server_ = nullptr;
  BIO* c2s_ = nullptr;  // owned by the two SSLs
  BIO* s2c_ = nullptr;
};

inline std::unique_ptr<HandshakeOperation> prepare_tls_handshake(const std::string& algorithm,
                                                                 const Params& params) {
  const TlsCase* c = tls_case(algorithm);
  if (!c)
    throw Unsupported(std::string(CB_PROVIDER_NAME " does not offer ") + algorithm +
                      tls_not_offered_reason(algorithm));
  check_handshake_params(algorithm, params);
  return std::make_unique<TlsHandshakeOp>(*c, params);
}
