#!/usr/bin/env bash
# Install the match opponents: Debian's engines (root or sudo needed) and Sunfish from PyPI
# into its own venv (.opponents/sunfish). Prints the command line of each one installed.
set -u
cd "$(dirname "$0")/.."
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq || true
for pkg in stockfish ethereal-chess phalanx fairymax glaurung toga2; do
    $SUDO apt-get install -y -qq "$pkg" >/dev/null 2>&1 && echo "installed $pkg" || echo "could not install $pkg"
done
python3 -m venv .opponents/sunfish
.opponents/sunfish/bin/python -m pip install --quiet sunfish && echo "installed sunfish"
echo
echo "command lines for scripts/match.py --engine2:"
for exe in /usr/games/stockfish /usr/games/ethereal-chess /usr/games/phalanx /usr/games/fairymax /usr/games/glaurung /usr/games/toga2; do
    [ -x "$exe" ] && echo "  $exe"
done
[ -x .opponents/sunfish/bin/sunfish-uci ] && echo "  $(pwd)/.opponents/sunfish/bin/sunfish-uci"
