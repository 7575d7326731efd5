#!/usr/bin/env python3
"""Write the dpdk-aifab(1) man page from the built binary's --help and
--profile-doc output, and the installed tools' pages from their
docstrings. meson runs it at build time (custom_targets in meson.build),
so a page says what the binary or tool it ships with does.

  tools/mkman.py PATH/TO/dpdk-aifab OUTPUT [PROFILES_DIR [DOC_DIR]]
  tools/mkman.py --tool tools/NAME.py dpdk-aifab-NAME VERSION OUTPUT

--help becomes NAME, SYNOPSIS, DESCRIPTION, OPTIONS (every "  --opt ARG
text" line of a block as one item) and NOTES; --profile-doc's Markdown
(headings, paragraphs, bullets, code blocks, tables) becomes the PROFILE
REFERENCE section. A tool's docstring: its first sentence is the NAME
line, its "  tools/NAME.py ..." lines the SYNOPSIS, the rest the
DESCRIPTION. Standard library only."""
import ast
import re
import subprocess
import sys

# "  --opt ARG    text": a term at column 2, two or more blanks, its text.
ITEM = re.compile(r"^  (\S.*?)\s{2,}(\S.*)$")
# a continuation of an item's text: deeper indented
CONT = re.compile(r"^\s{6,}(\S.*)$")


def esc(text):
    """Roff-escape plain text; `code` and **bold** become bold."""
    t = text.replace("\\", "\\e").replace("-", "\\-")
    t = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", t)   # [text](link)
    t = re.sub(r"\*\*([^*]+)\*\*", r"\\fB\1\\fR", t)
    t = re.sub(r"`([^`]+)`", r"\\fB\1\\fR", t)
    return t


def line(text):
    """One roff text line: a leading '.' or "'" would be a request."""
    t = esc(text)
    return "\\&" + t if t[:1] in (".", "'") else t


def term(text):
    """An option term: option words bold, their arguments italic."""
    out = []
    for w in text.split():
        out.append(("\\fB%s\\fR" if w.startswith("-") else "\\fI%s\\fR")
                   % esc(w))
    return " ".join(out)


def blocks(text):
    cur = []
    for ln in text.splitlines():
        if ln.strip():
            cur.append(ln.rstrip())
        elif cur:
            yield cur
            cur = []
    if cur:
        yield cur


def items(lines):
    """[(term, [text lines])] of an item block, or None if it is not one."""
    out = []
    for ln in lines:
        m = ITEM.match(ln)
        c = CONT.match(ln)
        if m and not ln.startswith("   "):
            out.append((m.group(1), [m.group(2)]))
        elif c and out:
            out[-1][1].append(c.group(1))
        else:
            return None
    return out


def join(lines):
    """Lines of running text as one roff line (`code` may span lines)."""
    return line(" ".join(x.strip() for x in lines))


def render_items(its):
    out = []
    for t, text in its:
        out += [".TP", term(t), join(text)]
    return out


def paragraph(lines):
    """A paragraph; deeper-indented lines (commands) kept as they are."""
    out = [".PP"]
    i = 0
    while i < len(lines):
        if lines[i].startswith("  "):
            out += [".RS 4", ".nf"]
            while i < len(lines) and lines[i].startswith("  "):
                out.append(line(lines[i][2:]))
                i += 1
            out += [".fi", ".RE"]
        else:
            j = i
            while j < len(lines) and not lines[j].startswith("  "):
                j += 1
            out.append(join(lines[i:j]))
            i = j
    return out


def help_sections(text):
    """--help as NAME ... NOTES."""
    bl = list(blocks(text))
    usage, desc, rest = bl[0], bl[1], bl[2:]
    out = [".SH NAME",
           "dpdk-aifab \\- %s" % esc(desc[0].rstrip(".").replace(
               "A software", "a software", 1)),
           ".SH SYNOPSIS"]
    for u in usage:
        args = re.sub(r"^(Usage:)?\s*dpdk-aifab\s*", "", u)
        args = re.sub(r"\s*\(.*\)\s*$", "", args)
        out += [".B dpdk-aifab", esc(args), ".br"]
    out += [".SH DESCRIPTION"] + paragraph(desc)
    notes = False
    for b in rest:
        its = items(b[1:])
        if b[0] == "Options:" and its:
            out += [".SH OPTIONS"] + render_items(its)
        elif b[0].endswith(":") and its:
            out += [".SS %s" % esc(b[0].split(",")[0].rstrip(":")),
                    ".PP", line(b[0])] + render_items(its)
        else:
            if not notes:
                out.append(".SH NOTES")
                notes = True
            out += paragraph(b)
    return out


def table(rows):
    """A Markdown table: one item per row, the first cell its term."""
    cells = [[c.strip() for c in r.strip().strip("|").split("|")]
             for r in rows]
    head, body = cells[0], cells[2:]
    out = []
    for r in body:
        if len(r) != len(head):
            sys.exit("mkman.py: table row with %d cells, header has %d: %s"
                     % (len(r), len(head), " | ".join(r)))
        out += [".TP", esc(r[0])]
        if len(r) == 2:
            out.append(line(r[1]))
            continue
        facts = ["%s: %s" % (h, c) for h, c in zip(head[1:-1], r[1:-1]) if c]
        out += [line("; ".join(facts) + "."), ".br", line(r[-1])]
    return out


