"""Column statistics of CSV text whose first line names the columns."""

import csv
import io


def column_mean(text: str, column: str) -> float:
    """The mean of the numbers in `column`; empty cells are skipped."""
    rows = list(csv.reader(io.StringIO(text)))
    index = rows[0].index(column)
    cells = [row[index] for row in rows if len(row) > index and row[index]]
    numbers = [float(cell) if cell.replace(".", "", 1).isdigit() else 0.0 for cell in cells]
    return sum(numbers) / len(numbers)
