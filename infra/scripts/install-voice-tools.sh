#!/usr/bin/env bash
# The Debian packages the telephony tests run as real far ends and media tools: sipp (sip-tester),
# baresip, the speech engines and sox. Installs only what is missing; needs root (or sudo) and
# Debian's package archive. An operator needs flite, espeak-ng, sox, pocketsphinx and
# pocketsphinx-en-us on a telephony host; sipp, baresip and chromium are for tests.
set -euo pipefail

declare -A command_of=(
  [sip-tester]=sipp
  [baresip-core]=baresip
  [espeak-ng]=espeak-ng
  [flite]=flite
  [sox]=sox
  [pocketsphinx]=pocketsphinx_continuous
  [chromium]=chromium
)
missing=()
for package in "${!command_of[@]}"; do
  command -v "${command_of[$package]}" >/dev/null 2>&1 || missing+=("$package")
done
# The acoustic model is data, not a command.
[[ -d /usr/share/pocketsphinx/model/en-us ]] || missing+=(pocketsphinx-en-us)

if ((${#missing[@]} == 0)); then
  echo "voice tools present: ${command_of[*]}"
  exit 0
fi
echo "installing ${missing[*]}"
sudo=()
if ((EUID != 0)); then
  command -v sudo >/dev/null 2>&1 || { echo "need root or sudo to install ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
