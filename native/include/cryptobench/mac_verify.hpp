// MAC verification for the `leak` request (Provider::prepare_mac_verify; docs/leaks.md, "MAC
// verification"). The input is message || tag; a valid tag gives no output, a wrong one is
// refused by status (try_run returns false), the same path through the runner as a success.
#pragma once

#include <functional>
#include <memory>
#include <utility>

#include "cryptobench/provider.hpp"

namespace cb {

// An adapter's MAC verification implements verify(); run() and try_run() are here.
class MacVerifyOp : public Operation {
 public:
  explicit MacVerifyOp(size_t tag_len) : tag_len_(tag_len) {}

  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    size_t n = 0;
    if (!try_run(in, len, out, n)) throw Error("MAC does not verify");
    return n;
  }
  bool try_run(const uint8_t* in, size_t len, uint8_t* /*out*/, size_t& out_len) override {
    out_len = 0;
    if (len < tag_len_) return false;
    return verify(in, len - tag_len_, in + len - tag_len_);
  }
  bool refuses_by_status() const override { return true; }

 protected:
  // Whether `tag` (tag_len_ bytes) is the MAC of the n bytes of `message`.
  virtual bool verify(const uint8_t* message, size_t n, const uint8_t* tag) = 0;
  size_t tag_len_;
};

// Where the library has no verification function but a constant-time comparison (OpenSSL's
// CRYPTO_memcmp, Nettle's memeql_sec, libsodium's sodium_memcmp): the library's own `mac`
// operation computes the tag, the library's comparison compares it with the one given.
class MacCompareOp : public MacVerifyOp {
 public:
  // True when the n bytes at a and b are equal.
  using Equal = std::function<bool(const uint8_t* a, const uint8_t* b, size_t n)>;

  MacCompareOp(std::unique_ptr<Operation> mac, size_t tag_len, Equal equal)
      : MacVerifyOp(tag_len),
        mac_(std::move(mac)),
        equal_(std::move(equal)),
        tag_(tag_len + kOutRoom) {}

 protected:
  bool verify(const uint8_t* message, size_t n, const uint8_t* tag) override {
    mac_->run(message, n, tag_.data());
    return equal_(tag_.data(), tag, tag_len_);
  }

 private:
  std::unique_ptr<Operation> mac_;
  Equal equal_;
  Bytes tag_;
};

}  // namespace cb
