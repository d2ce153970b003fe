"""A free-form hook: refuse a submission when the agent has not run a single command."""


def no_command_yet(agent, content):
    if agent.tool_calls == 0:
        return (
            "You have not run any command yet, so nothing has changed on disk. Reply with one "
            "```bash block that does the task."
        )
    return None
