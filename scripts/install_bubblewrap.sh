#!/bin/sh
# Install bubblewrap (the rollout sandbox) when it is missing: through apt when we are root
# and apt is available, otherwise say exactly how.
command -v bwrap >/dev/null 2>&1 && exit 0
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing bubblewrap with apt-get ..."
    (apt-get update -qq || true) && apt-get install -y -qq bubblewrap >/dev/null && exit 0
    echo "apt-get could not install bubblewrap." >&2
fi
echo "HarnessPro needs bubblewrap: install it with 'sudo apt-get install bubblewrap'" \
     "(Debian/Ubuntu), 'sudo dnf install bubblewrap' (Fedora) or your system's package manager." >&2
exit 1
