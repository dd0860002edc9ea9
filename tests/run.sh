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
        echo "tests/run.sh: please install:$need_apt (Debian packages)" >&2
        exit 2
    fi
fi
# Agreement of our MAINTAINERS matching with the kernel's own get_maintainer.pl is tested when a
# kernel source tree is at hand; Debian's linux-source ships one. Best effort: skipped, not failed.
if ! ls /usr/src/linux-source-*.tar.* >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq linux-source >/dev/null 2>&1 \
        || echo "tests/run.sh: linux-source not installed; get_maintainer.pl agreement tests will skip" >&2
fi
python3 -m pip install -q -e '.[test]'
set +e
python3 -m pytest -p no:cacheprovider "$@"
rc=$?
set -e
# pytest exits 5 when no test was collected: that is a failure of the suite, not a pass.
if [ "$rc" = 5 ]; then
    echo "tests/run.sh: pytest collected no tests" >&2
    exit 1
fi
exit "$rc"
