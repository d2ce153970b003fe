#!/bin/bash

echo ok > /workspace/smoke.txt
