// A point's trend as a small SVG: min–max band, average line, and claim changes and commands as
// marks on the same time axis (GET /api/v1/points/<id>/history).
const NS = "http://www.w3.org/2000/svg";
const W = 600, H = 120, PAD = 14;

function node(tag, attrs) {
  const n = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
  return n;
}

export function plot(history) {
  const svg = node("svg", { viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: "none", role: "img" });
  const t0 = Date.parse(history.from), t1 = Date.parse(history.to);
  const x = t => PAD + ((t - t0) / (t1 - t0)) * (W - 2 * PAD);
  const nums = history.buckets.filter(b => b.min !== null && b.min !== undefined);
  let lo = Math.min(...nums.map(b => b.min)), hi = Math.max(...nums.map(b => b.max));
  if (!nums.length) { lo = 0; hi = 1; }
  if (hi === lo) { hi += 0.5; lo -= 0.5; }
  const y = v => H - PAD - ((v - lo) / (hi - lo)) * (H - 2 * PAD);
  const step = history.step_seconds * 1000;
  if (nums.length) {
    const top = nums.map(b => `${x(Date.parse(b.t))},${y(b.max)} ${x(Date.parse(b.t) + step)},${y(b.max)}`);
    const bottom = nums.slice().reverse().map(b => `${x(Date.parse(b.t) + step)},${y(b.min)} ${x(Date.parse(b.t))},${y(b.min)}`);
    svg.append(node("polygon", { points: top.concat(bottom).join(" "), fill: "#d0ebff", stroke: "none" }));
    const line = nums.map(b => `${x(Date.parse(b.t) + step / 2)},${y(b.avg)}`).join(" ");
    svg.append(node("polyline", { points: line, fill: "none", stroke: "#1c5fb8", "stroke-width": 1.5, "vector-effect": "non-scaling-stroke", class: "avg-line" }));
    for (const b of nums) svg.append(node("circle", { cx: x(Date.parse(b.t) + step / 2), cy: y(b.avg), r: 2.5, fill: "#1c5fb8", class: "avg" }));
  }
  for (const m of history.marks) {
    const mx = x(Date.parse(m.t));
    const claim = m.kind === "claim";
    const mark = node("line", { x1: mx, x2: mx, y1: PAD / 2, y2: H - PAD / 2, stroke: claim ? "#e8590c" : "#2b8a3e",
      "stroke-dasharray": claim ? "" : "3 3", "vector-effect": "non-scaling-stroke", class: claim ? "mark-claim" : "mark-command" });
    const title = node("title", {});
    title.textContent = claim ? `claim ${m.reason} by ${m.rule} (${m.band}): ${JSON.stringify(m.value)}`
                              : `command ${m.command} ${JSON.stringify(m.value)} (${m.state})`;
    mark.append(title);
    svg.append(mark);
  }
  const label = (text, lx, anchor) => { const t = node("text", { x: lx, y: H - 2, "font-size": 10, fill: "#666", "text-anchor": anchor }); t.textContent = text; return t; };
  if (nums.length) {
    const top = node("text", { x: 2, y: 10, "font-size": 10, fill: "#666" });
    top.textContent = String(Math.round(hi * 100) / 100);
    svg.append(top, label(String(Math.round(lo * 100) / 100), 2, "start"));
  }
  return svg;
}
