// Plays games/jochess on joChess's three-player hexagon board (../shared/jochess beside the
// project) in a real Chromium, one page per seat (P1, P2, P3): each player moves by two
// clicks (a piece, then its target), every page sees each move, and a seat clicking out of
// turn is refused. Screenshots go to target/browser-artifacts/.
//
// Environment: FLEXRULES_BIN (the flexrules binary; default target/release/flexrules),
// CHROMIUM (default /usr/bin/chromium).

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { artifacts, fail, launch, root, serve, waitFor } from "./common.mjs";

const board = path.join(root, "..", "shared", "jochess", "3PlayerBoard.xml");
if (!existsSync(board)) fail(`${board} is missing: joChess's board files are read from ../shared/jochess`);

const graphic = (owner, id) => `#board g[data-owner="${owner}"][data-id="${id}"]`;

// What every page must show after a move: the letter on each of `letters` (a position and
// its letter, "" for empty) and the status line.
async function seen(pages, letters, status) {
  for (const [i, page] of pages.entries()) {
    await waitFor(page, `seat ${i + 1} to see ${JSON.stringify(letters)} and "${status}"`, ([letters, status]) => {
      const text = (owner) =>
        document.querySelector(`#board g[data-owner="${owner}"][data-id="piece"]`).textContent.trim();
      const line = document.querySelector('#board g[data-owner="game"][data-id="status"]').textContent.trim();
      return Object.entries(letters).every(([c, l]) => text(c) === l) && line === status;
    }, [letters, status]);
  }
}

// Seat `page` plays from `from` to `to` by clicking: the piece (its letter, or its disc
// beside the letter), then the target position.
async function play(page, from, to, part = "piece") {
  await page.click(graphic(from, part), part === "disc" ? { position: { x: 5, y: 15 } } : {});
  await waitFor(page, "the move to wait for its target",
    () => document.querySelector("#status").textContent.includes('waiting for signal "to"'));
  await page.click(graphic(to, "cell"));
}

// A click out of turn is refused, and changes nothing.
async function refused(page, owner) {
  const version = await page.evaluate(() => document.body.dataset.version);
  await page.click(graphic(owner, "piece"));
  await waitFor(page, "the out-of-turn refusal",
    () => document.querySelector("#message").textContent.startsWith("not your turn"));
  if ((await page.evaluate(() => document.body.dataset.version)) !== version)
    fail("a refused click changed the game");
}

const profile = mkdtempSync(path.join(tmpdir(), "flexrules-chromium-"));
let context = null;
let server = null;
try {
  context = await launch(profile, 900);
  const game = await serve("games/jochess", ["--param", `board=${board}`, "--seats", "P1,P2,P3"], 3);
  server = game.child;
  const pages = [];
  for (const link of game.seats) {
    const page = await context.newPage();
    await page.goto(link);
    await page.waitForSelector(graphic("e2", "piece"));
    pages.push(page);
  }
  const [p1, p2, p3] = pages;
  for (const [i, page] of pages.entries())
    if (!(await page.textContent("#who")).includes(`player P${i + 1}`)) fail(`seat ${i + 1} should say who it is`);
  const cells = await p1.locator('#board g[data-id="cell"] polygon').count();
  if (cells !== 96) fail(`the hexagon has 96 positions, the page draws ${cells}`);
  await seen(pages, { e2: "P", d7: "P", k11: "P" }, "P1 (White) to move");

  // P2 and P3 may not move while P1 is to move.
  await refused(p2, "d7");
  await refused(p3, "k11");

  // P1: a pawn two forward; the position is marked while the move waits for its target.
  await p1.click(graphic("e2", "piece"));
  await waitFor(p1, "the picked position to be marked",
    () => document.querySelector('#board g[data-owner="e2"][data-id="cell"] polygon').getAttribute("stroke-width") === "4");
  await p1.screenshot({ path: path.join(artifacts, "jochess-picked.png"), fullPage: true });
  await p1.click(graphic("e4", "cell"));
  await seen(pages, { e2: "", e4: "P" }, "P2 (Black) to move");
  await refused(p1, "d2");

  // P2, clicking the disc rather than the letter; then P3.
  await play(p2, "d7", "d5", "disc");
  await seen(pages, { d7: "", d5: "P" }, "P3 (Red) to move");
  await refused(p2, "c7");
  await play(p3, "k11", "k9");
  await seen(pages, { k11: "", k9: "P", e4: "P", d5: "P" }, "P1 (White) to move");
  for (const [i, page] of pages.entries())
    if ((await page.locator("#history li").count()) !== 4) fail(`seat ${i + 1}'s history should show the start and 3 moves`);
  await p3.screenshot({ path: path.join(artifacts, "jochess-seat3.png"), fullPage: true });
  console.log("jochess: three seats, a move each by clicks seen on every page, out-of-turn clicks refused: ok");
} finally {
  if (context) await context.close();
  if (server) server.kill();
  rmSync(profile, { recursive: true, force: true });
}
