// mllog-check report: tooltips, sortable summary, keyboard stepping through curves.
// Everything is local to this page: no request is ever made.
(function () {
  "use strict";
  var tip = document.getElementById("tip");
  // Curve points arrive as data ([px, py, end, x, y, line] per evaluation; the tip's
  // head and tail, the same for every point of a run, once on the series): drawn here,
  // with the run's line through them. Numbers come rounded as the report shows them.
  var SVG = "http://www.w3.org/2000/svg";
  function num(v) {
    if (v === null || !isFinite(v)) return "\u2013";
    return v !== 0 && Math.abs(v) >= 1000 ? v.toLocaleString("en-US") : String(v);
  }
  function esc(text) {
    return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;");
  }
  function draw(group) {
    if (!group.hasAttribute("data-pts")) return;
    var pts = JSON.parse(group.getAttribute("data-pts"));
    var head = group.getAttribute("data-head") || "", tail = group.getAttribute("data-tail") || "";
    var xb = group.getAttribute("data-xb") || "", xa = group.getAttribute("data-xa") || "";
    // One string parsed once: far quicker than an element and four attributes a point.
    var html = [], d = [];
    for (var k = 0; k < pts.length; k++) {
      var p = pts[k];
      var tipText = head + xb + num(p[3]) + xa + " \u00b7 " + num(p[4]) + tail +
        (p[5] === null ? "" : p[5]);
      html.push('<circle class="' + (p[2] ? "pt end" : "pt") + '" cx="' + p[0] + '" cy="' +
        p[1] + '" r="' + (p[2] ? 4 : 2.2) + '" data-tip="' + esc(tipText) + '"/>');
      d.push((k ? "L" : "M") + p[0] + "," + p[1]);
    }
    var path = group.querySelector("path.line");
    if (path && !path.getAttribute("d")) path.setAttribute("d", d.join(" "));
    group.insertAdjacentHTML("beforeend", html.join(""));
    ["data-pts", "data-head", "data-tail", "data-xb", "data-xa"].forEach(function (a) {
      group.removeAttribute(a);
    });
  }
  // A chart's points are drawn when it comes near the screen (and all of them before
  // printing): opening a page costs the charts of its first screen only, however many
  // evaluations it holds (docs/report.md, "Opening time"). data-drawn="1" once every
  // chart is drawn; data-drawn-first: how many were drawn before the page was ready.
  var waiting = Array.prototype.slice.call(document.querySelectorAll("svg[data-lazy]"));
  var html = document.documentElement;
  function settled() {
    if (!waiting.length) html.setAttribute("data-drawn", "1");
  }
  function drawChart(svg) {
    if (!svg.hasAttribute("data-lazy")) return;
    svg.removeAttribute("data-lazy");
    var series = svg.querySelectorAll("g.series[data-pts]");
    for (var s = 0; s < series.length; s++) draw(series[s]);
    var at = waiting.indexOf(svg);
    if (at >= 0) waiting.splice(at, 1);
    settled();
  }
  function drawAll() {
    waiting.slice().forEach(drawChart);
  }
  var near = function () { return true; };
  if ("IntersectionObserver" in window) {
    var seen = new IntersectionObserver(function (entries) {
      entries.forEach(function (e) {
        if (e.isIntersecting) { drawChart(e.target); seen.unobserve(e.target); }
      });
    }, { rootMargin: "200px 0px" });
    var height = window.innerHeight;
    var inView = function (el) {
      var r = el.getBoundingClientRect();
      return r.bottom > 0 && r.top < height && r.width > 0;
    };
    // A section off screen is not laid out (content-visibility): its own box says so
    // without laying out the charts inside it.
    near = function (svg) {
      var section = svg.closest("section.benchmark");
      return (!section || inView(section)) && inView(svg);
    };
    waiting.forEach(function (svg) { seen.observe(svg); });
  }
  var first = waiting.filter(near);
  first.forEach(drawChart);
  html.setAttribute("data-drawn-first", String(first.length));
  settled();
  window.addEventListener("beforeprint", drawAll);
  // Tools that read every chart (the tests, screenshots) ask for all of them at once.
  document.addEventListener("mllog-draw-all", drawAll);
  document.addEventListener("focusin", function (e) {
    var svg = e.target.closest ? e.target.closest("svg[data-lazy]") : null;
    if (svg) drawChart(svg);
  });
  var tipped = document.querySelectorAll("svg .pt, svg .line, svg .mean");
  // Titles become tips (one tooltip, not the browser's second one) and accessible names.
  for (var i = 0; i < tipped.length; i++) {
    var el = tipped[i], title = el.querySelector("title");
    if (!title) continue;
    el.setAttribute("data-tip", title.textContent);
    if (el.hasAttribute("tabindex")) el.setAttribute("aria-label", title.textContent);
    el.removeChild(title);
  }
  function show(el, x, y) {
    tip.textContent = el.getAttribute("data-tip");
    tip.hidden = false;
    var w = tip.offsetWidth, h = tip.offsetHeight;
    var left = Math.min(x + 12, window.innerWidth - w - 8);
    var top = y + 14 + h > window.innerHeight ? y - h - 10 : y + 14;
    tip.style.left = Math.max(4, left) + "px";
    tip.style.top = Math.max(4, top) + "px";
  }
  function hide() { tip.hidden = true; }
  function anchor(el) {
    var r = el.getBoundingClientRect();
    return [r.left + r.width / 2, r.top + r.height / 2];
  }
  document.addEventListener("mouseover", function (e) {
    var el = e.target.closest ? e.target.closest("[data-tip]") : null;
    if (el) show(el, e.clientX, e.clientY); else hide();
  });
  document.addEventListener("mousemove", function (e) {
    if (!tip.hidden && e.target.closest && e.target.closest("[data-tip]")) {
      show(e.target.closest("[data-tip]"), e.clientX, e.clientY);
    }
  });
  document.addEventListener("focusin", function (e) {
    var el = e.target;
    if (el.getAttribute && el.getAttribute("data-tip")) {
      var p = anchor(el); show(el, p[0], p[1]);
    }
  });
  document.addEventListener("focusout", hide);
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape") { hide(); return; }
    var line = document.activeElement;
    if (!line || !line.classList || !line.classList.contains("line")) return;
    if (["ArrowRight", "ArrowLeft", "Home", "End"].indexOf(e.key) < 0) return;
    var pts = line.parentNode.querySelectorAll(".pt");
    if (!pts.length) return;
    var at = Number(line.getAttribute("data-at") || -1);
    if (e.key === "ArrowRight") at = Math.min(at + 1, pts.length - 1);
    else if (e.key === "ArrowLeft") at = Math.max(at - 1, 0);
    else if (e.key === "Home") at = 0; else at = pts.length - 1;
    e.preventDefault();
    var old = line.parentNode.querySelector(".pt.hot");
    if (old) old.classList.remove("hot");
    pts[at].classList.add("hot");
    line.setAttribute("data-at", String(at));
    var p = anchor(pts[at]); show(pts[at], p[0], p[1]);
    line.setAttribute("aria-label", pts[at].getAttribute("data-tip"));
  });
  // Sortable tables: a button per heading; numbers sort by data-v.
  var tables = document.querySelectorAll("table.sortable");
  for (var t = 0; t < tables.length; t++) {
    (function (table) {
      var buttons = table.querySelectorAll("th button");
      for (var b = 0; b < buttons.length; b++) {
        buttons[b].addEventListener("click", function () { sort(table, this); });
      }
    })(tables[t]);
  }
  function key(cell, numeric) {
    if (!cell) return numeric ? Infinity : "";
    if (numeric) {
      var v = cell.getAttribute("data-v");
      return v === null || v === "" ? Infinity : Number(v);
    }
    return cell.textContent.trim().toLowerCase();
  }
  function sort(table, button) {
    var col = Number(button.getAttribute("data-col"));
    var numeric = button.getAttribute("data-type") === "num";
    var th = button.parentNode;
    var dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
    var heads = table.querySelectorAll("th");
    for (var h = 0; h < heads.length; h++) heads[h].setAttribute("aria-sort", "none");
    th.setAttribute("aria-sort", dir);
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.forEach(function (r, i) { r._i = i; });
    rows.sort(function (a, b) {
      var x = key(a.cells[col], numeric), y = key(b.cells[col], numeric);
      var c = x < y ? -1 : x > y ? 1 : a._i - b._i;
      if (x === y) c = a._i - b._i;
      return dir === "ascending" ? c : -c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  // Printing shows every group, folded or not.
  window.addEventListener("beforeprint", function () {
    var d = document.querySelectorAll("details");
    for (var i = 0; i < d.length; i++) d[i].open = true;
  });
  document.documentElement.setAttribute("data-ready", "1");
})();
