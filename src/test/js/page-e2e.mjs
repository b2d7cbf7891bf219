// The operator page in headless Chromium against a running gateway (PageE2ETest starts it and
// runs this). MQTT publishes are asked of the Java side over stdio: "PUB <topic> <payload>" out,
// "OK" back once the broker has it. Each check prints "ok <name>" or throws; the exit code says.
// Environment: BASE_URL, TOKEN, ROOT (sentinel/<site>/), SHOTS (screenshot folder), USER_DATA.
import { chromium } from "playwright-core";
import readline from "node:readline";

const { BASE_URL, TOKEN, ROOT, SHOTS, USER_DATA } = process.env;
const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();

async function publish(topic, payload) {
  process.stdout.write(`PUB ${topic} ${payload}\n`);
  const { value } = await lines.next();
  if (value !== "OK") throw new Error(`publish ${topic}: ${value}`);
}

// The strike's override over the API, as another operator would set it (body: for PUT).
async function strikeOverride(method, body) {
  const status = await page.evaluate(async ([m, b, t]) => (await fetch("api/v1/points/door.main.strike/override", {
    method: m, headers: { "Content-Type": "application/json", Authorization: "Bearer " + t },
    body: b ? JSON.stringify(b) : undefined })).status, [method, body, TOKEN]);
  if (status >= 300) throw new Error(`${method} the strike's override: ${status}`);
}

