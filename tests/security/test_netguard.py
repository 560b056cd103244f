"""Server-side fetches of shop-typed URLs never reach non-public addresses."""

from __future__ import annotations

import pytest

from tulia.netguard import UnsafeAddress, pinned_request


@pytest.mark.parametrize(
    "url",
    [
        "http://10.0.0.5/photo.jpg",
        "http://192.168.1.1/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/x",
        "http://0.0.0.0/x",
        "https://127.0.0.2/x",
        "file:///etc/passwd",
        "gopher://example.com/",
        "http:///nohost",
    ],
)
def test_non_public_addresses_are_refused(settings, url: str) -> None:
    settings.TULIA_LOCAL_FETCH_HOSTS = []
    with pytest.raises(UnsafeAddress):
        pinned_request(url)


def test_loopback_is_refused_unless_the_operator_lists_it(settings) -> None:
    settings.TULIA_LOCAL_FETCH_HOSTS = []
    with pytest.raises(UnsafeAddress):
        pinned_request("http://localhost:8000/p.jpg")
    settings.TULIA_LOCAL_FETCH_HOSTS = ["localhost"]
    assert pinned_request("http://localhost:8000/p.jpg")[0] == "http://localhost:8000/p.jpg"


def test_a_public_address_is_pinned_with_its_host_kept(settings) -> None:
    settings.TULIA_LOCAL_FETCH_HOSTS = []
    pinned, headers, extensions = pinned_request("https://8.8.8.8:8443/a.jpg?x=1")
    assert pinned == "https://8.8.8.8:8443/a.jpg?x=1"
    assert headers == {"Host": "8.8.8.8:8443"}
    assert extensions == {"sni_hostname": "8.8.8.8"}
