"""cryptobench: measure the cryptographic primitives of every library on this machine.

Data flows one way: plan -> measure -> store -> analyse -> present. The package's layers, and
which module stands in which, are drawn in docs/architecture.md; python/tests/test_layering.py
holds the code to that picture.
"""

__version__ = "0.1.0"
