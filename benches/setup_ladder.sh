#!/usr/bin/env bash
# Set-up cost of flexible dynamics (issue 29): a clamped director rod
# (examples/flexible/05_damped_torsion.toml) of 250 / 500 / 1000 / 2000 quadratic elements,
# cG(2) Petrov–Galerkin, two time elements of 2 ms, `--no-plots`. For each size: the whole
# process's wall time (median of RUNS), the solver's set-up before its first Newton iteration
# (`setup_seconds` of summary.json: pattern and positions of the element system, symbolic LU,
# consistent initial multipliers), the Newton time (assembly + factorisation + solves of the
# blocks), the peak memory, and the fitted growth exponent of the whole-run time and of the
# set-up (log-log least squares against the element count).
#
#   bash benches/setup_ladder.sh                       # build the release binary first
#   STMECH=/path/to/stmech SIZES="250 500" RUNS=5 bash benches/setup_ladder.sh
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUNS="${RUNS:-3}"
SIZES="${SIZES:-250 500 1000 2000}"
WORK="${WORK:-$(mktemp -d -t stmech-setup-XXXXXX)}"
if [[ -z "${STMECH:-}" ]]; then
    echo "building the release binary ..." >&2
    (cd "$here" && cargo build --release -q -p stmech-cli)
    STMECH="$here/target/release/stmech"
fi
[[ -x /usr/bin/time ]] || { echo "error: GNU /usr/bin/time is needed; apt-get install time" >&2; exit 2; }
mkdir -p "$WORK"
median() { sort -g | awk '{a[NR]=$1} END{if(NR%2){print a[(NR+1)/2]} else {print (a[NR/2]+a[NR/2+1])/2}}'; }
json_num() { sed -n "s/^  \"$2\": \([-0-9.eE+]*\),\{0,1\}$/\1/p" "$1" | head -1; }
json_sum() { sed -n "s/^ *\"$2\": \([-0-9.eE+]*\),\{0,1\}$/\1/p" "$1" | awk '{s += $1} END {printf "%.6g\n", s}'; }

rows="$WORK/rows.tsv"
: >"$rows"
for n in $SIZES; do
    scen="$WORK/rod-$n.toml"
    sed -e "s/^elements = 8/elements = $n/" -e "s/^end = 1.0.*/end = 0.004/" -e "s/^blocks = 500/blocks = 2/" \
        "$here/examples/flexible/05_damped_torsion.toml" >"$scen"
    out="$WORK/out-$n"
    cmd=("$STMECH" run "$scen" --out "$out" --force --no-plots)
    "${cmd[@]}" >/dev/null 2>&1 # warm-up
    : >"$WORK/runs.tsv"
    for _ in $(seq "$RUNS"); do
        t0=$(date +%s%N)
        /usr/bin/time -f "%M" -o "$WORK/rss.txt" "${cmd[@]}" >/dev/null 2>&1
        t1=$(date +%s%N)
        s="$out/summary.json"
        newton=$(awk "BEGIN{print $(json_sum "$s" assembly_seconds) + $(json_sum "$s" factorization_seconds) + $(json_sum "$s" solve_seconds)}")
        printf '%s\t%s\t%s\t%s\n' "$(awk "BEGIN{print ($t1 - $t0) / 1e9}")" "$(json_num "$s" setup_seconds)" \
            "$newton" "$(cat "$WORK/rss.txt")" >>"$WORK/runs.tsv"
    done
    col() { cut -f"$1" "$WORK/runs.tsv" | median; }
    printf '%s\t%s\t%s\t%s\t%s\n' "$n" "$(col 1)" "$(col 2)" "$(col 3)" "$(col 4)" >>"$rows"
    printf '  %5s elements: total %.3f s, set-up %.3f s, Newton %.3f s, peak %.0f MiB\n' \
        "$n" "$(col 1)" "$(col 2)" "$(col 3)" "$(awk "BEGIN{print $(col 4)/1024}")" >&2
done

fit() { # slope of log(column $1) against log(size)
    awk -v c="$1" '{x=log($1); y=log($c); n++; sx+=x; sy+=y; sxx+=x*x; sxy+=x*y}
        END{printf "%.2f", (n*sxy - sx*sy) / (n*sxx - sx*sx)}' "$rows"
}
echo "| beam elements | whole run (s) | set-up (s) | Newton (s) | peak (MiB) |"
echo "|---:|---:|---:|---:|---:|"
awk -F'\t' '{printf "| %s | %.3f | %.3f | %.3f | %.0f |\n", $1, $2, $3, $4, $5/1024}' "$rows"
echo
echo "growth exponent: whole run $(fit 2), set-up $(fit 3), Newton $(fit 4) (median of $RUNS runs, $("$STMECH" --version))"
