// The in-memory TLS handshake driver (catalogue kind `handshake`; docs/versions.md, "The
// in-memory TLS 1.3 handshake"): what every library's HandshakeOperation shares, so that the
// figures of all of them come from the same loop.
//
// A client and a server connection of one library in this thread, each writing into a transport
// the other reads. One run() frees the previous pair and makes one full handshake: both sides
// stepped in turn (ClientHello; the server's flight; the client's Finished: two rounds of each
// side's handshake call, four at most), every server call (creating its connection, each step,
// freeing it) timed on this thread's CPU clock, the size of the client's first flight counted,
// and, when tamper_next() asked, one byte of the server's first flight flipped before the client
// reads it. facts() reads what both sides negotiated and their exporter values.
//
// A library adds only its own part, the pure virtual functions below: make the two endpoints
// over its transport, step one side, show the bytes the server wrote that the client has not
// read, count those the client wrote, say what was negotiated, export keying material, free. Its
// destructor calls release() (the base class cannot: the library's contexts are gone by then).
// Adapters that implement it: openssl_tls.hpp (the OpenSSL family), gnutls.cpp, wolfssl_tls.hpp.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <string>
#include <utility>

#include "cryptobench/provider.hpp"

namespace cb {

enum class TlsSide { Client, Server };

// One direction of an in-memory connection, for a library whose transport is a pair of
// callbacks (GnuTLS's push and pull functions, wolfSSL's I/O callbacks): what one side wrote and
// the other has not read yet.
class ByteQueue {
 public:
  size_t pending() const { return data_.size() - read_; }
  // The unread bytes (pending() of them): where the driver flips one.
  uint8_t* unread() { return data_.data() + read_; }
  void clear() {
    data_.clear();
    read_ = 0;
  }
  void write(const void* data, size_t len) {
    const auto* p = static_cast<const uint8_t*>(data);
    data_.insert(data_.end(), p, p + len);
  }
  // Up to `len` bytes into `out`; 0 when there are none (the caller says "would block").
  size_t read(void* out, size_t len) {
    const size_t n = std::min(len, pending());
    if (n == 0) return 0;
    std::memcpy(out, data_.data() + read_, n);
    read_ += n;
    if (read_ == data_.size()) clear();
    return n;
  }

 private:
  Bytes data_;
  size_t read_ = 0;
};

class TlsHandshakeDriver : public HandshakeOperation {
 public:
  size_t run(const uint8_t*, size_t, uint8_t*) final {
    release();  // the previous pair: one connection freed per handshake, as one is made
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

  HandshakeFacts facts() final {
    if (!completed_) throw Error("no completed handshake to read");
    HandshakeFacts f;
    f.version = both(version(TlsSide::Client), version(TlsSide::Server));
    f.suite = both(suite(TlsSide::Client), suite(TlsSide::Server));
    for (const char ch : group())
      f.group += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    f.verified = verified();
    f.client_exporter = exporter(TlsSide::Client);
    f.server_exporter = exporter(TlsSide::Server);
    return f;
  }

  void tamper_next(size_t offset) final {
    tamper_ = true;
    tamper_at_ = offset;
  }
  uint64_t server_cpu_ns() const final { return server_ns_; }
  uint64_t client_hello_bytes() const final { return client_hello_bytes_; }

  // This thread's CPU time, ns.
  static uint64_t thread_cpu_ns() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
  }
  static const char* side_name(TlsSide side) {
    return side == TlsSide::Client ? "client" : "server";
  }

 protected:
  explicit TlsHandshakeDriver(std::string server_name) : server_name_(std::move(server_name)) {}

  // ---- what a library adds ----------------------------------------------------------------------
  // A new client connection on the prepared context: its transport, the host name it asks for
  // and verifies. Called first in every run().
  virtual void open_client() = 0;
  // A new server connection on the prepared context and its transport (timed as the server's).
  virtual void open_server() = 0;
  // One handshake call of one side: true when its handshake is complete, false when it waits
  // for the other side; throws Error when the handshake failed.
  virtual bool step(TlsSide side) = 0;
  // The bytes the server has written that the client has not read yet (*len of them), or
  // nullptr when there are none.
  virtual uint8_t* server_output(size_t* len) = 0;
  // How many bytes the client has written that the server has not read yet.
  virtual size_t client_output_bytes() = 0;
  // Frees the client's connection if there is one (also after a failed open_client()).
  virtual void free_client() = 0;
  // Whether there is a server connection to free (also after a failed open_server()).
  virtual bool server_open() const = 0;
  virtual void free_server() = 0;
  // What the completed handshake negotiated, as each side reports it: the version spelt
  // "TLSv1.3", the suite by its RFC 8446 name.
  virtual std::string version(TlsSide side) = 0;
  virtual std::string suite(TlsSide side) = 0;
  // The key exchange group as the client reports it (any case); empty when it says none.
  virtual std::string group() = 0;
  // How the client verified the server's certificate, in words; empty when it did not.
  virtual std::string verified() = 0;
  // The side's RFC 8446 7.5 exporter value for kExporterLabel, no context, kExporterBytes long.
  virtual Bytes exporter(TlsSide side) = 0;

  // Frees the current pair. The library's destructor calls it, before its contexts go.
  void release() {
    completed_ = false;
    free_client();
    if (server_open()) server_call([this] { free_server(); });
  }

  const std::string server_name_;

 private:
  static std::string both(const std::string& client, const std::string& server) {
    return client == server ? client : "client " + client + ", server " + server;
  }

  // Runs f, adding the CPU time it took to the server's, whether it returns or throws.
  template <class F>
  void server_call(F&& f) {
    struct Clock {
      uint64_t& sum;
      const uint64_t t0 = thread_cpu_ns();
      ~Clock() { sum += thread_cpu_ns() - t0; }
    } clock{server_ns_};
    f();
  }

  void handshake(bool tamper) {
    open_client();
    server_call([this] { open_server(); });
    bool client_done = false, server_done = false, tampered = !tamper;
    // ClientHello; the server's flight; the client's Finished: two rounds, four at most.
    for (int round = 0; round < 4 && !(client_done && server_done); ++round) {
      if (!client_done) client_done = step(TlsSide::Client);
      // Before the server reads it: the client's first flight, its ClientHello (a count, no copy).
      if (round == 0) client_hello_bytes_ = client_output_bytes();
      if (!server_done) server_call([&] { server_done = step(TlsSide::Server); });
      if (!tampered) {
        size_t len = 0;
        uint8_t* flight = server_output(&len);
        if (flight && len > 0) {
          flight[std::min(tamper_at_, len - 1)] ^= 0x01;
          tampered = true;
        }
      }
    }
    if (!(client_done && server_done))
      throw Error("the handshake did not complete in four rounds of both sides");
  }

  bool completed_ = false;
  bool tamper_ = false;
  size_t tamper_at_ = 0;
  uint64_t server_ns_ = 0;
  uint64_t client_hello_bytes_ = 0;
};

// For a provider's prepare_handshake(), after it found the algorithm in its own table: throws
// Unsupported when the catalogue has no such handshake, Error when the vector's certificate, key
// or host name is missing.
inline void check_handshake_params(const std::string& algorithm, const Params& params) {
  checked_algorithm(algorithm, OpKind::Handshake);
  if (params.certificate.empty() || params.private_key.empty() || params.server_name.empty())
    throw Error(algorithm + ": the server's certificate, key and host name are missing");
}

}  // namespace cb
