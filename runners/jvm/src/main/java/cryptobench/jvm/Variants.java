package cryptobench.jvm;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

/**
 * Variants of every JVM provider: the JDK it runs on. `default` is the JDK the runner was built
 * with (Debian's 17); `jdk25` is Temurin 25 where it is installed. A variant is a property of
 * the process: the wrapper script (build.sh writes it) re-executes the runner under the variant's
 * java before any class loads, as the Go runner re-executes itself with GODEBUG, and passes
 * -Dcryptobench.variant; this class checks the JVM it runs on is the one the variant names.
 */
final class Variants {
  private Variants() {}

  static String current() {
    return System.getProperty("cryptobench.variant", "default");
  }

  /** The JDK of the jdk25 variant, or null when it is not installed (the wrapper knows). */
  static String jdk25Home() {
    String h = System.getProperty("cryptobench.jdk25", "");
    return h.isEmpty() ? null : h;
  }

  static boolean known(String name) {
    return name.equals("default") || (name.equals("jdk25") && jdk25Home() != null);
  }

  static String names() {
    return jdk25Home() != null ? "default, jdk25" : "default";
  }

  /** Null when this JVM runs the requested variant, else why not. */
  static String check(String requested) {
    int feature = Runtime.version().feature();
    if (!requested.equals(current()))
      return "variant " + requested + ": this JVM was started for '" + current()
          + "'; start the runner through its wrapper (cryptobench-runner-jvm)";
    if (requested.equals("jdk25") && feature != 25)
      return "variant jdk25: this JVM is Java " + Runtime.version() + ", not 25";
    return null;
  }

  static JsonArray json() {
    JsonArray out = new JsonArray();
    String jdk = System.getProperty("cryptobench.jdk", "java " + Runtime.version());
    String[][] variants = {{"default", "the JDK the runner was built with (" + jdk + ")"},
        {"jdk25", "the same providers on Java 25 (" + jdk25Home() + ")"}};
    for (String[] v : variants) // the wrapper picks the JVM: no environment switch
      if (known(v[0])) out.add(Protocol.obj("name", v[0], "description", v[1], "env", new JsonObject()));
    return out;
  }
}
