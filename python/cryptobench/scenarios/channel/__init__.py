"""The `channel` scenario: what a protected channel costs — TLS handshakes, VPN latency, bulk
transfer through OpenVPN, IPsec and WireGuard (the 2015 offload thesis, 003).
`cryptobench channel`."""

from cryptobench.scenarios.base import figure_scenario

SCENARIO = figure_scenario(
    "channel",
    "what a protected channel costs: TLS handshakes, VPN latency, bulk transfer with CPU",
    paper="003",
)
