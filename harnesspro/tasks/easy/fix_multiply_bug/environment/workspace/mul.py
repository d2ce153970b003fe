import sys


def multiply(a, b):
    return a + b


print(multiply(int(sys.argv[1]), int(sys.argv[2])))
