// The in-memory TLS 1.3 handshake for the OpenSSL family (catalogue kind `handshake`): a client
// and a server SSL in one thread, each writing into a memory BIO the other reads, so one run is
// one full handshake with no socket and no other thread. The calls are the same in the 1.1.1 API
// (1.1.1; BoringSSL and AWS-LC later, whose group query differs) and in OpenSSL 3, so, like
// openssl_keyload.hpp, this is a fragment of an adapter, not a header of its own: openssl.cpp and
// openssl11.cpp include it inside their anonymous namespace, after their `last_error` and
// `check`, when they are built with libssl (CB_HAS_LIBSSL: the system library, and a versioned
// build whose build.json lists libssl.a).
// The including adapter includes <openssl/ssl.h>, <openssl/x509.h>, <openssl/objects.h>,
// <cctype>, <cstring> and <ctime> at file scope first.
#pragma once

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
};
constexpr const char* kTlsSuite = "TLS_AES_128_GCM_SHA256";

inline const TlsCase* tls_case(const std::string& algorithm) {
  for (const auto& c : kTlsCases)
    if (algorithm == c.ours) return &c;
  return nullptr;
}

inline uint64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
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

class TlsHandshakeOp : public HandshakeOperation {
 public:
  TlsHandshakeOp(const TlsCase& c, const Params& p) : server_name_(p.server_name) {
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

  size_t run(const uint8_t*, size_t, uint8_t*) override {
    release();  // the previous pair: one connection freed per handshake, as one is made
    ERR_clear_error();
    const bool tamper = tamper_;
    tamper_ = false;
    try {
      handshake(tamper);
    } catch (...) {
      release();
      throw;
    }
    completed_ = true;
    return 0;
  }

  HandshakeFacts facts() override {
    if (!completed_) throw Error("no completed handshake to read");
    HandshakeFacts f;
    const std::string client_version = SSL_get_version(client_);
    const std::string server_version = SSL_get_version(server_);
    f.version = client_version == server_version
                    ? client_version
                    : "client " + client_version + ", server " + server_version;
    f.suite = suite(client_);
    if (suite(server_) != f.suite) f.suite = "client " + f.suite + ", server " + suite(server_);
    EVP_PKEY* share = nullptr;
    if (SSL_get_peer_tmp_key(client_, &share) == 1 && share) {
      const char* sn = OBJ_nid2sn(EVP_PKEY_id(share));
      for (const char* s = sn ? sn : "?"; *s; ++s)
        f.group += static_cast<char>(std::tolower(static_cast<unsigned char>(*s)));
      EVP_PKEY_free(share);
    }
    if ((SSL_get_verify_mode(client_) & SSL_VERIFY_PEER) &&
        SSL_get_verify_result(client_) == X509_V_OK)
      f.verified =
          "SSL_VERIFY_PEER, X509_V_OK against the test certificate as the only trust "
          "anchor, host name " +
          server_name_;
    f.client_exporter = exporter(client_);
    f.server_exporter = exporter(server_);
    return f;
  }
  void tamper_next(size_t offset) override {
    tamper_ = true;
    tamper_at_ = offset;
  }
  uint64_t server_cpu_ns() const override { return server_ns_; }

 private:
  static std::unique_ptr<SSL_CTX, TlsCtxFree> context(const SSL_METHOD* method, const TlsCase& c) {
    std::unique_ptr<SSL_CTX, TlsCtxFree> ctx(SSL_CTX_new(method));
    if (!ctx) throw Error(last_error("SSL_CTX_new"));
    SSL_CTX* x = ctx.get();
    check(static_cast<int>(SSL_CTX_set_min_proto_version(x, TLS1_3_VERSION)), "TLS 1.3 only");
    check(static_cast<int>(SSL_CTX_set_max_proto_version(x, TLS1_3_VERSION)), "TLS 1.3 only");
    check(SSL_CTX_set_ciphersuites(x, kTlsSuite), "TLS 1.3 cipher suite");
    check(static_cast<int>(SSL_CTX_set1_groups_list(x, c.group)), "key exchange group");
    check(static_cast<int>(SSL_CTX_set1_sigalgs_list(x, c.sigalgs)), "signature scheme");
    SSL_CTX_set_session_cache_mode(x, SSL_SESS_CACHE_OFF);
    return ctx;
  }

  static std::string suite(const SSL* ssl) {
    const SSL_CIPHER* c = SSL_get_current_cipher(ssl);
    const char* name = c ? SSL_CIPHER_standard_name(c) : nullptr;
    return name ? name : "(none)";
  }

  static Bytes exporter(SSL* ssl) {
    Bytes out(kExporterBytes);
    if (SSL_export_keying_material(ssl, out.data(), out.size(), kExporterLabel,
                                   std::strlen(kExporterLabel), nullptr, 0, 0) != 1)
      throw Error(last_error("SSL_export_keying_material"));
    return out;
  }

  // A memory BIO that reads -1 with "retry" when empty, as a non-blocking socket would.
  static BIO* memory_pipe() {
    BIO* b = BIO_new(BIO_s_mem());
    if (!b) throw Error(last_error("BIO_new"));
    BIO_set_mem_eof_return(b, -1);
    return b;
  }

  // One handshake step of one side: true when its handshake is complete.
  static bool step(SSL* ssl, const char* side) {
    const int rc = SSL_do_handshake(ssl);
    if (rc == 1) return true;
    const int err = SSL_get_error(ssl, rc);
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) return false;
    throw Error(std::string(side) + ": " + last_error("handshake"));
  }

