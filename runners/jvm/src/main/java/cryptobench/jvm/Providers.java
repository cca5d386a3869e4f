package cryptobench.jvm;

import com.sun.management.HotSpotDiagnosticMXBean;
import cryptobench.jvm.Types.CryptoProvider;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Provider;
import java.security.Security;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The JVM runner's providers: the JDK's own (sunjce), Bouncy Castle, ACCP, Conscrypt and NSS
 * through SunPKCS11. Each is loaded on first use; one that cannot load (its jar absent, its
 * native library refused) is listed with its loading error and offers nothing.
 */
final class Providers {
  private Providers() {}

  static final List<String> NAMES = List.of("sunjce", "bouncycastle", "accp", "conscrypt", "nss");
  private static final Map<String, CryptoProvider> LOADED = new LinkedHashMap<>();

  static CryptoProvider byName(String name) {
    if (!NAMES.contains(name)) return null;
    return LOADED.computeIfAbsent(name, Providers::load);
  }

  static List<CryptoProvider> all() {
    List<CryptoProvider> out = new ArrayList<>();
    for (String n : NAMES) out.add(byName(n));
    return out;
  }

  interface Loader {
    List<Provider> load() throws Throwable;
  }

  private static CryptoProvider make(
      String name, Loader loader, Supplier<String> version, Supplier<Map<String, String>> path) {
    List<Provider> jca;
    try {
      jca = loader.load();
    } catch (Throwable e) {
      String why = Types.message(e);
      return new JcaProvider(name, List.of(), why, version, path);
    }
    return new JcaProvider(name, jca, null, version, path);
  }

  private static CryptoProvider load(String name) {
    switch (name) {
      case "sunjce":
        return make(
            name,
            () -> {
              List<Provider> out = new ArrayList<>();
              for (String p : new String[] {"SunJCE", "SUN", "SunRsaSign", "SunEC"}) {
                Provider got = Security.getProvider(p);
                if (got == null) throw new IllegalStateException("the JDK has no provider " + p);
                out.add(got);
              }
              return out;
            },
            () -> "JDK " + System.getProperty("java.runtime.version"),
            Providers::jvmPath);
      case "bouncycastle":
        return make(
            name,
            () -> List.of(new org.bouncycastle.jce.provider.BouncyCastleProvider()),
            Providers::bcVersion,
            Providers::jvmPath);
      case "accp":
        return make(name, Providers::loadAccp, Providers::accpVersion, Providers::accpPath);
      case "conscrypt":
        return make(
            name,
            () -> {
              org.conscrypt.Conscrypt.checkAvailability();
              return List.of(org.conscrypt.Conscrypt.newProvider());
            },
            () -> {
              org.conscrypt.Conscrypt.Version v = org.conscrypt.Conscrypt.version();
              return "Conscrypt " + v.major() + "." + v.minor() + "." + v.patch() + " (BoringSSL)";
            },
            Providers::jvmPath);
      case "nss":
        return make(name, Providers::loadNss, Providers::nssVersion, Providers::jvmPath);
      default:
        return null;
    }
  }

  private static String bcVersion() {
    return "Bouncy Castle "
        + new org.bouncycastle.jce.provider.BouncyCastleProvider().getVersionStr();
  }

  private static List<Provider> loadAccp() {
    com.amazon.corretto.crypto.provider.AmazonCorrettoCryptoProvider p =
        com.amazon.corretto.crypto.provider.AmazonCorrettoCryptoProvider.INSTANCE;
    Throwable err = p.getLoadingError();
    if (err != null) throw new IllegalStateException("ACCP loading error: " + Types.message(err));
    p.assertHealthy();
    return List.of(p);
  }

  private static String accpVersion() {
    return "ACCP " + com.amazon.corretto.crypto.provider.AmazonCorrettoCryptoProvider.INSTANCE.getVersionStr();
  }

  private static Map<String, String> accpPath() {
    Map<String, String> out = jvmPath();
    com.amazon.corretto.crypto.provider.AmazonCorrettoCryptoProvider p =
        com.amazon.corretto.crypto.provider.AmazonCorrettoCryptoProvider.INSTANCE;
    out.put("accp_fips", String.valueOf(p.isFips()));
    return out;
  }

  /** NSS's softoken directory: where libsoftokn3.so is (Debian's libnss3). */
  static String nssDirectory() {
    for (String d :
        new String[] {"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"})
      if (Files.exists(Path.of(d, "libsoftokn3.so"))) return d;
    return null;
  }

  /**
   * SunPKCS11 on NSS's softoken without a database (nssDbMode=noDb): keys live in the session
   * only, as the test keys and generated keys here do.
   */
  private static List<Provider> loadNss() {
    String dir = nssDirectory();
    if (dir == null) throw new IllegalStateException("no libsoftokn3.so (install libnss3)");
    Provider base = Security.getProvider("SunPKCS11");
    if (base == null) throw new IllegalStateException("this JDK has no SunPKCS11 provider");
    String config = "--name=NSS\nnssLibraryDirectory=" + dir + "\nnssDbMode=noDb\nattributes=compatibility\n";
    Provider nss = base.configure(config);
    return List.of(nss);
  }

  private static String nssVersion() {
    try {
      Process p =
          new ProcessBuilder("dpkg-query", "-W", "-f=${Version}", "libnss3")
              .redirectErrorStream(true)
              .start();
      String v = new String(p.getInputStream().readAllBytes()).trim();
      if (p.waitFor() == 0 && !v.isEmpty()) return "NSS " + v + " (SunPKCS11, JDK " + Runtime.version() + ")";
    } catch (Exception ignored) {
      // not Debian: the version is unknown
    }
    return "NSS (SunPKCS11, JDK " + Runtime.version() + ")";
  }

  /** What decides a JCA provider's code path on HotSpot: the JDK and its intrinsics. */
  static Map<String, String> jvmPath() {
    Map<String, String> out = new LinkedHashMap<>();
    out.put("jdk", System.getProperty("java.runtime.version"));
    out.put("vm", System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"));
    HotSpotDiagnosticMXBean hs = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
    for (String flag :
        new String[] {
          "UseAES", "UseAESIntrinsics", "UseAESCTRIntrinsics", "UseGHASHIntrinsics",
          "UseSHA1Intrinsics", "UseSHA256Intrinsics", "UseSHA512Intrinsics", "UseSHA3Intrinsics",
          "UseMD5Intrinsics", "UseChaCha20Intrinsics", "UsePoly1305Intrinsics"
        }) {
      try {
        out.put(flag, hs.getVMOption(flag).getValue());
      } catch (IllegalArgumentException absent) {
        // this JDK has no such flag
      }
    }
    return out;
  }
}
