"""Print the current UTC offset-adjusted time for a few cities."""
import sys
import time

OFFSETS = {"Berlin": 1, "Tokyo": 9, "Lagos": 1, "Lima": -5}


def main(cities):
    now = time.time()
    for city in cities:
        hours = OFFSETS.get(city)
        if hours is None:
            print(f"{city}: unknown")
            continue
        print(f"{city}: {time.strftime('%H:%M', time.gmtime(now + 3600 * hours))}")


if __name__ == "__main__":
    main(sys.argv[1:])
