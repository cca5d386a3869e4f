package cryptobench.jvm;

import cryptobench.jvm.Types.AlgorithmInfo;
import cryptobench.jvm.Types.CryptoProvider;
import cryptobench.jvm.Types.KeyParts;
import cryptobench.jvm.Types.MacVerifyOp;
import cryptobench.jvm.Types.Op;
import cryptobench.jvm.Types.Params;
import cryptobench.jvm.Types.Rejected;
import cryptobench.jvm.Types.Unsupported;
import java.security.InvalidAlgorithmParameterException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.AlgorithmParameterSpec;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PSSParameterSpec;
import java.security.spec.RSAKeyGenParameterSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import javax.crypto.Cipher;
import javax.crypto.KeyAgreement;
import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.ChaCha20ParameterSpec;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.OAEPParameterSpec;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.PSource;
import javax.crypto.spec.SecretKeySpec;

/**
 * One JCA provider (or, for sunjce, the JDK's set of them) behind the catalogue's names: every
 * operation goes through the standard JCA classes (Cipher, MessageDigest, Mac, Signature,
 * KeyAgreement, KeyPairGenerator, SecretKeyFactory) with the provider named explicitly, as an
 * application that picks a provider does. What a provider offers is probed, per algorithm, by
 * preparing and running the operation once on the test key: a pair it cannot do through these
 * names is not offered (with the reason), never a failure.
 */
final class JcaProvider implements CryptoProvider {
  private final String name;
  private final Supplier<String> version;
  private final Supplier<Map<String, String>> codePath;
  private final List<Provider> jca;
  private final String loadError;
  private final Map<String, String> probed = new LinkedHashMap<>(); // algorithm -> "" or reason

