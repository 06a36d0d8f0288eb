// What the browser tests share: where the binary and the artifacts are, starting
// `flexrules serve` and reading the links it prints, launching Chromium, and waiting on a
// page.

import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const bin = process.env.FLEXRULES_BIN || path.join(root, "target", "release", "flexrules");
export const artifacts = path.join(root, "target", "browser-artifacts");
mkdirSync(artifacts, { recursive: true });

export function fail(message) {
  throw new Error(message);
}

// Start `flexrules serve <game> --port 0 [args]` and read the links it prints (`humans`
// seats get one): the process, the seats' links and the watchers' link.
export function serve(game, args = [], humans = 2) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ["serve", path.join(root, game), "--port", "0", ...args], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    const timer = setTimeout(() => reject(new Error("flexrules serve printed no links")), 30000);
    child.on("exit", (code) => reject(new Error(`flexrules serve exited with ${code}: ${out}`)));
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const seats = [...out.matchAll(/^player (\S+): (\S+)$/gm)].map((m) => m[2]);
      const watcher = out.match(/^watchers: (\S+)$/m);
      if (seats.length === humans && watcher) {
        clearTimeout(timer);
        resolve({ child, seats, watcher: watcher[1] });
      }
    });
  });
}

// Chromium (CHROMIUM, default Debian's /usr/bin/chromium), headless, with its profile in
// the directory `profile` and a window 1100 wide and `height` high.
export function launch(profile, height) {
  return chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1100, height },
    args: [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
  });
}

// Wait until `check(arg)` holds in the page, or fail naming `what`.
export async function waitFor(page, what, check, arg = null) {
  await page.waitForFunction(check, arg, { timeout: 15000 }).catch(() => fail(`timed out waiting for ${what}`));
}
