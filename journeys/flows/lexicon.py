"""Words the journeys listen for, in English, Swahili and Sheng (data: tulia/words.json).

Phrases match as whole folded words (case, accents and punctuation ignored).
"""

from __future__ import annotations

from tulia import words

YES = words.phrases("yes")
NO = words.phrases("no")
REJECT = words.phrases("reject")
SEE_ALL = words.phrases("see_all")
CONTINUE = words.phrases("continue")
PAY = words.phrases("pay")
# A question about the money rather than the parcel ("did my payment go through?",
# "malipo yangu yamefika?", "doh imeingia?"): answered with the receipt.
PAYMENT_WORDS = words.phrases("payment")
METHOD_WORDS = words.grouped("payment_method")
ORDINALS = words.numbers("ordinals")
# Words a product request is padded with ("nataka kuona viatu please"): not product words.
FILLER = words.word_set("filler")
DISPUTE = words.phrases("dispute")
RETURN = words.phrases("return")
# "Cancel my order" (not a bare "cancel", which declines the payment question).
CANCEL_ORDER = words.phrases("cancel_order")
REFUND = words.phrases("refund")
SENSITIVE = words.grouped("sensitive")
FRUSTRATION = words.phrases("frustration")
# A reply that only acknowledges the last answer ("ok", "sawa sawa", "poa msee", "noted,
# asante sana"). Single words, matched as a set: any mix of them is still a nod.
ACKNOWLEDGE = words.word_set("acknowledge")
LANGUAGES = words.grouped("language_names")
NOTIFICATIONS = words.phrases("notifications")
MARKETING = words.phrases("marketing")
TURN_ON = words.phrases("turn_on")
TURN_OFF = words.phrases("turn_off")
COUPON_CUES = words.phrases("coupon_cues")
DELIVERY = words.phrases("delivery")
PICKUP = words.phrases("pickup")
RETURN_POLICY = words.phrases("return_policy")
BECAUSE = words.phrases("because")
# Another size or colour of what was delivered (the Kicks document's "size exchange").
EXCHANGE = words.phrases("exchange")
