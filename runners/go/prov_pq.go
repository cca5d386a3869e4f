// ML-KEM in provider `go`: the standard library's crypto/mlkem (ML-KEM-768 and ML-KEM-1024; Go
// has no ML-KEM-512). Keys are the 64-byte FIPS 203 seed, the only private form crypto/mlkem
// imports (docs/post-quantum.md); derandomised encapsulation for the known answers is
// crypto/mlkem/mlkemtest's.
package main

import (
	"crypto/mlkem"
	"crypto/mlkem/mlkemtest"
)

type goDecapsulator interface {
	Bytes() []byte
	Decapsulate(ciphertext []byte) ([]byte, error)
}

type goEncapsulator interface {
	Bytes() []byte
	Encapsulate() (sharedKey, ciphertext []byte)
}

// goKEM: one parameter set of crypto/mlkem behind the two interfaces above.
type goKEM struct {
	generate func() (goDecapsulator, goEncapsulator, error)
	fromSeed func(seed []byte) (goDecapsulator, goEncapsulator, error)
	public   func(ek []byte) (goEncapsulator, error)
	derand   func(ek goEncapsulator, m []byte) (sharedKey, ciphertext []byte, err error)
}

var goKEMs = map[string]goKEM{
	"ml-kem-768": {
		generate: func() (goDecapsulator, goEncapsulator, error) {
			dk, err := mlkem.GenerateKey768()
			if err != nil {
				return nil, nil, err
			}
			return dk, dk.EncapsulationKey(), nil
		},
		fromSeed: func(seed []byte) (goDecapsulator, goEncapsulator, error) {
			dk, err := mlkem.NewDecapsulationKey768(seed)
			if err != nil {
				return nil, nil, err
			}
			return dk, dk.EncapsulationKey(), nil
		},
		public: func(ek []byte) (goEncapsulator, error) { return mlkem.NewEncapsulationKey768(ek) },
		derand: func(ek goEncapsulator, m []byte) ([]byte, []byte, error) {
			return mlkemtest.Encapsulate768(ek.(*mlkem.EncapsulationKey768), m)
		},
	},
	"ml-kem-1024": {
		generate: func() (goDecapsulator, goEncapsulator, error) {
			dk, err := mlkem.GenerateKey1024()
			if err != nil {
				return nil, nil, err
			}
			return dk, dk.EncapsulationKey(), nil
		},
		fromSeed: func(seed []byte) (goDecapsulator, goEncapsulator, error) {
			dk, err := mlkem.NewDecapsulationKey1024(seed)
			if err != nil {
				return nil, nil, err
			}
			return dk, dk.EncapsulationKey(), nil
		},
		public: func(ek []byte) (goEncapsulator, error) { return mlkem.NewEncapsulationKey1024(ek) },
		derand: func(ek goEncapsulator, m []byte) ([]byte, []byte, error) {
			return mlkemtest.Encapsulate1024(ek.(*mlkem.EncapsulationKey1024), m)
		},
	},
}

// goMLKEM prepares encapsulation to `pub` or decapsulation with `seed` (docs/post-quantum.md).
func goMLKEM(alg, op string, p Params) (Op, error) {
	k := goKEMs[alg]
	switch op {
	case "encaps":
		ek, err := k.public(p.Keypair["pub"])
		if err != nil {
			return nil, err
		}
		if p.Randomness != nil {
			return OpFunc(func(in, out []byte) ([]byte, error) {
				ss, ct, err := k.derand(ek, p.Randomness)
				return append(append(out[:0], ct...), ss...), err
			}), nil
		}
		return OpFunc(func(in, out []byte) ([]byte, error) {
			ss, ct := ek.Encapsulate()
			return append(append(out[:0], ct...), ss...), nil
		}), nil
	case "decaps":
		seed := p.Keypair["seed"]
		if len(seed) == 0 && len(p.Keypair["priv"]) > 0 {
			return nil, unsupported("go's crypto/mlkem imports only the 64-byte seed, not an expanded key")
		}
		dk, _, err := k.fromSeed(seed)
		if err != nil {
			return nil, err
		}
		return OpFunc(func(in, out []byte) ([]byte, error) {
			ss, err := dk.Decapsulate(in)
			return append(out[:0], ss...), err
		}), nil
	}
	return nil, unsupported("go does not offer %s %s", alg, op)
}

func goMLKEMKey(alg string, seed []byte) (KeyParts, error) {
	k := goKEMs[alg]
	var dk goDecapsulator
	var ek goEncapsulator
	var err error
	if seed == nil {
		dk, ek, err = k.generate()
	} else {
		dk, ek, err = k.fromSeed(seed)
	}
	if err != nil {
		return nil, err
	}
	return KeyParts{"seed": dk.Bytes(), "pub": ek.Bytes()}, nil
}

func (goStd) KeyFromSeed(alg string, seed []byte) (KeyParts, error) {
	if _, ok := goKEMs[alg]; !ok {
		return nil, unsupported("go derives no %s key from a seed", alg)
	}
	return goMLKEMKey(alg, seed)
}
