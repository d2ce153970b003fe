"""Greedy line filling for the wrapper tool."""


def fill(words, width):
    """Split a list of words into lines of at most `width` characters.

    Words are joined by single spaces; a word longer than `width` gets a line of its own.
    """
    lines = []
    current = ""
    for word in words:
        if not current:
            current = word
        elif len(current) + 1 + len(word) < width:
            current += " " + word
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    return lines
