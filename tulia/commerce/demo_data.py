"""Demo catalogs: a Nairobi sneaker shop (generated from models x colourways) and a grocer."""

from __future__ import annotations

from typing import Any

# (brand, model, category, base price KES, extra aliases)
SNEAKER_MODELS: list[tuple[str, str, str, int, tuple[str, ...]]] = [
    ("Nike", "Air Force 1 '07", "Lifestyle", 12500, ("af1", "airforce")),
    ("Nike", "Air Max 90", "Lifestyle", 14500, ("airmax",)),
    ("Nike", "Air Max 97", "Lifestyle", 18500, ("airmax", "silver bullet")),
    ("Nike", "Air Max Plus TN", "Lifestyle", 19500, ("tn", "tuned")),
    ("Nike", "Dunk Low", "Lifestyle", 13500, ("dunks",)),
    ("Nike", "Blazer Mid '77", "Lifestyle", 11000, ()),
    ("Nike", "Pegasus 41", "Running", 15500, ("pegasus", "jogging")),
    ("Nike", "Revolution 7", "Running", 6500, ("jogging",)),
    ("Nike", "LeBron Witness 8", "Basketball", 11500, ("lebron", "ball")),
    ("Jordan", "Air Jordan 1 Mid", "Basketball", 16500, ("j1", "jordans")),
    ("Jordan", "Air Jordan 4 Retro", "Basketball", 27500, ("j4", "jordans")),
    ("Adidas", "Samba OG", "Lifestyle", 13000, ("sambas",)),
    ("Adidas", "Gazelle", "Lifestyle", 12000, ()),
    ("Adidas", "Superstar", "Lifestyle", 11000, ("shell toe",)),
    ("Adidas", "Stan Smith", "Lifestyle", 10500, ()),
    ("Adidas", "Campus 00s", "Lifestyle", 12500, ("campus",)),
    ("Adidas", "Ultraboost Light", "Running", 21000, ("boost",)),
    ("Adidas", "Runfalcon 3", "Running", 5500, ("jogging",)),
    ("Puma", "Suede Classic", "Lifestyle", 8500, ()),
    ("Puma", "Palermo", "Lifestyle", 9500, ()),
    ("Puma", "RS-X", "Lifestyle", 11000, ()),
    ("New Balance", "550", "Lifestyle", 14000, ("nb",)),
    ("New Balance", "574", "Lifestyle", 11500, ("nb",)),
    ("New Balance", "9060", "Lifestyle", 19000, ("nb",)),
    ("New Balance", "Fresh Foam 1080", "Running", 18000, ("nb",)),
    ("Vans", "Old Skool", "Skate", 7500, ()),
    ("Vans", "Sk8-Hi", "Skate", 8500, ("high top",)),
    ("Vans", "Authentic", "Skate", 6000, ()),
    ("Converse", "Chuck Taylor All Star Hi", "Skate", 7000, ("chucks", "converse high")),
    ("Converse", "Chuck 70 Low", "Skate", 8500, ("chucks",)),
    ("Asics", "Gel-Kayano 30", "Running", 19500, ()),
    ("Asics", "Gel-1130", "Lifestyle", 12500, ()),
    ("Reebok", "Club C 85", "Lifestyle", 8500, ()),
    ("Skechers", "Go Walk 7", "Running", 7000, ("walking",)),
    ("Bata", "Power Court", "Lifestyle", 3500, ("bata",)),
]
COLOURWAYS = [
    ("Triple Black", "black"),
    ("Triple White", "white"),
    ("Black/White", "black"),
    ("University Red", "red"),
    ("Navy Blue", "blue"),
    ("Grey Fog", "grey"),
]
ADULT_SIZES = ["38", "39", "40", "41", "42", "43", "44", "45"]
SANDALS = [
    ("Nike", "Victori One Slide", 3500),
    ("Adidas", "Adilette 22", 4500),
    ("Adidas", "Adilette Aqua", 2800),
    ("Puma", "Leadcat Slide", 3000),
    ("Crocs", "Classic Clog", 5500),
    ("Birkenstock", "Arizona", 14500),
]
ACCESSORIES = [
    ("Crew Socks (3 pairs)", 900, ("soksi",)),
    ("Sneaker Cleaning Kit", 1500, ("cleaner",)),
    ("Crease Protectors", 800, ()),
    ("Nike Heritage Cap", 2500, ("kofia",)),
    ("Replacement Laces", 350, ("laces",)),
]

