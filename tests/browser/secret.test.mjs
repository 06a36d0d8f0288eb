// Plays a round of games/archipelago (secret programmed orders, three players, seed 3) in
// a real Chromium, one page per seat: each seat programs its four orders by clicking its
// own moves while the others are told whom they wait for; player 0's last order reveals
// the programs, and courier 1's salvage stops for player 1's choice, which player 1's
// page asks with a button per lot while the other pages say they wait for player 1; the
// answer carries out the programs, and every page's board shows them revealed.
// Screenshots go to target/browser-artifacts/.
//
// Environment: FLEXRULES_BIN (the flexrules binary; default target/release/flexrules),
// CHROMIUM (default /usr/bin/chromium).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { artifacts, fail, launch, serve, waitFor } from "./common.mjs";

// The orders of the round (as tests/inputs/repl/archipelago-round.txt gives them):
// courier 1 salvages off mako in step 1, which stops in player 0's last order.
const programs = {
  1: ["1:salvage", "1:sail-s", "1:load", "1:load"],
  2: ["2:sail-ne", "2:load", "2:load", "2:reef-w"],
  0: ["0:ferry-se", "0:bridge-sw", "0:deliver", "0:rest"],
};

const text = (page, selector) => page.evaluate((s) => document.querySelector(s)?.textContent.trim() ?? null, selector);
const revealed = '#board g[data-owner="harbour"][data-id="revealed"]';

// Seat `page` gives the order `name` by clicking its button, and waits for the change.
async function order(page, name) {
  const version = await page.evaluate(() => document.body.dataset.version);
  const offered = await page.locator("#moves button").allTextContents();
  if (!offered.includes(name)) fail(`${name} is not offered: ${offered}`);
  await page.locator("#moves button").filter({ hasText: new RegExp(`^${name}$`) }).click();
  await waitFor(page, `${name} to be given`, (v) => document.body.dataset.version !== v, version);
}

// Every page in `pages` shows `status` (exactly).
async function statuses(pages, status) {
  for (const [seat, expected] of Object.entries(status))
    await waitFor(pages[seat], `seat ${seat}'s status "${expected}"`,
      (s) => document.querySelector("#status").textContent === s, expected);
}

