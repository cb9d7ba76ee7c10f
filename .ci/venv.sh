# Sourced by .ci/run and .ci/serve: a virtual environment in .venv made with the python3 on
# PATH, then activated, so `python3`, `pip` and `flowctl` below are the environment's.
# Debian's own python3 refuses `pip install` outside one, and needs its python3-venv package
# to make one: that is installed first when it is missing.

apt_install() {
  if ! command -v apt-get >/dev/null 2>&1; then  # macOS, Fedora...: say what is missing
    echo "error: this needs the Debian packages: $*" >&2
    echo "  (no apt-get here; on macOS: brew install postgresql@16 tmux && brew install --cask chromium," >&2
    echo "   then FLOWCTL_CHROMIUM=/Applications/Chromium.app/Contents/MacOS/Chromium)" >&2
    return 1
  fi
  if [ "$(id -u)" = 0 ]; then APT=(apt-get); else APT=(sudo apt-get); fi
  "${APT[@]}" update -qq
  DEBIAN_FRONTEND=noninteractive "${APT[@]}" install -y -qq "$@" >/dev/null
}

if [ ! -x .venv/bin/python3 ]; then
  if ! python3 -m venv .venv >/dev/null 2>&1; then
    rm -rf .venv
    apt_install python3-venv
    python3 -m venv .venv
  fi
fi
# shellcheck disable=SC1091
. .venv/bin/activate
