import sys


def square(n):
    return n * 2


print(square(int(sys.argv[1])))
