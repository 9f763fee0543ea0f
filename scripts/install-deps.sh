#!/usr/bin/env bash
# Installs the Debian packages listed in scripts/apt-packages.txt that are not
# installed yet: the ungrouped ones, plus those of each group named on the
# command line (`install-deps.sh fuzz`). Idempotent: when everything is
# present it only asks dpkg and returns in well under a second.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

groups=" $* "
missing=()
while read -r pkg; do
  [[ -z "$pkg" || "$pkg" == \#* ]] && continue
  if [[ "$pkg" == *:* ]]; then
    group=${pkg%%:*}
    [[ "$groups" == *" $group "* ]] || continue
    pkg=${pkg#*:}
    pkg=${pkg// /}
  fi
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$pkg")
done < "$here/apt-packages.txt"

if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || {
    echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
