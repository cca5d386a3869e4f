package cryptobench.jvm;

import java.util.Map;
import java.util.TreeMap;

/** docs/protocol.md, "Case specification". */
final class CaseSpec {
  String id = "", provider = "", variant = "", operation = "", algorithm = "", input = "random";
  long size, alignOffset, aadBytes, samples = 11, heapIterations = 8, seed = 1;
  double targetSampleMs = 2, warmupMs = 20;
  boolean inplace = true;
  /** Additive (docs/protocol.md): a cipher or AEAD case that times Cipher.init alone. */
  boolean keySetup;
  Map<String, Long> cost = new TreeMap<>();
}
