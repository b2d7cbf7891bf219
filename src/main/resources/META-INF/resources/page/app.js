// The operator's page: reads the state once, keeps it current from /api/v1/stream (server-sent
// events of each pass), and sends the operator's requests with the session's token.
import { ago, until, clock, value, el } from "./format.js";
import { get, send, token } from "./api.js";
import { plot } from "./plot.js";

const state = { status: null, points: new Map(), outputs: new Map(), rules: [], open: new Set() };
const $ = id => document.getElementById(id);
const later = {};

// ---- loading ------------------------------------------------------------------------------

async function loadAll() {
  await Promise.all([loadStatus(), loadPoints(), loadOutputs(), loadRules()]);
}

async function loadStatus() {
  state.status = await get("status");
  renderHeader(); renderRevisions(); renderLogs(); renderRules();
}

async function loadPoints() {
  for (const p of await get("points")) state.points.set(p.id, p);
  renderPoints();
}

async function loadOutputs() {
  const outputs = await get("outputs");
  // The why of each output from GET /points/<id>/why: the same explanation as `sentinel why`.
  await Promise.all(outputs.map(async o => {
    try { o.why = await get("points/" + encodeURIComponent(o.point) + "/why"); } catch (e) { o.why = null; }
  }));
  for (const o of outputs) state.outputs.set(o.point, o);
  renderOutputs();
  state.points.forEach(renderPoint);
  // A command waits out its point's min_interval, or is confirmed a moment after it is sent; the
  // plane's hand-over is no pass of the engine, so look again while one is on its way.
  if ([...state.outputs.values()].some(o => o.command && (o.command.unconfirmed > 0 || o.command.waiting !== null))) soon("outputs", loadOutputs, 500);
}

async function loadRules() {
  state.rules = await get("rules");
  renderRules();
}

/** Coalesces reloads that a burst of messages asks for: one request per kind per delay. */
function soon(kind, load, delay = 150) {
  if (later[kind]) return;
  later[kind] = setTimeout(() => { later[kind] = null; load().catch(say); }, delay);
}

// ---- live updates -------------------------------------------------------------------------

function listen() {
  const live = $("live");
  const stream = new EventSource("api/v1/stream");
  stream.onopen = () => { live.textContent = "live"; live.className = "pill ok"; };
  stream.onerror = () => { live.textContent = "reconnecting…"; live.className = "pill bad"; };
  stream.onmessage = m => {
    const msg = JSON.parse(m.data);
    switch (msg.type) {
      case "hello": case "resync": loadAll().catch(say); break;
      case "point": {
        const p = state.points.get(msg.id);
        if (p) { Object.assign(p, { value: msg.value, quality: msg.quality, since: msg.since }); renderPoint(p); }
        break;
      }
      case "claim": {
        const o = state.outputs.get(msg.point);
        // The message's own "type" is the feed's; the output keeps its point type.
        if (o) { const { type, ...decision } = msg; Object.assign(o, decision); renderOutputs(); }
        soon("outputs", loadOutputs); soon("rules", loadRules);
        break;
      }
      case "event":
        soon("status", loadStatus); soon("rules", loadRules); soon("outputs", loadOutputs); soon("points", loadPoints);
        // The log (events, audit, reasons) has the event a few milliseconds after its pass.
        soon("log", loadStatus, 1000);
        break;
    }
  };
}

// ---- the header ---------------------------------------------------------------------------

function pill(id, text, ok) { const p = $(id); p.textContent = text; p.className = "pill " + (ok ? "ok" : "bad"); }

function renderHeader() {
  const s = state.status;
  $("site").textContent = s.site;
  $("revision").textContent = s.revision;
  pill("state", s.state, s.state === "online");
  pill("mqtt", s.mqtt.connected ? "connected" : "down", s.mqtt.connected);
  pill("database", s.database.ready ? "writing" : "spooling", s.database.ready);
  $("count-warmup").textContent = s.rules.warmup;
  $("count-suspended").textContent = s.rules.suspended;
  $("count-input-lost").textContent = s.rules["input-lost"];
  document.title = "Sentinel " + s.site;
}

