package cryptobench.jvm;

import com.google.gson.FieldNamingPolicy;
import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonDeserializer;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.Strictness;
import com.google.gson.stream.JsonReader;
import cryptobench.jvm.Engine.OpenCase;
import cryptobench.jvm.Engine.Sample;
import cryptobench.jvm.Types.AlgorithmInfo;
import cryptobench.jvm.Types.CryptoProvider;
import java.io.BufferedReader;
import java.io.PrintStream;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The runner protocol (docs/protocol.md): case parsing with the native runner's checks and
 * messages, and the serve loop (runners/go/protocol.go).
 */
final class Protocol {
  private Protocol() {}

  static final int SCHEMA = 1;
  static final String RUNNER = "cryptobench-runner-jvm", VERSION = "0.1.0";
  /** This runner is gated by the coordinator (docs/protocol.md, "Who gates"). */
  static final String GATE = "coordinator";

  static final String COMMANDS = "open, sample, close, steps, leak, quit";
  static final Gson GSON = new GsonBuilder().disableHtmlEscaping().serializeNulls().create();

  /** A malformed request or spec: an `error` reply, the runner carries on. */
  static final class SpecError extends Exception {
    SpecError(String m) {
      super(m);
    }
  }

  static JsonElement parseJson(String line) throws SpecError {
    try {
      JsonReader r = new JsonReader(new StringReader(line));
      r.setStrictness(Strictness.STRICT);
      JsonElement e = JsonParser.parseReader(r);
      if (r.peek() != com.google.gson.stream.JsonToken.END_DOCUMENT)
        throw new SpecError("request is not valid JSON: trailing data after the JSON value");
      return e;
    } catch (SpecError e) {
      throw e;
    } catch (Exception e) {
      String m = e.getMessage() == null ? e.toString() : e.getMessage();
      // An error reply is one line (docs/protocol.schema.json): Gson appends a second line with
      // its troubleshooting address.
      throw new SpecError("request is not valid JSON: " + m.lines().findFirst().orElse(m));
    }
  }

  /** A field's value as an unsigned 64-bit integer, or a SpecError naming it. */
  static long uint(JsonElement v, String where) throws SpecError {
    String s = v.isJsonPrimitive() && v.getAsJsonPrimitive().isNumber() ? v.getAsString() : "-";
    try {
      if (s.matches("[0-9]+")) return Long.parseUnsignedLong(s);
    } catch (NumberFormatException e) {
      // out of range: refused below
    }
    throw new SpecError(where + ": must be a non-negative integer");
  }

  /** A request's integer field {@code name}, from 1 to {@code most} ({@code fallback} when absent). */
  static int count(JsonObject req, String name, int fallback, int most) throws SpecError {
    long n = req.has(name) ? uint(req.get(name), name) : fallback;
    if (n < 1 || n > most) throw new SpecError(name + ": must be an integer from 1 to " + most);
    return (int) n;
  }

  /**
   * A case specification, a catalogue entry or an operation's parameters decoded over their
   * defaults: fields in snake case, byte strings in hex.
   */
  static final Gson SPEC =
      new GsonBuilder()
          .setFieldNamingPolicy(FieldNamingPolicy.LOWER_CASE_WITH_UNDERSCORES)
          .registerTypeAdapter(byte[].class, (JsonDeserializer<byte[]>) (v, type, context) -> Steps.unhex(v))
          .create();

