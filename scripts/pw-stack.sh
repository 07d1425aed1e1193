#!/usr/bin/env bash
# A private, headless sound server for tests: a session D-Bus, PipeWire, WirePlumber and
# pipewire-pulse in the runtime folder DIR (XDG_RUNTIME_DIR), no sound card needed
# (pipewire-pulse brings a "Dummy Output" sink). Nothing of the user's own is touched.
#
#   pw-stack.sh start DIR   prints the environment to eval (XDG_RUNTIME_DIR,
#                           DBUS_SESSION_BUS_ADDRESS, PIPEWIRE_RUNTIME_DIR)
#   pw-stack.sh stop DIR    stops what `start` started, by the PIDs it recorded
#   pw-stack.sh restart-wireplumber DIR
#                           stops the stack's WirePlumber and starts another (same
#                           folders: its saved state is the stack's, never the user's);
#                           returns once the new one has named the default sink
set -euo pipefail
usage="usage: pw-stack.sh start|stop|restart-wireplumber DIR"
command=${1:?$usage}
dir=${2:?$usage}
# Nothing of the user's configuration or state.
private_folders() {
    export XDG_RUNTIME_DIR=$dir PIPEWIRE_RUNTIME_DIR=$dir
    export XDG_CONFIG_HOME=$dir/config XDG_STATE_HOME=$dir/state XDG_DATA_HOME=$dir/data
    export DBUS_SESSION_BUS_ADDRESS=unix:path=$dir/bus
}
wait_default_sink() {
    for _ in $(seq 250); do
        pactl info 2>/dev/null | grep -q "^Default Sink: ." && return 0
        sleep 0.02
    done
    return 1
}
case "$command" in
start)
    mkdir -p -m 700 "$dir"
    private_folders
    mkdir -p "$XDG_CONFIG_HOME" "$XDG_STATE_HOME" "$XDG_DATA_HOME"
    dbus-daemon --session --address="unix:path=$dir/bus" --nofork --nopidfile >"$dir/dbus.log" 2>&1 &
    echo $! > "$dir/pids"
    for _ in $(seq 100); do [ -S "$dir/bus" ] && break; sleep 0.02; done
    pipewire >"$dir/pipewire.log" 2>&1 &
    echo $! >> "$dir/pids"
    for _ in $(seq 100); do [ -S "$dir/pipewire-0" ] && break; sleep 0.02; done
    wireplumber >"$dir/wireplumber.log" 2>&1 &
    echo $! >> "$dir/pids"
    pipewire-pulse >"$dir/pipewire-pulse.log" 2>&1 &
    echo $! >> "$dir/pids"
    # Ready when the default sink exists.
    wait_default_sink || true
    echo "export XDG_RUNTIME_DIR='$dir' PIPEWIRE_RUNTIME_DIR='$dir' DBUS_SESSION_BUS_ADDRESS='unix:path=$dir/bus'"
    ;;
stop)
    [ -f "$dir/pids" ] || exit 0
    tac "$dir/pids" | while read -r pid; do kill "$pid" 2>/dev/null || true; done
    sleep 0.1
    tac "$dir/pids" | while read -r pid; do kill -9 "$pid" 2>/dev/null || true; done
    rm -f "$dir/pids"
    ;;
restart-wireplumber)
    private_folders
    # The third process `start` recorded, or the last one started here.
    old=$(grep -s "^wireplumber " "$dir/wireplumber.pid" | cut -d' ' -f2 || true)
    [ -n "$old" ] || old=$(sed -n 3p "$dir/pids")
    kill "$old"
    for _ in $(seq 250); do kill -0 "$old" 2>/dev/null || break; sleep 0.02; done
    wireplumber >"$dir/wireplumber-restarted.log" 2>&1 &
    echo $! >> "$dir/pids"
    echo "wireplumber $!" > "$dir/wireplumber.pid"
    wait_default_sink || { echo "pw-stack.sh: the restarted WirePlumber named no default sink" >&2; exit 1; }
    ;;
*) echo "$usage" >&2; exit 2 ;;
esac