function say(e, ok) {
  const m = $("message");
  m.hidden = false;
  m.className = "message" + (ok ? "" : " error");
  m.textContent = e instanceof Error ? (e.status ? e.status + ": " : "") + e.message : String(e);
  clearTimeout(later.message);
  later.message = setTimeout(() => { m.hidden = true; }, 8000);
}

// ---- outputs ------------------------------------------------------------------------------

function claimText(c) { return c.rule + " (" + c.band + ", priority " + c.priority + ") " + value(c.value); }

function commandText(c) {
  if (!c || !c.last) return "none yet";
  const l = c.last;
  return l.kind + " " + value(l.value) + " " + ago(l.at) + (l.rule ? " for " + l.rule : "");
}

function deliveredText(c) {
  if (!c || !c.last) return ["–", ""];
  if (c.interlock_unenforced) return ["interlock unenforced", "bad"];
  if (c.delivered) return ["delivered", "ok"];
  return [c.unconfirmed > 0 ? "sent, not yet confirmed" : "waiting for the driver", "warn"];
}

// Live updates rebuild every card; an override form the operator is filling is kept across them
// (one per output, until it is sent or the operator signs out), with its focus and caret. Built anew
// each time, a form reverted to its first choice: a "false" picked just before a re-render went out
// as "true" (CI, 2026-12-04).
const forms = new Map();

function renderOutputs() {
  const box = $("outputs");
  if (!token.get()) forms.clear();
  const focused = box.contains(document.activeElement) ? document.activeElement : null;
  const caret = focused && typeof focused.selectionStart === "number" ? [focused.selectionStart, focused.selectionEnd] : null;
  box.replaceChildren(...[...state.outputs.values()].map(o => {
    const [delivered, cls] = deliveredText(o.command);
    const card = el("article", { class: "card", "data-output": o.point },
      el("h3", { text: o.point }),
      el("dl", {},
        el("dt", { text: "decided" }), el("dd", { class: "value decided", text: value(o.value, o.unit) }),
        el("dt", { text: "winner" }), el("dd", { class: "winner" },
          o.winner ? el("span", { text: o.winner.rule + " " }) : el("span", { text: "no claim (released)" }),
          o.winner ? el("span", { class: "b b-" + o.winner.band, text: o.winner.band }) : null),
        el("dt", { text: "deciding key" }), el("dd", { class: "key", text: o.deciding_key }),
        el("dt", { text: "contenders" }), el("dd", { class: "contenders", text: o.contenders.length ? o.contenders.map(claimText).join("; ") : "none" }),
        el("dt", { text: "commanded" }), el("dd", { class: "value commanded", text: commandText(o.command) }),
        el("dt", { text: "delivery" }), el("dd", {}, el("span", { class: "pill delivered " + cls, text: delivered })),
        o.feedback ? el("dt", { text: "device says" }) : null,
        o.feedback ? el("dd", { class: "value", text: value(o.feedback.value, o.unit) + " (" + o.feedback.quality + ")" }) : null,
        el("dt", { text: "override" }), el("dd", { class: "override-state" }, overrideText(o)),
        el("dt", { text: "why" }), el("dd", { class: "why" }, o.why
          ? whyText(o.why, o.unit)
          : el("span", { class: "why-slot", text: "the why of this decision could not be read (GET /points/" + o.point + "/why)" }))));
    if (token.get()) {
      if (!forms.has(o.point)) forms.set(o.point, overrideForm(o));
      card.append(forms.get(o.point));
    }
    return card;
  }));
  if (focused && focused.isConnected && document.activeElement !== focused) {
    focused.focus();
    if (caret) focused.setSelectionRange(...caret);
  }
}

