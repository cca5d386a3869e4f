// Known-answer vectors and test keys from vectors/ (same files and parsing as
// native/src/core/vectors.cpp).
package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Set at build time (-ldflags -X main.defaultVectorsDir=…); --vectors and $CRYPTOBENCH_VECTORS win.
var defaultVectorsDir = "vectors"

var vectorsDirFlag string

func vectorsDir() string {
	if vectorsDirFlag != "" {
		return vectorsDirFlag
	}
	if env := os.Getenv("CRYPTOBENCH_VECTORS"); env != "" {
		return env
	}
	return defaultVectorsDir
}

// Vector: symmetric, hash and MAC known answer.
type Vector struct {
	Source         string
	Key, IV, AAD   []byte
	Input          []byte
	Expected       []byte
	InitialCounter int
}

// PkVector: public-key and KDF known answer.
type PkVector struct {
	Source                string
	Key, Peer             KeyParts
	Message, Signature    []byte
	Valid, StrictOnly     bool
	Plaintext, Ciphertext []byte
	Shared                []byte
	Input, Output         []byte
	KDF                   Params
}

type rawDoc struct {
	Vectors []map[string]json.RawMessage `json:"vectors"`
}

var familyCache = map[string]*rawDoc{}

func familyDoc(family string) (*rawDoc, string, error) {
	path := filepath.Join(vectorsDir(), family+".json")
	if d, ok := familyCache[path]; ok {
		return d, path, nil
	}
	d := &rawDoc{}
	data, err := os.ReadFile(path)
	if err == nil {
		if err := json.Unmarshal(data, d); err != nil {
			return nil, path, fmt.Errorf("%s: %v", path, err)
		}
	}
	familyCache[path] = d
	return d, path, nil
}

func str(v map[string]json.RawMessage, field string) string {
	var s string
	if raw, ok := v[field]; ok {
		_ = json.Unmarshal(raw, &s)
	}
	return s
}

func hexField(v map[string]json.RawMessage, field, where string) ([]byte, error) {
	raw, ok := v[field]
	if !ok {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("%s.%s: not a hex string", where, field)
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%s.%s: %v", where, field, err)
	}
	return b, nil
}

func keyField(v map[string]json.RawMessage, field, where string) (KeyParts, error) {
	parts := KeyParts{}
	raw, ok := v[field]
	if !ok {
		return parts, nil
	}
	var m map[string]string
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%s.%s: not an object of hex strings", where, field)
	}
	for k, s := range m {
		b, err := hex.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("%s.%s.%s: %v", where, field, k, err)
		}
		parts[k] = b
	}
	return parts, nil
}

// eachVector calls fn for every vector of info's family naming info's algorithm.
func eachVector(info *AlgorithmInfo, fn func(v map[string]json.RawMessage, where string) error) error {
	doc, path, err := familyDoc(info.Family)
	if err != nil {
		return err
	}
	for i, v := range doc.Vectors {
		where := fmt.Sprintf("%s: vectors[%d]", path, i)
		if str(v, "algorithm") != info.Name {
			continue
		}
		if err := fn(v, where); err != nil {
			return err
		}
	}
	return nil
}

func vectorsFor(info *AlgorithmInfo) ([]Vector, error) {
	var out []Vector
	err := eachVector(info, func(v map[string]json.RawMessage, where string) error {
		var x Vector
		var err error
		x.Source = str(v, "source")
		get := func(field string) []byte {
			b, e := hexField(v, field, where)
			if e != nil && err == nil {
				err = e
			}
			return b
		}
		x.Key, x.IV, x.AAD = get("key"), get("iv"), get("aad")
		if raw, ok := v["initial_counter"]; ok {
			_ = json.Unmarshal(raw, &x.InitialCounter)
		}
		switch info.Kind {
		case "cipher":
			x.Input, x.Expected = get("plaintext"), get("ciphertext")
		case "aead":
			x.Input = get("plaintext")
			x.Expected = append(get("ciphertext"), get("tag")...)
		case "hash", "mac":
			msg := get("message")
			repeat := 1
			if raw, ok := v["repeat"]; ok {
				_ = json.Unmarshal(raw, &repeat)
			}
			for i := 0; i < repeat; i++ {
				x.Input = append(x.Input, msg...)
			}
			if info.Kind == "hash" {
				x.Expected = get("digest")
			} else {
				x.Expected = get("tag")
			}
		}
		if err != nil {
			return err
		}
		out = append(out, x)
		return nil
	})
	return out, err
}

