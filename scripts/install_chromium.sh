#!/bin/sh
# Install headless Chromium (the dashboard's browser test) when it is missing: through apt
# when we are root and apt is available. Without it that test is skipped with this reason,
# so a failed install does not fail the set-up.
command -v chromium >/dev/null 2>&1 && exit 0
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing chromium with apt-get (dashboard browser test) ..."
    (apt-get update -qq || true) && apt-get install -y -qq chromium >/dev/null && exit 0
    echo "apt-get could not install chromium; the dashboard browser test will be skipped." >&2
    exit 0
fi
echo "the dashboard browser test needs Chromium: 'sudo apt-get install chromium'" \
     "(Debian/Ubuntu); without it that test is skipped." >&2
exit 0
