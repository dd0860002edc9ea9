#!/bin/sh
# Install what the test suite needs on a fresh machine, then run it.
# Used by the README's test command and by .ci/run.
set -eu
cd "$(dirname "$0")/.."
need_apt=""
command -v git >/dev/null 2>&1 || need_apt="$need_apt git"
command -v public-inbox-httpd >/dev/null 2>&1 || need_apt="$need_apt public-inbox"
# the triage HTML report is tested in a real headless browser (tests/test_triage_html.py)
command -v chromium >/dev/null 2>&1 || need_apt="$need_apt chromium"
command -v chromedriver >/dev/null 2>&1 || need_apt="$need_apt chromium-driver"
if [ -n "$need_apt" ]; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need_apt >/dev/null
    else
        # Not root: run what can run. The tests that need these skip themselves, and pytest
        # lists each with its reason at the end (-rs).
        echo "tests/run.sh: not installed:$need_apt (Debian packages; as root, tests/run.sh installs them)." >&2
        echo "tests/run.sh: the tests that need them are skipped; the list and the reasons follow the run." >&2
    fi
fi
# Agreement of our MAINTAINERS matching with the kernel's own get_maintainer.pl is tested when a
# kernel source tree is at hand; Debian's linux-source ships one. Best effort: skipped, not failed.
if ! ls /usr/src/linux-source-*.tar.* >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq linux-source >/dev/null 2>&1 \
        || echo "tests/run.sh: linux-source not installed; get_maintainer.pl agreement tests will skip" >&2
fi
# REVIEWTOOL_NO_INSTALL=1: the package is installed already (tests/test_run_sh.py runs this script)
[ -n "${REVIEWTOOL_NO_INSTALL:-}" ] || python3 -m pip install -q -e '.[test]'
# Every core (pytest-xdist, of the test extra); `-n0` among the arguments runs the suite in one process.
parallel=""
python3 -c "import xdist" 2>/dev/null && parallel="-n auto"
set +e
python3 -m pytest -p no:cacheprovider -rs $parallel "$@"
rc=$?
set -e
# pytest exits 5 when no test was collected: that is a failure of the suite, not a pass.
if [ "$rc" = 5 ]; then
    echo "tests/run.sh: pytest collected no tests" >&2
    exit 1
fi
exit "$rc"
