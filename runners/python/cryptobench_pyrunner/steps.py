"""The `steps` request (docs/protocol.md): prepare one operation per step, run it on each input,
return the outputs. Nothing here knows what an output should be: the coordinator judges, and puts
an earlier output a step uses in its place itself."""

import hashlib

from .common import Params, parse_bytes
from .errors import SpecError, Unsupported


def run_steps(prepare, algorithm: str, steps, case_input: bytes) -> list[dict]:
    """`prepare(alg, op, params)` is the resolved provider's. Malformed steps raise SpecError."""
    if not isinstance(steps, list):
        raise SpecError("steps: must be an array")
    results = []
    for n, step in enumerate(steps):
        # The operation is the schema's (docs/protocol.schema.json): one the provider does not
        # take is refused by its adapter, a result like any operation it does not offer.
        if not isinstance(step, dict) or not isinstance(step.get("op"), str):
            raise SpecError(f"steps[{n}].op: missing")
        try:
            params = parse_params(step.get("params") or {}, f"steps[{n}]")
            op = prepare(step.get("algorithm") or algorithm, step["op"], params)
        except Unsupported as e:
            results.append({"unsupported": str(e)})
            continue
        except SpecError:
            raise
        except Exception as e:  # the library's refusal is a result, not an error
            results.append({"error": str(e) or type(e).__name__})
            continue
        out, where = [], f"steps[{n}]"
        for value in step.get("inputs") or []:
            data = case_input if value == {"case_input": True} else parse_bytes(value, where)
            try:
                out.append(_encode(op(data), step.get("digest")))
            except Unsupported as e:
                out.append({"unsupported": str(e)})
            except Exception as e:
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


def parse_params(raw: dict, where: str = "params") -> Params:
    """A step's params, or `open`'s (which add "public", the test key's public parts)."""
    p = Params()
    for name in ("key", "iv", "aad", "salt", "info", "secret", "ad", "signature", "randomness"):
        if name in raw:
            setattr(p, name, parse_bytes(raw[name], f"{where}.{name}"))
    for name in ("keypair", "peer", "public"):
        if name in raw:
            if not isinstance(raw[name], dict):
                raise SpecError(f"{where}.{name}: key parts are an object")
            setattr(p, name, {k: parse_bytes(v, f"{where}.{name}") for k, v in raw[name].items()})
    p.out_len = raw.get("out_len", 0)
    p.cost = dict(raw.get("cost") or {})
    return p
