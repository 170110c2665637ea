"""The results workbook (``summarize --xlsx``): the strong-scaling table per division.

What the official summarizer's ``--xlsx`` sets out to write (mlperf-logging 4.1.68
cannot: its writer needs xlsxwriter, a config.yaml it does not ship and a pandas
method removed in pandas 2; docs/differences.md): one sheet per division (closed,
then open), rows grouped under a title row per availability ("Available on-premise",
"Available cloud", "Preview", "Research, Development, or Internal (RDI)"), each row with
the published ID ``{round}-{NNNN}`` numbered across both sheets. Cells are data, never
formulas (text cells typed as strings). openpyxl (the analysis extra) loads here only.
"""

from __future__ import annotations

from typing import Any

from ..results.hardware import availability_category
from ..safety import visible

SECTIONS = (
    ("onprem", "Available on-premise"),
    ("cloud", "Available cloud"),
    ("preview", "Preview"),
    ("rdi", "Research, Development, or Internal (RDI)"),
)
DIVISIONS = ("closed", "open")


def write_workbook(summary: Any, path: str) -> None:
    from ..extras import require
    from ..results.summary import table_row

    openpyxl = require("openpyxl", "--xlsx")
    # Text as the CSV shows it (safety.visible): control characters (which openpyxl
    # refused, after the CSV and JSON were written), bidirectional and invisible ones
    # as visible escapes (docs/security.md).
    bold = openpyxl.styles.Font(bold=True)
    book = openpyxl.Workbook()
    book.remove(book.active)
    table = summary.strong
    index = 0
    for division in DIVISIONS:
        sheet = book.create_sheet(division)
        sheet.append(["ID", *table.columns])
        for cell in sheet[1]:
            cell.font = bold
        rows = [r for r in table.rows if str(r["division"]).lower() == division]
        for category, title in SECTIONS:
            section = [r for r in rows if availability_category(r["availability"]) == category]
            if not section:
                continue
            sheet.append([title])
            sheet.cell(sheet.max_row, 1).font = bold
            for row in section:
                values = [f"{summary.round.short}-{index:04}", *table_row(table, row)]
                sheet.append([visible(v) if isinstance(v, str) else v for v in values])
                _as_text(sheet[sheet.max_row])
                index += 1
    from ..outputs import open_output

    with open_output(path, binary=True) as out:  # never through a link (docs/security.md)
        book.save(out)


def _as_text(cells: Any) -> None:
    """Text cells stay text: openpyxl stores a string starting with "=" as a formula,
    which the spreadsheet would run (docs/security.md); typed as a string it shows as
    written."""
    for cell in cells:
        if isinstance(cell.value, str):
            cell.data_type = "s"