const profile = mkdtempSync(path.join(tmpdir(), "flexrules-chromium-"));
let context = null;
let server = null;
try {
  context = await launch(profile, 900);
  const game = await serve("games/archipelago",
    ["--param", "players=3", "--seats", "0,1,2", "--seed", "3"], 3);
  server = game.child;
  const pages = [];
  for (const link of game.seats) {
    const page = await context.newPage();
    await page.goto(link);
    await page.waitForSelector(revealed, { state: "attached" });
    pages.push(page);
  }
  for (const [i, page] of pages.entries())
    if (!(await page.textContent("#who")).includes(`player ${i}`)) fail(`seat ${i} should say who it is`);
  await statuses(pages, {
    0: "player 0 to move; waiting for players 1, 2 too",
    1: "player 1 to move; waiting for players 0, 2 too",
    2: "player 2 to move; waiting for players 0, 1 too",
  });
  // Each seat is offered its own orders only.
  for (const [i, page] of pages.entries()) {
    const offered = await page.locator("#moves button").allTextContents();
    if (offered.length === 0 || !offered.every((m) => m.startsWith(`${i}:`))) fail(`seat ${i} is offered ${offered}`);
  }

  // Player 1 programs its courier; its page then waits for players 0 and 2.
  for (const name of programs[1]) await order(pages[1], name);
  await statuses(pages, {
    0: "player 0 to move; waiting for player 2 too",
    1: "your orders are in; waiting for players 0, 2",
    2: "player 2 to move; waiting for player 0 too",
  });
  if ((await pages[1].locator("#moves button").count()) !== 0) fail("seat 1 is offered orders after its program");
  if ((await text(pages[1], "#moves")) !== "your orders are in; waiting for players 0, 2")
    fail(`seat 1's moves say ${await text(pages[1], "#moves")}`);
  // Its orders show on its own board only.
  const mine = '#board g[data-owner="courier1"][data-id="orders"]';
  if (!(await text(pages[1], mine))?.includes("your orders: salvage sail-s load load"))
    fail(`seat 1 should see its orders: ${await text(pages[1], mine)}`);
  for (const seat of [0, 2])
    if ((await pages[seat].locator(mine).count()) !== 0) fail(`seat ${seat} sees player 1's orders`);
  await pages[1].screenshot({ path: path.join(artifacts, "secret-programmed.png"), fullPage: true });

  for (const name of programs[2]) await order(pages[2], name);
  await statuses(pages, {
    0: "player 0 to move",
    1: "your orders are in; waiting for player 0",
    2: "your orders are in; waiting for player 0",
  });
  for (const name of programs[0].slice(0, 3)) await order(pages[0], name);
  for (const page of pages) {
    if ((await text(page, revealed)) !== "") fail("the programs show before the last order");
    if (!(await text(page, '#board g[data-owner="courier1"][data-id="status"]')).startsWith("courier 1: at mako"))
      fail("courier 1 starts at mako");
  }

  // The last order reveals the programs and stops at courier 1's salvage: player 1 chooses.
  await order(pages[0], programs[0][3]);
  await waitFor(pages[1], "player 1's question", () =>
    !document.querySelector("#choice").hidden && document.querySelectorAll("#choice button").length > 0);
  const question = await text(pages[1], "#choice .question");
  if (question !== "Choose salvage:") fail(`seat 1 is asked ${question}`);
  const answers = await pages[1].locator("#choice button").allTextContents();
  if (answers.length !== 3) fail(`three lots to choose from, not ${answers}`);
  if ((await text(pages[1], "#status")) !== "your choice: salvage") fail(`seat 1's status: ${await text(pages[1], "#status")}`);
  for (const seat of [0, 2]) {
    const page = pages[seat];
    await waitFor(page, `seat ${seat} to wait for player 1`, () =>
      document.querySelector("#status").textContent === "waiting for player 1 to choose (salvage)" &&
      document.querySelector("#choice").textContent === "waiting for player 1 to choose (salvage)");
    if ((await page.locator("#choice button").count()) !== 0) fail(`seat ${seat} is offered player 1's choice`);
    if ((await page.locator("#moves button").count()) !== 0) fail(`seat ${seat} is offered moves during the choice`);
  }
  const said = await text(pages[0], "#message");
  if (said !== "waiting for player 1 to choose (salvage)") fail(`seat 0's last order was answered: ${said}`);
  await pages[1].screenshot({ path: path.join(artifacts, "secret-choice.png"), fullPage: true });
  await pages[0].screenshot({ path: path.join(artifacts, "secret-waiting.png"), fullPage: true });

  // Player 1 takes the first lot; the programs are carried out and shown to everyone.
  const lot = answers[0];
  await pages[1].locator("#choice button").filter({ hasText: new RegExp(`^${lot}$`) }).click();
  for (const [i, page] of pages.entries()) {
    await waitFor(page, `seat ${i} to see the programs revealed`, () => {
      const shown = document.querySelector('#board g[data-owner="harbour"][data-id="revealed"]').textContent;
      return document.querySelector("#choice").hidden && shown.includes("0: ferry-se bridge-sw deliver rest") &&
        shown.includes("1: salvage sail-s load load") && shown.includes("2: sail-ne load load reef-w");
    });
    if (!(await text(page, '#board g[data-owner="harbour"][data-id="round"]')).startsWith("round 2"))
      fail(`seat ${i} should see round 2`);
    // Courier 1 sailed south from mako to shell after its salvage.
    const courier = await text(page, '#board g[data-owner="courier1"][data-id="status"]');
    if (!courier.startsWith("courier 1: at shell")) fail(`seat ${i} should see courier 1 at shell: ${courier}`);
  }
  await statuses(pages, {
    0: "player 0 to move; waiting for players 1, 2 too",
    1: "player 1 to move; waiting for players 0, 2 too",
    2: "player 2 to move; waiting for players 0, 1 too",
  });
  await pages[2].screenshot({ path: path.join(artifacts, "secret-revealed.png"), fullPage: true });
  console.log("secret: three seats program their orders, player 1 answers the salvage with a button while the others wait for it, the reveal is seen on every page: ok");
} finally {
  if (context) await context.close();
  if (server) server.kill();
  rmSync(profile, { recursive: true, force: true });
}
