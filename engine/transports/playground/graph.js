// A flow's stage graph (GET /v1/agent/service: stages already placed in columns and rows)
// -> an SVG drawn here, no library: a box per stage, a curve per transition. The current
// stage is lit (class "current", aria-current), stages the session went through are marked
// "visited", and the transitions that can leave the current stage are drawn strong with
// their triggers; every other edge says its triggers on hover (<title>).

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
  for (const [edge, path] of strong) {  // labels last, over the boxes, halfway along the curve
    const at = path.getPointAtLength(path.getTotalLength() / 2);
    const triggers = [...new Set(edge.labels.map((label) => label.split(" [")[0]))];
    root.append(svg("text", { x: at.x, y: at.y - 3, "text-anchor": "middle", class: "edge-label" },
                    triggers.join(", ")));
  }
}
