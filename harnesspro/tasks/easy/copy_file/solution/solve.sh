#!/bin/bash
# Reference solution.
cp /workspace/report.txt /workspace/report_backup.txt
