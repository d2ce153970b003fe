import sys

age = int(sys.argv[1])
if age > 18:
    print("yes")
else:
    print("no")
