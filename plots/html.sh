# plots/html.sh: what report.sh and history.sh share to write a self-contained HTML page (no
# script, nothing fetched): escaping, the page's head and style, and SVG pictures inlined.
# Source it; it defines esc, page_head and figure.

# esc: stdin as HTML text (control characters, such as nvidia-smi's colours, dropped)
esc() { sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' | tr -d '\000-\010\013\014\016-\037'; }

# page_head TITLE: the page up to and including <body>
page_head() {
  cat <<HEAD
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>$(printf '%s' "$1" | esc)</title>
<style>
body { font: 15px/1.4 sans-serif; margin: 0 auto; max-width: 1320px; padding: 0 16px 40px; color: #222; }
h1 { font-size: 24px; margin: 18px 0 6px; } h2 { font-size: 19px; border-bottom: 1px solid #ccc; padding-top: 8px; }
nav { position: sticky; top: 0; background: #f6f6f6; padding: 6px 10px; border-bottom: 1px solid #ddd; z-index: 1; }
nav a { margin-right: 14px; }
table { border-collapse: collapse; margin: 8px 0; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 2px 8px; } th { background: #eee; } td.num, th.num { text-align: right; }
tr.regressed td { background: #fde2e2; } td.tie { background: #e6effc; } .ok { color: #17702a; } .none { color: #666; font-style: italic; }
blockquote { border-left: 4px solid #e0a000; margin: 8px 0; padding: 4px 12px; background: #fff7e0; }
figure.picture { margin: 12px 0 24px; } figure.picture svg { width: 100%; height: auto; display: block; }
figcaption { font-size: 13px; color: #555; } pre { background: #f6f6f6; padding: 8px; overflow-x: auto; font-size: 12px; }
.table { overflow-x: auto; }
</style>
</head>
<body>
HEAD
}

# figure DIR NAME: DIR/plots/NAME.svg inlined, its ids prefixed so that the pictures' point
# shapes and clip paths (the same ids in every gnuplot SVG) stay each picture's own; the
# caption links the PNG (relative to DIR, where the page is)
nfig=0
figure() {
  local dir=$1 name=$2
  nfig=$((nfig + 1))
  printf '<figure id="fig-%s" class="picture">\n' "$name"
  sed -e '/^<?xml/d' -e '/^<!DOCTYPE/d' -e "s/ id='/ id='f$nfig-/g" -e "s/ id=\"/ id=\"f$nfig-/g" \
      -e "s/href='#/href='#f$nfig-/g" -e "s/href=\"#/href=\"#f$nfig-/g" -e "s/url(#/url(#f$nfig-/g" "$dir/plots/$name.svg"
  printf '<figcaption>%s' "$name"
  [ -e "$dir/plots/$name.png" ] && printf ' (<a href="plots/%s.png">PNG</a>)' "$name"
  printf '</figcaption>\n</figure>\n'
}
