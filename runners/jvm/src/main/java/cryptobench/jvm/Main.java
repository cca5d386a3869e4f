package cryptobench.jvm;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import cryptobench.jvm.Types.AlgorithmInfo;
import cryptobench.jvm.Types.CryptoProvider;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * cryptobench-runner-jvm: the JVM runner (providers sunjce, bouncycastle, accp, conscrypt, nss).
 * It speaks the runner protocol of docs/protocol.md like cryptobench-native; docs/runners.md
 * describes its measurement.
 */
public final class Main {
  private Main() {}

  static final String USAGE =
      "usage: cryptobench-runner-jvm list  [--variant P=V]...\n"
          + "       cryptobench-runner-jvm serve [--variant P=V]... [--cpu N|--no-pin]\n"
          + "       cryptobench-runner-jvm bench [--quick] [--cpu N|--no-pin]   (fidelity against JMH)\n"
          + "Protocol and message formats: docs/protocol.md\n";

  static final class UsageError extends Exception {
    UsageError(String m) {
      super(m);
    }
  }

  static final class Options {
    String command = "";
    int cpu = -1;
    boolean pin = true, quick;
    String variant = "";
  }

  static Options parseArgs(String[] args) throws UsageError {
    Options o = new Options();
    if (args.length < 1) throw new UsageError("missing command (list, serve, bench)");
    o.command = args[0].equals("-h") ? "--help" : args[0];
    if (!List.of("list", "serve", "bench", "--help").contains(o.command))
      throw new UsageError("unknown command '" + o.command + "' (list, serve, bench)");
    for (int i = 1; i < args.length && !o.command.equals("--help"); i++) {
      String a = args[i];
      if (List.of("--variant", "--cpu").contains(a) && i + 1 == args.length)
        throw new UsageError(a + " needs a value");
      switch (a) {
        case "--variant" -> o.variant = variant(args[++i], o.variant);
        case "--cpu" -> {
          String v = args[++i];
          o.cpu = v.matches("[0-9]{1,4}") ? Integer.parseInt(v) : 1024;
          if (o.cpu >= 1024) throw new UsageError("--cpu takes a CPU number, got '" + v + "'");
        }
        case "--no-pin" -> o.pin = false;
        case "--quick" -> {
          if (!o.command.equals("bench")) throw new UsageError("unknown option '" + a + "' for " + o.command);
          o.quick = true;
        }
        case "-h", "--help" -> o.command = "--help";
        default -> throw new UsageError("unknown option '" + a + "' for " + o.command);
      }
    }
    return o;
  }

  /** The variant of --variant PROVIDER=VARIANT: the JVM providers share one JVM, so one. */
  static String variant(String v, String before) throws UsageError {
    int eq = v.indexOf('=');
    if (eq <= 0 || eq == v.length() - 1)
      throw new UsageError("--variant takes PROVIDER=VARIANT, got '" + v + "'");
    String p = v.substring(0, eq), variant = v.substring(eq + 1);
    if (!Providers.NAMES.contains(p)) throw new UsageError("--variant: unknown provider '" + p + "'");
    if (!Variants.known(variant))
      throw new UsageError("--variant: " + p + " has no variant '" + variant + "' (" + Variants.names() + ")");
    if (!before.isEmpty() && !before.equals(variant))
      throw new UsageError(
          "--variant: the JVM providers share one JVM, so one runner runs them all as one variant, not "
              + before + " and " + variant + "; use separate runners");
    return variant;
  }

  /**
   * Every thread of the JVM (the measuring one, the JIT compilers, the GC) onto one CPU, by
   * default the last one allowed (CPU 0 takes more interrupts), with taskset -a. Threads started
   * later inherit it. Returns the CPU, or null when not pinned.
   */
  static Integer pin(Options o) throws UsageError {
    if (!o.pin) return null;
    Set<Integer> allowed = Machine.allowedCpus();
    if (allowed.isEmpty()) return null;
    int cpu = o.cpu;
    if (cpu >= 0) {
      if (!allowed.contains(cpu)) throw new UsageError("--cpu " + cpu + ": not available to this process");
    } else {
      cpu = allowed.stream().max(Integer::compare).get();
    }
    try {
      Process p =
          new ProcessBuilder(
                  "taskset", "-a", "-c", "-p", String.valueOf(cpu), String.valueOf(ProcessHandle.current().pid()))
              .redirectErrorStream(true)
              .start();
      p.getInputStream().readAllBytes();
      if (p.waitFor() != 0) return null;
    } catch (Exception e) {
      return null; // no taskset: unpinned, and hello says so
    }
    return cpu;
  }

  static JsonObject capabilities() {
    JsonObject machine = Machine.record();
    JsonObject libs = new JsonObject();
    JsonArray provs = new JsonArray();
    Set<String> offered = new HashSet<>();
    for (CryptoProvider p : Providers.all()) {
      JsonArray algs = new JsonArray();
      for (String a : p.algorithms()) {
        offered.add(a);
        algs.add(Protocol.obj("name", a, "operations", Types.findAlgorithm(a).operations));
      }
      JsonObject o = Protocol.obj("name", p.name(), "version", p.version(), "variant", Variants.current(),
          "variants", Variants.json(), "algorithms", algs, "code_path", p.codePath(), "not_offered", p.notOffered());
      if (p.loadError() != null) o.addProperty("loading_error", p.loadError());
      provs.add(o);
      libs.addProperty(p.name(), p.version());
    }
    machine.add("libraries", libs);
    JsonArray algs = new JsonArray();
    for (AlgorithmInfo a : Types.CATALOGUE) if (offered.contains(a.name)) algs.add(a.raw);
    return Protocol.obj(
        "type", "capabilities", "schema", Protocol.SCHEMA, "runner", Protocol.RUNNER,
        "runner_version", Protocol.VERSION, "gate", Protocol.GATE, "machine", machine,
        "algorithms", algs, "providers", provs);
  }

  /** The CPUs the JVM saw when it started (its ergonomics: GC, compiler threads), before pinning. */
  static final int START_CPUS = Runtime.getRuntime().availableProcessors();

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    Options o;
    try {
      o = parseArgs(args);
      if (o.command.equals("--help")) {
        System.out.print(USAGE);
        return;
      }
      String why = Variants.check(o.variant.isEmpty() ? "default" : o.variant);
      if (why != null) throw new Types.Failed(why);
      if (o.command.equals("list")) {
        Protocol.emit(out, capabilities());
        System.exit(0);
      }
      Integer cpu = pin(o);
      if (o.command.equals("bench")) System.exit(Bench.run(out, o.quick, cpu));
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      System.exit(Protocol.serve(in, out, cpu));
    } catch (UsageError e) {
      System.err.println(Protocol.RUNNER + ": " + e.getMessage());
      System.err.print(USAGE);
      System.exit(2);
    } catch (Exception e) {
      System.err.println(Protocol.RUNNER + ": " + Types.message(e));
      System.exit(2);
    }
  }

}
