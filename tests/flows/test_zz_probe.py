import pytest
from tests.flows.chat import start_webhook_chat
from tests.flows.effects import observed
pytestmark = pytest.mark.django_db

@pytest.fixture(autouse=True)
def real_turns(settings):
    settings.TULIA_TURN_HANDLER = "journeys.handler.handle_turn"
    settings.TULIA_RATE_CUSTOMER_PER_MINUTE = 1000

def run(shop, lines, phone):
    chat = start_webhook_chat(shop, phone)
    for l in lines:
        r = chat.send(l)
        print(f"\n>>> {l}\n{r[:300]}\n   [step={chat.state.get('sales_step')} journey={chat.state.get('journey')} lang={chat.state.get('response_language')} intent={chat.state.get('intent')}]")

def test_sizes(shop, size_guide):
    lines = ["I have an issue choosing sizes", "do you have a size guide?", "which size should I pick?",
             "Nina shida kuchagua saizi", "Mnayo mwongozo wa saizi?", "Saizi gani itanifaa?",
             "Sijui size yangu msee", "Mko na size chart?", "Size zenu ziko aje?"]
    for i, l in enumerate(lines):
        run(shop, [l], f"07123456{i:02d}")
