"""The three ways an operation ends other than with output (provider.hpp's exceptions)."""


class Unsupported(Exception):
    """The provider does not offer this: a case status, never a failure."""


class Rejected(Exception):
    """A verifier or an AEAD/OAEP decryption refused its input (a forgery)."""


class SpecError(Exception):
    """A malformed request or spec: an `error` reply, and the runner carries on."""
