// libFuzzer target: opening a per-value file with its key file, the whole read path (format,
// header, unwrap, policy, MAC, AEAD). The first byte picks the format (even: INI, odd: JSON);
// the seeds are real files written for the key below (corpus/decrypt). Every outcome must be a
// confcrypt::Failure with its status; gpg is never run (no gpg recipients are tried, and a
// whole-file message without a configured signer is refused before gpg).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "confcrypt/config.hpp"

namespace {

// The key file of the seed files: 32 bytes 0x00, 0x01, ..., 0x1f.
std::string key_path;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  char path[] = "/tmp/confcrypt-fuzz-key-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) std::abort();
  unsigned char key[32];
  for (int i = 0; i < 32; ++i) key[i] = static_cast<unsigned char>(i);
  if (write(fd, key, sizeof key) != sizeof key) std::abort();
  close(fd);
  key_path = path;
  std::atexit([] { unlink(key_path.c_str()); });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  confcrypt::Options o;
  o.format = data[0] % 2 ? "json" : "ini";
  o.secrets.key_files = {key_path};
  o.secrets.use_gpg = false;
  try {
    confcrypt::Config c = confcrypt::Config::open(bytes, o);
    // What opened must save and open again to the same values.
    std::string saved = c.save();
    confcrypt::Config back = confcrypt::Config::open(saved, o);
    if (back.keys().size() != c.keys().size()) std::abort();
  } catch (const confcrypt::Failure&) {
  } catch (const confcrypt::FormatError&) {
  }
  return 0;
}
