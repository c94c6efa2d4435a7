"""tests/summary_pages.py: summary.md and report.html read as a reader sees them (pipe tables,
sections, the HTML page's tables and paragraphs, size labels), and results.csv as a list of
rows, for tests/check_summary.py."""
import csv
import html.parser
import os
import re


def read_csv(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return [{k.strip().lower(): (v or "").strip() for k, v in r.items() if k} for r in csv.DictReader(f)]


def md_sections(text):
    """summary.md as {heading: [lines]}, plus "" for the lines above the first heading"""
    out, cur = {"": []}, ""
    for line in text.splitlines():
        if line.startswith("## "):
            cur = line[3:]
            out[cur] = []
        else:
            out.setdefault(cur, []).append(line)
    return out


def md_table(lines):
    """the first pipe table of lines: (header, [rows]) of stripped cells"""
    rows = [l for l in lines if l.startswith("|")]
    if len(rows) < 2:
        return None, []
    cells = [[c.strip() for c in r.strip().strip("|").split("|")] for r in rows]
    return cells[0], cells[2:]


class Tables(html.parser.HTMLParser):
    """every <table> of a page with the id of the <section> it sits in; the text of each
    section; the class of each paragraph"""

    def __init__(self):
        super().__init__()
        self.tables, self.text, self.pclass = [], {}, []
        self.sec, self.row, self.cell, self.cur, self.inp = None, None, None, None, None

    def handle_starttag(self, tag, a):
        a = dict(a)
        if tag == "section":
            self.sec = a.get("id")
        elif tag == "table":
            self.cur = {"section": self.sec, "rows": []}
        elif tag == "tr" and self.cur is not None:
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = ""
        elif tag == "p":
            self.inp = [a.get("class") or "", ""]

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.row.append(self.cell.strip())
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.cur["rows"].append(self.row)
            self.row = None
        elif tag == "table" and self.cur is not None:
            self.tables.append(self.cur)
            self.cur = None
        elif tag == "p" and self.inp is not None:
            self.pclass.append((self.sec, self.inp[0], " ".join(self.inp[1].split())))
            self.inp = None
        elif tag == "section":
            self.sec = None

    def handle_data(self, d):
        if self.cell is not None:
            self.cell += d
        if self.inp is not None:
            self.inp[1] += d
        if self.sec:
            self.text[self.sec] = self.text.get(self.sec, "") + d


UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}


def size_bytes(label):
    m = re.fullmatch(r"([0-9.]+) (B|KiB|MiB|GiB|TiB)", label)
    return round(float(m.group(1)) * UNITS[m.group(2)]) if m else None


def size_label(b):
    for u in ("TiB", "GiB", "MiB", "KiB"):
        if b >= UNITS[u]:
            return "%g %s" % (b / UNITS[u], u)
    return "%g B" % b