# (name, unit, category, price KES, English aliases)
GROCERIES: list[tuple[str, str, str, int, tuple[str, ...]]] = [
    ("Sukuma Wiki", "fungu", "Mboga", 20, ("kale", "collard greens")),
    ("Spinachi", "fungu", "Mboga", 30, ("spinach",)),
    ("Managu", "fungu", "Mboga", 50, ("african nightshade",)),
    ("Terere", "fungu", "Mboga", 40, ("amaranth",)),
    ("Kabichi", "kipande", "Mboga", 60, ("cabbage",)),
    ("Nyanya", "kilo", "Mboga", 120, ("tomatoes",)),
    ("Vitunguu", "kilo", "Mboga", 140, ("onions", "red onion")),
    ("Kitunguu Saumu", "gramu 250", "Mboga", 90, ("garlic",)),
    ("Tangawizi", "gramu 250", "Mboga", 80, ("ginger",)),
    ("Karoti", "kilo", "Mboga", 100, ("carrots",)),
    ("Pilipili Hoho", "kilo", "Mboga", 160, ("green pepper", "capsicum")),
    ("Dhania", "fungu", "Mboga", 10, ("coriander", "cilantro")),
    ("Viazi", "kilo", "Mboga", 90, ("potatoes", "waru")),
    ("Viazi Vitamu", "kilo", "Mboga", 110, ("sweet potatoes",)),
    ("Ndizi Mbivu", "chana", "Matunda", 150, ("ripe bananas",)),
    ("Ndizi za Kupika", "kilo", "Mboga", 100, ("matoke", "cooking bananas")),
    ("Maembe", "kilo", "Matunda", 150, ("mangoes",)),
    ("Machungwa", "kilo", "Matunda", 160, ("oranges",)),
    ("Parachichi", "kipande", "Matunda", 30, ("avocado", "ovacado")),
    ("Nanasi", "kipande", "Matunda", 120, ("pineapple",)),
    ("Tikiti Maji", "kipande", "Matunda", 250, ("watermelon",)),
    ("Pasheni", "kilo", "Matunda", 200, ("passion fruit",)),
    ("Ndimu", "kilo", "Matunda", 200, ("lemons", "limes")),
    ("Papai", "kipande", "Matunda", 120, ("pawpaw", "papaya")),
    ("Unga wa Mahindi", "kilo 2", "Vyakula", 180, ("maize flour", "ugali flour")),
    ("Unga wa Ngano", "kilo 2", "Vyakula", 210, ("wheat flour", "chapati flour")),
    ("Mchele Pishori", "kilo", "Vyakula", 220, ("rice", "pishori rice")),
    ("Sukari", "kilo", "Vyakula", 190, ("sugar",)),
    ("Chumvi", "gramu 500", "Vyakula", 40, ("salt",)),
    ("Mafuta ya Kupikia", "lita 1", "Vyakula", 320, ("cooking oil",)),
    ("Maharagwe Rosecoco", "kilo", "Vyakula", 180, ("beans",)),
    ("Ndengu", "kilo", "Vyakula", 200, ("green grams", "mung beans")),
    ("Dengu", "kilo", "Vyakula", 190, ("lentils",)),
    ("Njugu Karanga", "gramu 500", "Vyakula", 150, ("groundnuts", "peanuts")),
    ("Majani ya Chai", "gramu 250", "Vinywaji", 120, ("tea leaves",)),
    ("Kahawa", "gramu 250", "Vinywaji", 350, ("coffee",)),
    ("Maziwa Fresh", "lita 0.5", "Maziwa na Mayai", 60, ("milk",)),
    ("Mala", "lita 0.5", "Maziwa na Mayai", 80, ("fermented milk", "mala")),
    ("Mtindi", "lita 0.5", "Maziwa na Mayai", 90, ("yoghurt", "yogurt")),
    ("Mayai ya Kienyeji", "trei", "Maziwa na Mayai", 450, ("eggs", "kienyeji eggs")),
    ("Mayai", "trei", "Maziwa na Mayai", 390, ("eggs",)),
    ("Mkate", "gramu 400", "Vyakula", 65, ("bread",)),
    ("Siagi", "gramu 250", "Maziwa na Mayai", 280, ("butter",)),
    ("Asali", "gramu 500", "Vyakula", 450, ("honey",)),
    ("Omena", "gorogoro", "Nyama na Samaki", 100, ("sardines", "dagaa")),
    ("Samaki Tilapia", "kipande", "Nyama na Samaki", 350, ("tilapia", "fish")),
    ("Nyama ya Ng'ombe", "kilo", "Nyama na Samaki", 700, ("beef", "meat")),
    ("Kuku wa Kienyeji", "kipande", "Nyama na Samaki", 1200, ("chicken", "kienyeji")),
]


def sneaker_rows() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for n, (brand, model, category, price, aliases) in enumerate(SNEAKER_MODELS):
        for c, (colourway, colour) in enumerate(COLOURWAYS):
            sku = f"KN-{n:02d}{c}"
            rows.append(
                {
                    "sku": sku,
                    "name": f"{brand} {model} '{colourway}'",
                    "brand": brand,
                    "category": category,
                    "price": price + (500 if colour in ("red", "grey") else 0),
                    "stock": 0,
                    "aliases": ["raba", "viatu", *aliases],
                    "attributes": {"colour": colour},
                    "link_url": f"https://kicks-nairobi.tulia.shop/catalog/{sku.lower()}",
                    "variants": [
                        {"sku": f"{sku}-{size}", "attributes": {"size": size, "colour": colour},
                         "stock": (n + c + i) % 4}
                        for i, size in enumerate(ADULT_SIZES)
                    ],
                }
            )  # fmt: skip
    return rows + _sandal_rows() + _accessory_rows()


def _sandal_rows() -> list[dict[str, Any]]:
    return [
        {
            "sku": f"KN-SL{n}",
            "name": f"{brand} {model}",
            "brand": brand,
            "category": "Slides & Sandals",
            "price": price,
            "aliases": ["ndala", "sapatu", "slides"],
            "variants": [
                {"sku": f"KN-SL{n}-{size}", "attributes": {"size": size}, "stock": 3}
                for size in ADULT_SIZES[1:7]
            ],
        }
        for n, (brand, model, price) in enumerate(SANDALS)
    ]


def _accessory_rows() -> list[dict[str, Any]]:
    return [
        {"sku": f"KN-AC{n}", "name": name, "category": "Accessories", "price": price,
         "stock": 25, "aliases": list(aliases)}
        for n, (name, price, aliases) in enumerate(ACCESSORIES)
    ]  # fmt: skip


def grocery_rows() -> list[dict[str, Any]]:
    return [
        {
            "sku": f"MM-{n:03d}",
            "name": f"{name} ({unit})",
            "category": category,
            "price": price,
            "stock": 40,
            "aliases": list(aliases),
            "attributes": {"unit": unit},
        }
        for n, (name, unit, category, price, aliases) in enumerate(GROCERIES)
    ]
