// cryptobench-encfile: the program the `process` scenario measures as a whole process. It does
// what a user's program that encrypts a file does: read the file in chunks, encrypt each chunk
// with the chosen library (through the same provider adapters the benchmark core uses), write
// the ciphertext to a file; or read such a file back and decrypt it; or both in one execution,
// as EvalMe (paper 004) timed them: encrypt --in to --out, then decrypt --out to --back.
//
//   cryptobench-encfile encrypt|decrypt --provider P --algorithm A --in FILE --out FILE
//                       [--chunk BYTES] [--variant V]
//   cryptobench-encfile roundtrip --provider P --algorithm A --in FILE --out FILE --back FILE
//                       [--chunk BYTES] [--variant V]
//
// File format: "CBENC1" magic, then the chunk size and the plaintext length (8 bytes each,
// little-endian), then one record per chunk. Each chunk is one message to the library with its
// own IV (the fixed base IV with the chunk number in its last 8 bytes), as chunked formats do
// (gocryptfs, age's STREAM); AEAD records carry their tag. Block modes (CBC) pad the last chunk
// with PKCS#7. The key and base IV are fixed test values: this is a benchmark, not a tool.
//
// Exit status: 0 done; 2 bad command line; 3 the library does not offer the algorithm;
// 4 an input or output file cannot be read or written; 5 the library failed or a record did not
// authenticate.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cryptobench/provider.hpp"

namespace {

constexpr char kMagic[6] = {'C', 'B', 'E', 'N', 'C', '1'};
constexpr int kUsage = 2, kUnsupported = 3, kIo = 4, kCrypto = 5;

struct Failure {
  int status;
  std::string message;
};

void put64(std::ostream& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.put(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t get64(std::istream& in) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) {
    const int c = in.get();
    if (c == EOF) throw Failure{kCrypto, "truncated header"};
    v |= static_cast<uint64_t>(static_cast<uint8_t>(c)) << (8 * i);
  }
  return v;
}

cb::Bytes fixed_bytes(size_t n, uint8_t start) {
  cb::Bytes b(n);
  for (size_t i = 0; i < n; ++i) b[i] = static_cast<uint8_t>(start + 7 * i);
  return b;
}

cb::Bytes chunk_iv(const cb::Bytes& base, uint64_t index) {
  cb::Bytes iv = base;
  for (size_t i = 0; i < 8 && i < iv.size(); ++i)
    iv[iv.size() - 1 - i] ^= static_cast<uint8_t>((index >> (8 * i)) & 0xff);
  return iv;
}

std::unique_ptr<cb::Operation> prepare(cb::Provider& p, const cb::AlgorithmInfo& info,
                                       cb::OpKind op, uint64_t index) {
  cb::Params params;
  params.key = fixed_bytes(info.key_len, 0x11);
  params.iv = chunk_iv(fixed_bytes(info.iv_len, 0x5a), index);
  return p.prepare(info.name, op, params);
}

void encrypt(cb::Provider& p, const cb::AlgorithmInfo& info, std::istream& in, std::ostream& out,
             size_t chunk, uint64_t total) {
  out.write(kMagic, sizeof kMagic);
  put64(out, chunk);
  put64(out, total);
  std::vector<uint8_t> buf(chunk + info.block_len), ct(chunk + info.block_len + info.tag_len + 64);
  uint64_t done = 0;
  for (uint64_t index = 0; done < total || (total == 0 && index == 0); ++index) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(chunk, total - done));
    if (want && !in.read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(want)))
      throw Failure{kIo, "cannot read the input"};
    done += want;
    size_t len = want;
    const bool last = done == total;
    if (info.block_len > 1 && last && total > 0) {  // PKCS#7 on the last chunk (block mode)
      const size_t pad = info.block_len - len % info.block_len;
      std::memset(buf.data() + len, static_cast<int>(pad), pad);
      len += pad;
    }
    if (len == 0) break;
    auto op = prepare(p, info, cb::OpKind::Encrypt, index);
    const size_t n = op->run(buf.data(), len, ct.data());
    out.write(reinterpret_cast<const char*>(ct.data()), static_cast<std::streamsize>(n));
    if (!out) throw Failure{kIo, "cannot write the output"};
  }
}

