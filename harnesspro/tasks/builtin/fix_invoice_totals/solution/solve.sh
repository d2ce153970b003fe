#!/bin/bash
# Reference solution: the subtotal skipped the first line (lines[1:]); sum all lines.

sed -i 's/for line in lines\[1:\]/for line in lines/' /workspace/invoice/pricing.py

python3 /workspace/invoice/cli.py /workspace/invoice/sample_invoice.csv > /workspace/sample_total.txt
