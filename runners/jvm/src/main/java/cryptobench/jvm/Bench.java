package cryptobench.jvm;

import java.io.PrintStream;

final class Bench {
  private Bench() {}

  static int run(PrintStream out, boolean quick) {
    out.println("not yet");
    return 1;
  }
}
