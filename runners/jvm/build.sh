#!/usr/bin/env bash
# Builds the JVM runner (runners/jvm, a Maven project with pinned versions) and writes the wrapper
# cryptobench-runner-jvm into the directory $1 (make setup passes .venv/bin).
# Never fails the caller: without a JDK, Maven or Maven Central it says why, removes any old
# wrapper and exits 0, so the JVM providers are absent and everything else still works. On CI
# (CI=true) it exits 1 instead: there every runner must build.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dest=$(mkdir -p "$1" && cd "$1" && pwd)
target=$dest/cryptobench-runner-jvm

absent() {
  echo "jvm runner: not built: $* (the providers sunjce, bouncycastle, accp, conscrypt and nss are absent)" >&2
  rm -f "$target"
  # On CI (CI=true, as .ci/run sets it) every runner must build: fail the setup instead.
  [ "${CI:-}" = true ] && exit 1
  exit 0
}

# A JDK (javac), Maven, and NSS's softoken for the nss provider, from Debian when missing.
missing=()
command -v javac >/dev/null 2>&1 || missing+=(default-jdk-headless)
command -v mvn >/dev/null 2>&1 || missing+=(maven)
dpkg-query -W -f='${Status}' libnss3 2>/dev/null | grep -q 'install ok installed' || missing+=(libnss3)
if [ ${#missing[@]} -gt 0 ]; then
  echo "jvm runner: installing ${missing[*]} from Debian" >&2
  sudo=$([ "$(id -u)" = 0 ] || echo sudo)
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" \
    >/dev/null 2>&1 || echo "jvm runner: apt-get install ${missing[*]} failed" >&2
fi
command -v javac >/dev/null 2>&1 || absent "no JDK (javac), and apt-get install default-jdk-headless failed"
command -v mvn >/dev/null 2>&1 || absent "no Maven, and apt-get install maven failed"

# The JDK Maven builds with is the default variant's; Temurin 25, where installed, is `jdk25`.
java_home=$(cd "$(dirname "$(readlink -f "$(command -v javac)")")/.." && pwd)
jdk25=
for j in /usr/lib/jvm/temurin-25-jdk-* /usr/lib/jvm/java-25-*; do
  if [ -x "$j/bin/java" ] && "$j/bin/java" -version 2>&1 | grep -q 'version "25'; then jdk25=$j; break; fi
done

# Every version is pinned in pom.xml; the first build resolves them from Maven Central into
# ~/.m2, later builds run offline (-o) and fall back to online only when something is missing.
cd "$here" || absent "no $here"
build() { JAVA_HOME=$java_home nice mvn -B -q "$@" package -DskipTests 2>&1; }
if ! out=$(build -o) && ! out=$(build); then
  absent "mvn package failed (is Maven Central reachable?): $(echo "$out" | grep -m3 ERROR | tr '\n' ' ')"
fi
jar=$here/target/cryptobench-runner-jvm.jar
[ -f "$jar" ] && [ -f "$here/target/classpath.txt" ] || absent "the build left no jar or classpath"

cat >"$target.tmp" <<WRAPPER
#!/bin/sh
# cryptobench-runner-jvm (written by runners/jvm/build.sh): the JVM runner, run with the jars Maven
# resolved. A variant is the JDK the providers run on: --variant P=jdk25 re-executes the runner on
# Temurin 25 (the Go runner re-executes itself with GODEBUG the same way); Main checks the JVM.
java=$java_home/bin/java
variant=default
prev=
for a in "\$@"; do
  if [ "\$prev" = --variant ]; then
    case "\$a" in *=jdk25) variant=jdk25 ;; esac
  fi
  prev=\$a
done
[ "\$variant" = jdk25 ] && [ -n "$jdk25" ] && java=$jdk25/bin/java
exec "\$java" -XX:-UsePerfData -Dcryptobench.variant=\$variant -Dcryptobench.jdk25="$jdk25" \\
  -Dcryptobench.jdk="$("$java_home/bin/java" -version 2>&1 | head -1 | tr -d '"')" \\
  -Dcryptobench.vectors="$root/vectors" \\
  -cp "$jar:$(cat "$here/target/classpath.txt")" cryptobench.jvm.Main "\$@"
WRAPPER
chmod +x "$target.tmp" && mv "$target.tmp" "$target"
"$target" list >/dev/null 2>&1 || absent "the built runner fails its list command"
echo "jvm runner: built $target ($("$java_home/bin/java" -version 2>&1 | head -1)${jdk25:+; jdk25 variant on $jdk25})"
