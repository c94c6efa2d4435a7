# md2html.awk: the markdown that summary.awk writes, as an HTML fragment (no page around it):
# headings, pipe tables (right-aligned where the separator says ---:), "- " lists, "> " quotes
# and paragraphs; inline **bold**, `code` and [text](link); table cells that name a tie get the
# class "tie". Not a general markdown reader.
#   awk -f md2html.awk [-v rowclass=CLASS] [-v pclass=CLASS] FILE
#   (rowclass: a class for every table body row; pclass: for every paragraph)

function esc(s) {
    gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); gsub(/"/, "\\&quot;", s)
    return s
}

# inline(s): escapes s, then its **bold**, `code` and [text](link)
function inline(s,    out, m, t, u) {
    s = esc(s)
    while (match(s, /`[^`]+`/)) s = substr(s, 1, RSTART - 1) "<code>" substr(s, RSTART + 1, RLENGTH - 2) "</code>" substr(s, RSTART + RLENGTH)
    while (match(s, /\*\*[^*]+\*\*/)) s = substr(s, 1, RSTART - 1) "<strong>" substr(s, RSTART + 2, RLENGTH - 4) "</strong>" substr(s, RSTART + RLENGTH)
    while (match(s, /\[[^]]*\]\([^)]*\)/)) {
        m = substr(s, RSTART, RLENGTH); t = m; sub(/\]\(.*$/, "", t); sub(/^\[/, "", t)
        u = m; sub(/^\[[^]]*\]\(/, "", u); sub(/\)$/, "", u)
        s = substr(s, 1, RSTART - 1) "<a href=\"" u "\">" t "</a>" substr(s, RSTART + RLENGTH)
    }
    return s
}

# close_all(): ends an open paragraph, list, quote or table
function close_all() {
    if (inp) print "</p>"
    if (inl) print "</ul>"
    if (inq) print "</blockquote>"
    if (int_) print "</tbody></table></div>"
    inp = inl = inq = int_ = 0; trow = 0
}

# cells(line, c): fills c[1..n] with a table line's cells, trimmed; returns n
function cells(line, c,    n, i, raw) {
    sub(/^[ \t]*\|/, "", line); sub(/\|[ \t]*$/, "", line)
    n = split(line, raw, "|")
    for (i = 1; i <= n; i++) { c[i] = raw[i]; sub(/^[ \t]+/, "", c[i]); sub(/[ \t]+$/, "", c[i]) }
    return n
}

# cell_class(i, text): the class attribute of body cell i: "num" where its column is right-aligned,
# and "tie" where it names a tie (a best group "a ~ b", a ratio "tie 1.01x ...")
function cell_class(i, text,    k) {
    k = al[i] != "" ? "num" : ""
    if (text ~ /^tie / || text ~ / ~ /) k = k (k == "" ? "" : " ") "tie"
    return k == "" ? "" : " class=\"" k "\""
}

/^[ \t]*$/ { close_all(); next }

/^#+ / {
    close_all()
    lvl = index($0, " ") - 1
    print "<h" lvl ">" inline(substr($0, lvl + 2)) "</h" lvl ">"
    next
}

/^[ \t]*\|/ {
    if (inp || inl || inq) close_all()
    n = cells($0, c)
    if (!int_) { int_ = 1; trow = 0; nh = n; for (i = 1; i <= n; i++) hd[i] = c[i]; next }
    trow++
    if (trow == 1 && $0 ~ /^[ \t]*\|[ \t:|-]+$/) {
        printf "<div class=\"table\"><table><thead><tr>"
        for (i = 1; i <= nh; i++) { al[i] = (c[i] ~ /:$/) ? " class=\"num\"" : ""; printf "<th%s>%s</th>", al[i], inline(hd[i]) }
        print "</tr></thead><tbody>"
        next
    }
    printf "<tr%s>", rowclass != "" ? " class=\"" rowclass "\"" : ""
    for (i = 1; i <= n; i++) printf "<td%s>%s</td>", cell_class(i, c[i]), inline(c[i])
    print "</tr>"
    next
}

/^- / {
    if (!inl) { close_all(); inl = 1; print "<ul>" }
    print "<li>" inline(substr($0, 3)) "</li>"
    next
}

/^> ?/ {
    if (!inq) { close_all(); inq = 1; print "<blockquote>" }
    s = $0; sub(/^> ?/, "", s)
    print inline(s)
    next
}

{
    if (!inp) { close_all(); inp = 1; print pclass != "" ? "<p class=\"" pclass "\">" : "<p>" }
    print inline($0)
}

END { close_all() }
