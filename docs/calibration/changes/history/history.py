"""A free-form context policy: earlier assistant turns keep only their code blocks (their
prose is dropped), so the history the model rereads stays short."""

import re

BLOCK = re.compile(r"```.*?```", re.S)


def code_only_history(agent):
    for message in agent.messages[2:-2]:
        content = message.get("content")
        if message.get("role") == "assistant" and isinstance(content, str):
            blocks = BLOCK.findall(content)
            message["content"] = "\n".join(blocks) if blocks else content[:200]
    return None
