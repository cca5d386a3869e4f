"""`openssl speed -mr` output: `+H:16:64:…` gives the sizes, `+F:i:NAME:v1:v2:…` bytes per second
at each; `+F2:i:BITS:sign_s:verify_s` (RSA), `+F4` (ECDSA) and `+F6` (EdDSA) seconds per
operation."""

from cryptobench.errors import UserError
from cryptobench.importers.model import Imported, catalogue_name

PROVIDER = "openssl-speed"


def parse(text: str) -> list[Imported]:
    sizes: list[int] = []
    out: list[Imported] = []
    for line in text.splitlines():
        fields = line.strip().split(":")
        tag = fields[0]
        try:
            if tag == "+H":
                sizes = [int(s) for s in fields[1:] if s]
            elif tag == "+F":
                name, values = fields[2], [float(v) for v in fields[3:] if v]
                for size, bps in zip(sizes, values, strict=False):
                    if bps > 0:
                        op = "hash" if name.lower().startswith(("sha", "md5")) else "encrypt"
                        out.append(
                            Imported(
                                PROVIDER, op, catalogue_name(name), size, [size / bps * 1e9], name
                            )
                        )
            elif tag in ("+F2", "+F4"):
                kind = "rsa" if tag == "+F2" else "ecdsa"
                bits, sign_s, verify_s = fields[2], float(fields[3]), float(fields[4])
                name = f"{kind}-{bits}"
                out.append(Imported(PROVIDER, "sign", name, 0, [sign_s * 1e9], name))
                out.append(Imported(PROVIDER, "verify", name, 0, [verify_s * 1e9], name))
            elif tag == "+F6":
                name, sign_s, verify_s = fields[3].lower(), float(fields[4]), float(fields[5])
                out.append(Imported(PROVIDER, "sign", name, 0, [sign_s * 1e9], fields[3]))
                out.append(Imported(PROVIDER, "verify", name, 0, [verify_s * 1e9], fields[3]))
        except (IndexError, ValueError):
            raise UserError(f"openssl speed -mr: cannot read the line {line.strip()!r}") from None
    if not out:
        raise UserError("no `openssl speed -mr` results in the file (+H/+F lines)")
    return out
