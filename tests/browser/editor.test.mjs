// The rule editor of `flexrules serve`'s page in a real Chromium (Debian's
// /usr/bin/chromium, driven by playwright-core), at a table of one person (the other seat
// played by the server): a law with a typo is shown its diagnostic (line:column, hint)
// before anything is added, and nothing changes; fixed, it is added, vetoes the move it
// forbids, and is undone from the editor. Then a variant is switched on and off.
// Screenshots go to target/browser-artifacts/.
//
// Environment: FLEXRULES_BIN (the flexrules binary; default target/release/flexrules),
// CHROMIUM (default /usr/bin/chromium).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { artifacts, fail, launch, serve, waitFor } from "./common.mjs";

const rulesText = (page) => page.locator("#rules > ul:not(#rule-diagnostics)").textContent();
const version = (page) => page.getAttribute("body", "data-version");

const TYPO = '"Not A" on startSeeding to A in default is\n  (do\n    (retrun)\n  end)';
const FIXED = TYPO.replace("retrun", "return");

const profile = mkdtempSync(path.join(tmpdir(), "flexrules-chromium-"));
let context = null;
let server = null;
try {
  context = await launch(profile, 900);
  server = await serve("games/awele", ["--agent", "1=random"], 1);
  const page = await context.newPage();
  await page.goto(server.seats[0]);
  await page.waitForSelector("#rules > ul li");
  const rulesBefore = await rulesText(page);
  const versionBefore = await version(page);
  if (versionBefore !== "0") fail(`the game starts at version 0, got ${versionBefore}`);

  // A typo: the diagnostic appears with its line and column; nothing changes.
  await page.fill("#rule-text", TYPO);
  await waitFor(page, "the typo's diagnostic", () => {
    const d = document.querySelector("#rule-diagnostics li.error");
    return d && d.textContent.startsWith("3:6: error:") && d.textContent.includes("retrun");
  });
  const shown = await page.textContent("#rule-diagnostics li.error");
  if (!shown.includes("hint:")) fail(`the diagnostic has a hint: ${shown}`);
  if (!(await page.isDisabled("#rule-add"))) fail('"add" is disabled while the text has an error');
  await page.screenshot({ path: path.join(artifacts, "editor-typo.png"), fullPage: true });
  if ((await rulesText(page)) !== rulesBefore) fail("checking changed the rules");
  if ((await version(page)) !== versionBefore) fail("checking changed the game");
  if (!(await page.isHidden("#proposals"))) fail("checking proposed something");

  // Fixed: the diagnostic goes, the law is added, listed and in force.
  await page.fill("#rule-text", FIXED);
  await waitFor(page, "the diagnostic to go", () =>
    document.querySelector("#rule-diagnostics li.error") === null &&
    !document.querySelector("#rule-add").disabled);
  await page.click("#rule-add");
  await waitFor(page, "the law in the rules list",
    () => document.querySelector("#rules > ul").textContent.includes('law "Not A"'));
  if ((await version(page)) !== "1") fail("adding the law is change 1");
  await page.click('#board g[data-owner="A"][data-id="house"]');
  await waitFor(page, "the law's veto", () => document.querySelector("#message").textContent === "vetoed by Not A");

  // Undone from the editor: gone.
  await page.click("#rule-undo");
  await waitFor(page, "the law gone",
    () => !document.querySelector("#rules > ul").textContent.includes('law "Not A"'));
  if ((await rulesText(page)) !== rulesBefore) fail("after the undo the rules are as before");
  console.log("editor: typo diagnosed at its line and column with nothing changed, fixed, added, in force, undone: ok");

  // A variant, listed with its description, switched on and off.
  const fill = '#variants li[data-name="fill-origin"]';
  const description = await page.textContent(fill);
  if (!description.includes("Sowing 12 seeds or more also fills the house"))
    fail(`the variant's description is shown: ${description}`);
  await page.locator(fill).getByText("switch on").click();
  await waitFor(page, "the variant in force", (sel) => document.querySelector(sel).classList.contains("on"), fill);
  if (!(await rulesText(page)).includes("Fill The Origin House")) fail("the variant's law is in force");
  await page.screenshot({ path: path.join(artifacts, "editor-variant.png"), fullPage: true });
  await page.locator(fill).getByText("switch off").click();
  await waitFor(page, "the variant off", (sel) => !document.querySelector(sel).classList.contains("on"), fill);
  if ((await rulesText(page)) !== rulesBefore) fail("with the variant off the rules are as before");
  console.log("variants: listed with descriptions, switched on and off: ok");
} finally {
  if (context) await context.close();
  if (server) server.child.kill();
  rmSync(profile, { recursive: true, force: true });
}
