package cryptobench.jvm;

/** splitmix64, byte for byte the native ByteStream (hexutil.cpp) and the Go runner's. */
final class ByteStream {
  private long state;

  ByteStream(long seed) {
    state = seed;
  }

  long next() {
    state += 0x9e3779b97f4a7c15L;
    long z = state;
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  void fill(byte[] out) {
    for (int i = 0; i < out.length; ) {
      long v = next();
      for (int k = 0; k < 8 && i < out.length; k++, i++) out[i] = (byte) (v >>> (8 * k));
    }
  }

  byte[] bytes(int n) {
    byte[] out = new byte[n];
    fill(out);
    return out;
  }
}
