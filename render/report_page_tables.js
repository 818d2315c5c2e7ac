/* rocetrace report page, second part: tables, paths, distributions, PFC, episodes, the self-check and the start; embed.py joins it after report_page.js; report_html.c wraps both parts in one strict function. */
  /* ---- tables: sortable columns, pages ---- */

  function table(parent, cols, items, opts) {
    const pageSize = opts.pageSize || 100;
    let sortCol = opts.sort === undefined ? -1 : opts.sort, desc = true, page = 0, filter = "";
    const wrap = el("div", {});
    const pager = el("div", { cls: "rt-pager" });
    const scroll = el("div", { cls: "rt-scroll" });
    const tab = el("table", { id: opts.id });
    const thead = el("thead", {});
    const tbody = el("tbody", {});
    const hr = el("tr", {});
    cols.forEach(function (c, i) {
      const th = el("th", { cls: (c.text ? "rt-text " : "") + (c.key ? "rt-sortable" : ""), text: c.title, title: c.help || "" });
      if (c.key) {
        th.addEventListener("click", function () {
          if (sortCol === i) desc = !desc; else { sortCol = i; desc = !c.text; }
          page = 0;
          draw();
        });
      }
      hr.appendChild(th);
    });
    thead.appendChild(hr);
    tab.appendChild(thead);
    tab.appendChild(tbody);
    scroll.appendChild(tab);
    const info = el("span", {});
    const prev = el("button", { type: "button", text: "\u2190 previous" });
    const next = el("button", { type: "button", text: "next \u2192" });
    prev.addEventListener("click", function () { page--; draw(); });
    next.addEventListener("click", function () { page++; draw(); });
    if (opts.filter) {
      const input = el("input", { type: "search", placeholder: opts.filter });
      input.addEventListener("input", function () { filter = input.value.toLowerCase(); page = 0; draw(); });
      pager.appendChild(input);
    }
    pager.appendChild(prev);
    pager.appendChild(next);
    pager.appendChild(info);
    wrap.appendChild(pager);
    wrap.appendChild(scroll);
    parent.appendChild(wrap);

    function draw() {
      let rows = items;
      if (filter) rows = rows.filter(function (it) { return opts.text(it).toLowerCase().indexOf(filter) >= 0; });
      if (sortCol >= 0) {
        const key = cols[sortCol].key;
        rows = rows.slice().sort(function (a, b) {
          const x = key(a), y = key(b);
          if (x === null || x === undefined) return y === null || y === undefined ? 0 : 1;
          if (y === null || y === undefined) return -1;
          const d = x < y ? -1 : x > y ? 1 : 0;
          return desc ? -d : d;
        });
      }
      const pages = Math.max(1, Math.ceil(rows.length / pageSize));
      page = Math.min(Math.max(page, 0), pages - 1);
      tbody.textContent = "";
      const shown = rows.slice(page * pageSize, (page + 1) * pageSize);
      for (const it of shown) {
        const tr = el("tr", {});
        for (const c of cols) {
          const v = c.cell(it);
          tr.appendChild(el("td", { cls: c.text ? "rt-text" : "" }, typeof v === "string" ? el("span", { text: v }) : v));
        }
        if (opts.click) {
          tr.className = "rt-click";
          tr.addEventListener("click", function () { opts.click(it); });
        }
        tbody.appendChild(tr);
      }
      info.textContent = rows.length ? "rows " + int(page * pageSize + 1) + "\u2013" + int(page * pageSize + shown.length) +
        " of " + int(rows.length) + (pages > 1 ? " (page " + (page + 1) + " of " + pages + ")" : "") : "none";
      prev.disabled = page === 0;
      next.disabled = page >= pages - 1;
      if (opts.onDraw) opts.onDraw(shown.length);
    }
    draw();
  }

  /* the flows the page does not list (it lists at most M.flows_listed_max, those with the most bytes) */
  function notListed(M) {
    return int(M.flows_not_listed) + " more flow" + (M.flows_not_listed === 1 ? " is" : "s are") +
      " not listed (the page lists the " + int(M.flows_listed_max) + " with the most bytes; " +
      "rocetrace analyze --json lists every one)";
  }

  function flowsTable(A, M) {
    const s = section("rt-flows", "Flows");
    const flows = A.flows;
    check.flows_total = flows.length;
    check.flows_not_listed = M.flows_not_listed;
    if (M.flows_not_listed)
      s.appendChild(el("p", { id: "rt-flows-not-listed", cls: "rt-hint", text: int(flows.length) + " of " +
        int(A.flow_count) + " flows: " + notListed(M) + "." }));
    else if (A.flow_count > flows.length)
      s.appendChild(el("p", { cls: "rt-hint", text: int(flows.length) + " of " + int(A.flow_count) + " flows (--flow)." }));
    if (!flows.length) { s.appendChild(el("p", { text: "No RoCE flow in the capture." })); return; }
    s.appendChild(el("p", { cls: "rt-hint", text: "One direction of one QP each; click a column to sort. \u2014: not " +
      "known (hover for why). --flow takes the selector." }));
    const npr = "no CNP answered a CE mark of this flow";
    const rtt = "no request with AckReq was acknowledged";
    const rpNull = function (f) { return f.rp_reaction ? f.rp_reaction.drop_null_reason : "no CNP reached the sender while the flow was paired"; };
    const cols = [
      { title: "id", key: function (f) { return f.id; }, cell: function (f) { return String(f.id); } },
      { title: "flow (selector)", text: true, key: function (f) { return f.selector; }, cell: function (f) { return f.selector; } },
      { title: "transport", text: true, key: function (f) { return f.transport; }, cell: function (f) { return val(f.transport, String, "only responses or CNPs were seen"); } },
      { title: "packets", key: function (f) { return f.packets; }, cell: function (f) { return int(f.packets); } },
      { title: "bytes", key: function (f) { return f.bytes; }, cell: function (f) { return int(f.bytes); } },
      { title: "Gb/s", key: function (f) { return f.gbps; }, cell: function (f) { return val(f.gbps, function (v) { return num(v, 3); }, "a single packet: no span"); } },
      { title: "CE %", key: function (f) { return f.ce_fraction; }, cell: function (f) { return val(f.ce_fraction, pct, "no packet had an ECN field"); } },
      { title: "CNPs", help: "CNPs throttling this flow's sender", key: function (f) { return f.cnp_received; }, cell: function (f) { return int(f.cnp_received); } },
      { title: "NAKs", key: function (f) { return f.naks_received; }, cell: function (f) { return int(f.naks_received); } },
      { title: "resent", key: function (f) { return f.retransmitted; }, cell: function (f) { return int(f.retransmitted); } },
      { title: "NP reaction", help: "median NIC delay from the CE mark to the CNP answering it", key: function (f) { return f.np_reaction_ns ? f.np_reaction_ns.median : null; },
        cell: function (f) { return f.np_reaction_ns ? dur(f.np_reaction_ns.median) : dash(npr); } },
      { title: "RP drop %", help: "median drop of the sender's rate after a CNP (the CNPs measured)", key: function (f) { return f.rp_reaction ? f.rp_reaction.median_drop_pct : null; },
        cell: function (f) { return f.rp_reaction && f.rp_reaction.median_drop_pct !== null ? num(f.rp_reaction.median_drop_pct, 1) : dash(rpNull(f)); } },
      { title: "RTT p50", key: function (f) { return f.rtt_ns ? f.rtt_ns.median : null; }, cell: function (f) { return f.rtt_ns ? dur(f.rtt_ns.median) : dash(rtt); } },
      { title: "RTT p99", key: function (f) { return f.rtt_ns ? f.rtt_ns.p99 : null; }, cell: function (f) { return f.rtt_ns ? dur(f.rtt_ns.p99) : dash(rtt); } },
    ];
    table(s, cols, flows, { id: "rt-flow-table", sort: 4, pageSize: 100, filter: "filter: address, QP",
      text: function (f) { return f.selector; }, onDraw: function (n) { check.flows_rows = n; } });
  }

  /* ---- paths between vantage points (several captures of the same traffic) ---- */

  function paths(A) {
    const P = A.paths || [], V = A.vantage_points || [];
    check.paths_total = P.length;
    if (V.length < 2) return;
    const s = section("rt-paths", "Paths between vantage points");
    s.appendChild(el("p", { cls: "rt-hint", text: "Vantage points: " + V.map(function (v) {
      return v.name + " (" + int(v.frames) + " frames)"; }).join(", ") + ". Each path: the packets seen at both ends, " +
      "the clock offset between them, the one-way delay, the packets lost and CE marked on the way." }));
    if (!P.length) { s.appendChild(el("p", { text: "No packet was seen at two vantage points." })); return; }
    const delay = function (p, k) { return p.delay_ns ? p.delay_ns[k] : null; };
    const dcell = function (k) {
      return function (p) { return p.delay_ns ? dur(p.delay_ns[k]) + (p.delay_includes_offset ? " *" : "") : dash(p.delay_null_reason); };
    };
    table(s, [
      { title: "from", text: true, key: function (p) { return p.from; }, cell: function (p) { return p.from; } },
      { title: "to", text: true, key: function (p) { return p.to; }, cell: function (p) { return p.to; } },
      { title: "matched", help: "packets seen at both", key: function (p) { return p.matched; }, cell: function (p) { return int(p.matched); } },
      { title: "offset", help: "how far the clock of 'to' is ahead of that of 'from'", key: function (p) { return p.offset_ns; },
        cell: function (p) { return val(p.offset_ns, dur, p.offset_null_reason); } },
      { title: "delay min", key: function (p) { return delay(p, "min"); }, cell: dcell("min") },
      { title: "median", key: function (p) { return delay(p, "median"); }, cell: dcell("median") },
      { title: "p99", key: function (p) { return delay(p, "p99"); }, cell: dcell("p99") },
      { title: "lost", help: "seen at 'from', never at 'to' (of the packets judged; those not judged: 'to' was not capturing when they would have passed it)", key: function (p) { return p.lost; },
        cell: function (p) { return int(p.lost) + " of " + int(p.judged) + (p.not_judged ? " (" + int(p.not_judged) + " not judged)" : ""); } },
      { title: "CE marked", help: "became CE between the two points", key: function (p) { return p.ce_marked; }, cell: function (p) { return int(p.ce_marked); } },
    ], P, { id: "rt-path-table", pageSize: 50, onDraw: function (n) { check.paths_rows = n; } });
    const sampled = P.filter(function (p) { return p.sample && p.sample.m > 1; });
    if (sampled.length)
      s.appendChild(el("p", { cls: "rt-hint", text: "The figures rest on the packets sampled, " + sampled[0].sample.k + " in " +
        sampled[0].sample.m + " (the same packets at every point): matched, lost and CE marked count those." }));
    if (P.some(function (p) { return p.delay_ns && p.delay_includes_offset; }))
      s.appendChild(el("p", { cls: "rt-hint", text: "*: the clock offset is not known, so the delay includes it." }));
  }

  /* ---- distributions: across flows, as cumulative shares ---- */

  function cdfChart(parent, id, title, sets, unit) {
    const box = el("div", { cls: "rt-chart", "data-chart": id }, el("h3", { text: title }));
    parent.appendChild(box);
    const usable = sets.filter(function (s) { return s.values.length; });
    if (!usable.length) {
      box.appendChild(el("p", {}, dash(sets[0].reason), " " + sets[0].reason + "."));
      check.charts.push({ id: id, series: 0, points: 0 });
      return;
    }
    const xs = {};
    for (const s of usable) { s.values.sort(function (a, b) { return a - b; }); for (const v of s.values) xs[v] = true; }
    const xv = Object.keys(xs).map(Number).sort(function (a, b) { return a - b; });
    /* every curve starts at 0 % left of the smallest value and ends at 100 % right of the largest,
       so one value (every flow alike) still draws its step away from the chart's edges */
    const hi = xv[xv.length - 1], pad = (hi - xv[0]) / 20 || Math.abs(hi) / 10 || 1;
    const rows = [[xv[0] > 0 ? 0 : xv[0] - pad].concat(usable.map(function () { return 0; }))];
    let points = 0;
    for (const x of xv) {
      const row = [x];
      for (const s of usable) {
        /* share of flows at or below x: the last index holding x */
        let lo = 0, hi = s.values.length;
        while (lo < hi) { const m = (lo + hi) >> 1; if (s.values[m] <= x) lo = m + 1; else hi = m; }
        if (lo > 0 && s.values[lo - 1] === x) { row.push(100 * lo / s.values.length); points++; } else row.push(null);
      }
      rows.push(row);
    }
    rows.push([hi + pad].concat(usable.map(function () { return 100; })));
    check.charts.push({ id: id, series: usable.length, points: points, x: [rows[0][0], hi + pad], largest: hi });
    const plot = el("div", { cls: "rt-plot" });
    const legend = el("div", { cls: "rt-legend" });
    box.appendChild(plot);
    box.appendChild(legend);
    new Dygraph(plot, rows, {
      labels: [unit].concat(usable.map(function (s) { return s.label + " (" + s.values.length + " flows)"; })),
      xlabel: unit, ylabel: "% of flows at or below", stepPlot: true, connectSeparatedPoints: true,
      drawPoints: rows.length < 60, labelsDiv: legend, legend: "always", valueRange: [0, 101],
    });
  }

  function distributions(A, M) {
    const s = section("rt-dist", "Distributions over the flows");
    if (M.flows_not_listed)
      s.appendChild(el("p", { cls: "rt-hint", text: "Over the flows the page lists: " + notListed(M) + "." }));
    const two = el("div", { cls: "rt-two" });
    s.appendChild(two);
    const us = function (f) { return f / 1e3; };
    const fl = A.flows;
    cdfChart(two, "np", "NP reaction: median per flow (CE mark to its CNP)", [{
      label: "NP reaction", reason: "no CNP answered a CE mark: no NP reaction to show",
      values: fl.filter(function (f) { return f.np_reaction_ns; }).map(function (f) { return us(f.np_reaction_ns.median); }),
    }], "us");
    cdfChart(two, "rttdist", "Round trip per flow", [
      { label: "RTT median", reason: "no request with AckReq was acknowledged: no round trip to show",
        values: fl.filter(function (f) { return f.rtt_ns; }).map(function (f) { return us(f.rtt_ns.median); }) },
      { label: "RTT p99", reason: "", values: fl.filter(function (f) { return f.rtt_ns; }).map(function (f) { return us(f.rtt_ns.p99); }) },
    ], "us");
  }

  /* ---- PFC ---- */

  function pfc(A) {
    const s = section("rt-pfc", "PFC and PAUSE");
    const P = A.pfc;
    if (!P.frames && !A.pause.frames) { s.appendChild(el("p", { text: "No PFC or 802.3x PAUSE frame in the capture." })); return; }
    const prio = Object.keys(P.priorities).map(function (p) { const o = P.priorities[p]; return { p: p, xoff: o.xoff, xon: o.xon, paused_ns: o.paused_ns, storms: o.storms }; });
    if (A.pause.frames) prio.push({ p: "802.3x PAUSE", xoff: A.pause.xoff, xon: A.pause.xon, paused_ns: A.pause.paused_ns, storms: A.pause.storms });
    s.appendChild(el("h3", { text: "Per priority" }));
    table(s, [
      { title: "priority", text: true, key: function (r) { return r.p; }, cell: function (r) { return r.p; } },
      { title: "XOFF", key: function (r) { return r.xoff; }, cell: function (r) { return int(r.xoff); } },
      { title: "XON", key: function (r) { return r.xon; }, cell: function (r) { return int(r.xon); } },
      { title: "paused", key: function (r) { return r.paused_ns; }, cell: function (r) { return dur(r.paused_ns); } },
      { title: "storms", key: function (r) { return r.storms; }, cell: function (r) { return int(r.storms); } },
    ], prio, { id: "rt-pfc-prio", pageSize: 20 });
    s.appendChild(el("h3", { text: "Per sending MAC" }));
    table(s, [
      { title: "MAC", text: true, key: function (r) { return r.mac; }, cell: function (r) { return r.mac; } },
      { title: "priority", text: true, key: function (r) { return r.priority; }, cell: function (r) { return r.priority; } },
      { title: "XOFF", key: function (r) { return r.xoff; }, cell: function (r) { return int(r.xoff); } },
      { title: "XON", key: function (r) { return r.xon; }, cell: function (r) { return int(r.xon); } },
      { title: "paused", key: function (r) { return r.paused_ns; }, cell: function (r) { return dur(r.paused_ns); } },
    ], P.sources, { id: "rt-pfc-mac", sort: 4, pageSize: 50, filter: "filter: MAC", text: function (r) { return r.mac; } });
    if (A.storms.length) {
      s.appendChild(el("h3", { text: "Storms (a class paused continuously)" }));
      table(s, [
        { title: "MAC", text: true, key: function (r) { return r.mac; }, cell: function (r) { return r.mac; } },
        { title: "priority", text: true, key: function (r) { return r.priority; }, cell: function (r) { return r.priority; } },
        { title: "start (ms)", key: function (r) { return r.start_ns; }, cell: function (r) { return num(rel(r.start_ns), 3); } },
        { title: "lasted", key: function (r) { return r.duration_ns; }, cell: function (r) { return dur(r.duration_ns); } },
      ], A.storms, { id: "rt-storms", pageSize: 50 });
    }
  }

  /* ---- episodes: all of them, paged; a click zooms the charts onto one ---- */

  function episodes(A) {
    const s = section("rt-episodes", "Congestion episodes");
    const eps = A.episodes;
    check.episodes_total = eps.length;
    if (!eps.length) { s.appendChild(el("p", { text: "No congestion episode: no CE mark, CNP or pause." })); return; }
    s.appendChild(el("p", { cls: "rt-hint", text: "CE marks, CNPs and pauses less than the episode gap apart; click a row to zoom the charts onto it." }));
    const outside = "that gap reaches outside the capture";
    eps.forEach(function (e, i) { e.n = i + 1; });
    table(s, [
      { title: "#", key: function (e) { return e.n; }, cell: function (e) { return String(e.n); } },
      { title: "start (ms)", key: function (e) { return e.start_ns; }, cell: function (e) { return num(rel(e.start_ns), 3); } },
      { title: "lasted", key: function (e) { return e.duration_ns; }, cell: function (e) { return dur(e.duration_ns); } },
      { title: "flows", key: function (e) { return e.flow_count; }, cell: function (e) { return int(e.flow_count); } },
      { title: "CE", key: function (e) { return e.ce; }, cell: function (e) { return int(e.ce); } },
      { title: "CNPs", key: function (e) { return e.cnp; }, cell: function (e) { return int(e.cnp); } },
      { title: "XOFF", key: function (e) { return e.pfc_xoff; }, cell: function (e) { return int(e.pfc_xoff); } },
      { title: "paused", key: function (e) { return e.paused_ns; }, cell: function (e) { return dur(e.paused_ns); } },
      { title: "peak CE/s", key: function (e) { return e.peak_ce_per_s; }, cell: function (e) { return num(e.peak_ce_per_s, 0); } },
      { title: "Gb/s before", key: function (e) { return e.gbps_before; }, cell: function (e) { return val(e.gbps_before, function (v) { return num(v, 3); }, outside); } },
      { title: "during", key: function (e) { return e.gbps_during; }, cell: function (e) { return val(e.gbps_during, function (v) { return num(v, 3); }, "the episode lasted no time"); } },
      { title: "after", key: function (e) { return e.gbps_after; }, cell: function (e) { return val(e.gbps_after, function (v) { return num(v, 3); }, outside); } },
    ], eps, { id: "rt-episode-table", pageSize: 50, click: function (e) {
      const a = rel(e.start_ns), b = rel(e.end_ns), pad = Math.max((b - a) * 2, 0.05);
      zoomAll([a - pad, b + pad]);
      document.getElementById("rt-charts").scrollIntoView();
    } });
  }

  function selfCheck() {
    for (const e of document.querySelectorAll("[data-total]"))
      check.totals[e.getAttribute("data-total")] = Number(e.textContent.replace(/[^0-9]/g, ""));
    check.done = true;
    let out = document.getElementById("rt-selfcheck");
    if (!out) {
      out = el("pre", { id: "rt-selfcheck", hidden: "hidden" });
      document.body.appendChild(out);
    }
    out.textContent = JSON.stringify(check);
  }

  async function main() {
    const main = document.getElementById("rt-main");
    try {
      const M = meta();
      if (typeof DecompressionStream === "undefined")
        throw new Error("this browser has no DecompressionStream: open the report in a browser from 2023 or later");
      const A = await inflate("rt-analysis");
      const S = await inflate("rt-series");
      start_ns = A.start_ns || 0;
      document.getElementById("rt-loading").remove();
      verdict(A);
      warnings(A, M);
      facts(A, M, S);
      charts(A, S);
      flowsTable(A, M);
      paths(A);
      distributions(A, M);
      pfc(A);
      episodes(A);
    } catch (err) {
      check.errors.push(String(err && err.stack ? err.stack : err));
      main.appendChild(el("p", { cls: "rt-error", text: "The report could not be drawn: " + String(err) }));
    }
    selfCheck();
  }

  main();