void decrypt(cb::Provider& p, const cb::AlgorithmInfo& info, std::istream& in, std::ostream& out) {
  char magic[sizeof kMagic];
  if (!in.read(magic, sizeof magic) || std::memcmp(magic, kMagic, sizeof magic) != 0)
    throw Failure{kCrypto, "not a cryptobench-encfile file"};
  const uint64_t chunk = get64(in), total = get64(in);
  if (chunk == 0 || chunk > (1u << 30)) throw Failure{kCrypto, "bad chunk size in the header"};
  std::vector<uint8_t> rec(chunk + info.block_len + info.tag_len), pt(rec.size() + 64);
  uint64_t done = 0;
  for (uint64_t index = 0; done < total; ++index) {
    const uint64_t plain = std::min<uint64_t>(chunk, total - done);
    const bool last = done + plain == total;
    size_t len = static_cast<size_t>(plain);
    if (info.block_len > 1 && last) len += info.block_len - len % info.block_len;
    len += info.tag_len;
    if (!in.read(reinterpret_cast<char*>(rec.data()), static_cast<std::streamsize>(len)))
      throw Failure{kCrypto, "truncated record " + std::to_string(index)};
    auto op = prepare(p, info, cb::OpKind::Decrypt, index);
    const size_t n = op->run(rec.data(), len, pt.data());
    if (n < plain) throw Failure{kCrypto, "record " + std::to_string(index) + " is too short"};
    out.write(reinterpret_cast<const char*>(pt.data()), static_cast<std::streamsize>(plain));
    if (!out) throw Failure{kIo, "cannot write the output"};
    done += plain;
  }
  if (in.peek() != EOF) throw Failure{kCrypto, "data after the last record"};
}

int usage(const std::string& why) {
  std::cerr << "cryptobench-encfile: " << why
            << "\nusage: cryptobench-encfile encrypt|decrypt --provider P --algorithm A --in FILE "
               "--out FILE [--chunk BYTES] [--variant V]\n"
               "       cryptobench-encfile roundtrip ... --out FILE --back FILE (encrypt, then "
               "decrypt the result)\n";
  return kUsage;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage("missing encrypt or decrypt");
  const std::string mode = argv[1];
  if (mode != "encrypt" && mode != "decrypt" && mode != "roundtrip")
    return usage("unknown mode '" + mode + "'");
  std::map<std::string, std::string> opt{{"--chunk", "65536"}, {"--variant", "default"}};
  for (int i = 2; i < argc; i += 2) {
    const std::string key = argv[i];
    if (i + 1 >= argc) return usage(key + " needs a value");
    if (key != "--provider" && key != "--algorithm" && key != "--in" && key != "--out" &&
        key != "--chunk" && key != "--variant" && key != "--back")
      return usage("unknown option " + key);
    opt[key] = argv[i + 1];
  }
  for (const char* required : {"--provider", "--algorithm", "--in", "--out"})
    if (!opt.count(required)) return usage(std::string("missing ") + required);
  if ((mode == "roundtrip") != (opt.count("--back") == 1))
    return usage(mode == "roundtrip" ? "roundtrip needs --back" : "--back is for roundtrip");
  size_t chunk = 0;
  try {
    chunk = std::stoul(opt["--chunk"]);
  } catch (const std::exception&) {
  }
  if (chunk == 0 || chunk > (1u << 30)) return usage("--chunk must be 1 … 1073741824 bytes");
  try {
    const cb::AlgorithmInfo* info = cb::find_algorithm(opt["--algorithm"]);
    if (!info || (info->kind != cb::Kind::Cipher && info->kind != cb::Kind::Aead))
      throw Failure{kUnsupported, "not a cipher or AEAD: " + opt["--algorithm"]};
    if (info->block_len > 1) chunk -= chunk % info->block_len;
    cb::select_variant(opt["--provider"], opt["--variant"]);
    cb::Provider* p = cb::get_provider(opt["--provider"]);
    if (!p) throw Failure{kUnsupported, "unknown provider " + opt["--provider"]};
    const auto algs = p->algorithms();
    if (std::find(algs.begin(), algs.end(), info->name) == algs.end())
      throw Failure{kUnsupported, opt["--provider"] + " does not offer " + info->name};
    std::ifstream in(opt["--in"], std::ios::binary);
    if (!in) throw Failure{kIo, "cannot open " + opt["--in"]};
    std::ofstream out(opt["--out"], std::ios::binary | std::ios::trunc);
    if (!out) throw Failure{kIo, "cannot create " + opt["--out"]};
    if (mode == "decrypt") {
      decrypt(*p, *info, in, out);
    } else {
      in.seekg(0, std::ios::end);
      const auto total = static_cast<uint64_t>(in.tellg());
      in.seekg(0);
      encrypt(*p, *info, in, out, chunk, total);
    }
    out.close();
    if (!out) throw Failure{kIo, "cannot write " + opt["--out"]};
    if (mode == "roundtrip") {  // the same process decrypts what it has just written
      std::ifstream ct(opt["--out"], std::ios::binary);
      if (!ct) throw Failure{kIo, "cannot open " + opt["--out"]};
      std::ofstream back(opt["--back"], std::ios::binary | std::ios::trunc);
      if (!back) throw Failure{kIo, "cannot create " + opt["--back"]};
      decrypt(*p, *info, ct, back);
      back.close();
      if (!back) throw Failure{kIo, "cannot write " + opt["--back"]};
    }
  } catch (const Failure& f) {
    std::cerr << "cryptobench-encfile: " << f.message << "\n";
    return f.status;
  } catch (const cb::Unsupported& e) {
    std::cerr << "cryptobench-encfile: " << e.what() << "\n";
    return kUnsupported;
  } catch (const std::exception& e) {
    std::cerr << "cryptobench-encfile: " << e.what() << "\n";
    return kCrypto;
  }
  return 0;
}
