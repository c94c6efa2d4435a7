// Appended to a copy of report.html by tests/test_report.sh and run by headless Chromium: checks
// the rendered DOM and writes one "key value" line per check into <pre id="verdict">.
(function () {
  const out = [];
  const want = ["regressions", "best", "critical", "degraded", "straggler", "failed", "probes", "pictures",
                "overlap", "phases", "settings", "meta"];
  for (const id of want) {
    const s = document.getElementById(id);
    const ok = s && s.tagName === "SECTION" && s.querySelector("h2") && s.getBoundingClientRect().height > 20;
    out.push("section " + id + " " + (ok ? "ok" : "missing"));
  }
  const figs = document.querySelectorAll("figure.picture");
  let drawn = 0;
  figs.forEach(f => {
    const s = f.querySelector("svg");
    if (!s) return;
    const r = s.getBoundingClientRect();
    if (r.width > 600 && r.height > 300 && s.querySelectorAll("path").length > 10) drawn++;
  });
  out.push("figures " + figs.length);
  out.push("drawn " + drawn);
  // every in-page reference (links, SVG <use> point shapes, clip paths) names an element
  let refs = 0, broken = 0;
  document.querySelectorAll("*").forEach(e => {
    for (const a of ["href", "xlink:href", "clip-path"]) {
      let v = e.getAttribute(a);
      if (!v) continue;
      const m = v.match(/^#(.+)$/) || v.match(/^url\(#(.+)\)$/);
      if (!m) continue;
      refs++;
      if (!document.getElementById(m[1])) broken++;
    }
  });
  out.push("refs " + refs);
  out.push("broken " + broken);
  // nothing fetched from elsewhere: no script, image, frame or style sheet from outside
  out.push("external " + document.querySelectorAll("img, iframe, link[rel=stylesheet], script[src]").length);
  const reg = document.getElementById("regressions");
  const rows = reg ? reg.querySelectorAll("tr.regressed") : [];
  let visible = 0;
  rows.forEach(r => { if (r.getBoundingClientRect().height > 0 && getComputedStyle(r.cells[0]).backgroundColor !== "rgba(0, 0, 0, 0)") visible++; });
  out.push("regressed_rows " + rows.length);
  out.push("regressed_visible " + visible);
  const strong = reg ? reg.querySelector("strong") : null;
  out.push("regressions_text " + (strong ? strong.innerText : ""));
  // Rows that failed: its green lines (class ok) and its first paragraph's words
  const failed = document.getElementById("failed");
  out.push("failed_ok " + (failed ? failed.querySelectorAll("p.ok").length : -1));
  const fp = failed ? failed.querySelector("p") : null;
  out.push("failed_text " + (fp ? fp.innerText.replace(/\s+/g, " ").trim() : ""));
  // the size ranges as laid out: each row's cells joined by " | ", and the order of the sections
  const best = document.getElementById("best");
  const rng = best ? best.querySelector("table") : null;
  if (rng) Array.from(rng.rows).slice(1).forEach(r => {
    if (r.getBoundingClientRect().height > 0) out.push("range " + Array.from(r.cells).map(c => c.innerText.trim()).join(" | "));
  });
  out.push("order " + Array.from(document.querySelectorAll("section")).map(s => s.id).join(" "));
  const note = document.querySelector("blockquote");
  out.push("note " + (note ? note.innerText.replace(/\s+/g, " ").trim() : ""));
  const v = document.createElement("pre");
  v.id = "verdict";
  v.textContent = out.join("\n");
  document.body.appendChild(v);
})();
