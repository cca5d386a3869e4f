package cryptobench.jvm;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The JMH side of the fidelity bench (Bench.java), run in a JVM of JMH's own (a fork): the case
 * named by {@code caseId} is opened there exactly as the engine opens it (the same spec, gate,
 * prepared operation and buffers), and JMH times one operation per call, its result returned so
 * JMH's Blackhole consumes it.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class JmhReference {
  @Param({"gcm", "sha256", "ed25519"})
  public String caseId;

  private Engine.OpenCase c;

  @Setup(Level.Trial)
  public void setup() {
    CaseSpec spec = Bench.CASES.stream().filter(s -> s.id.equals(caseId)).findFirst().orElseThrow();
    try {
      c = Engine.openCase(spec, Bench.params(spec));
    } catch (Exception e) {
      throw new IllegalStateException(caseId + ": " + e, e);
    }
    if (!c.status.equals(Engine.OK))
      throw new IllegalStateException(caseId + ": " + c.status + " " + c.reason);
  }

  @Benchmark
  public int operation() throws Exception {
    return c.op.run(c.in, 0, c.inLen, c.out, 0) ^ c.out[0];
  }
}
