"""Write parsed records as CSV."""

import csv


def to_csv(records, handle):
    fields = sorted({key for record in records for key in record})
    writer = csv.DictWriter(handle, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    writer.writerows(records)
