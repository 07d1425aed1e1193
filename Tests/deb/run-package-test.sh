#!/usr/bin/env bash
# The Debian packages, proven where no Swift toolchain is (issue 32). Builds them
# (`make deb`, lintian included), then in a private mount namespace:
#   - lays a scratch layer over /usr, /etc and /var and installs the four packages there
#     with dpkg (the machine itself is left as it was);
#   - hides the toolchain (/opt/swift) and the tree's own build (.build, build/prefix)
#     under empty folders;
#   - builds README's tone example with the system's pkg-config (AudioToolbox) and a
#     music player written as iPhone code (AudioToolbox-ios), and checks every library
#     they load comes from the packages;
#   - plays the tone on the packaged virtual card and checks the card heard it;
#   - plays the player, arbitrated by the packaged daemon, starts a phone call with the
#     packaged `audiosession` tool, and checks the player was interrupted: its listener
#     ran, its unit had stopped, and nothing rendered after Begin.
#
#   run-package-test.sh OUTDIR
#
# Prints "PASS|FAIL|SKIP package <case>" lines; exits 0 only if none failed.
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: run-package-test.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)

if [ "${AUDIOTOOLBOX_IN_PACKAGE_NAMESPACE:-}" != 1 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "SKIP package install: needs root, for dpkg and a private mount namespace (CI runs make check as root)"
        exit 0
    fi
    if "$here/scripts/make-deb.sh" > "$out/make-deb.log" 2>&1; then
        echo "PASS package build: $(tail -1 "$out/make-deb.log")"
    else
        echo "FAIL package build: make deb failed (log: $out/make-deb.log)"
        tail -20 "$out/make-deb.log" | sed 's/^/    /'
        exit 1
    fi
    AUDIOTOOLBOX_IN_PACKAGE_NAMESPACE=1 exec unshare --mount --propagation private "$0" "$out"
fi

failed=0
pass() { echo "PASS package $1"; }
fail() { failed=1; echo "FAIL package $1"; }
daemons() {
    for process in /proc/[0-9]*; do
        [ "$(readlink "$process/exe" 2>/dev/null)" = /usr/bin/audiosessiond ] && echo "${process#/proc/}"
    done
}
finish() {
    # The packaged daemon (started on demand) ends with the namespace's test.
    for pid in $(daemons); do kill "$pid" 2>/dev/null; done
    exit $failed
}
trap finish EXIT

# ---- install, in a scratch layer --------------------------------------------------------
layer=$out/layer
rm -rf "$layer"
for folder in usr etc var; do
    mkdir -p "$layer/upper/$folder" "$layer/work/$folder"
    mount -t overlay overlay -o "lowerdir=/$folder,upperdir=$layer/upper/$folder,workdir=$layer/work/$folder" \
        "/$folder" || { fail "install: cannot lay a scratch layer over /$folder (overlayfs)"; exit; }
done
debs=("$here"/build/deb/*.deb)
if dpkg -i "${debs[@]}" > "$out/dpkg.log" 2>&1; then
    pass "install: dpkg -i of ${#debs[@]} packages, their dependencies met by Debian's"
else
    fail "install: dpkg -i failed (log: $out/dpkg.log)"
    tail -20 "$out/dpkg.log" | sed 's/^/    /'
    exit
fi

# ---- no toolchain --------------------------------------------------------------------------
for hidden in /opt/swift "$here/.build" "$here/.build-static" "$here/build/prefix"; do
    [ -d "$hidden" ] && mount -t tmpfs -o size=1m,mode=755 empty "$hidden"
done
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
unset PKG_CONFIG_PATH LD_LIBRARY_PATH AUDIOTOOLBOX_BACKEND AUDIOTOOLBOX_ARBITER AUDIOTOOLBOX_DAEMON
if command -v swift swiftc >/dev/null || [ -n "$(ls -A /opt/swift 2>/dev/null)" ]; then
    fail "no toolchain: swift is still reachable"
    exit
fi
pass "no toolchain: /opt/swift, .build, .build-static and build/prefix are empty folders here"

work=$out/work
rm -rf "$work" && mkdir -p "$work"
awk '/^## A tone in twenty lines/ {f = 1} f && /^```c/ {g = 1; next} g && /^```/ {exit} g' "$here/README.md" \
    > "$work/tone.c"
build() { # NAME MODULE SOURCE
    # README's command line, with the module the program is written for.
    cc -o "$work/$1" "$3" $(pkg-config --cflags --libs "$2") -lm > "$work/$1.build.log" 2>&1
}
for program in "tone AudioToolbox $work/tone.c" "session_player AudioToolbox-ios $here/Tests/deb/session_player.c"; do
    set -- $program
    if build "$@"; then
        pass "build $1: cc $(basename "$3") \$(pkg-config --cflags --libs $2)"
    else
        fail "build $1 with the system's pkg-config (log: $work/$1.build.log)"
        sed 's/^/    /' "$work/$1.build.log" | head -20
        exit
    fi
    # Every object it loads is a system library or a packaged one; none from the tree.
    strays=$(ldd "$work/$1" | awk '/=>/ {print $3}' | grep -v -E '^/(usr/)?lib/' || true)
    missing=$(ldd "$work/$1" | grep 'not found' || true)
    foundation=$(ldd "$work/$1" | awk '$1 == "libFoundation.so" {print $3}')
    if [ -z "$strays$missing" ] && [ "$foundation" = "/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/audiotoolbox/swift/libFoundation.so" ]; then
        pass "libraries of $1: all from the system and the packages (libFoundation: $foundation)"
    else
        fail "libraries of $1: ${missing:+missing: $missing }${strays:+from elsewhere: $strays }libFoundation: ${foundation:-none}"
    fi
done

# ---- the tone on the packaged card ---------------------------------------------------------
export XDG_RUNTIME_DIR=$out/runtime
rm -rf "$XDG_RUNTIME_DIR" && mkdir -m 700 -p "$XDG_RUNTIME_DIR"
card_env=$(/usr/bin/vcard setup "$work/card") || { fail "vcard setup (the packaged card)"; exit; }
eval "$card_env"
export VCARD_DIR ALSA_CONFIG_PATH AUDIOTOOLBOX_ALSA_JACK_CTLS=
if "$work/tone" > "$work/tone.out" 2>&1 && heard=$(python3 "$here/Tests/tools/card-heard.py" "$VCARD_DIR" \
        --min-seconds 1.9 --hz 440); then
    pass "tone: README's example heard on the packaged virtual card ($heard)"
else
    fail "tone: README's example on the packaged virtual card (${heard:-did not run}; log: $work/tone.out)"
fi

# ---- a phone call from the packaged tool interrupts the player ---------------------------
/usr/bin/vcard record-reset
"$work/session_player" > "$work/player.out" 2> "$work/player.err" &
player=$!
for _ in $(seq 200); do
    grep -q '^playing' "$work/player.out" && break
    kill -0 "$player" 2>/dev/null || break
    sleep 0.1
done
if ! grep -q '^playing' "$work/player.out"; then
    fail "call: the player never played (stderr: $(head -3 "$work/player.err"))"
    kill "$player" 2>/dev/null
    exit
fi
/usr/bin/audiosession call start > "$work/call.out" 2>&1
call=$?
wait "$player"
status=$?
/usr/bin/audiosession call end >> "$work/call.out" 2>&1
begin=$(sed -n 's/^begin //p' "$work/player.out")
after=$(sed -n 's/^after renders=//p' "$work/player.out")
daemon=$(daemons | head -1)
heard=$(python3 "$here/Tests/tools/card-heard.py" "$VCARD_DIR" --min-seconds 0.4 --hz 440)
toned=$?
if [ "$call" -eq 0 ] && [ "$status" -eq 0 ] && [[ "$begin" == "running=0 renders="* ]] &&
        [ "${begin#running=0 renders=}" = "$after" ] && [ -n "$daemon" ] && [ "$toned" -eq 0 ]; then
    pass "call: \`audiosession call start\` interrupted the player (Begin with its unit stopped, $after renders before and none after; the card heard $heard; arbitrated by /usr/bin/audiosessiond, pid $daemon)"
else
    fail "call: tool exit $call, player exit $status, Begin \"${begin:-none}\", renders after \"${after:-none}\", daemon ${daemon:-none}, card: $heard (stderr: $(head -3 "$work/player.err" | tr '\n' ' '))"
fi
