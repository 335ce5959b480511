#!/usr/bin/env bash
# After the README's test command (.ci/run runs it, then this with fuzz tsan asan): the
# test suite under ASan + UBSan (asan: every suite; asan-core: all but the app's and the GUI's),
# the threaded tests under TSan, and a short run of every fuzz target (its crash inputs are
# replayed by ctest in every build). Prints each step's minutes: the wall clock, and the CPU
# minutes of its processes (user + system), which on a busy machine say better what the step
# costs on idle cores (the builds keep both cores busy: their wall time there is about CPU / cores).
#   bash tests/sanitizers/run_ci.sh [fuzz] [tsan] [asan | asan-core]   (none: fuzz tsan asan:
#                                 the cheapest first; HEARTH_FUZZ_SECONDS: per target, default 20)
# A failing step fails the run, but the other parts still run, so that one CI run shows every
# failure; within a part, the steps after a failed one are skipped.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
jobs=$(nproc)

# The Debian packages (clang and libclang-rt-dev among them) are packaging/debian-deps.txt,
# which the README's commands install: run one of them first.
fuzz_seconds=${HEARTH_FUZZ_SECONDS:-20}

# The CPU seconds of the processes this shell has waited for, their children included
# (bash's `times`, second line). Sets cpu_seconds; never call it in a subshell.
cpu_seconds=0
children_cpu() {
    local f
    f=$(mktemp)
    times >"$f"
    cpu_seconds=$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] }; print t }' "$f")
    rm -f "$f"
}
timings=()
failed=()
# step NAME COMMAND...: runs it, records its minutes; returns its status.
step() {
    local name=$1
    shift
    echo "== $name ($(date -u +%T))"
    local start=$SECONDS
    children_cpu
    local cpu_start=$cpu_seconds
    local rc=0
    "$@" || rc=$?
    children_cpu
    local verdict=""
    [ $rc -eq 0 ] || { verdict="   FAILED (exit $rc)"; failed+=("$name"); }
    timings+=("$(awk -v n="$name" -v s=$((SECONDS - start)) -v c="$cpu_start" -v e="$cpu_seconds" -v v="$verdict" \
        'BEGIN { printf "%-28s %5.1f min   %5.1f CPU min%s", n, s / 60, (e - c) / 60, v }')")
    return $rc
}
report() {
    if [ ${#timings[@]} -gt 0 ]; then
        echo "== minutes per step (wall, then CPU of all its processes)"
        printf '%s\n' "${timings[@]}"
    fi
    if [ ${#left_out[@]} -gt 0 ]; then
        echo "== not run, for time (run by hand: bash tests/sanitizers/run_ci.sh PART):"
        printf '   %s\n' "${left_out[@]}"
    fi
}
trap report EXIT

# TSan maps its shadow memory at fixed addresses, which a kernel with more address-space
# randomisation (vm.mmap_rnd_bits above 28) can already have used: "unexpected memory mapping",
# and every test fails at once. Without randomisation the layout is the one TSan expects.
no_aslr=""
if setarch "$(uname -m)" -R true 2>/dev/null; then no_aslr="setarch $(uname -m) -R"; fi

# A time budget (.ci/run sets both, as seconds since the epoch): a part starts only if its usual
# CI minutes (2 cores, cold ccache) end before HEARTH_CI_SOFT_DEADLINE, and every step is stopped
# at HEARTH_CI_HARD_DEADLINE. A part left out or stopped for time is named at the end; it is
# not a failure (nothing was found wrong), but its checks did not run.
soft_deadline=${HEARTH_CI_SOFT_DEADLINE:-}
hard_deadline=${HEARTH_CI_HARD_DEADLINE:-}
left_out=()
usual_minutes() {
    case $1 in
    fuzz) echo 12 ;;
    tsan) echo 15 ;;
    asan-core) echo 35 ;;
    asan) echo 50 ;;
    *) echo 0 ;;
    esac
}
fits() {
    [ -n "$soft_deadline" ] || return 0
    local minutes
    minutes=$(usual_minutes "$1")
    [ $(($(date +%s) + minutes * 60)) -le "$soft_deadline" ]
}
# in_time COMMAND...: runs it, stopped at the hard deadline (exit 124 then).
in_time() {
    if [ -z "$hard_deadline" ]; then
        "$@"
        return
    fi
    local left=$((hard_deadline - $(date +%s)))
    [ $left -gt 0 ] || return 124
    timeout --kill-after=30 "$left" "$@"
}
# timed_step NAME COMMAND...: a step under the hard deadline; a step stopped there is recorded
# as left out for time, not as failed.
timed_step() {
    local name=$1 rc=0
    shift
    step "$name" in_time "$@" || rc=$?
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        unset 'failed[${#failed[@]}-1]'
        timings[${#timings[@]} - 1]="${timings[${#timings[@]} - 1]/FAILED (exit $rc)/STOPPED at the CI time budget}"
        left_out+=("$name (stopped at the CI time budget)")
    fi
    return $rc
}

parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(fuzz tsan asan)
for part in "${parts[@]}"; do
    if ! fits "$part"; then
        echo "== $part: left out, its usual $(usual_minutes "$part") minutes would end past the CI time budget"
        left_out+=("$part (would end past the CI time budget)")
        continue
    fi
    case $part in
    fuzz)
        if timed_step "fuzz: configure" cmake --preset fuzz &&
            timed_step "fuzz: build" cmake --build --preset fuzz -j "$jobs"; then
            for target in $(tests/fuzz/run.sh --list); do
                timed_step "fuzz: $target ${fuzz_seconds}s" tests/fuzz/run.sh "$target" "$fuzz_seconds" || true
            done
        fi
        ;;
    tsan)
        timed_step "tsan: configure" cmake --preset tsan &&
            timed_step "tsan: build" cmake --build --preset tsan -j "$jobs" &&
            timed_step "tsan: threaded tests" $no_aslr ctest --preset tsan -j "$jobs" || true
        ;;
    asan | asan-core)
        # asan (what .ci/run runs): every suite; asan-core: every suite but the app's and the
        # GUI's (CMakePresets.json), about two thirds of the ASan build, for a quicker run by hand.
        timed_step "$part: configure" cmake --preset "$part" &&
            timed_step "$part: build" cmake --build --preset "$part" -j "$jobs" &&
            timed_step "$part: every test" ctest --preset "$part" -j "$jobs" || true
        ;;
    *)
        echo "usage: bash tests/sanitizers/run_ci.sh [fuzz] [tsan] [asan | asan-core]" >&2
        exit 2
        ;;
    esac
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "== failed: ${failed[*]}" >&2
    exit 1
fi
