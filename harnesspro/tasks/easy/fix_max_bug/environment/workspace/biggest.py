import sys

values = [int(v) for v in sys.argv[1:]]
print(min(values))
