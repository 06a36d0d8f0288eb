#!/usr/bin/env bash
# Records random games played by joChess's own rule engine as fixtures for
# tests/jochess_recorded.rs. Fetches nothing: the first argument is a checkout of
# github SajadKarim/joChess (at commit a55a2f6); its main sources and Recorder.java are
# compiled into /tmp and run. See README.md beside this script.
#
#   tools/jochess-reference/record.sh <joChess checkout> [games per board] [plies] [output]
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
checkout="${1:?usage: record.sh <joChess checkout> [games per board] [plies] [output]}"
games="${2:-6}"
plies="${3:-40}"
output="${4:-$root/tests/inputs/jochess-reference/recorded.txt}"
boards="${JOCHESS_BOARDS:-$root/../shared/jochess}"
src="$checkout/src/main/java"

[ -d "$src/jchess/ruleengine" ] || { echo "record.sh: $src/jchess/ruleengine is missing: give a joChess checkout" >&2; exit 2; }
[ -f "$boards/3PlayerBoard.xml" ] || { echo "record.sh: no joChess board files in $boards (set JOCHESS_BOARDS)" >&2; exit 2; }

# joChess's compile dependencies the rule engine reaches, from Debian packages:
# libguice-java (com.google.inject annotations), libjavatuples-java (StorageService's
# Pair), libbetter-appframework-java (org.jdesktop.application, imported by the promotion
# dialog's presenter). log4j is not needed: the recorder passes its own logger.
cp=""
for jar in guice javatuples bsaf; do
  f="/usr/share/java/$jar.jar"
  [ -f "$f" ] || { echo "record.sh: $f is missing (apt-get install libguice-java libjavatuples-java libbetter-appframework-java)" >&2; exit 2; }
  cp="$cp:$f"
done
cp="${cp#:}"

out="$(mktemp -d /tmp/jochess-recorder.XXXXXX)"
# The rule engines and processors are named by the board files and loaded by reflection,
# so they are listed; javac finds the rest of joChess's classes they need on -sourcepath.
javac -nowarn -encoding UTF-8 -d "$out" -cp "$cp" -sourcepath "$src" \
  "$here/Recorder.java" "$src"/jchess/ruleengine/*.java 2>&1 | grep -v '^Note:' || true
[ -f "$out/Recorder.class" ] || { echo "record.sh: compiling failed" >&2; exit 1; }
# (joChess prints debugging lines on standard output: they are dropped.)
java -Djava.awt.headless=true -cp "$out:$cp" Recorder "$boards" "$games" "$plies" "$output" > /dev/null
echo "record.sh: wrote $output ($(grep -c '^case' "$output") games, $(grep -c '^play' "$output") plies)"
