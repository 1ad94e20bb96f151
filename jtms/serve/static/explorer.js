/* The explorer's drawing of a certificate, laid out in the browser by ELK (elk.bundled.js,
   vendored next to this file; its licence in elk.LICENSE.md).

   The server puts a JSON description of the drawing in <script type="application/json"
   id="drawing-data"> (nodes with their kind, status, label, title and link; justifications
   with their claim, antecedents and whether they are intact) and a server-side SVG drawing in
   div.drawing as the fallback for a browser without JavaScript. This script turns the
   description into an ELK graph (each justification with two or more antecedents is a
   junction node of its own: its antecedents point into it, it points to its claim; a single
   antecedent points straight to the claim), runs ELK's layered layout (evidence at the
   bottom, orthogonal edge routing, so an edge runs between boxes and never behind one),
   draws the result as SVG and replaces the fallback. Each box shows the node's id and the start
   of its text; a box whose neighbours were not drawn carries a "+N" count that draws them (a
   link back to the page with that node expanded). The drawing pans (drag), zooms (wheel, the
   + and - buttons) and fits (the fit button); it starts fitted when the whole drawing is
   readable at that scale (labels at 10 px or more), else centred on the focus node at full
   size.

   Every id and text goes into the page as DOM text (textContent, setAttribute), never as
   markup; nothing is fetched from elsewhere (the page's Content-Security-Policy is 'self'). */
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";
  var BOX_W = 200, BOX_H = 46, JUNCTION = 12, MARGIN = 16, BADGE = 26;
  var MIN_SCALE = 0.08, MAX_SCALE = 4, READABLE = 0.85, FOCUS_SCALE = 1;

  function element(name, attributes, parent) {
    var node = document.createElementNS(SVG, name);
    Object.keys(attributes || {}).forEach(function (key) { node.setAttribute(key, attributes[key]); });
    if (parent) parent.appendChild(node);
    return node;
  }

  function short(text, limit) {
    return text.length <= limit ? text : text.slice(0, limit - 1) + "\u2026";
  }

  /* The ELK graph of a description: boxes, junctions and the edges between them. */
  function elkGraph(data) {
    var children = [], edges = [], junctions = [];
    var index = {};
    data.nodes.forEach(function (node, k) {
      index[node.id] = "n" + k;
      children.push({ id: "n" + k, width: BOX_W, height: BOX_H });
    });
    data.justifications.forEach(function (j, k) {
      var claim = index[j.claim];
      var ants = j.antecedents.filter(function (a) { return a in index; });
      if (claim === undefined || ants.length === 0) return;
      if (ants.length === 1) {
        edges.push({ id: "e" + edges.length, sources: [index[ants[0]]], targets: [claim],
                     justification: k, into: "claim" });
        return;
      }
      var junction = "j" + k;
      junctions.push({ id: junction, justification: k });
      children.push({ id: junction, width: JUNCTION, height: JUNCTION });
      ants.forEach(function (a) {
        edges.push({ id: "e" + edges.length, sources: [index[a]], targets: [junction],
                     justification: k, into: "junction" });
      });
      edges.push({ id: "e" + edges.length, sources: [junction], targets: [claim],
                   justification: k, into: "claim" });
    });
    return {
      graph: {
        id: "root",
        layoutOptions: {
          "elk.algorithm": "layered",
          "elk.direction": "UP",
          "elk.edgeRouting": "ORTHOGONAL",
          "elk.layered.spacing.nodeNodeBetweenLayers": "36",
          "elk.spacing.nodeNode": "18",
          "elk.spacing.edgeNode": "12",
          "elk.spacing.edgeEdge": "6",
          "elk.layered.spacing.edgeNodeBetweenLayers": "12",
          // ELK's effort at crossing minimisation: its default on small drawings; the least on
          // large ones, whose layout would otherwise take seconds (cap: 200 boxes)
          "elk.layered.thoroughness": children.length > 120 ? "1" : "7",
          "elk.padding": "[top=" + MARGIN + ",left=" + MARGIN + ",bottom=" + MARGIN + ",right=" + MARGIN + "]"
        },
        children: children,
        edges: edges
      },
      index: index,
      junctions: junctions
    };
  }

  function points(section) {
    return [section.startPoint].concat(section.bendPoints || [], [section.endPoint]);
  }

  /* The laid-out graph as SVG: a viewport group (panned and zoomed) holding edges, junctions
     and boxes, in ELK's coordinates. */
  function draw(data, built, laid) {
    var byId = {};
    laid.children.forEach(function (child) { byId[child.id] = child; });
    var svg = element("svg", { "class": "drawing laid-out", "data-layout": "elk", role: "img",
                               width: "100%", "aria-label": "certificate drawing" });
    var defs = element("defs", {}, svg);
    var marker = element("marker", { id: "elk-arrow", viewBox: "0 0 10 10", refX: "10", refY: "5",
                                     markerWidth: "7", markerHeight: "7", orient: "auto-start-reverse" }, defs);
    element("path", { d: "M 0 0 L 10 5 L 0 10 z" }, marker);
    var view = element("g", { "class": "viewport" }, svg);
    laid.edges.forEach(function (edge) {
      var j = data.justifications[edge.justification];
      var path = (edge.sections || []).map(function (section) {
        return points(section).map(function (p, i) {
          return (i ? "L " : "M ") + p.x.toFixed(1) + " " + p.y.toFixed(1);
        }).join(" ");
      }).join(" ");
      var attributes = { "class": "edge " + (j.intact ? "intact" : "broken") + " into-" + edge.into,
                         d: path, fill: "none", "data-source": edge.sources[0],
                         "data-target": edge.targets[0] };
      if (!j.intact) attributes["stroke-dasharray"] = "5,4";
      if (edge.into === "claim") attributes["marker-end"] = "url(#elk-arrow)";
      element("path", attributes, view);
    });
    built.junctions.forEach(function (junction) {
      var box = byId[junction.id];
      var j = data.justifications[junction.justification];
      var group = element("g", { "class": "junction " + (j.intact ? "intact" : "broken"),
                                 "data-layout-id": junction.id, "data-claim": j.claim }, view);
      element("title", {}, group).textContent =
        j.antecedents.join(" \u2227 ") + " \u21d2 " + j.claim + (j.intact ? "" : " (broken)");
      element("rect", { x: box.x, y: box.y, width: box.width, height: box.height,
                        rx: box.width / 2 }, group);
    });
    data.nodes.forEach(function (node) {
      var box = byId[built.index[node.id]];
      var css = "node " + node.kind + " " + (node.active ? "active" : "inactive") +
                (node.flag ? " " + node.flag : "") + (node.id === data.focus ? " focus" : "");
      var parent = view;
      if (typeof node.href === "string" && node.href.indexOf("/node?") === 0) {
        parent = element("a", { href: node.href }, view);
      }
      var group = element("g", { "class": css, "data-layout-id": built.index[node.id] }, parent);
      group.dataset.id = node.id;
      element("title", {}, group).textContent = node.title;
      element("rect", { x: box.x, y: box.y, width: box.width, height: box.height,
                        rx: node.kind === "evidence" ? 4 : 16 }, group);
      var hasText = typeof node.text === "string" && node.text.length > 0;
      element("text", { "class": "label", x: box.x + box.width / 2,
                        y: box.y + (hasText ? 18 : box.height / 2 + 4),
                        "text-anchor": "middle" }, group).textContent = short(node.label, 26);
      if (hasText) {
        element("text", { "class": "text", x: box.x + box.width / 2, y: box.y + 36,
                          "text-anchor": "middle" }, group).textContent = short(node.text, 30);
      }
      if (node.collapsed > 0 && typeof node.expand_href === "string" &&
          node.expand_href.indexOf("/node?") === 0) {
        /* the neighbours not drawn, behind a count: a click draws them */
        var more = element("a", { href: node.expand_href, "class": "expand" }, view);
        element("title", {}, more).textContent = "draw " + node.collapsed + " more";
        element("rect", { x: box.x + box.width - BADGE / 2, y: box.y - 9, width: BADGE + 8,
                          height: 18, rx: 9 }, more);
        element("text", { x: box.x + box.width + 4, y: box.y + 4,
                          "text-anchor": "middle" }, more).textContent = "+" + node.collapsed;
      }
    });
    return { svg: svg, view: view, width: laid.width, height: laid.height,
             focus: data.focus === null ? null : byId[built.index[data.focus]] };
  }

  /* Pan (drag), zoom (wheel, buttons) and fit over a drawn graph. */
  function navigate(drawn, toolbar) {
    var svg = drawn.svg, state = { s: 1, x: 0, y: 0 };
    function apply() {
      drawn.view.setAttribute("transform", "translate(" + state.x.toFixed(1) + " " +
                              state.y.toFixed(1) + ") scale(" + state.s.toFixed(4) + ")");
      svg.dataset.scale = state.s.toFixed(4);
    }
    function size() {
      var box = svg.getBoundingClientRect();
      return { w: box.width || 1, h: box.height || 1 };
    }
    function fitScale() {
      var area = size();
      return Math.min(area.w / drawn.width, area.h / drawn.height, 1);
    }
    function fit() {   // any scale it takes, however small: fit shows the whole drawing
      var area = size();
      state.s = fitScale();
      state.x = (area.w - drawn.width * state.s) / 2;
      state.y = (area.h - drawn.height * state.s) / 2;
      apply();
    }
    function centre(box, scale) {
      var area = size();
      state.s = scale;
      state.x = area.w / 2 - (box.x + box.width / 2) * scale;
      state.y = area.h / 2 - (box.y + box.height / 2) * scale;
      apply();
    }
    function zoom(factor, cx, cy) {
      var next = Math.min(MAX_SCALE, Math.max(Math.min(MIN_SCALE, fitScale()), state.s * factor));
      factor = next / state.s;
      state.x = cx - (cx - state.x) * factor;
      state.y = cy - (cy - state.y) * factor;
      state.s = next;
      apply();
    }
    function start() {
      if (fitScale() >= READABLE || drawn.focus === null) fit();
      else centre(drawn.focus, FOCUS_SCALE);
    }
    svg.addEventListener("wheel", function (event) {
      event.preventDefault();
      var box = svg.getBoundingClientRect();
      zoom(Math.exp(-event.deltaY * 0.0015), event.clientX - box.left, event.clientY - box.top);
    }, { passive: false });
    var drag = null, moved = false;
    svg.addEventListener("pointerdown", function (event) {
      if (event.button !== 0) return;
      drag = { x: event.clientX, y: event.clientY, sx: state.x, sy: state.y };
      moved = false;
    });
    svg.addEventListener("pointermove", function (event) {
      if (drag === null) return;
      var dx = event.clientX - drag.x, dy = event.clientY - drag.y;
      if (!moved && Math.abs(dx) + Math.abs(dy) > 4) {
        moved = true;
        svg.setPointerCapture(event.pointerId);
        svg.classList.add("panning");
      }
      if (moved) { state.x = drag.sx + dx; state.y = drag.sy + dy; apply(); }
    });
    function release() { drag = null; svg.classList.remove("panning"); }
    svg.addEventListener("pointerup", release);
    svg.addEventListener("pointercancel", release);
    svg.addEventListener("click", function (event) {   // a drag is not a click on a node
      if (moved) { event.preventDefault(); event.stopPropagation(); moved = false; }
    }, true);
    function button(label, title, css, action) {
      var b = document.createElement("button");
      b.type = "button";
      b.textContent = label;
      b.title = title;
      b.className = "drawing-" + css;
      b.addEventListener("click", action);
      toolbar.appendChild(b);
    }
    button("fit", "fit the whole drawing", "fit", fit);
    button("+", "zoom in", "zoom-in", function () { var a = size(); zoom(1.25, a.w / 2, a.h / 2); });
    button("\u2212", "zoom out", "zoom-out", function () { var a = size(); zoom(0.8, a.w / 2, a.h / 2); });
    if (drawn.focus !== null) {
      button("focus", "focus on this node", "focus", function () {
        centre(drawn.focus, Math.max(fitScale(), FOCUS_SCALE));
      });
    }
    start();
  }

  function run() {
    var source = document.getElementById("drawing-data");
    var holder = document.querySelector("div.drawing");
    if (source === null || holder === null || typeof ELK === "undefined") return;
    var data = JSON.parse(source.textContent);
    var built = elkGraph(data);
    new ELK().layout(built.graph).then(function (laid) {
      var drawn = draw(data, built, laid);
      var height = Math.max(160, Math.min(drawn.height + 2 * MARGIN, window.innerHeight * 0.7));
      drawn.svg.setAttribute("height", String(Math.round(height)));
      var toolbar = document.createElement("div");
      toolbar.className = "drawing-tools";
      holder.replaceChildren(toolbar, drawn.svg);
      holder.classList.add("laid-out");
      navigate(drawn, toolbar);
      holder.dataset.ready = "true";
    }).catch(function (error) {   // the server's drawing stays
      holder.dataset.layoutError = String(error && error.message || error);
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", run);
  else run();
})();
