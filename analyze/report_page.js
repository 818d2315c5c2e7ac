/* rocetrace report page, first part: helpers, the data, the verdict, facts and charts (docs/REPORT.md); report_html.c wraps both parts in one strict function. */

  /* What the page found about itself, for people and for tests: errors, charts and their points, totals shown. */
  const check = { errors: [], charts: [], totals: {}, flows_total: 0, flows_rows: 0, flows_not_listed: 0, episodes_total: 0,
    paths_total: 0, paths_rows: 0, victims: 0, done: false };
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

  /* ---- verdict ---- */

  function verdict(A, M) {
    const s = section("rt-verdict", "Verdict");
    const box = el("div", { cls: "rt-verdict" });
    s.appendChild(box);
    const t = A.totals, flows = A.flows || [], eps = A.episodes || [];
    const pfcXoff = A.pfc.xoff + A.pause.xoff;
    const congested = t.ce > 0 || t.cnp > 0 || pfcXoff > 0 || eps.length > 0;
    const line = function (text, cls) { box.appendChild(el("p", { cls: cls || "", text: text })); };

    if (!A.packets) {
      box.className += " rt-congested";
      line("The capture holds no frames: nothing to report.", "rt-headline");
    } else if (!A.roce_packets) {
      line("The capture holds " + int(A.packets) + " frames and none of them is RoCE" +
           (pfcXoff ? " (but PFC/PAUSE frames paused the link)." : "."), "rt-headline");
    } else if (!congested && A.ecn_off) {
      /* Not-ECT traffic: no switch could mark it, so no CE mark says nothing about congestion */
      const w = (A.warnings || []).find(function (x) { return x.code === "not_ecn_capable"; }) || {};
      line("Congestion cannot be told from CE marks: ECN is off (" + int(w.not_ect || 0) + " of " +
           int(w.packets || 0) + " RoCE data packets are Not-ECT, so no switch could mark them). " +
           "What the capture shows: no PFC/PAUSE pause, " + int(t.retransmitted) + " resent packets, " +
           int(t.gaps) + " PSN gaps in " + int(A.roce_packets) + " RoCE packets over " +
           dur(A.end_ns - A.start_ns) + ".", "rt-headline");
    } else if (!congested) {
      box.className += " rt-calm";
      line("No congestion seen: no CE mark, no CNP, no PFC/PAUSE pause in " + int(A.roce_packets) +
           " RoCE packets over " + dur(A.end_ns - A.start_ns) + ".", "rt-headline");
    } else {
      box.className += " rt-congested";
      line("Congestion: " + int(eps.length) + " episode" + (eps.length === 1 ? "" : "s") + ", " + int(t.ce) +
           " CE marks, " + int(t.cnp) + " CNPs, " + int(pfcXoff) + " PFC/PAUSE XOFF frames.", "rt-headline");
    }
    if (!A.packets) return;
    if (congested && A.ecn_off)
      line("ECN is off: most RoCE data packets are Not-ECT, so CE marks cannot show where the congestion is; " +
           "the pauses and losses do.");

    /* where */
    if (A.incast) {
      const ic = A.incast;
      line("Where: hot receiver " + ic.receiver + ", fed by " + int(ic.senders) + " senders over " + int(ic.flows) +
           " flows (" + int(ic.ce) + " CE marks" + (ic.gbps === null ? "" : ", " + num(ic.gbps, 2) + " Gb/s") + ").");
    }
    const prios = Object.keys(A.pfc.priorities || {});
    if (prios.length) {
      line("PFC paused priorit" + (prios.length === 1 ? "y " : "ies ") + prios.map(function (p) {
        return p + " (" + dur(A.pfc.priorities[p].paused_ns) + ")";
      }).join(", ") + (A.storms.length ? "; " + int(A.storms.length) + " PFC storm(s)." : "."));
    }
    if (A.pause.frames) line("802.3x PAUSE: " + int(A.pause.xoff) + " XOFF, paused " + dur(A.pause.paused_ns) + ".");

    /* when */
    if (eps.length) {
      let longest = eps[0], peak = eps[0];
      for (const e of eps) {
        if (e.duration_ns > longest.duration_ns) longest = e;
        if (e.peak_ce_per_s > peak.peak_ce_per_s) peak = e;
      }
      line("When: from " + num(rel(eps[0].start_ns), 3) + " ms to " + num(rel(eps[eps.length - 1].end_ns), 3) +
           " ms of the capture; the longest episode lasted " + dur(longest.duration_ns) + " (at " +
           num(rel(longest.start_ns), 3) + " ms)" + (peak.peak_ce_per_s > 0 ? ", the highest marking rate was " +
           num(peak.peak_ce_per_s, 0) + " CE/s (at " + num(rel(peak.start_ns), 3) + " ms)" : "") + ".");
    }

    /* who */
    if (M.flows_not_listed)
      line("The per-flow figures below (who, victims, flows resending, NP delay, senders) are those of the " +
           "flows the page lists: " + notListed(M) + ".");
    const marked = flows.filter(function (f) { return f.ecn.ce > 0; }).sort(function (a, b) { return b.ecn.ce - a.ecn.ce; });
    if (marked.length) {
      line("Who: " + int(marked.length) + " flow" + (marked.length === 1 ? " was" : "s were") + " CE-marked; most: " +
           marked.slice(0, 5).map(function (f) { return f.selector + " (" + int(f.ecn.ce) + ")"; }).join(", ") + ".");
    }
    /* in_episodes: every flow an episode counted (an episode's own list holds only its first flows) */
    const victims = flows.filter(function (f) {
      return f.in_episodes && f.ecn.ce === 0 && f.requests > 0;
    });
    check.victims = victims.length;
    if (victims.length) {
      line("Victims: " + int(victims.length) + " flow" + (victims.length === 1 ? "" : "s") +
           " with no CE mark of their own sent during the episodes: " +
           victims.slice(0, 5).map(function (f) { return f.selector; }).join(", ") + (victims.length > 5 ? ", ..." : "") + ".");
    }
    const resent = flows.filter(function (f) { return f.retransmitted > 0; });
    if (resent.length) {
      line("Losses: " + int(t.retransmitted) + " packets resent by " + int(resent.length) + " flow(s), " + int(t.nak) +
           " NAKs, " + int(t.timeouts) + " implied timeouts.");
    }

    /* did the notification points answer? */
    if (t.ce > 0) {
      const np = flows.filter(function (f) { return f.np_reaction_ns; });
      if (!t.cnp) {
        line("Notification points: no CNP answered the " + int(t.ce) + " CE marks: the receivers' NP (ECN on the RoCE " +
             "priority) may be off, or the CNPs were not captured.");
      } else {
        const med = np.map(function (f) { return f.np_reaction_ns.median; }).sort(function (a, b) { return a - b; });
        let limited = 0;
        for (const f of flows) limited += f.ce_rate_limited;
        line("Notification points answered: " + int(t.cnp) + " CNPs for " + int(t.ce) + " CE marks" +
             (med.length ? "; NP delay (median of " + int(med.length) + " flows' medians) " + dur(med[Math.floor((med.length - 1) / 2)]) : "") +
             (limited ? "; the CNP limiter held back " + int(limited) + " marks" : "") +
             (t.cnp_unattributed ? "; " + int(t.cnp_unattributed) + " CNPs matched no flow" : "") + ".");
      }
    }

    /* did the senders slow down? */
    let cnps = 0, measured = 0, why = null;
    const meds = [], whys = {};
    for (const f of flows) {
      const r = f.rp_reaction;
      if (!r) continue;
      cnps += r.cnps;
      if (r.measured && r.median_drop_pct !== null) {
        measured += r.measured;
        meds.push(r.median_drop_pct);
      } else if (r.drop_null_reason) {
        whys[r.drop_null_reason] = (whys[r.drop_null_reason] || 0) + r.cnps;
        if (why === null || whys[r.drop_null_reason] > whys[why]) why = r.drop_null_reason;
      }
    }
    meds.sort(function (a, b) { return a - b; });
    if (measured) {
      line("Senders: after " + int(measured) + " of " + int(cnps) + " CNPs the sender's rate fell by " +
           num(meds[Math.floor((meds.length - 1) / 2)], 1) + " % (median of " + int(meds.length) +
           " flows' median drops; wire view, 4 packet gaps before and after each CNP).");
    } else if (cnps) {
      line("Senders: the rate drop after the " + int(cnps) + " CNPs could not be measured (" + why + ").");
    }
    if (M.source_log) {
      let cuts = 0, cutSum = 0;
      for (const f of flows) {
        if (f.source && f.source.cuts) { cuts += f.source.cuts; cutSum += f.source.cut_mean_pct * f.source.cuts; }
      }
      if (cuts) line("The traffic source logged " + int(cuts) + " rate cuts for CNPs, " + num(cutSum / cuts, 1) + " % on average.");
    }
    if (A.warnings.length) line("The capture itself: " + int(A.warnings.length) + " warning(s), listed below.");
  }

  function warnings(A, M) {
    if (!M.input_error && !A.warnings.length) return;
    const s = section("rt-warnings", "Warnings");
    if (M.input_error) {
      s.appendChild(el("p", { cls: "rt-error", text: "Reading the capture " + (M.exit_status >= 128 ? "stopped" : "failed") +
        ": " + M.input_error +
        " (the report covers what was read before it; rocetrace exited with status " + M.exit_status + ")." }));
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
    fact("chart step", dur(S.bucket_ns) + " buckets, " + dur(S.slot_ns) + " per point");
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