func pkVectorsFor(info *AlgorithmInfo) ([]PkVector, error) {
	var out []PkVector
	err := eachVector(info, func(v map[string]json.RawMessage, where string) error {
		var x PkVector
		var err error
		get := func(field string) []byte {
			b, e := hexField(v, field, where)
			if e != nil && err == nil {
				err = e
			}
			return b
		}
		x.Source = str(v, "source")
		if x.Key, err = keyField(v, "key", where); err != nil {
			return err
		}
		if x.Peer, err = keyField(v, "peer", where); err != nil {
			return err
		}
		x.Valid = true
		if raw, ok := v["valid"]; ok {
			_ = json.Unmarshal(raw, &x.Valid)
		}
		if raw, ok := v["strict_only"]; ok {
			_ = json.Unmarshal(raw, &x.StrictOnly)
		}
		x.Message, x.Signature = get("message"), get("signature")
		x.Plaintext, x.Ciphertext = get("plaintext"), get("ciphertext")
		x.Shared = get("shared")
		x.Input, x.Output = get("input"), get("output")
		x.KDF = Params{Salt: get("salt"), Info: get("info"), Secret: get("secret"), AD: get("ad"),
			OutLen: len(x.Output), Cost: map[string]uint64{}}
		if raw, ok := v["cost"]; ok {
			if e := json.Unmarshal(raw, &x.KDF.Cost); e != nil {
				return fmt.Errorf("%s.cost: %v", where, e)
			}
		}
		if err != nil {
			return err
		}
		out = append(out, x)
		return nil
	})
	return out, err
}

var testKeys map[string]KeyParts

func testKey(name string) (KeyParts, error) {
	if testKeys == nil {
		path := filepath.Join(vectorsDir(), "keys.json")
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("cannot read the test keys %s", path)
		}
		var doc struct {
			Keys map[string]json.RawMessage `json:"keys"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		keys := map[string]KeyParts{}
		for name := range doc.Keys {
			k, err := keyField(doc.Keys, name, path+": keys")
			if err != nil {
				return nil, err
			}
			keys[name] = k
		}
		testKeys = keys
	}
	k, ok := testKeys[name]
	if !ok {
		return nil, fmt.Errorf("no test key %s in %s/keys.json", name, vectorsDir())
	}
	return k, nil
}

// publicParts keeps the public parts of a key (gate_pk.cpp, public_parts).
func publicParts(info *AlgorithmInfo, key KeyParts) KeyParts {
	names := []string{"pub"}
	switch t := info.KeyType; {
	case strings.HasPrefix(t, "rsa-"):
		names = []string{"n", "e"}
	case strings.HasPrefix(t, "ecdsa-"), strings.HasPrefix(t, "ecdh-"):
		names = []string{"x", "y"}
	case strings.HasPrefix(t, "ffdhe"):
		names = []string{"y"}
	}
	out := KeyParts{}
	for _, n := range names {
		if b, ok := key[n]; ok {
			out[n] = b
		}
	}
	return out
}

// privatePart names the part that makes a key private (EC's x is a public coordinate).
func privatePart(info *AlgorithmInfo) string {
	switch t := info.KeyType; {
	case strings.HasPrefix(t, "ffdhe"):
		return "x"
	case strings.HasPrefix(t, "rsa-"), strings.HasPrefix(t, "ecdsa-"), strings.HasPrefix(t, "ecdh-"):
		return "d"
	}
	return "priv"
}

func hasPrivate(info *AlgorithmInfo, key KeyParts) bool {
	return len(key[privatePart(info)]) > 0
}
