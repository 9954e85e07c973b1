"""Who a client is: the address budgets and turns are counted by, never the cookie.

A cookie is free to drop, so a budget kept per cookie is no budget: every limit is kept per
client, an IPv4 address or an IPv6 /56 (a home connection is commonly given a /56, 256 /64
networks, and can pick any address in any of them; counting /64s would give one home 256
budgets). Behind a proxy the client is the address the proxy saw (webapp/web/budgets.py
takes it from X-Forwarded-For only when ``PROXIES`` says how many proxies stand in front).
"""

from __future__ import annotations

import ipaddress

#: The prefix length that makes one IPv6 client.
IPV6_CLIENT_PREFIX = 56


def address_key(address: str) -> str:
    """The client an address belongs to: an IPv4 address itself, an IPv6 address its /56."""
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address or "unknown"
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network((parsed, IPV6_CLIENT_PREFIX), strict=False))
    return str(parsed)