  /**
   * The case specification over its defaults. The coordinator checked every value against the
   * catalogue before sending it (plan.py): this resolves only what the runner needs, a known
   * provider, algorithm and operation, and what key_setup (this runner's own field) takes.
   */
  static CaseSpec parseCase(JsonElement raw, String where) throws SpecError {
    if (raw == null || !raw.isJsonObject()) throw new SpecError(where + ": must be an object");
    JsonObject m = raw.getAsJsonObject().deepCopy();
    JsonElement seed = m.remove("seed"); // unsigned 64-bit: Gson reads signed longs
    CaseSpec s;
    try {
      s = SPEC.fromJson(m, CaseSpec.class);
    } catch (RuntimeException e) {
      throw new SpecError(where + ": " + e.getMessage());
    }
    if (seed != null) s.seed = uint(seed, where + ".seed");
    s.cost = new TreeMap<>(s.cost);
    AlgorithmInfo info = Types.findAlgorithm(s.algorithm);
    String why =
        !Providers.NAMES.contains(s.provider)
            ? "provider: unknown provider '" + s.provider + "' (this runner has: "
                + String.join(", ", Providers.NAMES) + ")"
            : info == null ? "algorithm: unknown algorithm '" + s.algorithm + "'"
            : !info.hasOp(s.operation) ? "operation: '" + s.operation + "' does not apply to " + s.algorithm
            : s.keySetup && !info.kind.equals("cipher") && !info.kind.equals("aead")
                ? "key_setup: applies to ciphers and AEADs only, not to " + s.algorithm
            : s.keySetup && s.size != 0 ? "size: a key_setup case processes no data: size must be 0"
            : null;
    if (why != null) throw new SpecError(where + "." + why);
    return s;
  }

  static void emit(PrintStream out, JsonObject m) {
    out.print(GSON.toJson(m));
    out.print('\n');
    out.flush();
  }

  static JsonObject obj(Object... kv) {
    JsonObject o = new JsonObject();
    for (int i = 0; i < kv.length; i += 2)
      o.add((String) kv[i], kv[i + 1] instanceof JsonElement e ? e : GSON.toJsonTree(kv[i + 1]));
    return o;
  }

  static JsonObject caseMessage(OpenCase c) {
    return obj("type", "case", "id", c.spec.id, "status", c.status, "reason", c.reason,
        "gate", new JsonObject(), "iterations", c.iterations, "calibration_ns", c.calibrationNs);
  }

  static JsonObject resultMessage(OpenCase c) {
    CaseSpec s = c.spec;
    JsonObject gate = new JsonObject();
    JsonObject r = obj("type", "result", "id", s.id, "status", c.status, "reason", c.reason,
        "gate", gate, "provider", s.provider, "variant", s.variant, "operation", s.operation,
        "algorithm", s.algorithm, "size", s.size, "input", s.input, "align_offset", s.alignOffset,
        "aad_bytes", s.aadBytes, "cost", s.cost);
    if (s.keySetup) r.addProperty("key_setup", true);
    if (c.status.equals(Engine.OK)) {
      r.add("samples", GSON.toJsonTree(c.samples));
      // The counter answers -1 where the JVM does not count allocations: not measured, not 0.
      boolean counted = Engine.allocatedBytes() >= 0;
      r.add("heap", obj("bytes_per_op", counted ? c.bytesPerOp : null,
          "prepare_bytes", counted ? c.prepareBytes : null, "counter", "ThreadMXBean.getCurrentThreadAllocatedBytes",
          "rss_before_kb", c.resident.beforeKb, "rss_peak_kb", c.resident.peakKb));
      r.addProperty("rewarms", c.rewarms);
    }
    if (!c.timedCheck.isEmpty()) gate.addProperty("timed", c.timedCheck);
    r.addProperty("inplace", c.inplace);
    // Out of place the output is another array: the JVM places (and moves) arrays itself, so
    // neither the distance between them nor the page offset is known.
    JsonObject layout = obj("inplace", c.inplace, "distance", c.inplace ? 0 : null, "in_page_offset", null);
    if (!c.layoutNote.isEmpty()) layout.addProperty("note", c.layoutNote);
    r.add("layout", layout);
    // result.jvm (docs/protocol.md): the JDK, the warm-up until steady, GC during the samples.
    r.add("jvm", obj("jdk", System.getProperty("java.runtime.version"), "vm", System.getProperty("java.vm.name"),
        "warmup_iterations", c.warmupIterations, "warmup_ns", c.warmupNs, "steady", c.steady,
        "gc_count", c.gcCount, "gc_ms", c.gcMs));
    r.addProperty("max_rss_kb", Rss.maxRssKb());
    return r;
  }

  static JsonObject errorMessage(String text) {
    return obj("type", "error", "message", text);
  }

