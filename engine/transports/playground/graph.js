// A flow's stage graph (GET /v1/agent/service: stages already placed in columns and rows)
// -> an SVG drawn here, no library: a box per stage, a curve per transition. The current
// stage is lit (class "current", aria-current), stages the session went through are marked
// "visited", and the transitions that can leave the current stage are drawn strong with
// their triggers; every other edge says its triggers on hover (<title>). The triggers are
// placed where they overlap no other label (and, if it can be, no stage): tried along their
// curve and just off it, one trigger a line when they are many; the drawing's viewBox then
// takes in every label, and the SVG scales down to fit its panel.

const SVG = "http://www.w3.org/2000/svg";
const COL = 126;   // column pitch
const ROW = 54;    // row pitch
const BOX_W = 92;
const BOX_H = 28;
const PAD = 26;

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  node.append(...children);
  return node;
}

function box(stage) {
  return { x: PAD + stage.column * COL, y: PAD + stage.row * ROW, w: BOX_W, h: BOX_H };
}

// A curve from one box to another: right side to left side going forward, under the boxes
// going back, around the right (down) or left (up) side within a column; a loop over the box
// for a transition that stays.
function route(a, b) {
  if (a === b) {
    const x = a.x + a.w / 2;
    return `M ${x - 12} ${a.y} C ${x - 26} ${a.y - 22}, ${x + 26} ${a.y - 22}, ${x + 12} ${a.y}`;
  }
  const ay = a.y + a.h / 2;
  const by = b.y + b.h / 2;
  if (b.x > a.x) {
    const x1 = a.x + a.w;
    const dx = (b.x - x1) / 2;
    return `M ${x1} ${ay} C ${x1 + dx} ${ay}, ${b.x - dx} ${by}, ${b.x} ${by}`;
  }
  if (b.x < a.x) {
    const bend = Math.max(a.y, b.y) + a.h + 14;
    return `M ${a.x + a.w / 2} ${a.y + a.h} C ${a.x + a.w / 2} ${bend}, ${b.x + b.w / 2} ${bend}, `
      + `${b.x + b.w / 2} ${b.y + b.h}`;
  }
  if (b.y > a.y) {  // same column, downwards: around the right side
    const side = a.x + a.w + 24;
    return `M ${a.x + a.w} ${ay} C ${side} ${ay}, ${side} ${by}, ${b.x + b.w} ${by}`;
  }
  const side = a.x - 24;  // upwards: around the left side
  return `M ${a.x} ${ay} C ${side} ${ay}, ${side} ${by}, ${b.x} ${by}`;
}

// Draw `graph` (one flow) into `container`, `current` lit and `visited` marked.
export function drawGraph(container, graph, current, visited = new Set()) {
  const width = PAD * 2 + (graph.columns - 1) * COL + BOX_W;
  const height = PAD * 2 + (graph.rows - 1) * ROW + BOX_H + 16;
  const boxes = Object.fromEntries(graph.stages.map((s) => [s.name, box(s)]));
  const root = svg("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img",
                            "aria-label": graph.name });
  root.append(svg("defs", {}, svg("marker", {
    id: `arrow-${graph.name}`, viewBox: "0 0 8 8", refX: 7, refY: 4, markerWidth: 8,
    markerHeight: 8, markerUnits: "userSpaceOnUse", orient: "auto-start-reverse",
  }, svg("path", { d: "M 0 0 L 8 4 L 0 8 z", class: "arrowhead" }))));

  const start = boxes[graph.initial];
  root.append(svg("circle", { cx: start.x - 10, cy: start.y + start.h / 2, r: 4, class: "start" }));

  const strong = [];
  for (const edge of graph.edges) {
    const a = boxes[edge.source];
    const b = boxes[edge.dest];
    const leaving = edge.source === current;
    const path = svg("path", { d: route(a, b), class: leaving ? "edge leaving" : "edge",
                               "marker-end": `url(#arrow-${graph.name})`,
                               "data-source": edge.source, "data-dest": edge.dest },
                     svg("title", {}, `${edge.source} → ${edge.dest}: ${edge.labels.join("; ")}`));
    root.append(path);
    if (leaving) strong.push([edge, path]);
  }
  for (const stage of graph.stages) {
    const b = boxes[stage.name];
    const classes = ["stage"];
    if (stage.terminal) classes.push("terminal");
    if (stage.confirm) classes.push("confirm");
    if (visited.has(stage.name)) classes.push("visited");
    if (stage.name === current) classes.push("current");
    const group = svg("g", { class: classes.join(" "), "data-stage": stage.name },
      svg("rect", { x: b.x, y: b.y, width: b.w, height: b.h, rx: 7 }),
      svg("text", { x: b.x + b.w / 2, y: b.y + b.h / 2 + 4, "text-anchor": "middle" }, stage.name),
      svg("title", {}, stage.name + (stage.terminal ? " (terminal)" : "")));
    if (stage.name === current) group.setAttribute("aria-current", "step");
    root.append(group);
  }
  container.replaceChildren(root);
  placeLabels(root, strong, Object.values(boxes));
  fit(root);
}

