"""`cryptobench reproduce 001`: the 2008 comparison of Java crypto providers, repeated over
today's JCA providers (the JVM runner) and the fastest native library, by security level."""
