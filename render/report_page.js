/* rocetrace report page, first part: helpers, the data, the verdict, facts and charts (docs/REPORT.md); report_html.c wraps both parts in one strict function. */

  /* What the page found about itself, for people and for tests: errors, charts and their points, totals shown. */
  const check = { errors: [], charts: [], totals: {}, flows_total: 0, flows_rows: 0, flows_not_listed: 0, episodes_total: 0,
    paths_total: 0, paths_rows: 0, verdict: [], findings: [], done: false };
  function caught(text) {
    check.errors.push(text);
    if (check.done) selfCheck();
  }
  /* capturing: a resource that fails to load (it should never be asked for) counts too */
  window.addEventListener("error", function (e) { caught(String(e.message || e.type)); }, true);
  window.addEventListener("unhandledrejection", function (e) { caught("unhandled: " + String(e.reason)); });

  /* ---- small helpers: every string from the data goes in as text, never as markup ---- */

  function el(tag, attrs) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) {
      if (k === "text") e.textContent = attrs[k];
      else if (k === "cls") e.className = attrs[k];
      else e.setAttribute(k, attrs[k]);
    }
    for (let i = 2; i < arguments.length; i++) {
      const c = arguments[i];
      if (c === null || c === undefined) continue;
      e.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    }
    return e;
  }

  /* "—" for a value that cannot be known, with the reason on hover */
  function dash(reason) {
    return el("span", { cls: "rt-null", title: reason || "not known", text: "\u2014" });
  }

  function int(n) {
    return Number(n).toLocaleString("en-US");
  }

  function num(v, digits) {
    if (v === null || v === undefined || !isFinite(v)) return "\u2014";
    const a = Math.abs(v);
    if (a !== 0 && a < 0.01) return v.toPrecision(2);
    return v.toLocaleString("en-US", { maximumFractionDigits: digits === undefined ? 3 : digits });
  }

  /* an axis label: 1.2k, 3M, 0.25 */
  function shortNum(v) {
    const a = Math.abs(v);
    const units = [[1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"]];
    for (const u of units) if (a >= u[0]) return Number((v / u[0]).toPrecision(3)) + u[1];
    return String(Number(v.toPrecision(3)));
  }

  function dur(ns) {
    if (ns === null || ns === undefined) return "\u2014";
    const a = Math.abs(ns);
    if (a < 1e3) return num(ns, 0) + " ns";
    if (a < 1e6) return num(ns / 1e3, 2) + " us";
    if (a < 1e9) return num(ns / 1e6, 3) + " ms";
    return num(ns / 1e9, 3) + " s";
  }

  function bytes(b) {
    const u = ["B", "KB", "MB", "GB", "TB"];
    let v = b, i = 0;
    while (v >= 1000 && i < u.length - 1) { v /= 1000; i++; }
    return (i ? num(v, 2) : int(v)) + " " + u[i];
  }

  function pct(v) {
    return v === null || v === undefined ? "\u2014" : num(v * 100, 2) + " %";
  }

  /* a value cell or "—" with its reason */
  function val(v, fmt, reason) {
    return v === null || v === undefined ? dash(reason) : fmt(v);
  }

  /* ms from the capture's start */
  let start_ns = 0;
  function rel(ns) {
    return (ns - start_ns) / 1e6;
  }

  /* ---- the data: JSON, or gzip-compressed JSON in base64 ---- */

  function meta() {
    return JSON.parse(document.getElementById("rt-meta").textContent);
  }

  async function inflate(id) {
    const text = document.getElementById(id).textContent.replace(/\s+/g, "");
    const bin = atob(text);
    const buf = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) buf[i] = bin.charCodeAt(i);
    const stream = new Blob([buf]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }

  function section(id, title) {
    const s = el("section", { id: id }, el("h2", { text: title }));
    document.getElementById("rt-main").appendChild(s);
    return s;
  }

  /* ---- verdict: the sentences rocetrace wrote (analyze --json's "verdict", analyze/verdict.c), in order,
     then the findings it is built from (analyze --json's "findings", most severe first) ---- */

  function verdict(A) {
    const s = section("rt-verdict", "Verdict");
    const V = A.verdict;
    const worst = A.findings.length ? A.findings[0].severity : "";
    const look = { empty: " rt-congested", no_roce: "", calm: " rt-calm", congested: " rt-congested", ecn_off: "" };
    const box = el("div", { cls: "rt-verdict" + (worst === "error" ? " rt-congested" : look[V.state] || "") });
    s.appendChild(box);
    for (const part in V) {
      if (part === "state" || V[part] === null) continue;
      box.appendChild(el("p", { cls: part === "headline" ? "rt-headline" : "", text: V[part] }));
      check.verdict.push(V[part]);
    }
    findings(s, A.findings);
  }

  /* each finding: its severity and code, its sentence, whom it names, its fix */
  function findings(s, F) {
    if (!F.length) return;
    const ol = el("ol", { cls: "rt-findings", id: "rt-findings" });
    for (const f of F) {
      const li = el("li", { cls: "rt-finding rt-sev-" + f.severity },
        el("span", { cls: "rt-sev", text: f.severity }), " ", el("code", { text: f.code }), " ",
        el("span", { cls: "rt-summary", text: f.summary }));
      const who = [];
      for (const k of ["hosts", "macs", "flows"]) if (f.subjects[k]) who.push(k + ": " + f.subjects[k].join(", "));
      if (f.subjects.priorities) who.push("priorities: " + f.subjects.priorities.join(", "));
      if (who.length) li.appendChild(el("div", { cls: "rt-hint", text: who.join("; ") }));
      li.appendChild(el("div", { cls: "rt-fix", text: "Fix: " + f.fix }));
      ol.appendChild(li);
      check.findings.push([f.severity, f.code, f.summary]);
    }
    s.appendChild(ol);
  }

  function warnings(A, M) {
    if (!M.input_error && !A.warnings.length) return;
    const s = section("rt-warnings", "Warnings");
    if (M.input_error) {
      s.appendChild(el("p", { cls: "rt-error", text: "Reading the capture " + (M.exit_status >= 128 ? "stopped" : "failed") +
        ": " + M.input_error +
        (A.packets ? " (the report covers what was read before it" : " (no frame was read") +
        "; rocetrace exited with status " + M.exit_status + ")." }));
    }
    const ul = el("ul", { cls: "rt-warnings" });
    for (const w of A.warnings) ul.appendChild(el("li", { text: w.message + " [" + w.code + "]" }));
    s.appendChild(ul);
  }

  /* ---- capture facts (the totals carry data-total: the page's self-check reads what is shown) ---- */

  function facts(A, M, S) {
    const s = section("rt-facts", "Capture");
    const g = el("div", { cls: "rt-facts" });
    s.appendChild(g);
    const fact = function (label, value, key) {
      const v = typeof value === "string" ? el("span", { text: value }) : value;
      if (key) v.setAttribute("data-total", key);
      g.appendChild(el("div", {}, el("span", { text: label }), v));
    };
    fact("files", M.files.join(", "));
    if (A.start !== null) {
      fact("start", new Date(Number(A.start.split(".")[0]) * 1000).toISOString().replace(".000Z", "Z") + " (" + A.start + ")");
      fact("duration", dur(A.end_ns - A.start_ns));
    }
    fact("frames", int(A.packets), "packets");
    fact("RoCE packets", int(A.roce_packets), "roce_packets");
    fact("RoCE share", A.packets ? num(100 * A.roce_packets / A.packets, 2) + " %" : "\u2014");
    fact("bytes (on the wire)", int(A.bytes), "bytes");
    fact("flows", int(A.flow_count), "flow_count");
    fact("CE marks", int(A.totals.ce), "totals.ce");
    fact("CNPs", int(A.totals.cnp), "totals.cnp");
    fact("NAKs", int(A.totals.nak), "totals.nak");
    fact("retransmitted", int(A.totals.retransmitted), "totals.retransmitted");
    fact("PFC XOFF", int(A.pfc.xoff), "pfc.xoff");
    fact("episodes", int(A.episodes.length), "episodes");
    fact("link speed (PFC quanta)", num(A.link_speed_bps / 1e9, 3) + " Gb/s");
    fact("chart step", dur(S.bucket_ns) + " buckets, " + dur(S.slot_ns) + " per point" +
         (M.bucket_note ? " (" + M.bucket_note + ")" : ""));
    fact("capture drops", A.capture.dropped === null ? dash("nothing records them (classic pcap)") : el("span", { text: int(A.capture.dropped) }));
    fact("duplicates counted once", A.duplicates === null ? dash("--dup-window 0") : el("span", { text: int(A.duplicates.packets) }));
    if (M.counters) fact("NIC counters", M.counters);
    if (M.source_log) fact("source log", M.source_log);
  }

  /* ---- charts: one time axis in ms from the capture start, zoom shared, episodes shaded ---- */

  const graphs = [];
  let syncing = false;

  function shadeEpisodes(eps) {
    return function (canvas, area, g) {
      canvas.fillStyle = "rgba(230, 90, 40, 0.13)";
      const r = g.xAxisRange();
      for (const e of eps) {
        const a = rel(e.start_ns), b = rel(e.end_ns);
        if (b < r[0] || a > r[1]) continue;
        const x0 = g.toDomXCoord(a), x1 = g.toDomXCoord(b);
        canvas.fillRect(x0, area.y, Math.max(1, x1 - x0), area.h);
      }
    };
  }

  function zoomAll(range) {
    syncing = true;
    for (const g of graphs) g.updateOptions({ dateWindow: range });
    syncing = false;
  }

  function chart(parent, S, c, eps, first) {
    const box = el("div", { cls: "rt-chart", "data-chart": c.id });
    const title = el("h3", { text: c.title + " (" + c.unit + ")" });
    const plot = el("div", { cls: "rt-plot" });
    const legend = el("div", { cls: "rt-legend" });
    box.appendChild(title);
    box.appendChild(plot);
    box.appendChild(legend);
    parent.appendChild(box);
    const rows = [];
    let points = 0;
    for (let i = 0; i < S.x_ms.length; i++) {
      const row = [S.x_ms[i]];
      for (const s of c.series) {
        const y = s.y[i];
        if (y === null) { row.push(null); continue; }
        points++;
        row.push([s.lo ? s.lo[i] : y, y, s.hi ? s.hi[i] : y]);
      }
      rows.push(row);
    }
    check.charts.push({ id: c.id, series: c.series.length, points: points });
    if (!rows.length) {
      plot.style.height = "auto";
      plot.appendChild(el("p", { cls: "rt-hint", text: "No data in time buckets." }));
      return;
    }
    const g = new Dygraph(plot, rows, {
      labels: ["ms"].concat(c.series.map(function (s) { return s.label; })),
      customBars: true,
      xlabel: "ms from the capture start",
      ylabel: c.unit,
      labelsDiv: legend,
      legend: "always",
      axes: { y: { axisLabelWidth: 56, axisLabelFormatter: shortNum } },
      labelsSeparateLines: false,
      connectSeparatedPoints: false,
      includeZero: true,
      showRangeSelector: !!first,
      rangeSelectorHeight: 28,
      animatedZooms: false,
      underlayCallback: shadeEpisodes(eps),
      drawCallback: function (me, initial) {
        if (initial || syncing) return;
        const r = me.xAxisRange();
        syncing = true;
        for (const o of graphs) if (o !== me) o.updateOptions({ dateWindow: r });
        syncing = false;
      },
      highlightCallback: function (ev, x, pts, row) {
        if (syncing) return;
        syncing = true;
        for (const o of graphs) if (o !== g) o.setSelection(row);
        syncing = false;
      },
      unhighlightCallback: function () {
        if (syncing) return;
        syncing = true;
        for (const o of graphs) if (o !== g) o.clearSelection();
        syncing = false;
      },
    });
    graphs.push(g);
  }

  function charts(A, S) {
    const s = section("rt-charts", "Over time");
    s.appendChild(el("p", { cls: "rt-hint", text: "Drag across a chart to zoom (every chart follows), double-click to " +
      "zoom out; shaded: congestion episodes. Each point covers " + dur(S.slot_ns) + ": the line is the mean, the band " +
      "the lowest and highest " + dur(S.bucket_ns) + " bucket in it, so short peaks stay visible." }));
    let first = true;
    for (const c of S.charts) {
      chart(s, S, c, A.episodes, first);
      first = false;
    }
  }