const ALONG = [0.5, 0.35, 0.65, 0.25, 0.75, 0.15, 0.85];
const OFF = [0, -14, 14, -28, 28, -42, 42];
const GAP = 2;
const WRAP = 16;  // characters: longer trigger lists go one trigger a line

const overlaps = (a, b) => a.x < b.x + b.w + GAP && b.x < a.x + a.w + GAP
  && a.y < b.y + b.h + GAP && b.y < a.y + a.h + GAP;

function label(edge, at) {
  const triggers = [...new Set(edge.labels.map((text) => text.split(" [")[0]))];
  const lines = triggers.join(", ").length > WRAP ? triggers : [triggers.join(", ")];
  const text = svg("text", { x: at.x, y: at.y, "text-anchor": "middle", class: "edge-label",
                             "data-source": edge.source, "data-dest": edge.dest });
  lines.forEach((line, i) => text.append(svg("tspan", { x: at.x, dy: i ? "1.1em" : 0 }, line)));
  return text;
}

// The label's box were it moved by (dx, dy).
const moved = (box, dx, dy) => ({ x: box.x + dx, y: box.y + dy, w: box.w, h: box.h });

// Put each strong edge's triggers where they overlap no label placed before them: first
// where they also clear every stage box, else anywhere free, else below everything.
function placeLabels(root, strong, stages) {
  const placed = [];
  for (const [edge, path] of strong) {
    const length = path.getTotalLength();
    const start = path.getPointAtLength(length / 2);
    const text = label(edge, { x: start.x, y: start.y - 3 });
    root.append(text);
    const b = text.getBBox();
    const box = { x: b.x, y: b.y, w: b.width, h: b.height };
    const spots = ALONG.flatMap((f) => OFF.map((off) => {
      const p = path.getPointAtLength(length * f);
      return [p.x - start.x, p.y - start.y + off];
    }));
    const free = (spot, avoid) => avoid.every((other) => !overlaps(moved(box, ...spot), other));
    const bottom = Math.max(...[...placed, ...stages].map((o) => o.y + o.h)) + GAP * 2 - box.y;
    const spot = spots.find((s) => free(s, [...placed, ...stages]))
      || spots.find((s) => free(s, placed)) || [0, bottom];
    text.setAttribute("transform", `translate(${spot[0]} ${spot[1]})`);
    placed.push(moved(box, ...spot));
  }
}

// Widen the viewBox to everything drawn (a label may stand beyond the boxes).
function fit(root) {
  const b = root.getBBox();
  const x = Math.min(0, b.x - 4);
  const y = Math.min(0, b.y - 4);
  const width = Math.max(Number(root.getAttribute("width")), b.x + b.width + 4) - x;
  const height = Math.max(Number(root.getAttribute("height")), b.y + b.height + 4) - y;
  root.setAttribute("viewBox", `${x} ${y} ${width} ${height}`);
  root.setAttribute("width", width);
  root.setAttribute("height", height);
}