  void handshake(bool tamper) {
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
    const uint64_t t0 = thread_cpu_ns();
    server_ = SSL_new(server_ctx_.get());
    server_ns_ += thread_cpu_ns() - t0;
    if (!server_) throw Error(last_error("SSL_new (server)"));
    SSL_set_accept_state(server_);
    // Client to server and server to client: each SSL reads one and writes the other, so each
    // BIO has two owners (SSL_set_bio takes one reference of each).
    BIO* c2s = memory_pipe();
    BIO* s2c = memory_pipe();
    BIO_up_ref(c2s);
    BIO_up_ref(s2c);
    SSL_set_bio(client_, s2c, c2s);
    SSL_set_bio(server_, c2s, s2c);
    bool client_done = false, server_done = false, tampered = !tamper;
    // ClientHello; the server's flight; the client's Finished: two rounds, four at most.
    for (int round = 0; round < 4 && !(client_done && server_done); ++round) {
      if (!client_done) client_done = step(client_, "client");
      if (!server_done) {
        const uint64_t s0 = thread_cpu_ns();
        try {
          server_done = step(server_, "server");
        } catch (...) {
          server_ns_ += thread_cpu_ns() - s0;
          throw;
        }
        server_ns_ += thread_cpu_ns() - s0;
      }
      if (!tampered && BIO_pending(s2c) > 0) {
        char* data = nullptr;
        const long n = BIO_get_mem_data(s2c, &data);
        if (n > 0 && data) data[std::min(tamper_at_, static_cast<size_t>(n) - 1)] ^= 0x01;
        tampered = true;
      }
    }
    if (!(client_done && server_done))
      throw Error("the handshake did not complete in four rounds of both sides");
  }

  void release() {
    completed_ = false;
    SSL_free(client_);
    client_ = nullptr;
    if (server_) {
      const uint64_t t0 = thread_cpu_ns();
      SSL_free(server_);
      server_ns_ += thread_cpu_ns() - t0;
      server_ = nullptr;
    }
  }

  std::string server_name_;
  std::unique_ptr<SSL_CTX, TlsCtxFree> server_ctx_, client_ctx_;
  SSL* client_ = nullptr;
  SSL* server_ = nullptr;
  bool completed_ = false;
  bool tamper_ = false;
  size_t tamper_at_ = 0;
  uint64_t server_ns_ = 0;
};

inline std::unique_ptr<HandshakeOperation> prepare_tls_handshake(const std::string& algorithm,
                                                                 const Params& params) {
  const TlsCase* c = tls_case(algorithm);
  if (!c) throw Unsupported(std::string(CB_PROVIDER_NAME " does not offer ") + algorithm);
  checked_algorithm(algorithm, OpKind::Handshake);
  if (params.certificate.empty() || params.private_key.empty() || params.server_name.empty())
    throw Error(algorithm + ": the server's certificate, key and host name are missing");
  return std::make_unique<TlsHandshakeOp>(*c, params);
}
