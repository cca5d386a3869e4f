// RSA private keys with their primes in either order. PKCS #1 does not order p and q, and Crypto++
// and Nettle generate p < q about half the time; a provider must sign and decrypt correctly with
// such a key as with any other. libgcrypt's own CRT step needs its p < its q (gcrypt.cpp); before
// the adapter ordered the primes for it, the agreement test's rsa-*-keygen case failed now and then
// ("gcrypt rejects cryptopp/nettle": a key with p < q signed wrongly for some messages).
//
// The key below has p < q and unbalanced primes (384 and 640 bits, a valid 1024-bit modulus): the
// wrong CRT step then goes wrong for practically every message, so the test does not depend on
// libgcrypt's random blinding.
#include <gtest/gtest.h>

#include <algorithm>

#include "cryptobench/gate.hpp"
#include "cryptobench/hexutil.hpp"
#include "cryptobench/provider.hpp"

namespace cb {
namespace {

KeyParts key_with_p_below_q() {
  const std::pair<const char*, const char*> parts[] = {
      {"n",
       "b1379d9bbfd8a7941b8b19094f12a0153be81b65d557e9d433eba6bbf7a30322ef66f10f011d7fcd9e71cda2"
       "084e597bece82378f544a462494802d90333c10252b6b4c8f1b4ace1d7931310703cc6496fe26b8adea70701"
       "76b117be4140741ae90004a868c823c9eab2f9048e0f8bd2d1d18d6e0892a0ea087c6c123efdfd67"},
      {"e", "010001"},
      {"d",
       "718256f020b46bb9e0de7a5dcd08f80241c9cc6ab078cbebc089cad510ab97e1b387b31552388bd8af08e396"
       "4a4dace0c056a5aedb2fa06f67365d098ffceb17eea333f4e7164b6f20076a6712b6edd4ebed3f2d64fa0f10"
       "dfc1b515265a9734f342d496a876ca5d289f2c97955fc04257aba59159ab6461e7af52db3e4c1729"},
      {"p",
       "dbdebd6c25a42c91843f9573cf70dfac561080b3d2c1af81d4e44cd4540a03dec759bd9f02fdfa2021fb4bb3"
       "716b613b"},
      {"q",
       "ce569a1ae4f8440e84b1ef9080114f057ef9f20b64dd2f5bd440eafb3ba31c87cf4911b32491a9d50066452f"
       "156cd2769f095995eae0ca5b72c0f312d999de77966fc10b463897d9f84186f50741d1c5"},
      {"dp",
       "bc75494b9f5fff4ba35d94ceb569fc6e8d3e8bf2969da9bfd128f6a9b076fd26411d2ca9553938e1bdfed5be"
       "336364ed"},
      {"dq",
       "4c875c42cb57b54e393311aa638587ec7eeacf3620a3d4b3d7667880d3deac6f469750444434ee6b7ce97191"
       "83fdc7958d68d75c3e303f7d69735cf449d6c2e751d9831cde5f911a9bf419ccf973150d"},
      {"qinv",
       "2595c008039167ab041d03d1e0512ebb190fbff3a35831b0474f2543ede8cec32f0ba4b1495df982869390e8"
       "0ca59fce"},
  };
  KeyParts key;
  for (const auto& [name, hex] : parts) key[name] = from_hex(hex);
  return key;
}

KeyParts public_only(const KeyParts& key) { return {{"n", key.at("n")}, {"e", key.at("e")}}; }

Bytes run(Provider& p, const std::string& alg, OpKind op, const KeyParts& key, const Bytes& in) {
  Params params;
  params.keypair = key;
  Bytes out(in.size() + 1024);
  out.resize(p.prepare(alg, op, params)->run(in.data(), in.size(), out.data()));
  return out;
}

std::vector<std::string> offering(const std::string& alg) {
  std::vector<std::string> out;
  for (const auto& name : provider_names()) {
    if (!is_reference_provider(name) || !unusable_reason(name).empty()) continue;
    const auto algs = get_provider(name)->algorithms();
    if (std::find(algs.begin(), algs.end(), alg) != algs.end()) out.push_back(name);
  }
  return out;
}

// PKCS #1 v1.5 signatures are deterministic: every provider makes the same one.
TEST(RsaKeyOrder, EveryProviderSignsTheSameWithPBelowQ) {
  const std::string alg = "rsa-1024-pkcs1-sha256";
  const auto names = offering(alg);
  if (names.size() < 2) GTEST_SKIP() << "fewer than two providers offer " << alg;
  const KeyParts key = key_with_p_below_q();
  const Bytes msg(32, 0x5a);
  std::map<std::string, std::string> sigs;
  for (const auto& name : names)
    sigs[name] = to_hex(run(*get_provider(name), alg, OpKind::Sign, key, msg));
  for (const auto& [name, sig] : sigs)
    EXPECT_EQ(sig, sigs.begin()->second) << name << " vs " << sigs.begin()->first;
}

TEST(RsaKeyOrder, EveryProviderDecryptsWithPBelowQ) {
  const std::string alg = "rsa-1024-oaep-sha256";
  const auto names = offering(alg);
  if (names.empty()) GTEST_SKIP() << "no provider offers " << alg;
  const KeyParts key = key_with_p_below_q();
  const Bytes msg(32, 0xa5);
  for (const auto& name : names) {
    Provider& p = *get_provider(name);
    const Bytes ct = run(p, alg, OpKind::Encrypt, public_only(key), msg);
    Bytes pt;
    try {
      pt = run(p, alg, OpKind::Decrypt, key, ct);
    } catch (const std::exception& e) {
      ADD_FAILURE() << name << ": " << e.what();
      continue;
    }
    EXPECT_EQ(to_hex(pt), to_hex(msg)) << name;
  }
}

}  // namespace
}  // namespace cb
