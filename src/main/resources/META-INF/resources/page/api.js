// The JSON API, with the operator's token from this browser session (sessionStorage, never a URL).
const KEY = "sentinel.token";

export const token = {
  get: () => sessionStorage.getItem(KEY),
  set: t => sessionStorage.setItem(KEY, t),
  clear: () => sessionStorage.removeItem(KEY),
};

export async function get(path) {
  const r = await fetch("api/v1/" + path, { headers: { Accept: "application/json" } });
  return answer(r, path);
}

export async function send(method, path, body) {
  const headers = { Accept: "application/json" };
  const t = token.get();
  if (t) headers.Authorization = "Bearer " + t;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const r = await fetch("api/v1/" + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return answer(r, path);
}

async function answer(r, path) {
  const text = await r.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch (e) { /* not JSON: said below */ }
  if (!r.ok) {
    const why = json && json.error ? json.error : text || r.statusText;
    const err = new Error(why);
    err.status = r.status;
    throw err;
  }
  return json;
}
