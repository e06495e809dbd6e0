#!/usr/bin/env bash
# Installs the browser the control page's end-to-end test drives (headless
# Chromium, cmd/zero/devstack/webui_test.go) where the system's package
# manager can, only when none is on PATH; elsewhere it says what to
# install. `make deps` runs it; the test fails without a browser.
set -euo pipefail
for b in chromium chromium-browser google-chrome google-chrome-stable; do
  command -v "$b" >/dev/null 2>&1 && exit 0
done
if command -v apt-get >/dev/null 2>&1; then
  sudo=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "deps: run 'apt-get install -y chromium' as root (the control page's browser test needs it)"; exit 0; }
    sudo="sudo"
  fi
  echo "deps: installing chromium with apt-get (the control page's browser test)"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get install -y -qq chromium >/dev/null || { $sudo apt-get update -qq && $sudo apt-get install -y -qq chromium >/dev/null; }
  exit 0
fi
cat <<'MSG'
deps: no Chromium found, and no apt-get to install it. The control page's
browser test (make test) needs Chromium or Google Chrome on PATH:
  Fedora: dnf install chromium   Arch: pacman -S chromium
  macOS:  brew install --cask chromium (or Google Chrome)
MSG