  JcaProvider(
      String name,
      List<Provider> jca,
      String loadError,
      Supplier<String> version,
      Supplier<Map<String, String>> codePath) {
    this.name = name;
    this.jca = jca;
    this.loadError = loadError;
    this.version = version;
    this.codePath = codePath;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String version() {
    return loadError != null ? "not loaded" : version.get();
  }

  @Override
  public String loadError() {
    return loadError;
  }

  @Override
  public Map<String, String> codePath() {
    if (loadError != null) return Map.of("loading_error", loadError);
    Map<String, String> m = codePath.get();
    if (!pqKey[0].isEmpty()) {
      m = new TreeMap<>(m);
      m.put("pq_key", pqKey[0]); // docs/post-quantum.md: the private key form it imports
    }
    return m;
  }

  List<Provider> jcaProviders() {
    return jca;
  }

  /** The catalogue names this provider offers, probing every one once. */
  @Override
  public List<String> algorithms() {
    List<String> out = new ArrayList<>();
    if (loadError != null) return out;
    for (AlgorithmInfo a : Types.CATALOGUE) if (offers(a.name)) out.add(a.name);
    return out;
  }

  @Override
  public Map<String, String> notOffered() {
    Map<String, String> out = new TreeMap<>();
    for (Map.Entry<String, String> e : probed.entrySet())
      if (!e.getValue().isEmpty()) out.put(e.getKey(), e.getValue());
    return out;
  }

  boolean offers(String alg) {
    if (loadError != null) return false;
    return probed.computeIfAbsent(alg, this::probe).isEmpty();
  }

  /** "" when the algorithm works here through its JCA names, else why not. */
  private String probe(String alg) {
    AlgorithmInfo info = Types.findAlgorithm(alg);
    try {
      if (PqJca.isPostQuantum(info)) return probePostQuantum(info);
      JcaNames.Names names = JcaNames.of(info);
      if (names == null) return "no standard JCA name for it";
      switch (info.kind) {
        case "cipher":
        case "aead":
          {
            Params p = new Params();
            p.key = new byte[info.keyBytes];
            p.iv = new byte[info.ivBytes];
            Steps.runOnce(prepareOrThrow(info, "encrypt", p), new byte[64], info.tagBytes);
            return "";
          }
        case "hash":
        case "mac":
          {
            Params p = new Params();
            p.key = new byte[info.keyBytes];
            Steps.runOnce(prepareOrThrow(info, info.kind, p), new byte[64], 0);
            return "";
          }
        case "keypair":
          {
            generator(info);
            return "";
          }
        case "kdf":
          {
            Params p = new Params();
            p.salt = new byte[16];
            p.outLen = 32;
            p.cost = new TreeMap<>(Map.of("iterations", 1L));
            Steps.runOnce(prepareOrThrow(info, "derive", p), "password".getBytes(), 0);
            return "";
          }
        default:
          {
            Params p = new Params();
            p.keypair = TestKeys.get(info.keyType);
            if (info.kind.equals("key-agreement"))
              p.peer = TestKeys.publicParts(info, TestKeys.get(info.keyType + "-peer"));
            String op =
                info.kind.equals("signature")
                    ? "sign"
                    : info.kind.equals("key-agreement") ? "derive" : "encrypt";
            if (op.equals("encrypt")) p.keypair = TestKeys.publicParts(info, p.keypair);
            byte[] in = op.equals("derive") ? new byte[0] : new byte[32];
            Steps.runOnce(prepareOrThrow(info, op, p), in, 1024);
            if (info.hasOp("keygen")) generator(info);
            return "";
          }
      }
    } catch (Exception | LinkageError e) {
      return Types.message(e);
    }
  }

  /**
   * A post-quantum algorithm is offered when its key pair generator exists and its operations
   * prepare on the test key (vectors/keys.json); a KEM also encapsulates and decapsulates once.
   * Nothing is signed: an SLH-DSA `s` signature takes seconds, too long for `list`.
   */
  private String probePostQuantum(AlgorithmInfo info) throws Exception {
    generator(info);
    Params p = new Params();
    p.keypair = TestKeys.get(info.keyType);
    try {
      keyFromSeedOrThrow(info, p.keypair.part("seed"));
    } catch (UnsupportedOperationException | java.security.InvalidAlgorithmParameterException e) {
      // ACCP's generators draw from AWS-LC, not from a SecureRandom: the gate could not check
      // its key generation, so the algorithm is not offered (docs/runners.md).
      return "its KeyPairGenerator derives no key from a given seed ("
          + Types.message(e) + "), so the gate cannot check its key generation";
    }
    if (info.kind.equals("kem")) {
      byte[] ct = Steps.runOnce(prepareOrThrow(info, "encaps", p), new byte[0], info.outputRoom());
      Steps.runOnce(prepareOrThrow(info, "decaps", p), Arrays.copyOf(ct, info.ciphertextBytes), 64);
    } else {
      prepareOrThrow(info, "sign", p);
      p.signature = new byte[info.outputBytes];
      prepareOrThrow(info, "verify", p);
    }
    return "";
  }

  /** Where this provider's post-quantum private keys come from: "seed" or "expanded". */
  private final String[] pqKey = {""};

  String pqKeyForm() {
    return pqKey[0];
  }

  @Override
  public Op prepare(String alg, String op, Params p) throws Exception {
    if (!offers(alg)) throw new Unsupported(name + " does not offer " + alg);
    return prepareOrThrow(Types.findAlgorithm(alg), op, p);
  }

  /**
   * MAC verification: the JCA has no verify for a Mac, so a caller computes the tag with
   * Mac.doFinal and compares it with MessageDigest.isEqual (the JDK's constant-time comparison
   * since 6u17). isEqual takes whole arrays: the given tag is copied into one of its own, a copy
   * of fixed length, the same for every tag.
   */
  @Override
  public MacVerifyOp prepareMacVerify(String alg, Params p) throws Exception {
    AlgorithmInfo info = Types.findAlgorithm(alg);
    if (info == null || !info.kind.equals("mac")) throw new Unsupported(alg + " is no MAC");
    Op mac = prepare(alg, "mac", p);
    int n = info.outputBytes;
    byte[] computed = new byte[n], given = new byte[n];
    return (in, inOff, inLen) -> {
      if (inLen < n) return false;
      mac.run(in, inOff, inLen - n, computed, 0);
      System.arraycopy(in, inOff + inLen - n, given, 0, n);
      return MessageDigest.isEqual(computed, given);
    };
  }

  private Op prepareOrThrow(AlgorithmInfo info, String op, Params p) throws Exception {
    if (PqJca.isPostQuantum(info))
      return info.kind.equals("kem")
          ? PqJca.kemOp(jca, info, op, p, pqKey)
          : PqJca.signatureOp(jca, info, op, p, pqKey);
    JcaNames.Names names = JcaNames.of(info);
    if (names == null) throw new Unsupported("no standard JCA name for " + info.name);
    switch (info.kind) {
      case "cipher":
      case "aead":
        return cipherOp(info, names, op, p);
      case "hash":
        {
          MessageDigest md = instance(names.jca, n -> MessageDigest.getInstance(n, prov(n, "MessageDigest")));
          int len = md.getDigestLength();
          return (in, inOff, inLen, out, outOff) -> {
            md.update(in, inOff, inLen);
            return md.digest(out, outOff, len);
          };
        }
      case "mac":
        {
          Mac mac = instance(names.jca, n -> Mac.getInstance(n, prov(n, "Mac")));
          mac.init(new SecretKeySpec(p.key, names.keyAlgorithm));
          int len = mac.getMacLength();
          return (in, inOff, inLen, out, outOff) -> {
            mac.update(in, inOff, inLen);
            mac.doFinal(out, outOff);
            return len;
          };
        }
      case "signature":
        return signatureOp(info, names, op, p);
      case "pk-encryption":
        return oaepOp(info, names, op, p);
      case "key-agreement":
        return agreementOp(info, names, p);
      case "kdf":
        return pbkdf2Op(info, names, p);
      default:
        throw new Unsupported(op + " " + info.name + " is not an operation here");
    }
  }

  interface Factory<T> {
    T make(String jcaName) throws Exception;
  }

  /** The first of the JCA names that one of this provider's JCA providers has. */
  private <T> T instance(List<String> names, Factory<T> f) throws Exception {
    Exception last = null;
    for (String n : names) {
      try {
        return f.make(n);
      } catch (Exception e) {
        last = e;
      }
    }
    throw new Unsupported(
        "none of its JCA providers has " + String.join(" or ", names)
            + (last == null ? "" : " (" + Types.message(last) + ")"));
  }

  /** The JCA provider of this set that has the service (for sunjce: SunJCE, SUN, SunRsaSign, SunEC). */
  private Provider prov(String jcaName, String type) throws Exception {
    String base = jcaName.contains("/") ? jcaName.substring(0, jcaName.indexOf('/')) : jcaName;
    for (Provider p : jca) if (p.getService(type, base) != null || p.getService(type, jcaName) != null) return p;
    if (jca.size() == 1) return jca.get(0); // some register transformations only
    throw new java.security.NoSuchAlgorithmException(jcaName + " not offered");
  }

  /**
   * Ciphers and AEADs: init with the key and the IV, then doFinal, every operation: setting the IV
   * per message is what the JCA asks of an application (Cipher has no separate set-IV call), as
   * the native core sets it per message. AEAD and ChaCha20 encryption draw a fresh nonce per
   * message (the case's IV with a message counter XORed into its last 8 bytes): JCA providers
   * refuse to encrypt twice under one key and nonce, as they should.
   */
  private Op cipherOp(AlgorithmInfo info, JcaNames.Names names, String op, Params p)
      throws Exception {
    Factory<Cipher> make = n -> Cipher.getInstance(n, prov(n, "Cipher"));
    Cipher first = instance(names.jca, make);
    String jcaName = first.getAlgorithm();
    int mode = op.equals("decrypt") ? Cipher.DECRYPT_MODE : Cipher.ENCRYPT_MODE;
    SecretKeySpec key = new SecretKeySpec(p.key, names.keyAlgorithm);
    byte[] aad = p.aad;
    boolean fresh = mode == Cipher.ENCRYPT_MODE && names.freshNonce;
    int ivBytes = info.ivBytes;
    // ChaCha20ParameterSpec is SunJCE's; Bouncy Castle's CHACHA7539 and Conscrypt's ChaCha20 take
    // the nonce as an IvParameterSpec (Conscrypt ignores a ChaCha20ParameterSpec and draws a
    // random nonce: the gate caught that).
    boolean chachaSpec =
        names.params.equals("chacha20") && first.getProvider().getName().equals("SunJCE");
    return new Op() {
      Cipher cipher = first;
      long counter;
      byte[] lastIv;
      boolean guard; // this provider refuses one key and nonce twice in a row, even to decrypt

      AlgorithmParameterSpec spec(byte[] iv) {
        if (names.params.equals("gcm")) return new GCMParameterSpec(8 * info.tagBytes, iv);
        if (chachaSpec) return new ChaCha20ParameterSpec(iv, 0);
        return new IvParameterSpec(iv);
      }

      byte[] nonce(long k) {
        if (k == 0) return p.iv;
        byte[] iv = p.iv.clone();
        for (int i = 0; i < 8 && i < iv.length; i++) iv[iv.length - 1 - i] ^= (byte) (k >>> (8 * i));
        return iv;
      }

      boolean refusesReuse(Exception e) {
        String m = String.valueOf(e.getMessage()).toLowerCase(java.util.Locale.ROOT);
        return m.contains("reuse") || m.contains("re-use") || m.contains("matching key and nonce");
      }

      void init(byte[] iv) throws Exception {
        if (guard && Arrays.equals(iv, lastIv)) cipher.init(mode, key, spec(nonce(Long.MIN_VALUE)));
        try {
          cipher.init(mode, key, spec(iv));
        } catch (InvalidAlgorithmParameterException | java.security.InvalidKeyException e) {
          if (iv.length != ivBytes && e instanceof InvalidAlgorithmParameterException)
            throw new Unsupported("an IV of " + iv.length + " bytes is not taken here");
          if (!refusesReuse(e)) throw e;
          // SunJCE's ChaCha20 refuses one key and nonce twice in a row even to decrypt: from now
          // on an init with another nonce goes first (ChaCha20's init only copies key and nonce).
          // SunPKCS11 remembers the last encryption's pair until the next encryption: a new
          // instance (only when the gate or the check rewinds, never in the timed loop).
          guard = true;
          try {
            cipher.init(mode, key, spec(nonce(Long.MIN_VALUE)));
            cipher.init(mode, key, spec(iv));
          } catch (InvalidAlgorithmParameterException | java.security.InvalidKeyException again) {
            cipher = make.make(jcaName);
            cipher.init(mode, key, spec(iv));
          }
        }
        lastIv = iv;
      }

      @Override
      public int run(byte[] in, int inOff, int inLen, byte[] out, int outOff) throws Exception {
        init(fresh ? nonce(counter++) : p.iv);
        if (aad.length > 0) cipher.updateAAD(aad);
        try {
          return cipher.doFinal(in, inOff, inLen, out, outOff);
        } catch (javax.crypto.AEADBadTagException e) {
          throw new Rejected("tag check failed");
        }
      }

      @Override
      public void rewind() {
        counter = 0;
      }
    };
  }

  /**
   * Key setup (the paper 001's measurement): every run makes a new SecretKeySpec of the key bytes
   * and initialises the cipher with it and a nonce (fresh per run, so no provider refuses it),
   * which is the key schedule and the provider's own setup, and processes no data.
   */
  @Override
  public Op prepareKeySetup(String alg, String op, Params p) throws Exception {
    if (!offers(alg)) throw new Unsupported(name + " does not offer " + alg);
    AlgorithmInfo info = Types.findAlgorithm(alg);
    JcaNames.Names names = JcaNames.of(info);
    Cipher cipher = instance(names.jca, n -> Cipher.getInstance(n, prov(n, "Cipher")));
    int mode = op.equals("decrypt") ? Cipher.DECRYPT_MODE : Cipher.ENCRYPT_MODE;
    boolean chachaSpec =
        names.params.equals("chacha20") && cipher.getProvider().getName().equals("SunJCE");
    byte[] keyBytes = p.key;
    return new Op() {
      long counter;

      @Override
      public int run(byte[] in, int inOff, int inLen, byte[] out, int outOff) throws Exception {
        byte[] iv = p.iv.clone();
        long k = ++counter;
        for (int i = 0; i < 8 && i < iv.length; i++) iv[iv.length - 1 - i] ^= (byte) (k >>> (8 * i));
        AlgorithmParameterSpec spec =
            names.params.equals("gcm")
                ? new GCMParameterSpec(8 * info.tagBytes, iv)
                : chachaSpec ? new ChaCha20ParameterSpec(iv, 0) : new IvParameterSpec(iv);
        cipher.init(mode, new SecretKeySpec(keyBytes, names.keyAlgorithm), spec);
        return 0;
      }
    };
  }

  private Op signatureOp(AlgorithmInfo info, JcaNames.Names names, String op, Params p)
      throws Exception {
    Signature sig = instance(names.jca, n -> Signature.getInstance(n, prov(n, "Signature")));
    if (info.family.equals("rsa-pss") && sig.getAlgorithm().equalsIgnoreCase("RSASSA-PSS"))
      sig.setParameter(
          new PSSParameterSpec("SHA-256", "MGF1", MGF1ParameterSpec.SHA256, 32, 1));
    boolean ecdsa = info.family.equals("ecdsa");
    int field = ecdsa ? Keys.fieldBytes(info) : 0;
    if (op.equals("sign")) {
      sig.initSign(Keys.privateKey(jca, info, p.keypair));
      return (in, inOff, inLen, out, outOff) -> {
        sig.update(in, inOff, inLen);
        if (!ecdsa) return sig.sign(out, outOff, out.length - outOff);
        byte[] plain = Keys.derToPlain(sig.sign(), field);
        System.arraycopy(plain, 0, out, outOff, plain.length);
        return plain.length;
      };
    }
    if (!op.equals("verify")) throw new Unsupported(op + " does not apply to " + info.name);
    sig.initVerify(Keys.publicKey(jca, info, p.keypair));
    return verifying(sig, ecdsa ? Keys.plainToDer(p.signature) : p.signature);
  }

  /** The timed verification of `signature` by an initialised `sig`: a bad one is Rejected. */
  static Op verifying(Signature sig, byte[] signature) {
    return (in, inOff, inLen, out, outOff) -> {
      sig.update(in, inOff, inLen);
      boolean ok;
      try {
        ok = sig.verify(signature);
      } catch (java.security.SignatureException e) {
        ok = false;
      }
      if (!ok) throw new Rejected("the signature does not verify");
      return 0;
    };
  }

  /** RSA-OAEP (SHA-256, MGF1-SHA-256, empty label) or RSAES-PKCS1-v1_5 ("RSA/ECB/PKCS1Padding"). */
  private Op oaepOp(AlgorithmInfo info, JcaNames.Names names, String op, Params p)
      throws Exception {
    Cipher cipher = instance(names.jca, n -> Cipher.getInstance(n, prov(n, "Cipher")));
    if (info.family.equals("rsa-pkcs1v15-enc")) {
      if (op.equals("encrypt")) cipher.init(Cipher.ENCRYPT_MODE, Keys.publicKey(jca, info, p.keypair));
      else cipher.init(Cipher.DECRYPT_MODE, Keys.privateKey(jca, info, p.keypair));
      return (in, inOff, inLen, out, outOff) -> cipher.doFinal(in, inOff, inLen, out, outOff);
    }
    OAEPParameterSpec oaep =
        new OAEPParameterSpec("SHA-256", "MGF1", MGF1ParameterSpec.SHA256, PSource.PSpecified.DEFAULT);
    if (op.equals("encrypt")) cipher.init(Cipher.ENCRYPT_MODE, Keys.publicKey(jca, info, p.keypair), oaep);
    else cipher.init(Cipher.DECRYPT_MODE, Keys.privateKey(jca, info, p.keypair), oaep);
    return (in, inOff, inLen, out, outOff) -> cipher.doFinal(in, inOff, inLen, out, outOff);
  }

  private Op agreementOp(AlgorithmInfo info, JcaNames.Names names, Params p) throws Exception {
    KeyAgreement ka = instance(names.jca, n -> KeyAgreement.getInstance(n, prov(n, "KeyAgreement")));
    PrivateKey own = Keys.privateKey(jca, info, p.keypair);
    PublicKey peer = Keys.publicKey(jca, info, p.peer);
    ka.init(own);
    return (in, inOff, inLen, out, outOff) -> {
      ka.doPhase(peer, true);
      return ka.generateSecret(out, outOff);
    };
  }

  /**
   * PBKDF2 through SecretKeyFactory: the JCA takes the password as chars and encodes them (UTF-8
   * in SunJCE and Bouncy Castle's plain names), so a password of bytes goes through as chars only
   * when it is ASCII; Bouncy Castle's "…And8BIT" names take each char's low byte, so they take any
   * bytes. A non-ASCII password where only the UTF-8 names exist is not taken (unsupported).
   */
  private Op pbkdf2Op(AlgorithmInfo info, JcaNames.Names names, Params p) throws Exception {
    Long iterations = p.cost.get("iterations");
    if (iterations == null) throw new Types.Failed(info.name + " needs the cost parameter 'iterations'");
    SecretKeyFactory utf8 = instance(names.jca, n -> SecretKeyFactory.getInstance(n, prov(n, "SecretKeyFactory")));
    SecretKeyFactory eightBit;
    try {
      eightBit = instance(List.of(names.jca.get(0) + "And8BIT"), n -> SecretKeyFactory.getInstance(n, prov(n, "SecretKeyFactory")));
    } catch (Unsupported u) {
      eightBit = null;
    }
    SecretKeyFactory bytesFactory = eightBit;
    int iters = (int) Math.min(Integer.MAX_VALUE, iterations);
    return (in, inOff, inLen, out, outOff) -> {
      char[] chars = new char[inLen];
      boolean ascii = true;
      for (int i = 0; i < inLen; i++) {
        chars[i] = (char) (in[inOff + i] & 0xff);
        ascii &= in[inOff + i] >= 0;
      }
      SecretKeyFactory f = ascii ? utf8 : bytesFactory;
      if (f == null)
        throw new Unsupported(
            name + "'s PBKDF2 takes passwords as UTF-8 chars: this password is not ASCII");
      PBEKeySpec spec = new PBEKeySpec(chars, p.salt, iters, 8 * p.outLen);
      byte[] derived = f.generateSecret(spec).getEncoded();
      spec.clearPassword();
      System.arraycopy(derived, 0, out, outOff, derived.length);
      return derived.length;
    };
  }

  private final Map<String, KeyPairGenerator> generators = new TreeMap<>();

  private KeyPairGenerator generator(AlgorithmInfo info) throws Exception {
    KeyPairGenerator g = generators.get(info.name);
    if (g != null) return g;
    String family = Keys.family(info);
    List<String> names =
        PqJca.isPostQuantum(info)
            ? List.of(info.name.toUpperCase(java.util.Locale.ROOT))
            : Keys.factoryNames(family);
    g = instance(names, n -> KeyPairGenerator.getInstance(n, prov(n, "KeyPairGenerator")));
    if (family.equals("RSA")) {
      int bits = Integer.parseInt(info.keyType.substring(4));
      g.initialize(new RSAKeyGenParameterSpec(bits, RSAKeyGenParameterSpec.F4));
    } else if (family.equals("EC")) {
      g.initialize(new ECGenParameterSpec(Keys.curve(info)));
    }
    generators.put(info.name, g);
    return g;
  }

  @Override
  public KeyParts generateKey(String alg) throws Exception {
    AlgorithmInfo info = Types.findAlgorithm(alg);
    if (!offers(alg)) throw new Unsupported(name + " does not offer " + alg);
    return generateKeyOrThrow(info);
  }

  private KeyParts generateKeyOrThrow(AlgorithmInfo info) throws Exception {
    KeyPair pair = generator(info).generateKeyPair();
    return PqJca.isPostQuantum(info) ? PqJca.export(info, pair) : Keys.export(info, pair);
  }

  @Override
  public KeyParts keyFromSeed(String alg, byte[] seed) throws Exception {
    AlgorithmInfo info = Types.findAlgorithm(alg);
    if (!offers(alg)) throw new Unsupported(name + " does not offer " + alg);
    if (!PqJca.isPostQuantum(info)) throw new Unsupported(alg + " has no seed");
    return keyFromSeedOrThrow(info, seed);
  }

  private KeyParts keyFromSeedOrThrow(AlgorithmInfo info, byte[] seed) throws Exception {
    // a generator of its own: the shared one stays initialised with the system's randomness
    KeyPairGenerator g =
        instance(
            List.of(info.name.toUpperCase(java.util.Locale.ROOT)),
            n -> KeyPairGenerator.getInstance(n, prov(n, "KeyPairGenerator")));
    return PqJca.fromSeed(g, info, seed);
  }
}
