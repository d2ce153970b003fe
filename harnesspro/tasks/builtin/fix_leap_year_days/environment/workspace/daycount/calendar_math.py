"""Proleptic Gregorian calendar arithmetic without the datetime module."""

MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def is_leap(year):
    """True for leap years of the Gregorian calendar."""
    return year % 4 == 0 and year % 100 != 0


def days_in_month(year, month):
    if month == 2 and is_leap(month):
        return 29
    return MONTH_DAYS[month - 1]


def days_before_year(year):
    y = year - 1
    return y * 365 + y // 4 - y // 100 + y // 400


def to_ordinal(year, month, day):
    """Day number of a date, 0001-01-01 being day 1."""
    ordinal = days_before_year(year)
    for m in range(1, month):
        ordinal += days_in_month(year, m)
    return ordinal + day


def weekday_name(year, month, day):
    return WEEKDAYS[(to_ordinal(year, month, day) - 1) % 7]
