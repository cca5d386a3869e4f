package cryptobench.jvm;

import cryptobench.jvm.Engine.OpenCase;
import cryptobench.jvm.Types.AlgorithmInfo;
import cryptobench.jvm.Types.CryptoProvider;
import cryptobench.jvm.Types.Params;
import cryptobench.jvm.Types.Unsupported;
import java.util.List;
import java.util.Map;

/** Opening public-key and KDF cases (engine.cpp, open_public_key; runners/go/engine_pk.go). */
final class EnginePk {
  private EnginePk() {}

  static final Map<String, List<String>> KDF_COST_NAMES =
      Map.of(
          "pbkdf2-sha1", List.of("iterations"),
          "pbkdf2-sha256", List.of("iterations"),
          "pbkdf2-sha512", List.of("iterations"),
          "scrypt", List.of("N", "r", "p"),
          "argon2id", List.of("t", "m", "p"),
          "hkdf-sha256", List.of());

  /**
   * The key material of a public-key or KDF case: the test key (and the peer's public part for
   * key agreement), or for a KDF the salt, info and cost.
   */
  static Params caseParams(AlgorithmInfo info, CaseSpec spec) throws Exception {
    ByteStream stream = new ByteStream(spec.seed);
    Params params = new Params();
    if (info.kind.equals("kdf")) {
      List<String> required = KDF_COST_NAMES.get(info.name);
      if (required != null) {
        for (String name : required)
          if (!spec.cost.containsKey(name))
            throw new Types.Failed(info.name + " needs the cost parameter '" + name + "'");
        for (String name : spec.cost.keySet())
          if (!required.contains(name))
            throw new Types.Failed(info.name + " has no cost parameter '" + name + "'");
      }
      boolean hkdf = info.name.equals("hkdf-sha256");
      params.salt = stream.bytes(hkdf ? 32 : 16);
      if (hkdf) params.info = stream.bytes(16);
      params.outLen = info.outputBytes;
      params.cost = spec.cost;
      return params;
    }
    params.keypair = Vectors.testKey(info.keyType);
    if (info.kind.equals("key-agreement"))
      params.peer = Vectors.publicParts(info, Vectors.testKey(info.keyType + "-peer"));
    return params;
  }

  static void openPublicKey(OpenCase c, CryptoProvider p, AlgorithmInfo info) throws Exception {
    String op = c.spec.operation;
    boolean takesMessage = !op.equals("keygen") && !info.kind.equals("key-agreement");
    if (!takesMessage && c.spec.size != 0)
      throw new Unsupported(op + " " + info.name + " takes no input: size must be 0");
    if (info.kind.equals("pk-encryption") && c.spec.size + 66 > info.outputBytes)
      throw new Unsupported(info.name + " encrypts at most " + (info.outputBytes - 66) + " bytes");
    if (!info.kind.equals("kdf") && !c.spec.cost.isEmpty())
      throw new Unsupported(info.name + " takes no cost parameters");
    Params params = caseParams(info, c.spec);
    int size = takesMessage ? (int) c.spec.size : 0;
    byte[] message = Engine.makeInput(c.spec.input, size, c.spec.seed);
    c.gate = GatePk.runPkGate(p, info, op, message, params);
    if (!c.gate.ok) throw new Types.Failed(c.gate.reason);
    byte[] input = message;
    switch (op) {
      case "verify":
        params.signature = GatePk.runOne(p, info.name, "sign", params, message);
        params.keypair = Vectors.publicParts(info, params.keypair);
        break;
      case "encrypt":
        params.keypair = Vectors.publicParts(info, params.keypair);
        break;
      case "decrypt":
        {
          Params pub = params.copy();
          pub.keypair = Vectors.publicParts(info, params.keypair);
          input = GatePk.runOne(p, info.name, "encrypt", pub, message);
          break;
        }
      default:
    }
    if (op.equals("decrypt")) {
      c.expected = message;
      c.refLen = message.length;
      c.deterministic = true;
    } else {
      Engine.computeReference(c, p, info, params, input);
    }
    Engine.allocateBuffers(c, input, 1024 + Engine.SLACK, false);
    Engine.measureHeapAndCalibrate(c, p, info, params);
  }
}