// The explanation of GET /points/<id>/why: the rule, its inputs with value and quality, the key.
function whyText(w, unit) {
  if (!w.rule) return el("span", { class: "why-text", text: "no claim holds: released" + (w.value === null ? "" : " to " + value(w.value, unit)) });
  const inputs = w.inputs.map(i => i.name + " = " + (i.value === null ? "no value" : value(i.value)) + " " + i.quality);
  const over = w.contenders.filter(c => c.rule !== w.rule).map(c => c.rule + " (" + c.band + ") " + value(c.value));
  return el("span", { class: "why-text", text: value(w.value, unit) + " because " + w.rule + " (" + w.band + ")"
    + (inputs.length ? " on " + inputs.join(", ") : "")
    + (over.length ? "; wins by " + w.deciding_key + " over " + over.join(", ") : "") });
}

function overrideText(o) {
  if (!o.override) return el("span", { text: "none" });
  const v = o.override;
  const span = el("span", { class: "expiry", "data-until": v.until, text: value(v.value) + " by " + v.by + ", ends " + until(v.until) + " (" + clock(v.until) + ")" + (v.reason ? ": " + v.reason : "") });
  if (!token.get()) return span;
  return el("span", {}, span, " ", el("button", { type: "button", class: "link clear", text: "clear",
    onclick: () => act(() => send("DELETE", "points/" + encodeURIComponent(o.point) + "/override"), "override of " + o.point + " cleared") }));
}

function overrideForm(o) {
  const form = $("override-form").content.firstElementChild.cloneNode(true);
  const select = form.elements.value, number = form.elements.number;
  if (o.type === "bool") ["true", "false"].forEach(v => select.append(el("option", { value: v, text: v })));
  else { select.hidden = true; number.hidden = false; number.required = true; }
  form.addEventListener("submit", ev => {
    ev.preventDefault();
    const v = o.type === "bool" ? select.value === "true" : Number(number.value);
    act(() => send("PUT", "points/" + encodeURIComponent(o.point) + "/override",
      { value: v, expires_in: form.elements.expires_in.value, reason: form.elements.reason.value, by: "page" })
      .then(() => form.reset()),
      o.point + " overridden");
  });
  return form;
}

async function act(request, done) {
  try { await request(); say(done, true); await Promise.all([loadOutputs(), loadStatus(), loadRules()]); }
  catch (e) {
    if (e.status === 401) { token.clear(); renderLogin(); }
    say(e);
  }
}

// ---- points -------------------------------------------------------------------------------

function renderPoints() {
  const box = $("points");
  box.replaceChildren(...[...state.points.values()].map(p => {
    const row = el("div", { class: "row point", "data-point": p.id },
      el("button", { type: "button", class: "link id", text: p.id, title: "trend", onclick: () => toggleTrend(p.id) }),
      el("span", { class: "value", text: "" }),
      el("span", {}, el("span", { class: "q", text: "" })),
      el("span", { class: "age", text: "" }));
    fillPoint(row, p);
    if (state.open.has(p.id)) row.append(el("div", { class: "trend" }));
    return row;
  }));
  state.open.forEach(id => loadTrend(id));
}

function renderPoint(p) {
  const row = document.querySelector(`[data-point="${CSS.escape(p.id)}"]`);
  if (row) fillPoint(row, p);
}

function fillPoint(row, p) {
  const out = p.direction !== "in" && !p.derived ? state.outputs.get(p.id) : null;
  const shown = p.quality === "unknown" && out ? value(out.value, p.unit) + " (decided)" : value(p.value, p.unit);
  row.querySelector(".value").textContent = shown;
  // An output is never sampled: its state is what was decided and commanded (see Outputs).
  const quality = p.quality === "unknown" && out ? "output" : p.quality;
  const q = row.querySelector(".q");
  q.textContent = quality; q.className = "q q-" + quality;
  row.querySelector(".age").textContent = p.quality === "unknown" ? (out ? p.direction : "never reported") : ago(p.since);
  row.querySelector(".age").dataset.since = p.quality === "unknown" ? "" : p.since;
}

function toggleTrend(id) {
  if (state.open.has(id)) state.open.delete(id); else state.open.add(id);
  renderPoints();
}

