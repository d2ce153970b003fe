"""Minimal calculator used by the reporting scripts."""


def add(a, b):
    return a + b


def multiply(a, b):
    return a * b


def power(base, exponent):
    """Integer power by repeated multiplication (exponent >= 0)."""
    result = 1
    for _ in range(exponent):
        result = multiply(result, base)
    return result
