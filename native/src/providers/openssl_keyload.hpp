// keyload for the OpenSSL family: decoding an encoded private key or certificate with the calls
// an application makes (PEM_read_bio_PrivateKey, d2i_AutoPrivateKey, PEM_read_bio_X509,
// d2i_X509), which exist with the same signatures in the 1.1.1 API (1.1.1, BoringSSL, AWS-LC)
// and in OpenSSL 3, where they go through the OSSL_DECODER machinery whose cost
// openssl/openssl#15199 measured. A fragment of an adapter, not a header of its own: openssl.cpp
// and openssl11.cpp include it inside their anonymous namespace, after their `last_error`, each
// compiled against its own OpenSSL.
// The including adapter includes <openssl/bio.h>, <openssl/pem.h> and <openssl/x509.h> at file
// scope first (they must not be declared inside its namespace).
#pragma once

// What a keyload algorithm decodes (catalogue: `<key type>-pem|der`, `x509-<key type>-pem|der`).
struct Encoding {
  bool certificate = false;
  bool pem = false;
};

inline Encoding encoding_of(const std::string& algorithm) {
  const auto ends_with = [&](const char* s) {
    const std::string suffix(s);
    return algorithm.size() > suffix.size() &&
           algorithm.compare(algorithm.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (!ends_with("-pem") && !ends_with("-der"))
    throw Unsupported("keyload: " + algorithm + " names no encoding (-pem or -der)");
  return {algorithm.rfind("x509-", 0) == 0, ends_with("-pem")};
}

// The decoded object: a private key, or a certificate (whose key is X509_get0_pubkey's).
struct Decoded {
  EVP_PKEY* pkey = nullptr;
  X509* cert = nullptr;
  Decoded() = default;
  Decoded(const Decoded&) = delete;
  Decoded& operator=(const Decoded&) = delete;
  ~Decoded() {
    EVP_PKEY_free(pkey);
    X509_free(cert);
  }
  const EVP_PKEY* key() const { return cert ? X509_get0_pubkey(cert) : pkey; }
};

// Decodes `in` into `out`; throws Error naming the library's reason when it cannot.
inline void decode_encoded(const Encoding& how, const uint8_t* in, size_t len, Decoded& out) {
  if (how.pem) {
    BIO* bio = BIO_new_mem_buf(in, static_cast<int>(len));
    if (!bio) throw Error(last_error("BIO_new_mem_buf"));
    if (how.certificate)
      out.cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
    else
      out.pkey = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
  } else {
    const unsigned char* p = in;
    if (how.certificate)
      out.cert = d2i_X509(nullptr, &p, static_cast<long>(len));
    else
      out.pkey = d2i_AutoPrivateKey(nullptr, &p, static_cast<long>(len));
  }
  if (!out.pkey && !out.cert)
    throw Error(last_error(how.certificate ? "decode certificate" : "decode private key"));
}

// One run: decode the encoded key into the library's object and free it.
class KeyloadOp : public Operation {
 public:
  explicit KeyloadOp(const std::string& algorithm) : how_(encoding_of(algorithm)) {}
  size_t run(const uint8_t* in, size_t len, uint8_t*) override {
    Decoded decoded;
    decode_encoded(how_, in, len, decoded);
    return 0;
  }

 private:
  Encoding how_;
};
