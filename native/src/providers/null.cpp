// The built-in "null" provider: the harness floor. Its one algorithm, "null", does no
// cryptography: run() reads the first and last input byte and writes their XOR as a 1-byte
// output, so a case costs what the engine adds around any operation (the virtual call, the loop,
// the buffer touch). It is compiled into every build, measured in every run, and shown next to
// the 16-byte figures; it is a baseline, never a candidate (no agreement, no recommendation).
#include "cryptobench/provider.hpp"

namespace cb {
namespace {

class NullOp : public Operation {
 public:
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    out[0] = len ? static_cast<uint8_t>(in[0] ^ in[len - 1]) : 0;
    return 1;
  }
};

class NullProvider : public Provider {
 public:
  std::string name() const override { return "null"; }
  std::string version() const override { return "built-in"; }
  std::vector<Variant> variants() const override {
    return {{"default", "the harness alone: no cryptography", {}}};
  }
  void init(const std::string&) override {}
  std::vector<std::string> algorithms() const override { return {"null"}; }
  std::unique_ptr<Operation> prepare(const std::string& algorithm, OpKind op,
                                     const Params& params) override {
    const AlgorithmInfo& info = checked_algorithm(algorithm, op);
    check_param_sizes(info, params);
    if (algorithm != "null") throw Unsupported("null offers only the null algorithm");
    return std::make_unique<NullOp>();
  }
  std::map<std::string, std::string> code_path() const override {
    return {{"note", "no library: one virtual call that touches the buffer"}};
  }
  bool baseline() const override { return true; }
};

}  // namespace

CB_REGISTER_PROVIDER("null", NullProvider);

}  // namespace cb
