"""WhatsApp reply templates in English, Swahili and Sheng (deterministic text nodes)."""