const context = await chromium.launchPersistentContext(USER_DATA, {
  executablePath: "/usr/bin/chromium",
  headless: true,
  viewport: { width: 1200, height: 900 },
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const page = await context.newPage();
const errors = [];
page.on("pageerror", e => errors.push(e.message));
const ok = name => console.log("ok " + name);
const text = sel => page.locator(sel).first().innerText();
const expectText = async (sel, pattern, timeout = 10000) => {
  await page.waitForFunction(([s, p]) => {
    const n = document.querySelector(s);
    return n && new RegExp(p).test(n.innerText);
  }, [sel, pattern], { timeout }).catch(async () => {
    throw new Error(`${sel} never matched /${pattern}/ (was: ${await text(sel).catch(() => "absent")})`);
  });
};

try {
  await page.goto(BASE_URL);
  await expectText("#live", "^live$");
  await expectText("#revision", "^\\d+$");
  ok("header: revision and live stream");

  // The pump's inputs: demand over, flow still hot: pump-run-on claims the pump.
  await publish(ROOT + "points/boiler.ch1.pressure", "1.5");
  await publish(ROOT + "points/boiler.ch1.demand", "false");
  await publish("zigbee2mqtt/boiler-flow", '{"temperature": 42}'); // its mapped topic, the only one it takes
  await expectText('[data-point="boiler.ch1.flow-temp"] .value', "^42 degC$");

  // 1. A sample's new value on the page within 1 s of its publish.
  const started = Date.now();
  await publish("zigbee2mqtt/boiler-flow", '{"temperature": 47.5}');
  await expectText('[data-point="boiler.ch1.flow-temp"] .value', "^47.5 degC$", 1000);
  const took = Date.now() - started;
  ok(`sample on the page ${took} ms after its publish was asked`);

  // 2. The pump's claim details: winner, band, deciding key, contenders, command, the why slot.
  const pump = '[data-output="boiler.ch1.pump"]';
  await expectText(pump + " .winner", "pump-run-on\\s+automation");
  await expectText(pump + " .decided", "^true$");
  await expectText(pump + " .key", "sole");
  await expectText(pump + " .contenders", "pump-run-on \\(automation");
  await expectText(pump + " .commanded", "assert true");
  await expectText(pump + " .delivered", "delivered");
  await expectText(pump + " .why", "^true because pump-run-on \\(automation\\) on flow = 47.5 live, demand = false live$");
  await page.locator('[data-point="boiler.ch1.flow-temp"] .id').click();
  await page.waitForSelector('[data-point="boiler.ch1.flow-temp"] .trend svg .avg', { timeout: 10000 });
  await page.screenshot({ path: SHOTS + "/page-overview.png", fullPage: true });
  ok("the pump's winner, band, deciding key, contenders, command and trend");

  // 3. An override from the page: sign in, set it, see it win with its end, clear it.
  await page.fill("#token", TOKEN);
  await page.click('#login button[type="submit"]');
  await page.waitForSelector(pump + " form.override");
  if (await page.isVisible("#login")) throw new Error("the sign-in form is still shown once signed in");
  await page.selectOption(pump + ' select[name="value"]', "false");
  await page.selectOption(pump + ' select[name="expires_in"]', "15m");
  await page.fill(pump + ' input[name="reason"]', "pump service (e2e)");
  // A live update rebuilds the cards while the form is being filled (here another output's
  // override, set over the API): the choice and the reason must survive it, or "false" goes out as
  // the form's first choice, "true".
  const card = await page.locator(pump + " .decided").elementHandle();
  await strikeOverride("PUT", { value: false, expires_in: "5m", reason: "a re-render (e2e)", by: "e2e" });
  await page.waitForFunction(n => !n.isConnected, card, { timeout: 10000 });
  if (await page.inputValue(pump + ' select[name="value"]') !== "false") throw new Error("the pump's form lost its chosen value in a re-render");
  if (await page.inputValue(pump + ' input[name="reason"]') !== "pump service (e2e)") throw new Error("the pump's form lost its reason in a re-render");
  await page.click(pump + ' form.override button[type="submit"]');
  await expectText(pump + " .winner", "override:operator\\s+operator");
  await expectText(pump + " .decided", "^false$");
  await expectText(pump + " .override-state", "false by page, ends in 1[45] min");
  await expectText(pump + " .commanded", "assert false");
  const stored = await page.evaluate(() => sessionStorage.getItem("sentinel.token"));
  if (stored !== TOKEN) throw new Error("the token is not in sessionStorage");
  if (page.url().includes(TOKEN)) throw new Error("the token is in the URL");
  await page.screenshot({ path: SHOTS + "/page-override.png", fullPage: false });
  if (!(await page.isVisible(pump + ' select[name="value"]'))) throw new Error("the pump's form lost its true/false choice after live updates");
  await page.click(pump + " button.clear");
  await expectText(pump + " .winner", "pump-run-on\\s+automation");
  await expectText(pump + " .override-state", "^none$");
  await expectText("#events", "override-cleared");
  await expectText("#audit", "override");
  await strikeOverride("DELETE");
  ok("override set from the page wins with its end shown, kept through a re-render, then cleared");

  // 4. A chattering demand contact suspends burner-on-demand; resume it from the page.
  for (let k = 0; k < 40; k++) await publish(ROOT + "points/boiler.ch1.demand", k % 2 === 0 ? "true" : "false");
  const rule = '[data-rule="burner-on-demand"]';
  await expectText(rule + " .s", "^suspended$");
  await expectText(rule + " .reason", "evaluations|evaluation limit");
  await expectText("#count-suspended", "^[1-9]");
  await page.locator("#rules").screenshot({ path: SHOTS + "/page-suspended.png" });
  await page.click(rule + " button.resume");
  await page.waitForFunction(s => {
    const n = document.querySelector(s);
    return n && n.innerText !== "suspended";
  }, rule + " .s", { timeout: 10000 });
  await expectText("#events", "rule-resumed");
  ok("suspended rule resumed from the page: " + (await text(rule + " .s")));

  // 5. A phone's width: nothing scrolls sideways.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(300);
  const widths = await page.evaluate(() => [document.documentElement.scrollWidth, document.body.scrollWidth, innerWidth]);
  if (Math.max(widths[0], widths[1]) > 390) throw new Error("scrolls sideways at 390 px: " + widths);
  await page.screenshot({ path: SHOTS + "/page-390px.png", fullPage: true });
  ok("390 px wide without sideways scrolling " + widths);

  if (errors.length) throw new Error("errors on the page: " + errors.join("; "));
} finally {
  await context.close();
}
process.exit(0);
