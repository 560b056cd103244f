"""The GraphQL documents we send to Shopify's Admin API, and the page sizes they ask for.

Shopify charges a query its *requested* cost up front: every connection costs 2 plus
`first` times what one of its nodes costs, so nested connections multiply. A product page
asks for a few variants and a few locations each (enough for most shops in one round
trip); a product with more is completed by follow-up queries on its own cursors.
"""

from __future__ import annotations

PRODUCTS_FIRST = 10
VARIANTS_FIRST = 6
LEVELS_FIRST = 3
# Follow-up pages: one product's (or one inventory item's) remaining nodes.
MORE_VARIANTS_FIRST = 25
MORE_VARIANT_LEVELS_FIRST = 10
MORE_LEVELS_FIRST = 50

_PAGE_INFO = "pageInfo { hasNextPage endCursor }"
_LEVEL = 'updatedAt location { id } quantities(names: ["available"]) { name quantity }'


def _variant(levels_first: int) -> str:
    return (
        "id sku price inventoryQuantity selectedOptions { name value } "
        f"inventoryItem {{ id tracked inventoryLevels(first: {levels_first}) "
        f"{{ {_PAGE_INFO} nodes {{ {_LEVEL} }} }} }}"
    )


PRODUCT_FIELDS = (
    "id title handle descriptionHtml vendor status updatedAt onlineStoreUrl "
    "featuredMedia { preview { image { url } } } "
    f"variants(first: {VARIANTS_FIRST}) {{ {_PAGE_INFO} nodes {{ {_variant(LEVELS_FIRST)} }} }}"
)

SHOP = "query Shop { shop { name currencyCode myshopifyDomain } }"
PRODUCTS = f"""
query Products($first: Int!, $after: String) {{
  products(first: $first, after: $after, sortKey: ID) {{
    {_PAGE_INFO}
    nodes {{ {PRODUCT_FIELDS} }}
  }}
}}
"""
PRODUCT = f"query Product($id: ID!) {{ product(id: $id) {{ {PRODUCT_FIELDS} }} }}"
MORE_VARIANTS = f"""
query ProductVariants($id: ID!, $after: String) {{
  product(id: $id) {{
    variants(first: {MORE_VARIANTS_FIRST}, after: $after) {{
      {_PAGE_INFO}
      nodes {{ {_variant(MORE_VARIANT_LEVELS_FIRST)} }}
    }}
  }}
}}
"""
MORE_LEVELS = f"""
query InventoryLevels($id: ID!, $after: String) {{
  inventoryItem(id: $id) {{
    inventoryLevels(first: {MORE_LEVELS_FIRST}, after: $after) {{
      {_PAGE_INFO}
      nodes {{ {_LEVEL} }}
    }}
  }}
}}
"""
SUBSCRIBE = """
mutation Subscribe($topic: WebhookSubscriptionTopic!, $url: URL!) {
  webhookSubscriptionCreate(topic: $topic, webhookSubscription: {callbackUrl: $url, format: JSON}) {
    webhookSubscription { id }
    userErrors { field message }
  }
}
"""
# A paid WhatsApp order, created in the shop so Shopify takes the goods from its stock
# (orderCreate's default inventory behaviour, BYPASS, would leave stock untouched).
ORDER_CREATE = """
mutation OrderCreate($order: OrderCreateOrderInput!, $options: OrderCreateOptionsInput) {
  orderCreate(order: $order, options: $options) {
    order { id name }
    userErrors { field message code }
  }
}
"""
# An order we may have created before a lost answer: found again by its tag.
ORDERS_TAGGED = """
query OrdersTagged($query: String!) {
  orders(first: 5, query: $query) { nodes { id name tags } }
}
"""
