"""The `steps` request (docs/protocol.md): prepare one operation per step, run it on each input,
return the outputs. Nothing here knows what an output should be: the coordinator judges."""

import hashlib

from .common import Params, parse_bytes
from .errors import SpecError, Unsupported


def run_steps(prepare, algorithm: str, steps, case_input: bytes) -> list[dict]:
    """`prepare(alg, op, params)` is the resolved provider's. Malformed steps raise SpecError."""
    if not isinstance(steps, list):
        raise SpecError("steps: must be an array")
    outputs: list[list] = []
    results = []
    for n, step in enumerate(steps):
        # The operation is the schema's (docs/protocol.schema.json): one the provider does not
        # take is refused by its adapter, a result like any operation it does not offer.
        if not isinstance(step, dict) or not isinstance(step.get("op"), str):
            raise SpecError(f"steps[{n}].op: missing")
        runs: list = []
        outputs.append(runs)
        try:
            params = parse_params(step.get("params") or {}, outputs, case_input, n)
            op = prepare(step.get("algorithm") or algorithm, step["op"], params)
        except Unsupported as e:
            results.append({"unsupported": str(e)})
            continue
        except SpecError:
            raise
        except Exception as e:  # the library's refusal is a result, not an error
            results.append({"error": str(e) or type(e).__name__})
            continue
        out = []
        for value in step.get("inputs") or []:
            try:
                got = op(_bytes(value, outputs, case_input, n))
                runs.append(got)
                out.append(_encode(got, step.get("digest")))
            except Unsupported as e:
                runs.append(None)
                out.append({"unsupported": str(e)})
            except SpecError:
                raise
            except Exception as e:
                runs.append(None)
                out.append({"error": str(e) or type(e).__name__})
        results.append({"runs": out})
    return results


def digest(b: bytes) -> dict:
    return {"len": len(b), "sha256": hashlib.sha256(b).hexdigest(), "head": b[:16].hex()}


def _encode(got, as_digest) -> dict:
    if isinstance(got, dict):
        return {"key": {k: v.hex() for k, v in got.items()}}
    got = bytes(got)
    return digest(got) if as_digest else {"out": got.hex()}


def _earlier(value: dict, outputs: list, n: int):
    ref = value.get("ref")
    if not (isinstance(ref, list) and len(ref) == 2 and all(isinstance(x, int) for x in ref)):
        raise SpecError(f"steps[{n}]: a ref is [step, run]")
    step, run = ref
    if not 0 <= step < n or not 0 <= run < len(outputs[step]) or outputs[step][run] is None:
        raise ValueError(f"refers to run {run} of step {step}, which gave no output")
    return outputs[step][run]


def _bytes(value, outputs: list, case_input: bytes, n: int) -> bytes:
    if isinstance(value, str):
        return parse_bytes(value, f"steps[{n}]")
    if not isinstance(value, dict):
        raise SpecError(f"steps[{n}]: a value is hex, a ref or the case input")
    if value.get("case_input") is True:
        return case_input
    out = bytearray(_earlier(value, outputs, n))
    if "prefix" in value:
        keep = value["prefix"]
        if not isinstance(keep, int) or not 0 <= keep <= len(out):
            raise ValueError(f"keeps {keep} bytes of a {len(out)}-byte output")
        del out[keep:]
    if "flip" in value:
        at, mask = value["flip"]
        if not -len(out) <= at < len(out):
            raise ValueError(f"flips byte {at} of a {len(out)}-byte output")
        out[at] ^= mask
    return bytes(out) + parse_bytes(value.get("append", ""), f"steps[{n}]")


def _key(value, outputs: list, n: int) -> dict:
    if isinstance(value, dict) and "ref" in value:
        key = _earlier(value, outputs, n)
        names = value.get("parts")
        return {k: v for k, v in key.items() if names is None or k in names}
    if not isinstance(value, dict):
        raise SpecError(f"steps[{n}]: key parts are an object")
    return {k: parse_bytes(v, f"steps[{n}]") for k, v in value.items()}


def parse_params(raw: dict, outputs: list, case_input: bytes, n: int) -> Params:
    """A step's params, or `open`'s (which add "public", the test key's public parts)."""
    p = Params()
    for name in ("key", "iv", "aad", "salt", "info", "secret", "ad", "signature", "randomness"):
        if name in raw:
            setattr(p, name, _bytes(raw[name], outputs, case_input, n))
    for name in ("keypair", "peer", "public"):
        if name in raw:
            setattr(p, name, _key(raw[name], outputs, n))
    p.out_len = raw.get("out_len", 0)
    p.cost = dict(raw.get("cost") or {})
    return p
