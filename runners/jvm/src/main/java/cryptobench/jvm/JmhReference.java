package cryptobench.jvm;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The JMH side of the fidelity bench (Bench.java): one operation of the case the engine has open,
 * on the same prepared operation and buffers, its result returned so JMH's Blackhole consumes it.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class JmhReference {
  private Engine.OpenCase c;

  @Setup
  public void setup() {
    c = Bench.current;
  }

  @Benchmark
  public int operation() throws Exception {
    return c.op.run(c.in, 0, c.inLen, c.out, 0) ^ c.out[0];
  }
}
