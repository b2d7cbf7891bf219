// Times and values in words, for people: "12 s ago", "in 4 min", "42 degC".

export function ago(iso, now = Date.now()) {
  if (!iso) return "–";
  const s = Math.round((now - Date.parse(iso)) / 1000);
  return s < 0 ? "in " + span(-s) : s < 2 ? "just now" : span(s) + " ago";
}

export function until(iso, now = Date.now()) {
  if (!iso) return "–";
  const s = Math.round((Date.parse(iso) - now) / 1000);
  return s <= 0 ? "now" : "in " + span(s);
}

function span(s) {
  if (s < 60) return s + " s";
  if (s < 3600) return Math.round(s / 60) + " min";
  if (s < 86400) return (s / 3600).toFixed(s < 36000 ? 1 : 0) + " h";
  return Math.round(s / 86400) + " days";
}

export function clock(iso) {
  return iso ? new Date(iso).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" }) : "–";
}

export function value(v, unit) {
  if (v === null || v === undefined) return "–";
  const text = typeof v === "number" ? String(Math.round(v * 1000) / 1000) : typeof v === "string" ? v : JSON.stringify(v);
  return unit ? text + " " + unit : text;
}

// Every text is set as text, never as HTML: ids, values and messages come from devices and files.
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k.startsWith("data-")) e.setAttribute(k, v);
    else e[k] = v;
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}
