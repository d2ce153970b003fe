#!/bin/bash

mkdir -p /workspace/parts

echo 1 > /workspace/parts/p1.txt

echo 2 > /workspace/parts/p2.txt

echo 3 > /workspace/parts/p3.txt

echo 4 > /workspace/parts/p4.txt

echo 5 > /workspace/parts/p5.txt

echo 6 > /workspace/parts/p6.txt

echo 7 > /workspace/parts/p7.txt

echo 8 > /workspace/parts/p8.txt

echo 9 > /workspace/parts/p9.txt

echo 10 > /workspace/parts/p10.txt

echo 11 > /workspace/parts/p11.txt

echo 12 > /workspace/parts/p12.txt

awk '{s += $1} END {print s}' /workspace/parts/p*.txt > /workspace/parts/total.txt

cat /workspace/parts/total.txt
