#!/bin/sh
echo ready
