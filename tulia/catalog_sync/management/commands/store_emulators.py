"""Run a local Shopify and a local WooCommerce store until Ctrl-C, changing as shops do.

Connect them from admin (Store sync → Store connections): Shopify with the domain
`127.0.0.1:<port>` and the token and client secret below; WooCommerce with the store URL
`http://127.0.0.1:<port>` and the key and secret below. Every `--change-every` seconds a
product's price or stock changes, and the signed webhook goes to the connected shop.
"""

from __future__ import annotations

import random
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from tulia.catalog_sync.emulators.shopify import ShopifyEmulator
from tulia.catalog_sync.emulators.woocommerce import WooEmulator

SHOPIFY_TOKEN, SHOPIFY_SECRET = "shpat_demo", "shpss_demo"
WOO_KEY, WOO_SECRET = "ck_demo", "cs_demo"


class Command(BaseCommand):
    help = "Serve local Shopify and WooCommerce stores (seeded, changing, sending webhooks)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--shopify-port", type=int, default=8711)
        parser.add_argument("--woo-port", type=int, default=8712)
        parser.add_argument("--products", type=int, default=200)
        parser.add_argument("--change-every", type=float, default=20.0)

    def handle(self, *args: Any, **options: Any) -> None:
        shopify = ShopifyEmulator(
            "demo.myshopify.com", SHOPIFY_TOKEN, SHOPIFY_SECRET, port=options["shopify_port"]
        )
        woo = WooEmulator(WOO_KEY, WOO_SECRET, port=options["woo_port"])
        shopify.seed(options["products"])
        woo.seed(options["products"])
        with shopify, woo:
            self.stdout.write(f"Shopify on {shopify.base_url} ({SHOPIFY_TOKEN}, {SHOPIFY_SECRET})")
            self.stdout.write(f"WooCommerce on {woo.base_url} ({WOO_KEY}, {WOO_SECRET})")
            try:
                while True:
                    time.sleep(options["change_every"])
                    _change(shopify, woo)
            except KeyboardInterrupt:
                self.stdout.write("stopped")


def _change(shopify: ShopifyEmulator, woo: WooEmulator) -> None:
    pick = random.Random()  # noqa: S311 - demo traffic, not security
    product = pick.choice(sorted(shopify.products))
    if pick.random() < 0.5:
        shopify.set_price(product, str(pick.randrange(500, 5000, 50)))
    else:
        shopify.set_stock(product, pick.randrange(0, 12))
    woo_product = pick.choice(sorted(p.id for p in woo.products.values() if p.type != "variation"))
    woo.update(woo_product, price=str(pick.randrange(500, 5000, 50)))
