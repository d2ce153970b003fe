"""Usage: python3 cli.py CAPACITY < commands -- run cache commands read from stdin."""

import sys

from lru import LRUCache


def run(cache, line):
    parts = line.split()
    if not parts:
        return None
    cmd, args = parts[0], parts[1:]
    if cmd == "put" and len(args) == 2:
        evicted = cache.put(args[0], args[1])
        return None if evicted is None else "evicted %s" % evicted
    if cmd == "get" and len(args) == 1:
        value = cache.get(args[0])
        return "MISS" if value is None else value
    if cmd == "del" and len(args) == 1:
        return "deleted" if cache.delete(args[0]) else "absent"
    if cmd == "stats" and not args:
        return "size=%d hits=%d misses=%d evictions=%d" % (len(cache), cache.hits, cache.misses, cache.evictions)
    return "error: bad command"


def main(argv):
    if len(argv) != 2 or not argv[1].isdigit() or int(argv[1]) < 1:
        print("usage: cli.py CAPACITY", file=sys.stderr)
        return 2
    cache = LRUCache(int(argv[1]))
    for line in sys.stdin:
        out = run(cache, line)
        if out is not None:
            print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
