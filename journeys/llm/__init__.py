"""The LLM side of the engine: settings, circuit breaker, structured calls, cascade."""
