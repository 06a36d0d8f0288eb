// Plays `flexrules serve`'s page in a real Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core): Awele by clicks (seeds move, a refused click is explained, undo), and
// a game with private views opened in two seats (neither page ever shows the other seat's
// private graphics), and Goofspiel against the server (its secret bid, revealed by ours).
// Screenshots go to target/browser-artifacts/.
//
// Environment: FLEXRULES_BIN (the flexrules binary; default target/release/flexrules),
// CHROMIUM (default /usr/bin/chromium).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { artifacts, fail, launch, serve, waitFor } from "./common.mjs";

const house = (owner) => `#board g[data-owner="${owner}"][data-id="house"]`;

async function seeds(page, owner) {
  return (await page.locator(house(owner)).textContent()).trim();
}

const profile = mkdtempSync(path.join(tmpdir(), "flexrules-chromium-"));
const servers = [];
let context = null;
try {
  context = await launch(profile, 700);

  // Awele: click a house, see the seeds move, a refused click explained, undo.
  const awele = await serve("games/awele");
  servers.push(awele.child);
  const page = await context.newPage();
  await page.goto(awele.seats[0]);
  await page.waitForSelector(house("A"));
  if ((await seeds(page, "A")) !== "4") fail("house A should start with 4 seeds");
  if (!(await page.textContent("#who")).includes("player 0")) fail("the page should say who I am");

  await page.click(house("a"));
  await waitFor(page, "the refused click's explanation",
    () => document.querySelector("#message").textContent.includes("vetoed by Allow Only Current Player"));
  if (!(await page.getAttribute("#message", "class")).includes("refused")) fail("a veto is shown as refused");

  await page.click(house("A"));
  await waitFor(page, "the seeds to move", () => {
    const t = (o) => document.querySelector(`#board g[data-owner="${o}"][data-id="house"]`).textContent.trim();
    return t("A") === "0" && t("B") === "5" && t("E") === "5";
  });
  if (!(await page.textContent("#status")).includes("player 1 to move")) fail("player 1 should be to move");
  if ((await page.locator("#history li").count()) !== 2) fail("the history should show the start and one move");
  await page.click(house("B"));
  await waitFor(page, "the out-of-turn explanation",
    () => document.querySelector("#message").textContent.startsWith("not your turn"));
  await page.screenshot({ path: path.join(artifacts, "awele.png"), fullPage: true });

  await page.click("#undo");
  await waitFor(page, "undo", () =>
    document.querySelector('#board g[data-owner="A"][data-id="house"]').textContent.trim() === "4");
  // Time travel: the position after change 1 is shown without changing the game.
  await page.click('#history li[data-n="1"]');
  await waitFor(page, "the past position",
    () => !document.querySelector("#peek-bar").hidden &&
      document.querySelector('#board g[data-owner="A"][data-id="house"]').textContent.trim() === "0");
  await page.click("#peek-live");
  if ((await seeds(page, "A")) !== "4") fail("back to the game, house A has 4 seeds again");
  // A house rule proposed from the page, shown in full to the other seat, in force once
  // it accepts; then removed the same way.
  const example = await page.getAttribute("#rule-text", "placeholder");
  if (example !== '"My rule" on startSeeding to hole in default is (return)')
    fail(`the house rule's example is taken from the game's own rules, got ${example}`);
  await page.fill("#rule-text", '"Not A" on startSeeding to A in default is (return)');
  await page.click("#rule-add");
  await waitFor(page, "the proposal's reply",
    () => document.querySelector("#message").textContent.includes("carried out when player 1 accepts"));
  const other = await context.newPage();
  await other.goto(awele.seats[1]);
  await waitFor(other, "the proposal shown to the other seat",
    () => document.querySelector("#proposals ul").textContent.includes('"Not A" on startSeeding to A'));
  await other.screenshot({ path: path.join(artifacts, "awele-proposal.png"), fullPage: true });
  if ((await page.locator("#rules li", { hasText: 'law "Not A"' }).count()) !== 0)
    fail("a proposed rule is not in force before it is accepted");
  await other.locator("#proposals li").getByText("accept").click();
  await waitFor(page, "the new rule in the list",
    () => document.querySelector("#rules ul").textContent.includes('law "Not A"'));
  await page.click(house("A"));
  await waitFor(page, "the house rule's veto",
    () => document.querySelector("#message").textContent === "vetoed by Not A");
  await page.locator("#rules li", { hasText: 'law "Not A"' }).getByText("remove").click();
  await waitFor(other, "the removal proposed",
    () => document.querySelector("#proposals ul").textContent.includes(":remove Not A"));
  await other.locator("#proposals li").getByText("accept").click();
  await waitFor(page, "the rule removed",
    () => !document.querySelector("#rules ul").textContent.includes('law "Not A"'));
  console.log("awele: click, seeds moved, veto and out-of-turn explained, undo, history position, house rule proposed, accepted by the other seat and removed: ok");

  // Private views: two seats of a game whose cards only their owner sees.
  const cards = await serve("tests/inputs/serve/cards");
  servers.push(cards.child);
  const p0 = await context.newPage();
  const p1 = await context.newPage();
  await p0.goto(cards.seats[0]);
  await p1.goto(cards.seats[1]);
  await p0.waitForSelector('#board g[data-owner="hand0"][data-id="card"]');
  await p1.waitForSelector('#board g[data-owner="hand1"][data-id="card"]');
  // Player 0 reveals (a move waiting for a signal, answered by a click on "yes").
  await p0.click('#board g[data-owner="hand0"][data-id="back"]');
  await waitFor(p0, "the signal prompt", () => document.querySelector("#status").textContent.includes("confirm"));
  await p0.click('#board g[data-owner="hand0"][data-id="yes"]');
  await waitFor(p1, "the revealed hand",
    () => document.querySelector('#board g[data-owner="hand0"][data-id="back"]').textContent.includes("revealed"));
  const html0 = await p0.content();
  const html1 = await p1.content();
  if (!html0.includes("secret card 7")) fail("player 0 sees their own card");
  if (html0.includes("secret card 9")) fail("player 0's page shows player 1's private card");
  if (!html1.includes("secret card 9")) fail("player 1 sees their own card");
  if (html1.includes("secret card 7")) fail("player 1's page shows player 0's private card");
  if ((await p1.locator('#board g[data-owner="hand0"][data-id="yes"]').count()) !== 0)
    fail("player 1's page shows player 0's private button");
  await p1.screenshot({ path: path.join(artifacts, "cards-seat1.png"), fullPage: true });
  console.log("cards: each seat sees its own private graphics only; signal answered by a click: ok");

  // Goofspiel against the server: it has bid already, in secret; our bid reveals both.
  const goof = await serve("games/goofspiel", ["--agent", "1=ismcts:50", "--param", "cards=5"], 1);
  servers.push(goof.child);
  const g = await context.newPage();
  await g.goto(goof.seats[0]);
  await waitFor(g, "our turn", () => document.querySelector("#status").textContent === "player 0 to move");
  if ((await g.content()).includes("your bid")) fail("the server's bid shows on our page");
  const offered = await g.locator("#moves button").allTextContents();
  if (offered.length !== 5 || !offered.every((m) => m.startsWith("0:"))) fail(`our bids only: ${offered}`);
  await g.locator("#moves button", { hasText: "0:5" }).click();
  await waitFor(g, "the bids revealed",
    () => document.querySelector("#board").textContent.includes("bids revealed: 5"));
  await g.screenshot({ path: path.join(artifacts, "goofspiel.png"), fullPage: true });
  console.log("goofspiel: the server bids in secret, our bids only offered, both revealed: ok");
} finally {
  if (context) await context.close();
  for (const child of servers) child.kill();
  rmSync(profile, { recursive: true, force: true });
}