async function loadTrend(id) {
  const row = document.querySelector(`[data-point="${CSS.escape(id)}"] .trend`);
  if (!row) return;
  try {
    const from = new Date(Date.now() - 15 * 60 * 1000).toISOString();
    const h = await get("points/" + encodeURIComponent(id) + "/history?step=10s&from=" + encodeURIComponent(from));
    const claims = h.marks.filter(m => m.kind === "claim").length, commands = h.marks.length - claims;
    row.replaceChildren(plot(h), el("div", { class: "legend",
      text: clock(h.from) + " – " + clock(h.to) + ": " + h.buckets.length + " buckets of " + h.step_seconds + " s; "
        + claims + " claim changes (orange), " + commands + " commands (green, dashed)" }));
  } catch (e) { row.textContent = "no trend: " + e.message; }
}

// ---- rules, revisions, logs ---------------------------------------------------------------

function renderRules() {
  const reasons = state.status ? state.status.reasons : {};
  $("rules").replaceChildren(...state.rules.map(r => {
    const row = el("div", { class: "row rule", "data-rule": r.id },
      el("span", { class: "id", text: r.id }),
      el("span", {}, el("span", { class: "b b-" + r.band, text: r.band })),
      el("span", {}, el("span", { class: "s s-" + r.state, text: r.state })),
      el("span", { class: "value", text: "condition " + value(r.last_condition) }));
    if (reasons[r.id]) row.append(el("div", { class: "detail reason", text: reasons[r.id] }));
    if (r.state === "suspended" && token.get()) {
      row.append(el("div", { class: "detail" }, el("button", { type: "button", class: "resume", text: "Resume " + r.id,
        onclick: () => act(() => send("POST", "rules/" + encodeURIComponent(r.id) + ":resume"), r.id + " resumed") })));
    }
    return row;
  }));
}

function renderRevisions() {
  const s = state.status;
  const box = $("revisions");
  const active = el("p", { text: "active: revision " + s.revision });
  const r = s.last_rejected;
  if (!r) { box.replaceChildren(active, el("p", { text: "no revision rejected" })); return; }
  const problems = el("ul", { class: "problems" }, ...(r.problems || []).map(p =>
    el("li", { text: (p.file ? p.file + (p.line ? ":" + p.line : "") + " " : "") + (p.code ? "[" + p.code + "] " : "") + (p.message || JSON.stringify(p)) })));
  box.replaceChildren(active, el("p", { class: "rejected", text: "last rejected: revision " + (r.revision ?? "?") + " (" + r.source
    + (r.reason ? ", " + r.reason : "") + ") " + ago(r.t) }), problems);
}

function renderLogs() {
  const s = state.status;
  $("events").replaceChildren(...(s.events || []).map(e => el("li", {},
    el("span", { class: "when", "data-since": e.t, text: ago(e.t) }), el("b", { text: e.kind + " " }), el("span", { text: e.subject + ": " + e.message }))));
  $("audit").replaceChildren(...(s.audit || []).map(a => el("li", {},
    el("span", { class: "when", "data-since": a.t, text: ago(a.t) }), el("b", { text: a.kind + " " }), el("span", { text: a.rule + " (" + a.band + "): " + a.reason }))));
  if (s.log_error) say(s.log_error);
}

// ---- login --------------------------------------------------------------------------------

function renderLogin() {
  const signed = !!token.get();
  $("login").hidden = signed;
  $("signed-in").hidden = !signed;
  renderOutputs(); renderRules();
}

$("login").addEventListener("submit", ev => {
  ev.preventDefault();
  token.set($("token").value.trim());
  $("token").value = "";
  renderLogin();
});
$("logout").addEventListener("click", () => { token.clear(); renderLogin(); });

// Ages run on without asking the gateway.
setInterval(() => {
  document.querySelectorAll("[data-since]").forEach(n => { if (n.dataset.since) n.textContent = ago(n.dataset.since); });
  document.querySelectorAll("[data-until]").forEach(n => {
    n.textContent = n.textContent.replace(/ends (in [^(]*|now) \(/, "ends " + until(n.dataset.until) + " (");
  });
}, 1000);

renderLogin();
loadAll().catch(say);
listen();
