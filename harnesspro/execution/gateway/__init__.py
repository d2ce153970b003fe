"""The metering gateway: an OpenAI-compatible proxy that records every model call."""
