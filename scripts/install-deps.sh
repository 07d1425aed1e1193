#!/usr/bin/env bash
# Installs the Debian packages the build and the tests need, when they are missing and
# we are root; otherwise says what to install.
set -euo pipefail
needed=(libffi-dev pkg-config valgrind libasound2-dev alsa-utils python3 util-linux libsndfile1-dev libsamplerate0-dev
        libpipewire-0.3-dev pipewire pipewire-bin wireplumber pipewire-pulse pulseaudio-utils dbus
        libwebrtc-audio-processing-dev libavformat-dev libavcodec-dev libavutil-dev ffmpeg sox libopenal-dev libsoxr-dev libsoundtouch-dev
        libfluidsynth-dev fluid-soundfont-gm
        dpkg-dev debhelper lintian)
missing=()
for package in "${needed[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ]; then
    echo "Installing: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
    echo "Missing Debian packages: ${missing[*]} (run as root, or: sudo apt-get install ${missing[*]})" >&2
    exit 1
fi
