"""cryptobench-runner-python: the Python runner (providers pyca and pycryptodome).

It speaks the runner protocol of docs/protocol.md like cryptobench-native; docs/runners.md
describes its measurement side by side with the native core's.
"""

RUNNER = "cryptobench-runner-python"
VERSION = "0.1.0"
SCHEMA = 1
