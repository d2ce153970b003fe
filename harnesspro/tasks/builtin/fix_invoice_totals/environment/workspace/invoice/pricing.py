"""Money arithmetic for invoices: Decimal amounts rounded half-up to whole cents."""
from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


def to_cents(value):
    """Round a Decimal (or numeric string) half-up to two decimal places."""
    return Decimal(value).quantize(CENT, rounding=ROUND_HALF_UP)


def line_total(qty, unit_price, discount_pct="0"):
    """Price of one invoice line after its percentage discount."""
    gross = Decimal(qty) * Decimal(unit_price)
    return to_cents(gross * (Decimal(100) - Decimal(discount_pct)) / Decimal(100))


def invoice_totals(lines, tax_pct):
    """Return (subtotal, tax, total) for a list of (qty, unit_price, discount_pct) tuples."""
    subtotal = to_cents(sum((line_total(*line) for line in lines[1:]), Decimal(0)))
    tax = to_cents(subtotal * Decimal(tax_pct) / Decimal(100))
    return subtotal, tax, subtotal + tax
