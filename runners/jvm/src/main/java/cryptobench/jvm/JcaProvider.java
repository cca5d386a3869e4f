package cryptobench.jvm;

import cryptobench.jvm.Types.AlgorithmInfo;
import cryptobench.jvm.Types.CryptoProvider;
import cryptobench.jvm.Types.KeyParts;
import cryptobench.jvm.Types.Op;
import cryptobench.jvm.Types.Params;
import cryptobench.jvm.Types.Rejected;
import cryptobench.jvm.Types.Unsupported;
import java.math.BigInteger;
import java.security.AlgorithmParameters;
import java.security.InvalidAlgorithmParameterException;
import java.security.Key;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.PublicKey;
import java.security.Signature;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.EdECPrivateKey;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.XECPrivateKey;
import java.security.spec.AlgorithmParameterSpec;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPoint;
import java.security.spec.ECPrivateKeySpec;
import java.security.spec.ECPublicKeySpec;
import java.security.spec.KeySpec;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.PSSParameterSpec;
import java.security.spec.RSAKeyGenParameterSpec;
import java.security.spec.RSAPrivateCrtKeySpec;
import java.security.spec.RSAPublicKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
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

  /**
   * Keys between the protocol's named parts (docs/protocol.md, "Keys") and JCA key objects. A key
   * is built by the JDK from its parts (RSA and EC specs; EdDSA and XDH from their PKCS#8 / X.509
   * encodings), then handed to the provider's own KeyFactory as its encoding, so every provider
   * works on a key object of its own where it has a KeyFactory for the type.
   */
  static final class Keys {
    private Keys() {}

    /** The JCA key family of a catalogue key type, and the KeyFactory names that take it. */
    static String family(AlgorithmInfo info) {
      String t = info.keyType;
      if (t.startsWith("rsa-")) return "RSA";
      if (t.startsWith("ecdsa-") || t.startsWith("ecdh-")) return "EC";
      if (t.equals("ed25519")) return "Ed25519";
      if (t.equals("ed448")) return "Ed448";
      if (t.startsWith("x25519")) return "X25519";
      if (t.startsWith("x448")) return "X448";
      return "";
    }

    static List<String> factoryNames(String family) {
      return switch (family) {
        case "Ed25519", "Ed448" -> List.of(family, "EdDSA");
        case "X25519", "X448" -> List.of(family, "XDH");
        default -> List.of(family);
      };
    }

    static String curve(AlgorithmInfo info) {
      String t = info.keyType;
      if (t.endsWith("p256")) return "secp256r1";
      if (t.endsWith("p384")) return "secp384r1";
      if (t.endsWith("p521")) return "secp521r1";
      return "";
    }

    static int fieldBytes(AlgorithmInfo info) {
      String c = curve(info);
      return c.equals("secp256r1") ? 32 : c.equals("secp384r1") ? 48 : 66;
    }

    // DER prefixes of the PKCS#8 and X.509 encodings of RFC 8410 keys (the raw key follows).
    private static byte[] der(String hex) {
      return HexFormat.of().parseHex(hex);
    }

    static byte[] privatePrefix(String family) {
      return switch (family) {
        case "Ed25519" -> der("302e020100300506032b657004220420");
        case "X25519" -> der("302e020100300506032b656e04220420");
        case "Ed448" -> der("3047020100300506032b6571043b0439");
        case "X448" -> der("3046020100300506032b656f043a0438");
        default -> null;
      };
    }

    static byte[] publicPrefix(String family) {
      return switch (family) {
        case "Ed25519" -> der("302a300506032b6570032100");
        case "X25519" -> der("302a300506032b656e032100");
        case "Ed448" -> der("3043300506032b6571033a00");
        case "X448" -> der("3042300506032b656f033900");
        default -> null;
      };
    }

    static BigInteger big(byte[] b) {
      return new BigInteger(1, b);
    }

    static ECParameterSpec ecParams(AlgorithmInfo info) throws Exception {
      AlgorithmParameters ap = AlgorithmParameters.getInstance("EC", "SunEC");
      ap.init(new ECGenParameterSpec(curve(info)));
      return ap.getParameterSpec(ECParameterSpec.class);
    }

    /** The JDK's encoding of a key given by its parts (PKCS#8 when it has a private part). */
    static KeySpec encodedSpec(AlgorithmInfo info, KeyParts k, boolean priv) throws Exception {
      String family = family(info);
      switch (family) {
        case "RSA":
          {
            KeyFactory kf = KeyFactory.getInstance("RSA", "SunRsaSign");
            if (priv) {
              Key key =
                  kf.generatePrivate(
                      new RSAPrivateCrtKeySpec(
                          big(k.part("n")), big(k.part("e")), big(k.part("d")), big(k.part("p")),
                          big(k.part("q")), big(k.part("dp")), big(k.part("dq")),
                          big(k.part("qinv"))));
              return new PKCS8EncodedKeySpec(key.getEncoded());
            }
            return new X509EncodedKeySpec(
                kf.generatePublic(new RSAPublicKeySpec(big(k.part("n")), big(k.part("e"))))
                    .getEncoded());
          }
        case "EC":
          {
            KeyFactory kf = KeyFactory.getInstance("EC", "SunEC");
            ECParameterSpec params = ecParams(info);
            if (priv)
              return new PKCS8EncodedKeySpec(
                  kf.generatePrivate(new ECPrivateKeySpec(big(k.part("d")), params)).getEncoded());
            return new X509EncodedKeySpec(
                kf.generatePublic(
                        new ECPublicKeySpec(new ECPoint(big(k.part("x")), big(k.part("y"))), params))
                    .getEncoded());
          }
        case "":
          throw new Unsupported("no JCA key type for " + info.keyType);
        default:
          if (priv) return new PKCS8EncodedKeySpec(TestKeys.concat(privatePrefix(family), k.part("priv")));
          return new X509EncodedKeySpec(TestKeys.concat(publicPrefix(family), k.part("pub")));
      }
    }

    /** The provider's KeyFactory for the family, or the JDK's when it has none. */
    static KeyFactory factory(List<Provider> providers, String family) throws Exception {
      for (Provider p : providers)
        for (String name : factoryNames(family))
          if (p.getService("KeyFactory", name) != null) return KeyFactory.getInstance(name, p);
      return KeyFactory.getInstance(family);
    }

    static PrivateKey privateKey(List<Provider> providers, AlgorithmInfo info, KeyParts k)
        throws Exception {
      KeySpec spec = encodedSpec(info, k, true);
      return factory(providers, family(info)).generatePrivate(spec);
    }

    static PublicKey publicKey(List<Provider> providers, AlgorithmInfo info, KeyParts k)
        throws Exception {
      KeySpec spec = encodedSpec(info, TestKeys.publicParts(info, k), false);
      return factory(providers, family(info)).generatePublic(spec);
    }

    static byte[] fixed(BigInteger v, int len) {
      byte[] b = v.toByteArray();
      if (b.length == len) return b;
      if (b.length > len) return Arrays.copyOfRange(b, b.length - len, b.length);
      byte[] out = new byte[len];
      System.arraycopy(b, 0, out, len - b.length, b.length);
      return out;
    }

    static byte[] minimal(BigInteger v) {
      byte[] b = v.toByteArray();
      return b[0] == 0 && b.length > 1 ? Arrays.copyOfRange(b, 1, b.length) : b;
    }

    /** A generated key pair as named parts, read back through the JDK from its encodings. */
    static KeyParts export(AlgorithmInfo info, KeyPair pair) throws Exception {
      byte[] priv = pair.getPrivate().getEncoded(), pub = pair.getPublic().getEncoded();
      if (priv == null || pub == null)
        throw new Unsupported("the keys it generates cannot be exported (no encoding)");
      String family = family(info);
      KeyFactory kf = KeyFactory.getInstance(family.equals("RSA") ? "RSA" : factoryNames(family).get(0));
      KeyParts out = new KeyParts();
      switch (family) {
        case "RSA":
          {
            RSAPrivateCrtKey k = (RSAPrivateCrtKey) kf.generatePrivate(new PKCS8EncodedKeySpec(priv));
            int n = (k.getModulus().bitLength() + 7) / 8, half = (n + 1) / 2;
            out.put("n", fixed(k.getModulus(), n));
            out.put("e", minimal(k.getPublicExponent()));
            out.put("d", fixed(k.getPrivateExponent(), n));
            out.put("p", fixed(k.getPrimeP(), half));
            out.put("q", fixed(k.getPrimeQ(), half));
            out.put("dp", fixed(k.getPrimeExponentP(), half));
            out.put("dq", fixed(k.getPrimeExponentQ(), half));
            out.put("qinv", fixed(k.getCrtCoefficient(), half));
            return out;
          }
        case "EC":
          {
            int len = fieldBytes(info);
            ECPrivateKey k = (ECPrivateKey) kf.generatePrivate(new PKCS8EncodedKeySpec(priv));
            ECPublicKey p = (ECPublicKey) kf.generatePublic(new X509EncodedKeySpec(pub));
            out.put("d", fixed(k.getS(), len));
            out.put("x", fixed(p.getW().getAffineX(), len));
            out.put("y", fixed(p.getW().getAffineY(), len));
            return out;
          }
        default:
          {
            int len = publicPrefix(family).length;
            out.put("pub", Arrays.copyOfRange(pub, len, pub.length));
            Key k = kf.generatePrivate(new PKCS8EncodedKeySpec(priv));
            byte[] raw;
            if (k instanceof EdECPrivateKey) raw = ((EdECPrivateKey) k).getBytes().orElse(null);
            else raw = ((XECPrivateKey) k).getScalar().orElse(null);
            if (raw == null) throw new Unsupported("the generated private key has no raw encoding");
            out.put("priv", raw);
            return out;
          }
      }
    }

    /** An ECDSA signature from DER (SEQUENCE of two INTEGERs) to r‖s, each of {@code len} bytes. */
    static byte[] derToPlain(byte[] der, int len) throws Exception {
      int at = 0;
      if (der[at++] != 0x30) throw new Exception("ECDSA signature is not a DER sequence");
      if ((der[at++] & 0x80) != 0) at++;
      byte[] out = new byte[2 * len];
      for (int i = 0; i < 2; i++) {
        if (der[at++] != 0x02) throw new Exception("ECDSA signature part is not a DER integer");
        int n = der[at++] & 0xff;
        BigInteger v = new BigInteger(1, Arrays.copyOfRange(der, at, at + n));
        at += n;
        System.arraycopy(fixed(v, len), 0, out, i * len, len);
      }
      return out;
    }

    /** r‖s to DER. */
    static byte[] plainToDer(byte[] plain) {
      int len = plain.length / 2;
      byte[][] ints = new byte[2][];
      for (int i = 0; i < 2; i++)
        ints[i] = new BigInteger(1, Arrays.copyOfRange(plain, i * len, (i + 1) * len)).toByteArray();
      int body = 4 + ints[0].length + ints[1].length;
      byte[] out = new byte[body + (body > 127 ? 3 : 2)];
      int at = 0;
      out[at++] = 0x30;
      if (body > 127) out[at++] = (byte) 0x81;
      out[at++] = (byte) body;
      for (byte[] v : ints) {
        out[at++] = 0x02;
        out[at++] = (byte) v.length;
        System.arraycopy(v, 0, out, at, v.length);
        at += v.length;
      }
      return out;
    }
  }
}
