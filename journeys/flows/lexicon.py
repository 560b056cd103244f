"""Words the journeys listen for, in English, Swahili and Sheng.

Kept apart from the parsing code so adding a phrase is a data change. Phrases match as
whole folded words (case, accents and punctuation ignored).
"""

from __future__ import annotations

YES = ("yes", "y", "yeah", "yep", "yap", "ok", "okay", "sure", "confirm", "go ahead",
       "proceed", "ndio", "ndiyo", "naam", "sawa", "poa", "fiti", "sawa sawa", "yes please",
       "ehe", "eeh", "yes pay", "lipa", "pay now", "thibitisha")  # fmt: skip
NO = ("no", "nope", "not now", "later", "cancel", "hapana", "la", "sitaki", "bado",
      "no thanks", "wacha", "achana nayo", "si sasa")  # fmt: skip
REJECT = ("none", "none of these", "not these", "something else", "other", "others",
          "other options", "show me others", "different", "hakuna", "sipendi",
          "nyingine", "zingine", "si hizi", "hizi hapana", "sitaki hizi", "hizo hapana",
          "nataka zingine", "sidhani", "not that", "no other")  # fmt: skip
SEE_ALL = ("see all", "show all", "all products", "full catalog", "full catalogue",
           "whole catalog", "everything", "catalog", "catalogue", "zote", "onyesha zote",
           "nionyeshe zote", "bidhaa zote", "vitu zote", "vitu vyote", "all of them",
           "show me everything")  # fmt: skip
CONTINUE = ("continue", "endelea", "tuendelee", "carry on", "resume", "back to my order",
            "rudi kwa oda", "let s continue")  # fmt: skip
PAY = ("pay", "lipa", "nilipe", "i want to pay", "nataka kulipa", "kulipa",
       "how do i pay", "ready to pay", "pay now")  # fmt: skip
# A question about the money rather than the parcel ("did my payment go through?",
# "malipo yangu yamefika?", "doh imeingia?"): answered with the receipt.
PAYMENT_WORDS = ("payment", "paid", "pay", "money", "mpesa", "m-pesa", "malipo", "pesa",
                 "doh", "nimelipa", "nimetuma", "imelipwa", "receipt", "risiti")  # fmt: skip
METHOD_WORDS: dict[str, tuple[str, ...]] = {
    "pesapal_card": ("card", "kadi", "visa", "mastercard", "pesapal", "credit card"),
    "mpesa_c2b": ("paybill", "pay bill", "till", "buy goods", "lipa na mpesa till"),
    "mpesa_stk": ("stk", "prompt", "mpesa", "m pesa", "simu", "phone", "push"),
}
ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
            "kwanza": 1, "pili": 2, "tatu": 3, "nne": 4, "tano": 5, "sita": 6,
            "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "moja": 1,
            "mbili": 2, "saba": 7, "nane": 8, "tisa": 9, "kumi": 10, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "a pair": 1, "pair": 1}  # fmt: skip
_FILLER_WORDS = (
    "i im want wanna need looking look for to buy show me do you have any some a an the "
    "please pls plz get got sell selling what whats is are in stock price of how much "
    "nataka ningependa naomba una mnauza nionyeshe natafuta niko na doh ya za kununua "
    "kuna bei ni hey hi hello msee buda manze iko wapi gani can could would like find "
    "nipe niletee nauliza zenu yenu your there with kitu vitu something items item "
    "uko unauza mko mnayo nitapata wapi where and or also ama nikupate kuona "
    "under below less than over above chini zaidi ksh kes bob shillings budget "
    "size saizi kama around about between habari vya cha za wa niaje mambo vipi sasa "
    "poa hello hujambo salaam nitafute nitafutie tafuta tafadhali"
)
FILLER = frozenset(_FILLER_WORDS.split())
DISPUTE = ("charged twice", "double charged", "wrong amount", "chargeback", "dispute",
           "nimekatwa mara mbili", "pesa imekatwa", "nimekatwa", "refund my money",
           "money was deducted", "deducted twice", "i paid but", "nimelipa lakini")  # fmt: skip
RETURN = ("return", "returns", "exchange", "rudisha", "kurudisha", "badilisha",
          "nirudishe", "take back")  # fmt: skip
# "Cancel my order" (not a bare "cancel", which declines the payment question).
CANCEL_ORDER = ("cancel my order", "cancel the order", "cancel order", "cancel this order",
                "cancel oda", "ghairi oda", "ghairi order", "futa oda", "nataka kughairi",
                "sitaki oda", "sitaki hiyo oda", "cancel my oda", "nicancelie")  # fmt: skip
REFUND = ("refund", "money back", "pesa yangu", "rejesha pesa", "nirudishiwe pesa",
          "nirudishie pesa")  # fmt: skip
SENSITIVE = {
    "legal": ("lawyer", "court", "sue", "legal action", "police", "wakili", "mahakama",
              "kesi", "polisi"),
    "medical": ("doctor", "hospital", "allergy", "allergic", "pregnant", "medical",
                "daktari", "hospitali", "mzio", "mjamzito", "rash", "injury"),
}  # fmt: skip
FRUSTRATION = ("useless", "terrible", "ridiculous", "frustrated", "frustrating", "angry",
               "not helpful", "you are not helping", "waste of time", "mbaya sana",
               "umenichosha", "nimechoka", "hauna msaada", "hii ni upuuzi", "sina time",
               "umeniboo", "unaniboo", "hii ni noma", "annoying", "worst",
               "never help", "not helping", "no help", "hopeless", "fed up", "pointless",
               "haisaidii", "hunisaidii", "hamnisaidii", "hamsaidii", "husaidii",
               "hakuna msaada", "haina msaada", "hamna msaada", "haifai", "bure kabisa",
               "mmeniangusha", "umeniangusha", "nimechoshwa", "nimekasirika", "inaniboo",
               "mnaniboo", "inaboo", "haina maana")  # fmt: skip
# A reply that only acknowledges the last answer ("ok", "sawa sawa", "poa msee", "noted,
# asante sana"). Single words, matched as a set: any mix of them is still a nod.
_ACKNOWLEDGE_WORDS = (
    "ok okay okey k kk okk sawa sawia poa fiti freshi safi shwari bomba haya basi ehe "
    "noted cool alright alrighty fine great good nice perfect sure understood gotcha got it "
    "nimeelewa nimeskia nimesikia naskia nimekuskia tumeelewana "
    "thanks thank you u asante asanteni sana shukran so much very then tu "
    "msee buda bro boss sir madam mama dada kaka"
)
ACKNOWLEDGE = frozenset(_ACKNOWLEDGE_WORDS.split())
LANGUAGES = {"sw": ("swahili", "kiswahili"), "en": ("english", "kiingereza", "kizungu"),
             "sheng": ("sheng",)}  # fmt: skip
NOTIFICATIONS = ("notification", "notifications", "arifa", "alerts", "updates")
MARKETING = ("offers", "promotions", "promos", "promotional", "marketing", "matangazo",
             "ofa", "deals")  # fmt: skip
TURN_ON = ("on", "turn on", "start", "enable", "washa", "send me", "nitumie", "yes")
TURN_OFF = ("off", "turn off", "stop", "disable", "zima", "no more", "usinitumie", "don t",
            "dont", "sitaki", "no")  # fmt: skip
COUPON_CUES = ("code", "coupon", "promo code", "kuponi", "msimbo", "voucher")