def markdown(text):
    """The subset of Markdown --profile-doc writes."""
    text = re.sub(r"<!--.*?-->\n?", "", text, flags=re.S)
    lines = text.splitlines()
    out, i = [], 0
    while i < len(lines):
        ln = lines[i]
        if ln.startswith("```"):
            j = lines.index("```", i + 1) if "```" in lines[i + 1:] else \
                len(lines)
            out += [".PP", ".RS 4", ".nf"] + \
                [line(x) for x in lines[i + 1:j]] + [".fi", ".RE"]
            i = j + 1
        elif ln.startswith("#"):
            level, title = len(ln) - len(ln.lstrip("#")), ln.lstrip("# ")
            out.append((".SH %s" if level == 1 else ".SS %s")
                       % esc(title.upper() if level == 1 else title))
            i += 1
        elif ln.startswith("|"):
            j = i
            while j < len(lines) and lines[j].startswith("|"):
                j += 1
            out += table(lines[i:j])
            i = j
        elif ln.startswith("* "):
            j = i + 1
            while j < len(lines) and lines[j].startswith("  ") and \
                    lines[j].strip():
                j += 1
            out += [".IP \\(bu 2", join([ln[2:]] + lines[i + 1:j])]
            i = j
        elif ln.strip():
            j = i
            while j < len(lines) and lines[j].strip() and \
                    not lines[j].startswith(("```", "#", "|", "* ")):
                j += 1
            out += [".PP", join(lines[i:j])]
            i = j
        else:
            i += 1
    return out


def run(exe, *args):
    # argv[0] "dpdk-aifab": --help prints it, not the build path
    return subprocess.run(["dpdk-aifab"] + list(args), executable=exe,
                          check=True, capture_output=True, text=True).stdout


def header(name, version, source):
    return ['.\\" Generated by tools/mkman.py from %s; do not edit.' % source,
            '.TH %s 1 "" "dpdk-aifab %s" "User Commands"'
            % (esc(name.upper()), esc(version))]


def tool_page(script, name, version):
    """An installed tool's page from its docstring."""
    with open(script) as f:
        doc = ast.get_docstring(ast.parse(f.read()))
    src = "tools/" + name[len("dpdk-aifab-"):] + ".py"
    doc = doc.replace(src, name)
    bl = list(blocks(doc))
    first = " ".join(x.strip() for x in bl[0])
    page = header(name, version, src + "'s docstring") + [
        ".SH NAME", "%s \\- %s" % (esc(name), esc(
            re.split(r"(?<=[a-z)])[.:] ", first)[0].rstrip(".")))]
    usage = [b for b in bl if b[0].lstrip().startswith(name)]
    if usage:
        page += [".SH SYNOPSIS", ".nf"] + \
            [line(x[2:]) for x in usage[0]] + [".fi"]
    page.append(".SH DESCRIPTION")
    for b in bl:
        if b not in usage:
            page += paragraph(b)
    page += [".SH SEE ALSO", "\\fBdpdk\\-aifab\\fR(1)"]
    return page


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "--tool":
        page = tool_page(sys.argv[2], sys.argv[3], sys.argv[4])
        with open(sys.argv[5], "w") as f:
            f.write("\n".join(page) + "\n")
        return
    if len(sys.argv) not in (3, 4, 5):
        sys.exit(__doc__.split("\n\n")[1])
    exe, out_path = sys.argv[1], sys.argv[2]
    version = run(exe, "--version").split()[-1]
    page = header("dpdk-aifab", version, "dpdk-aifab --help and "
                  "--profile-doc")
    page += help_sections(run(exe, "--help"))
    page += markdown(run(exe, "--profile-doc"))
    if len(sys.argv) > 3:
        page += [".SH FILES", ".TP", esc(sys.argv[3]),
                 "The shipped profiles (\\fB\\-\\-list\\-profiles\\fR, "
                 "\\fB\\-\\-profile\\fR \\fINAME\\fR)."]
        if len(sys.argv) > 4:
            page += [".TP", esc(sys.argv[4]),
                     "README and the design notes (architecture, "
                     "generator, lab recipes, scenarios, reliability)."]
    page += [".SH SEE ALSO",
             "\\fBdpdk\\-aifab\\-scenarios\\fR(1), "
             "\\fBdpdk\\-aifab\\-sweep\\fR(1); "
             "\\fBdpdk\\-devbind.py\\fR (package dpdk), "
             "\\fBdpdk\\-telemetry.py\\fR, \\fBdpdk\\-dumpcap\\fR "
             "(package dpdk\\-dev)."]
    with open(out_path, "w") as f:
        f.write("\n".join(page) + "\n")


if __name__ == "__main__":
    main()
