"""cryptobench: measure the cryptographic primitives of every library on this machine.

Data flows one way: plan -> runner -> store -> stats/analysis -> report/export/compare.
"""

__version__ = "0.1.0"