  static JsonObject hello(Integer cpu) {
    JsonObject variants = new JsonObject();
    for (String n : Providers.NAMES) variants.addProperty(n, Variants.current());
    return obj("type", "hello", "schema", SCHEMA, "runner", RUNNER, "runner_version", VERSION,
        "pid", ProcessHandle.current().pid(), "cpu", cpu, "variants", variants,
        "jdk", System.getProperty("java.runtime.version"), "gate", GATE);
  }

  static int serve(BufferedReader in, PrintStream out, Integer cpu) throws Exception {
    emit(out, hello(cpu));
    Map<String, OpenCase> open = new HashMap<>();
    String line;
    while ((line = in.readLine()) != null) {
      line = line.strip();
      if (line.isEmpty()) continue;
      JsonObject reply;
      try {
        JsonElement v = parseJson(line);
        JsonObject req = v.isJsonObject() ? v.getAsJsonObject() : null;
        boolean named = req != null && req.has("cmd") && req.get("cmd").isJsonPrimitive();
        String cmd = named ? req.get("cmd").getAsString() : "";
        if (cmd.isEmpty()) throw new SpecError("cmd: missing (" + COMMANDS + ")");
        if (cmd.equals("quit")) break;
        reply = serveOne(cmd, req, open);
      } catch (SpecError e) {
        reply = errorMessage(e.getMessage());
      }
      emit(out, reply);
    }
    // The last line; the coordinator counts its cases' outcomes itself.
    emit(out, obj("type", "done", "max_rss_kb", Rss.maxRssKb()));
    return 0;
  }

  static JsonObject serveOne(String cmd, JsonObject req, Map<String, OpenCase> open) throws SpecError {
    switch (cmd) {
      case "open":
        {
          if (!req.has("case")) throw new SpecError("case: missing");
          CaseSpec spec = parseCase(req.get("case"), "case");
          if (open.containsKey(spec.id)) throw new SpecError("case.id: '" + spec.id + "' is already open");
          OpenCase c = Engine.openCase(spec, req.get("params"));
          if (c.status.equals(Engine.OK)) open.put(spec.id, c);
          return caseMessage(c);
        }
      case "steps":
        return steps(req);
      case "leak":
        return Leak.request(req);
      case "sample":
      case "close":
        break;
      default:
        throw new SpecError("cmd: unknown command '" + cmd + "' (" + COMMANDS + ")");
    }
    if (!req.has("id") || !req.get("id").isJsonPrimitive()) throw new SpecError("id: missing");
    String id = req.get("id").getAsString();
    OpenCase c = open.get(id);
    if (c == null) throw new SpecError("id: no open case '" + id + "'");
    if (cmd.equals("close")) {
      Engine.checkTimedInstance(c);
      open.remove(id);
      return resultMessage(c);
    }
    int count = count(req, "count", 1, 100_000);
    List<Sample> batch = new ArrayList<>();
    for (long k = 0; k < count; k++) {
      try {
        batch.add(Engine.sample(c));
      } catch (OutOfMemoryError e) {
        c.fail("the JVM ran out of heap while sampling: " + e.getMessage());
      } catch (Exception | LinkageError e) {
        c.fail("library error while sampling: " + Types.message(e));
      }
      if (!c.status.equals(Engine.OK)) { // a library error, or the check of the timed instance failed
        open.remove(id);
        return resultMessage(c);
      }
    }
    return obj("type", "samples", "id", id, "samples", batch);
  }

  /** Runs the coordinator's known-answer steps on the case's provider (docs/protocol.md). */
  static JsonObject steps(JsonObject req) throws SpecError {
    CaseSpec spec = parseCase(req.get("case"), "case");
    JsonObject reply = obj("type", "steps", "id", spec.id, "status", Engine.OK, "reason", "");
    CryptoProvider p;
    try {
      p = Engine.resolve(spec);
    } catch (Types.Unsupported u) {
      return Engine.refused(reply, u);
    }
    byte[] input = Engine.caseInput(spec, Types.findAlgorithm(spec.algorithm));
    reply.add("input", Steps.digest(input));
    reply.add("results", Steps.run(p, spec.algorithm, req.get("steps"), input));
    return reply;
  }
}
