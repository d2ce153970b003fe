"""Parse `key: value` records separated by blank lines."""


def parse(text):
    records = []
    if not text.strip():
        return records
    for block in text.strip().split("\n\n"):
        record = {}
        for line in block.splitlines():
            key, value = line.split(":", 1)
            record[key.strip()] = value.strip()
        records.append(record)
    return records
